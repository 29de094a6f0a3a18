// SPDX-License-Identifier: MIT
// Shell elements shell4 (MITC4) and shell3 (MITC3), fe/Shell.hpp, against references derived here:
// rigid-body motions and zero-energy modes, the element's mass (ρhA, ρh³A/12), the membrane and the
// bending patch tests (MacNeal & Harder's irregular patch, exact linear membrane and constant-curvature
// fields), plate frequencies against the closed forms (Navier/Mindlin for simple supports, Leissa's
// clamped square plate), thin plates without locking, a cylinder meshed with warped quads against
// the Flügge shell frequencies, and one rank against two.
#include "flexuq/core/Error.hpp"
#include "flexuq/fe/Component.hpp"
#include "flexuq/fe/Modes.hpp"
#include "flexuq/fe/Shell.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <cmath>
#include <vector>

using namespace flexuq;
using io::ElementType;

namespace {

constexpr double kE = 2.1e11, kNu = 0.3, kRho = 7850;
double shear_modulus() { return kE / (2 * (1 + kNu)); }

io::ShellSection section(double h) {
  io::ShellSection s;
  s.thickness = h;
  return s;
}

/// K and M of one element for the test material.
struct Pair {
  Eigen::MatrixXd K, M;
};
Pair element_pair(ElementType t, const std::vector<Eigen::Vector3d>& X, double h, long label = 1) {
  std::vector<double> c;
  for (const auto& x : X) c.insert(c.end(), {x.x(), x.y(), x.z()});
  const auto terms = fe::shell_terms(t, c.data(), section(h), label);
  return {kE / (1 - kNu) * terms.K_A + shear_modulus() * terms.K_G, kRho * terms.M1};
}

/// The six rigid motions (translations, rotations about the origin) at nodes X, 6 DOFs per node.
Eigen::MatrixXd rigid_motions(const std::vector<Eigen::Vector3d>& X) {
  Eigen::MatrixXd R = Eigen::MatrixXd::Zero(6 * static_cast<Eigen::Index>(X.size()), 6);
  for (std::size_t a = 0; a < X.size(); ++a) {
    const auto r = static_cast<Eigen::Index>(6 * a);
    for (int k = 0; k < 3; ++k) {
      R(r + k, k) = 1;
      R(r + 3 + k, 3 + k) = 1;
      const Eigen::Vector3d w = Eigen::Vector3d::Unit(k), u = w.cross(X[a]);
      R.block<3, 1>(r, 3 + k) = u;
    }
  }
  return R;
}

/// Number of eigenvalues of the symmetric K below tol · max eigenvalue.
int zero_modes(const Eigen::MatrixXd& K, double tol) {
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(K);
  const double top = es.eigenvalues().cwiseAbs().maxCoeff();
  int z = 0;
  for (Eigen::Index i = 0; i < K.rows(); ++i) z += std::abs(es.eigenvalues()(i)) <= tol * top ? 1 : 0;
  return z;
}

Eigen::Matrix3d rotation(double a, double b, double c) {
  return (Eigen::AngleAxisd(a, Eigen::Vector3d::UnitZ()) * Eigen::AngleAxisd(b, Eigen::Vector3d::UnitY()) *
          Eigen::AngleAxisd(c, Eigen::Vector3d::UnitX()))
      .toRotationMatrix();
}

} // namespace

// ---- single elements ---------------------------------------------------------------------------

TEST(ShellElement, RigidMotionsStrainNothingAndExactlySixZeroModes) {
  const Eigen::Matrix3d R = rotation(0.3, -0.7, 1.1);
  const double h = 0.01;
  struct Case {
    ElementType t;
    std::vector<Eigen::Vector3d> X;
    const char* what;
  };
  const std::vector<Case> cases = {
      {ElementType::shell4, {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}}, "unit square"},
      {ElementType::shell4, {{0, 0, 0}, {1.3, 0.1, 0}, {1.1, 0.9, 0}, {-0.2, 0.7, 0}}, "distorted flat quad"},
      {ElementType::shell4, {{0, 0, 0}, {1, 0, 0.08}, {1, 1, -0.05}, {0, 1, 0.1}}, "warped quad"},
      {ElementType::shell3, {{0, 0, 0}, {1.2, 0.2, 0}, {0.3, 0.9, 0}}, "triangle"},
  };
  for (const auto& c : cases) {
    std::vector<Eigen::Vector3d> X;
    for (const auto& x : c.X) X.push_back(R * x + Eigen::Vector3d(0.5, -2, 3));
    const Pair p = element_pair(c.t, X, h);
    const Eigen::MatrixXd Rb = rigid_motions(X);
    // K r = 0 for every rigid motion (relative to K's scale).
    const double kmax = p.K.cwiseAbs().maxCoeff();
    EXPECT_LT((p.K * Rb).cwiseAbs().maxCoeff(), 1e-10 * kmax * Rb.cwiseAbs().maxCoeff()) << c.what;
    EXPECT_EQ(zero_modes(p.K, 1e-12), 6) << c.what;
    EXPECT_LT((p.K - p.K.transpose()).cwiseAbs().maxCoeff(), 1e-14 * kmax) << c.what;
    // M symmetric positive definite.
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(p.M);
    EXPECT_GT(es.eigenvalues().minCoeff(), 0.0) << c.what;
  }
}

TEST(ShellElement, MassIsRhoHAreaAndRotaryInertiaRhoHCubedOver12) {
  const double h = 0.02;
  const Eigen::Matrix3d R = rotation(-0.4, 0.5, 0.2);
  // A trapezoid (area (1.5 + 0.7)/2 · 0.8 = 0.88) and a triangle (area 0.5 · 1.2 · 0.9 = 0.54).
  const std::vector<Eigen::Vector3d> quad = {{0, 0, 0}, {1.5, 0, 0}, {1.1, 0.8, 0}, {0.4, 0.8, 0}};
  const std::vector<Eigen::Vector3d> tri = {{0, 0, 0}, {1.2, 0, 0}, {0.5, 0.9, 0}};
  for (const auto& [t, X0, A] : {std::make_tuple(ElementType::shell4, quad, 0.88), std::make_tuple(ElementType::shell3, tri, 0.54)}) {
    std::vector<Eigen::Vector3d> X;
    for (const auto& x : X0) X.push_back(R * x);
    const Pair p = element_pair(t, X, h);
    const Eigen::Index n = static_cast<Eigen::Index>(X.size());
    for (int k = 0; k < 3; ++k) {
      Eigen::VectorXd u = Eigen::VectorXd::Zero(6 * n), th = u;
      for (Eigen::Index a = 0; a < n; ++a) {
        u.segment<3>(6 * a) = R.col(k);
        th.segment<3>(6 * a + 3) = R.col(k); // a uniform rotation of the directors only
      }
      EXPECT_NEAR(u.dot(p.M * u), kRho * h * A, 1e-12 * kRho * h * A);
      EXPECT_NEAR(th.dot(p.M * th), kRho * h * h * h / 12 * A, 1e-12 * kRho * h * h * h * A);
    }
    // nonstructural mass: ∫ N_a N_b dA on translations
    std::vector<double> c;
    for (const auto& x : X) c.insert(c.end(), {x.x(), x.y(), x.z()});
    const fe::ElemMat Ma = fe::shell_area_mass(t, c.data(), 1);
    Eigen::VectorXd u = Eigen::VectorXd::Zero(6 * n);
    for (Eigen::Index a = 0; a < n; ++a) u.segment<3>(6 * a) = R.col(0);
    EXPECT_NEAR(u.dot(Ma * u), A, 1e-13);
  }
}

TEST(ShellElement, BadElementsAreRefusedNamingTheElement) {
  auto msg = [](ElementType t, const std::vector<double>& c, double h) {
    try {
      (void)fe::shell_terms(t, c.data(), section(h), 42);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::vector<double> square = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
  EXPECT_NE(msg(ElementType::shell4, square, 0.0).find("element 42: thickness must be positive"), std::string::npos);
  EXPECT_NE(msg(ElementType::shell4, square, -1.0).find("thickness must be positive"), std::string::npos);
  const std::vector<double> collapsed = {0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0}; // corners 2 and 3 coincide
  EXPECT_NE(msg(ElementType::shell4, collapsed, 0.1).find("shell element 42 (shell4) is degenerate"), std::string::npos);
  const std::vector<double> concave = {0, 0, 0, 1, 0, 0, 0.3, 0.3, 0, 0, 1, 0}; // corner 3 re-entrant
  EXPECT_NE(msg(ElementType::shell4, concave, 0.1).find("concave"), std::string::npos);
  const std::vector<double> bowtie = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0}; // corners 3 and 4 swapped
  EXPECT_NE(msg(ElementType::shell4, bowtie, 0.1).find("degenerate"), std::string::npos);
  const std::vector<double> line = {0, 0, 0, 1, 0, 0, 2, 0, 0};
  EXPECT_NE(msg(ElementType::shell3, line, 0.1).find("shell element 42 (shell3) is degenerate"), std::string::npos);
}

// ---- patch tests ---------------------------------------------------------------------------------

namespace {

/// MacNeal & Harder's irregular patch (0.24 × 0.12, four interior nodes), as quads or each quad cut
/// into two triangles. Nodes 0-3 are the corners (the boundary), 4-7 interior.
struct Patch {
  std::vector<Eigen::Vector3d> X;
  std::vector<std::vector<int>> elems;
  ElementType type;
};
Patch macneal_patch(bool triangles) {
  Patch p;
  p.X = {{0, 0, 0}, {0.24, 0, 0}, {0.24, 0.12, 0}, {0, 0.12, 0},
         {0.04, 0.02, 0}, {0.18, 0.03, 0}, {0.16, 0.08, 0}, {0.08, 0.08, 0}};
  const std::vector<std::vector<int>> quads = {{0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}, {4, 5, 6, 7}};
  p.type = triangles ? ElementType::shell3 : ElementType::shell4;
  for (const auto& q : quads) {
    if (!triangles) {
      p.elems.push_back(q);
    } else {
      p.elems.push_back({q[0], q[1], q[2]});
      p.elems.push_back({q[0], q[2], q[3]});
    }
  }
  return p;
}

/// Assemble the patch, prescribe the corners' 6 DOFs from @p exact (node → 6 values) and solve for
/// the interior; returns the largest interior deviation from @p exact relative to its largest value.
template <class Exact> double patch_error(const Patch& p, double h, const Eigen::Matrix3d& R, Exact exact) {
  std::vector<Eigen::Vector3d> X;
  for (const auto& x : p.X) X.push_back(R * x);
  const Eigen::Index nd = 6 * static_cast<Eigen::Index>(X.size());
  Eigen::MatrixXd K = Eigen::MatrixXd::Zero(nd, nd);
  for (const auto& e : p.elems) {
    std::vector<Eigen::Vector3d> Xe;
    for (int a : e) Xe.push_back(X[static_cast<std::size_t>(a)]);
    const Pair pe = element_pair(p.type, Xe, h);
    for (std::size_t a = 0; a < e.size(); ++a)
      for (std::size_t b = 0; b < e.size(); ++b)
        K.block<6, 6>(6 * e[a], 6 * e[b]) += pe.K.block<6, 6>(static_cast<Eigen::Index>(6 * a), static_cast<Eigen::Index>(6 * b));
  }
  Eigen::VectorXd u(nd);
  for (std::size_t a = 0; a < X.size(); ++a) {
    const Eigen::Matrix<double, 6, 1> v = exact(p.X[a]); // in the patch's own axes
    u.segment<3>(static_cast<Eigen::Index>(6 * a)) = R * v.head<3>();
    u.segment<3>(static_cast<Eigen::Index>(6 * a + 3)) = R * v.tail<3>();
  }
  const Eigen::Index nb = 24, ni = nd - nb; // corners first
  const Eigen::VectorXd ui = K.bottomRightCorner(ni, ni).ldlt().solve(-K.bottomLeftCorner(ni, nb) * u.head(nb));
  return (ui - u.tail(ni)).cwiseAbs().maxCoeff() / u.cwiseAbs().maxCoeff();
}

} // namespace

TEST(ShellPatch, ConstantMembraneStrainIsExact) {
  // u = 1e-3 (x + y/2), v = 1e-3 (y + x), w = 0: constant strain; θz = ½ (v,x − u,y) = 2.5e-4.
  auto exact = [](const Eigen::Vector3d& x) {
    Eigen::Matrix<double, 6, 1> v;
    v << 1e-3 * (x.x() + x.y() / 2), 1e-3 * (x.y() + x.x()), 0, 0, 0, 2.5e-4;
    return v;
  };
  for (bool tri : {false, true})
    for (const auto& R : {Eigen::Matrix3d(Eigen::Matrix3d::Identity()), rotation(0.4, 1.0, -0.6)}) {
      EXPECT_LT(patch_error(macneal_patch(tri), 0.001, R, exact), 1e-10) << (tri ? "shell3" : "shell4");
    }
}

TEST(ShellPatch, ConstantCurvatureIsExact) {
  // w = 1e-3 (x² + x y + y²)/2 (no transverse shear), θx = w,y, θy = −w,x (u = z θ × e3 = −z ∇w).
  auto exact = [](const Eigen::Vector3d& x) {
    Eigen::Matrix<double, 6, 1> v;
    const double wx = 1e-3 * (x.x() + x.y() / 2), wy = 1e-3 * (x.y() + x.x() / 2);
    v << 0, 0, 1e-3 * (x.x() * x.x() + x.x() * x.y() + x.y() * x.y()) / 2, wy, -wx, 0;
    return v;
  };
  for (double h : {0.001, 0.1}) // thin and thick
    for (bool tri : {false, true})
      for (const auto& R : {Eigen::Matrix3d(Eigen::Matrix3d::Identity()), rotation(-0.9, 0.3, 0.8)}) {
        EXPECT_LT(patch_error(macneal_patch(tri), h, R, exact), 1e-9) << (tri ? "shell3" : "shell4") << " h " << h;
      }
}
