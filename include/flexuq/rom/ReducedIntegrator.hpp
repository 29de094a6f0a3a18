// SPDX-License-Identifier: MIT
#pragma once
/// @file ReducedIntegrator.hpp
/// @brief The online step of seed 003 (§2.15–2.17, docs/rom.md): the reduced index-3 DAE
///   Vᵀ M(q̃) V q̈_r + (Γᵀ C_q(q̃) V)ᵀ λ_l = Vᵀ Q(q̃, V q̇_r, t),   Γᵀ C(q̃, t) = 0,   q̃ = V q_r + R0,
/// integrated by the same generalized-α recursion as mbs::Integrator (HHT-α or Chung–Hulbert,
/// mbs::newmark_coefficients) in its index-3 form: Newton on (q̈_r, λ_l) with the position rows
/// scaled by 1/(βh²c). Per iteration only n-vectors are formed — M(q̃)·Vq̈_r per body, C_qᵀ(Γλ_l)
/// and C from one pass over the rows without C_q, Q — and projected by Vᵀ. The (r + l) iteration
/// matrix is [Σ_b V_bᵀ(M_b)V_b + Vᵀ(βh²c K̄ + γhc D̄)V, (ΓᵀC_qV)ᵀ; ΓᵀC_qV, 0] from the bodies' 7 × 7
/// mass blocks (K̄, D̄ only for flexible bodies, springs and dampers) and C_q V at a rebuild — the full
/// scheme's analytic blocks projected — or, with `solver.matrix: finite-difference`, the whole reduced
/// residual's by forward differences in the r reduced accelerations (r residuals where the full model's
/// takes 2n). It is kept across iterations and steps while Newton contracts (modified Newton, as the
/// full scheme). The invariant rank(ΓᵀC_qV) = l is checked at every rebuild (an error when it is lost)
/// and its smallest σ_min/σ_max reported. Outputs are those of the full model at q̃, q̃̇ = V q̇_r,
/// q̃̈ = V q̈_r; the multipliers are Γ λ_l, which are not the full model's constraint forces (seed §4.5).
/// Fixed steps (solver.step; a Newton failure halves the step, as the full scheme).

#include "flexuq/mbs/Integrator.hpp"
#include "flexuq/rom/Basis.hpp"
#include "flexuq/rom/ReducedConstraints.hpp"

#include <functional>
#include <optional>

namespace flexuq::rom {

struct ReducedStats {
  mbs::RunStats run;
  double min_rank_ratio = 1.0; ///< smallest σ_min/σ_max of ΓᵀC_qV met at the rebuilds (column-pivoted QR estimate)
  long rank_checks = 0;
  double initial_offset = 0.0; ///< ‖V Vᵀ(q0 − R0) + R0 − q0‖∞ of the run's initial q
};

class ReducedIntegrator {
public:
  /// @p sys must have the active rows the basis was built with (checked: an InputError naming them).
  /// @throws OptionError naming solver.type / solver.adaptive for schemes the ROM does not run.
  ReducedIntegrator(mbs::System& sys, mbs::SolverOptions o, const ReducedBasis& b);
  /// Reduce the consistent full initial state @p full (mbs::Integrator::initialise): q_r = Vᵀ(q − R0),
  /// q̇_r = Vᵀq̇, and (q̈_r, λ_l) from the reduced saddle system. Throws when it is singular.
  void initialise(const mbs::State& full);
  /// Integrate to o.end; @p output gets the back-projected state at the start and every output time.
  ReducedStats run(const std::function<void(const mbs::State&, double work)>& output,
                   const std::function<void(double)>& progress = {});

private:
  struct Reduced {
    double t = 0;
    Vec q, v, a, lambda, aux;
  };
  bool step(double h, Reduced& out, mbs::RunStats& st);
  Vec full_q(const Vec& qr) const { return b_.V * qr + b_.R0; }
  mbs::State back_projected(const Reduced& s) const;
  /// Σ_b V_bᵀ M_b(q) V_b over the bodies' own mass blocks (+ Vᵀ(ck K̄ + cd D̄)V when the model has
  /// flexible bodies, springs or dampers).
  Mat reduced_matrix(const Vec& q, double ck, double cd);
  Mat reduced_jacobian(const Vec& q, double t); ///< ΓᵀC_q V, with the rank check
  void check_rank(const Mat& j, double t);      ///< rank(ΓᵀC_qV) = l, else an Error naming t

  mbs::System& sys_;
  mbs::SolverOptions o_;
  const ReducedBasis& b_;
  std::optional<ReducedConstraints> rc_; ///< Γᵀ Φ, C_qᵀΓλ_l, Γᵀ C_q V contracted directly (set once the sizes are checked)
  /// (first coordinate, count) of the bodies V touches whose mass block has no constant part
  /// (BodyModel::constant_mass_block empty: floating-frame bodies)
  std::vector<std::pair<int, int>> bodies_;
  /// A body V touches with M_b = blockdiag(C, N(q)) (BodyModel::constant_mass_block, C k × k; a rigid
  /// body: m 1 and 4GᵀJG): its V_kᵀ C V_k is in mass_const_, N enters through the columns where V's
  /// rows past the k are not zero (vp: (cnt − k) × cols).
  struct SplitPart {
    int off, k, cnt;
    std::vector<int> cols;
    Mat vp;
  };
  std::vector<SplitPart> split_;
  Mat mass_const_;          ///< Σ over those bodies of V_kᵀ C V_k (r × r), formed once
  Mat mb_, rot_, rot_w_;    ///< work arrays of reduced_matrix (no allocation per rebuild)
  std::vector<int> kpos_;   ///< per coordinate: its index in the K̄ support at a rebuild, or −1
  std::vector<int> kcoord_; ///< the K̄ support's coordinates
  Mat ks_, vs_;             ///< K̄ on its support (s × s) and V's rows there (s × r)
  bool stiff_ = false;                      ///< flexible bodies, springs or dampers: K̄, D̄ enter the matrix
  Reduced s_;
  Vec prev_a_, prev_lambda_;
  double prev_h_ = 0;
  Mat jac_;
  mbs::Triplets triplets_; ///< the K̄, D̄ entries at a rebuild
  Eigen::PartialPivLU<Mat> lu_;
  double jac_h_ = -1;
  ReducedStats stats_;
};

} // namespace flexuq::rom
