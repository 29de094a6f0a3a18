// SPDX-License-Identifier: MIT
#pragma once
/// @file ConstraintRows.hpp
/// @brief The algebra of scalar constraint rows over body vectors, apart from the joints that
/// make them (System::add_joint, mbs/Joint.hpp) and the Euler-parameter norm rows (System).
///
/// Every joint row has the form  Φ = Σ_k c_k(t) u_kᵀ v_k − g(t) − φ0, where u_k, v_k are global
/// vectors built from body-fixed parts (a body axis A_b a', or a separation d = r_j + A_j s_j −
/// r_i − A_i s_i). This one form covers Haug's dot-1, dot-2, spherical, distance and the
/// rotational / translational drivers (seed 004 §2.8), and gives C_q, Φ_t and γ analytically:
///   C_q = Σ c (vᵀ U_q + uᵀ V_q),
///   γ  = −Σ [c (vᵀ u_c + uᵀ v_c + 2 u̇ᵀv̇) + 2 c' (u̇ᵀ v + uᵀ v̇) + c'' uᵀ v] + g'',
/// with the convective part w_c = Σ ± B(ṗ, a') ṗ of ẅ = W_q q̈ + w_c (B is linear in p).
/// On a flexible body a part is A(p)(s + L η) (mbs/Body.hpp), and w_c gains 2 B(p, L η̇) ṗ.

#include "flexuq/mbs/Body.hpp"
#include "flexuq/mbs/TimeFunction.hpp"

#include <array>
#include <deque>
#include <string>
#include <vector>

namespace flexuq::mbs {

/// A global vector Σ sign·(r_b if point) + A_b local over its parts (ground parts are constants).
struct BodyVector {
  struct Part {
    int body;
    Vec3 local;
    double sign;
    bool point;
    Mat L = Mat(); ///< flexible bodies: 3 × n_e, the body-frame motion of the part with η
    /// ≥ 0: an axis A(p_e) local turning with Euler parameters p_e = η[euler, euler + 4) of a body whose
    /// frame is held at the global frame (a 3-D GS interface point, mbs/GsBody3d.hpp); L and the held
    /// frame's (r, p) unused.
    int euler = -1;
  };
  std::vector<Part> parts;
};

/// The rows of a system's joints and the body vectors they use. Evaluated on the system's
/// coordinates with the first coordinate of each body (@p off: r at off[b], p at off[b] + 3, η at
/// off[b] + 7); a part on body kGround is constant. Move-only: rows point into the motions kept here
/// (a deque, whose elements keep their addresses when the container is moved, but not in a copy).
class ConstraintRows {
public:
  /// A row term's coefficient c(t) with c', c'': 1, or cos θ(t) / −sin θ(t) of a driver's motion θ.
  struct Coef {
    enum Kind { one, cos_motion, neg_sin_motion } kind = one;
    const TimeFunction* f = nullptr;
    std::array<double, 3> eval(double t) const;
  };
  struct Term {
    Coef c;
    int u, v; ///< indices of body vectors
  };
  struct Row {
    std::vector<Term> terms;
    const TimeFunction* g = nullptr; ///< subtracted (drivers)
    double phi0 = 0.0;               ///< subtracted constant (distance²)
    int joint = -1;
    std::string label;
  };
  /// A body vector w at (q, q̇): w, ẇ and the convective part w_c of ẅ.
  struct VecState {
    Vec3 w, wd, wc;
  };
  using RowRef = Eigen::Ref<Eigen::RowVectorXd, 0, Eigen::InnerStride<>>;

  ConstraintRows() = default;
  ConstraintRows(const ConstraintRows&) = delete;
  ConstraintRows& operator=(const ConstraintRows&) = delete;
  ConstraintRows(ConstraintRows&&) = default;
  ConstraintRows& operator=(ConstraintRows&&) = default;

  /// Body @p b has planar coordinates [x, y, e0, e3] at z = @p z (mbs/PlanarBody.hpp); bodies not
  /// named here have r at off[b] and p at off[b] + 3.
  void set_planar(int b, double z);
  /// Add a body vector; returns its index.
  int add_vector(BodyVector bv);
  /// A constant (ground) vector @p w.
  int constant_vector(const Vec3& w);
  /// Keep a copy of @p f at a stable address (a driver's motion, for Coef::f and Row::g).
  const TimeFunction* keep(const TimeFunction& f);
  void add_row(Row r);
  /// The row uᵀv − φ0 of joint @p joint.
  void add_dot_row(int joint, const std::string& label, int u, int v, double phi0 = 0.0);

  int size() const { return static_cast<int>(rows_.size()); }
  const Row& row(int r) const { return rows_[static_cast<std::size_t>(r)]; }
  const BodyVector& vector(int k) const { return vectors_[static_cast<std::size_t>(k)]; }

  /// Every body vector at @p q (and its rates at @p v if given; else only w is set).
  void vector_states(const Vec& q, const Vec* v, const std::vector<int>& off, std::vector<VecState>& out) const;
  /// Φ of row @p r.
  double value(int r, const std::vector<VecState>& s, double t) const;
  /// Add @p scale × (row @p r of C_q) to @p out (size n); with @p rate set *rate to the row's
  /// dΦ/dt = C_q q̇ + Φ_t = Σ [c (u̇ᵀv + uᵀv̇) + c' uᵀv] − g'(t) (needs states with rates).
  void add_gradient(int r, const std::vector<VecState>& s, const Vec& q, double t, double scale, const std::vector<int>& off,
                    RowRef out, double* rate = nullptr) const;
  /// ∂Φ/∂t of row @p r.
  double phi_t(int r, const std::vector<VecState>& s, double t) const;
  /// γ of row @p r (states with rates): C_q q̈ = γ.
  double gamma(int r, const std::vector<VecState>& s, double t) const;

private:
  /// d/dt of one term c(t) uᵀv: c (u̇ᵀv + uᵀv̇) + c' uᵀv, with @p c = {c, c', c''}.
  static double term_rate(const std::array<double, 3>& c, const VecState& u, const VecState& v) {
    return c[0] * (u.wd.dot(v.w) + u.w.dot(v.wd)) + c[1] * u.w.dot(v.w);
  }
  /// Add coeffᵀ ∂w/∂q of body vector @p vec to @p row.
  void add_vector_jacobian(int vec, const Vec3& coeff, const Vec& q, const std::vector<int>& off, RowRef row) const;

  /// Where body @p b's frame coordinates are (its first coordinate from @p off).
  FrameLayout layout(int b, const std::vector<int>& off) const;

  std::vector<BodyVector> vectors_;
  std::vector<Row> rows_;
  std::vector<double> plane_z_; ///< per body: z of a planar body, NaN for a 3-D one (absent: 3-D)
  std::deque<TimeFunction> motions_; ///< stable addresses for Coef/Row
};

} // namespace flexuq::mbs
