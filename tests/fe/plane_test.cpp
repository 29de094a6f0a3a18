// SPDX-License-Identifier: MIT
// 2-D continuum elements quad4, quad8, tri3, tri6 (plane stress and plane strain) and the bar2
// element, fe/Plane.hpp, against references derived here: the constant-strain patch test on a
// distorted patch (interior forces vanish, strain energy = ½ t A εᵀDε exactly, curved inner edges
// for the quadratic elements), the three rigid motions, the element mass t A, the plane-strain /
// plane-stress equivalence E* = E/(1−ν²), ν* = ν/(1−ν), the axial frequencies of a fixed-free rod
// (bar2 in 2-D and 3-D), a plane-stress cantilever against the roots of Timoshenko's beam equations,
// a free 2-D component's three rigid modes, and bad input (thickness, ν = 0.5 in plane strain,
// degenerate and folded elements) refused with the element named.
#include "PetscTestUtil.hpp"
#include "PlaneMesh.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/fe/Component.hpp"
#include "flexuq/fe/Modes.hpp"
#include "flexuq/fe/Plane.hpp"
#include "flexuq/fe/StressRecovery.hpp"

#include <petscmat.h>

#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

using namespace flexuq;
using io::ElementType;
using test::grid_mesh;
using test::plane_section;
using test::add_steel_section;

namespace {

constexpr double kE = test::kPlaneE, kNu = test::kPlaneNu, kRho = test::kPlaneRho;
double shear_modulus() { return kE / (2 * (1 + kNu)); }
double lame_lambda() { return kE * kNu / ((1 + kNu) * (1 - 2 * kNu)); }

/// K's two coefficients for the test material: (E/(1−ν), G) in plane stress, (λ, μ) in plane strain.
std::array<double, 2> coefficients(bool strain, double E = kE, double nu = kNu) {
  const double G = E / (2 * (1 + nu));
  if (strain) return {E * nu / ((1 + nu) * (1 - 2 * nu)), G};
  return {E / (1 - nu), G};
}

/// D of the test material (σ = D ε, ε = (εxx, εyy, γxy)).
Eigen::Matrix3d elasticity(bool strain) {
  Eigen::Matrix3d D;
  if (strain) {
    const double l = lame_lambda(), m = shear_modulus();
    D << l + 2 * m, l, 0, l, l + 2 * m, 0, 0, 0, m;
  } else {
    const double c = kE / (1 - kNu * kNu);
    D << c, c * kNu, 0, c * kNu, c, 0, 0, 0, c * (1 - kNu) / 2;
  }
  return D;
}

/// A patch of elements on nodes X (x, y), dense global K (for the test material) and M (ρ = 1).
struct Patch {
  std::vector<Eigen::Vector2d> X;
  std::vector<std::vector<int>> elems;
  ElementType type = ElementType::quad4;
};

struct Dense {
  Eigen::MatrixXd K, M;
};
Dense assemble(const Patch& p, const io::PlaneSection& sec) {
  const auto n = static_cast<Eigen::Index>(2 * p.X.size());
  Dense d{Eigen::MatrixXd::Zero(n, n), Eigen::MatrixXd::Zero(n, n)};
  const auto c = coefficients(sec.strain);
  long label = 1;
  for (const auto& e : p.elems) {
    std::vector<double> xyz;
    for (int v : e) xyz.insert(xyz.end(), {p.X[static_cast<std::size_t>(v)].x(), p.X[static_cast<std::size_t>(v)].y(), 0.0});
    const auto t = fe::plane_terms(p.type, xyz.data(), sec, label++);
    const Eigen::MatrixXd Ke = c[0] * t.K0 + c[1] * t.K1;
    for (std::size_t a = 0; a < e.size(); ++a)
      for (std::size_t b = 0; b < e.size(); ++b)
        for (int i = 0; i < 2; ++i)
          for (int j = 0; j < 2; ++j) {
            d.K(2 * e[a] + i, 2 * e[b] + j) += Ke(static_cast<Eigen::Index>(2 * a + i), static_cast<Eigen::Index>(2 * b + j));
            d.M(2 * e[a] + i, 2 * e[b] + j) += t.M1(static_cast<Eigen::Index>(2 * a + i), static_cast<Eigen::Index>(2 * b + j));
          }
  }
  return d;
}

/// MacNeal & Harder's irregular patch on the 0.24 × 0.12 rectangle: four outer corners (0..3) and
/// four interior nodes (4..7), five quadrilaterals. Quadratic elements get mid-side nodes at the
/// edge midpoints on the outer boundary and on the triangles' diagonals, and moved off the midpoint
/// (curved edges) on the other inner edges; triangles split each quadrilateral along a diagonal.
Patch irregular_patch(ElementType type) {
  Patch p;
  p.type = type;
  p.X = {{0, 0}, {0.24, 0}, {0.24, 0.12}, {0, 0.12}, {0.04, 0.02}, {0.18, 0.03}, {0.16, 0.08}, {0.08, 0.08}};
  const std::vector<std::array<int, 4>> quads = {{0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}, {4, 5, 6, 7}};
  const auto outer = [](int a, int b) { return a < 4 && b < 4; };
  std::map<std::pair<int, int>, int> mid;
  bool diagonal = false; // the triangles' diagonals stay straight
  const auto midside = [&](int a, int b) {
    const auto key = std::minmax(a, b);
    auto it = mid.find(key);
    if (it != mid.end()) return it->second;
    Eigen::Vector2d x = 0.5 * (p.X[static_cast<std::size_t>(a)] + p.X[static_cast<std::size_t>(b)]);
    if (!outer(a, b) && !diagonal) { // curve the inner edges: move the mid-side node along the normal by 4 % of the edge
      const Eigen::Vector2d d = p.X[static_cast<std::size_t>(key.second)] - p.X[static_cast<std::size_t>(key.first)];
      x += 0.04 * Eigen::Vector2d(-d.y(), d.x());
    }
    p.X.push_back(x);
    return mid[key] = static_cast<int>(p.X.size()) - 1;
  };
  for (const auto& q : quads) {
    if (type == ElementType::quad4) p.elems.push_back({q[0], q[1], q[2], q[3]});
    if (type == ElementType::quad8)
      p.elems.push_back({q[0], q[1], q[2], q[3], midside(q[0], q[1]), midside(q[1], q[2]), midside(q[2], q[3]),
                         midside(q[3], q[0])});
    for (const auto& t : {std::array<int, 3>{q[0], q[1], q[2]}, std::array<int, 3>{q[0], q[2], q[3]}}) {
      if (type == ElementType::tri3) p.elems.push_back({t[0], t[1], t[2]});
      if (type == ElementType::tri6) {
        const auto side = [&](int a, int b) { // the diagonal q0-q2 stays straight
          diagonal = std::minmax(a, b) == std::minmax(q[0], q[2]);
          const int v = midside(a, b);
          diagonal = false;
          return v;
        };
        const int m01 = side(t[0], t[1]), m12 = side(t[1], t[2]), m20 = side(t[2], t[0]);
        p.elems.push_back({t[0], t[1], t[2], m01, m12, m20});
      }
    }
  }
  return p;
}


/// The linear field u = a + B x of the patch tests, B = [[2, 3], [−1, 4]]·1e-3, and its strain
/// ε = (B_xx, B_yy, B_xy + B_yx).
struct LinearField {
  Eigen::Matrix2d B = (Eigen::Matrix2d() << 2e-3, 3e-3, -1e-3, 4e-3).finished();
  Eigen::Vector2d a{0.5e-3, -0.2e-3};
  Eigen::Vector3d eps{B(0, 0), B(1, 1), B(0, 1) + B(1, 0)};
  Eigen::Vector2d at(const Eigen::Vector2d& x) const { return a + B * x; }
};

const ElementType kTypes[] = {ElementType::quad4, ElementType::quad8, ElementType::tri3, ElementType::tri6};

} // namespace

TEST(PlaneElements, ConstantStrainPatchTestOnADistortedPatch) {
  // u = a + B x with B = [[2, 3], [−1, 4]]·1e-3: every node of the patch moves by the linear field;
  // the nodal forces K u vanish at the interior nodes (so a patch with prescribed outer nodes
  // reproduces the field exactly) and ½ uᵀKu = ½ t A εᵀ D ε, A = 0.24 · 0.12.
  const double t = 0.01;
  const LinearField lf;
  const Eigen::Vector3d& eps = lf.eps;
  for (bool strain : {false, true})
    for (ElementType type : kTypes) {
      const Patch p = irregular_patch(type);
      const Dense d = assemble(p, plane_section(t, strain));
      Eigen::VectorXd u(2 * static_cast<Eigen::Index>(p.X.size()));
      for (std::size_t v = 0; v < p.X.size(); ++v) u.segment<2>(2 * static_cast<Eigen::Index>(v)) = lf.at(p.X[v]);
      const Eigen::VectorXd f = d.K * u;
      double interior = 0;
      for (std::size_t v = 4; v < p.X.size(); ++v) {
        const bool boundary = v >= 8 && (std::abs(p.X[v].y()) < 1e-14 || std::abs(p.X[v].y() - 0.12) < 1e-14 ||
                                         std::abs(p.X[v].x()) < 1e-14 || std::abs(p.X[v].x() - 0.24) < 1e-14);
        if (!boundary) interior = std::max(interior, f.segment<2>(2 * static_cast<Eigen::Index>(v)).cwiseAbs().maxCoeff());
      }
      const double energy = 0.5 * u.dot(f), exact = 0.5 * t * 0.24 * 0.12 * eps.dot(elasticity(strain) * eps);
      std::printf("[PlanePatch] %s %s: max interior |f| / max |f| %.2e, energy error %.2e\n", io::element_name(type),
                  strain ? "strain" : "stress", interior / f.cwiseAbs().maxCoeff(), std::abs(energy / exact - 1));
      EXPECT_LT(interior, 1e-10 * f.cwiseAbs().maxCoeff()) << io::element_name(type);
      EXPECT_NEAR(energy / exact, 1.0, 1e-12) << io::element_name(type);
    }
}

TEST(PlaneElements, ThreeRigidMotionsAndTheElementMass) {
  // K has exactly three zero eigenvalues (translations x, y and the rotation about z, here checked
  // as vectors in its null space) and M sums to t A per direction.
  const double t = 0.02;
  for (ElementType type : kTypes) {
    const Patch p = irregular_patch(type);
    const Dense d = assemble(p, plane_section(t, false));
    const auto n = d.K.rows();
    Eigen::MatrixXd R = Eigen::MatrixXd::Zero(n, 3);
    for (std::size_t v = 0; v < p.X.size(); ++v) {
      const auto r = static_cast<Eigen::Index>(2 * v);
      R(r, 0) = 1;
      R(r + 1, 1) = 1;
      R(r, 2) = -p.X[v].y();
      R(r + 1, 2) = p.X[v].x();
    }
    EXPECT_LT((d.K * R).cwiseAbs().maxCoeff(), 1e-12 * d.K.cwiseAbs().maxCoeff()) << io::element_name(type);
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(d.K);
    const double top = es.eigenvalues().maxCoeff();
    EXPECT_LT(std::abs(es.eigenvalues()(2)), 1e-12 * top) << io::element_name(type);
    EXPECT_GT(es.eigenvalues()(3), 1e-6 * top) << io::element_name(type); // no spurious zero-energy mode
    Eigen::VectorXd ex = Eigen::VectorXd::Zero(n);
    for (Eigen::Index r = 0; r < n; r += 2) ex(r) = 1;
    EXPECT_NEAR(ex.dot(d.M * ex) / (t * 0.24 * 0.12), 1.0, 1e-12) << io::element_name(type);
  }
}

TEST(PlaneElements, PlaneStrainIsPlaneStressWithTheEquivalentMaterial) {
  // Plane strain with (E, ν) equals plane stress with E* = E/(1−ν²), ν* = ν/(1−ν): an exact identity.
  const double Es = kE / (1 - kNu * kNu), nus = kNu / (1 - kNu);
  for (ElementType type : kTypes) {
    const Patch p = irregular_patch(type);
    std::vector<double> xyz;
    for (int v : p.elems[4]) xyz.insert(xyz.end(), {p.X[static_cast<std::size_t>(v)].x(), p.X[static_cast<std::size_t>(v)].y(), 0.0});
    const auto ps = fe::plane_terms(type, xyz.data(), plane_section(0.1, false), 5);
    const auto pe = fe::plane_terms(type, xyz.data(), plane_section(0.1, true), 5);
    const auto cs = coefficients(false, Es, nus), ce = coefficients(true);
    const Eigen::MatrixXd Ks = cs[0] * ps.K0 + cs[1] * ps.K1, Ke = ce[0] * pe.K0 + ce[1] * pe.K1;
    EXPECT_LT((Ks - Ke).norm(), 1e-13 * Ke.norm()) << io::element_name(type);
    EXPECT_LT((ps.M1 - pe.M1).norm(), 1e-15 * pe.M1.norm());
  }
}

namespace {

/// Natural frequencies (Hz) of a Timoshenko cantilever (clamped at x = 0, free at x = L): the roots
/// of the 4 × 4 determinant of w = Σ C_j w_j, ψ = Σ C_j ψ_j with the exact solutions of
/// EI ψ'' + κGA (w' − ψ) + ρI ω² ψ = 0, κGA (w'' − ψ') + ρA ω² w = 0
/// (w_j: cosh αx, sinh αx, cos βx, sin βx with s² = α², −β² the roots of
/// κGA EI s⁴ + ω²(κGA ρI + EI ρA) s² + ρAω² (ρIω² − κGA) = 0), boundary conditions w = ψ = 0 at 0,
/// EI ψ' = 0 and κGA (w' − ψ) = 0 at L. Below the cut-off ω² < κGA/(ρI) only; the first @p count roots.
std::vector<double> timoshenko_cantilever_hz(double L, double h, double t, double kappa, int count) {
  const double A = h * t, I = t * h * h * h / 12, G = shear_modulus();
  const double kGA = kappa * G * A, EI = kE * I, rA = kRho * A, rI = kRho * I;
  const auto det = [&](double w) {
    const double w2 = w * w;
    const double qa = kGA * EI, qb = w2 * (kGA * rI + EI * rA), qc = rA * w2 * (rI * w2 - kGA);
    const double disc = std::sqrt(qb * qb - 4 * qa * qc);
    const double al = std::sqrt((-qb + disc) / (2 * qa)), be = std::sqrt((qb + disc) / (2 * qa));
    const double c = rA * w2 / kGA; // ψ' = w'' + c w
    // Columns: (w(0), ψ(0), ψ'(L), w'(L) − ψ(L)) of each basis solution.
    Eigen::Matrix4d Mx;
    const double ka = (al * al + c) / al, kb = (c - be * be) / be;
    // w = cosh αx, ψ = ka sinh αx
    Mx.col(0) << 1, 0, ka * al * std::cosh(al * L), al * std::sinh(al * L) - ka * std::sinh(al * L);
    // w = sinh αx, ψ = ka cosh αx
    Mx.col(1) << 0, ka, ka * al * std::sinh(al * L), al * std::cosh(al * L) - ka * std::cosh(al * L);
    // w = cos βx, ψ = kb sin βx
    Mx.col(2) << 1, 0, kb * be * std::cos(be * L), -be * std::sin(be * L) - kb * std::sin(be * L);
    // w = sin βx, ψ = −kb cos βx
    Mx.col(3) << 0, -kb, kb * be * std::sin(be * L), be * std::cos(be * L) + kb * std::cos(be * L);
    // Scale the rows so that the determinant's magnitude stays moderate (sign changes are what count).
    for (int r = 0; r < 4; ++r) Mx.row(r) /= Mx.row(r).cwiseAbs().maxCoeff();
    return Mx.determinant();
  };
  std::vector<double> out;
  const double cutoff = std::sqrt(kGA / rI), dw = 0.5;
  double w0 = 1.0, d0 = det(w0);
  for (double w = w0 + dw; w < cutoff && static_cast<int>(out.size()) < count; w += dw) {
    const double d = det(w);
    if (d * d0 < 0) {
      double lo = w - dw, hi = w;
      for (int it = 0; it < 100; ++it) {
        const double mid = 0.5 * (lo + hi);
        (det(mid) * det(lo) <= 0 ? hi : lo) = mid;
      }
      out.push_back(0.5 * (lo + hi) / (2 * M_PI));
    }
    d0 = d;
  }
  return out;
}

fe::ModeOptions mode_options(int count) {
  fe::ModeOptions mo;
  mo.count = count;
  mo.progress = false;
  return mo;
}

} // namespace

TEST(PlaneElements, CantileverMatchesTimoshenkoBeamTheory) {
  // Steel cantilever L = 1 m, h = 0.1 m, t = 0.01 m in plane stress, clamped (all nodes at x = 0).
  // Its two lowest (bending) frequencies against the Timoshenko beam with Cowper's shear factor of a
  // rectangle κ = 10(1+ν)/(12+11ν); the third, the first axial mode, against the rod's c/(4L).
  const double L = 1.0, h = 0.1, t = 0.01;
  const auto ref = timoshenko_cantilever_hz(L, h, t, 10 * (1 + kNu) / (12 + 11 * kNu), 2);
  ASSERT_EQ(ref.size(), 2u);
  const double axial = std::sqrt(kE / kRho) / (4 * L);
  // Euler–Bernoulli's 1.8751² √(EI/ρA)/(2πL²) lies just above the Timoshenko root.
  const double eb = 1.875104 * 1.875104 * std::sqrt(kE * h * h / 12 / kRho) / (2 * M_PI * L * L);
  EXPECT_GT(eb, ref[0]);
  EXPECT_LT(eb / ref[0] - 1, 0.01);
  struct Case {
    ElementType type;
    int nx, ny;
    double tol;
  };
  for (const Case& cs : {Case{ElementType::quad8, 40, 4, 0.005}, Case{ElementType::tri6, 40, 4, 0.005},
                         Case{ElementType::quad4, 100, 10, 0.01}, Case{ElementType::tri3, 160, 16, 0.02}}) {
    fe::ComponentOptions o;
    o.fixed_sets = {"ROOT"};
    fe::Component c(MPI_COMM_WORLD, grid_mesh(cs.type, L, h, cs.nx, cs.ny, t, false), o);
    ASSERT_EQ(c.dofs().dofs_per_node(), 2);
    fe::ModeOptions mo = mode_options(3);
    mo.constrained = true;
    const auto f = fe::solve_modes(c.K(), c.M(), mo).frequencies_hz();
    ASSERT_GE(f.size(), 3u);
    if (c.dofs().begin() == 0)
      std::printf("[PlaneCantilever] %s %dx%d: %.4f %.4f %.4f Hz; Timoshenko %.4f %.4f, rod %.4f Hz; errors %.2e %.2e %.2e\n",
                  io::element_name(cs.type), cs.nx, cs.ny, f[0], f[1], f[2], ref[0], ref[1], axial, f[0] / ref[0] - 1,
                  f[1] / ref[1] - 1, f[2] / axial - 1);
    EXPECT_NEAR(f[0] / ref[0], 1.0, cs.tol) << io::element_name(cs.type);
    EXPECT_NEAR(f[1] / ref[1], 1.0, cs.tol) << io::element_name(cs.type);
    EXPECT_NEAR(f[2] / axial, 1.0, cs.tol) << io::element_name(cs.type);
  }
}

TEST(PlaneElements, FreeComponentHasThreeRigidModes) {
  for (ElementType type : kTypes) {
    fe::Component c(MPI_COMM_WORLD, grid_mesh(type, 0.5, 0.2, 10, 4, 0.01, type == ElementType::tri3), {});
    const auto modes = fe::solve_modes(c.K(), c.M(), mode_options(2));
    EXPECT_EQ(modes.rigid_eigenvalues.size(), 3u) << io::element_name(type);
    ASSERT_FALSE(modes.eigenvalues.empty());
    EXPECT_GT(modes.eigenvalues[0], 1e-6 * modes.spectrum_scale) << io::element_name(type);
  }
}

namespace {
/// Fixed-free rod of length L along the unit direction @p e: the exact axial frequencies
/// (2k − 1) c/(4L), c = √(E/ρ).
double rod_hz(double L, int k) { return (2 * k - 1) * std::sqrt(kE / kRho) / (4 * L); }
/// The same rod as n equal linear elements with consistent mass: the discrete modes are the sampled
/// sines sin κx_j, κ = (2k − 1)π/(2L), with ω² = (6c²/h²)(1 − cos κh)/(2 + cos κh) exactly.
double chain_hz(double L, int n, int k) {
  const double h = L / n, kh = (2 * k - 1) * M_PI / (2 * L) * h;
  return std::sqrt(6 * kE / kRho / (h * h) * (1 - std::cos(kh)) / (2 + std::cos(kh))) / (2 * M_PI);
}
} // namespace

TEST(BarElements, FixedFreeRodAxialFrequencies) {
  // 2-D component of 200 bar2 elements along x (T2D2): restricted to the axial DOFs (ux; uy has no
  // stiffness in a straight bar line) the first five frequencies equal the discrete chain's closed
  // form to 1e-9 and lie within 3e-4 of the rod's (2k−1)c/(4L) (consistent mass: ≈ (κh)²/24).
  const double L = 2.0, A = 3e-4;
  const int n = 200;
  io::Mesh m;
  m.source = "rod";
  m.planar = true;
  for (int i = 0; i <= n; ++i) {
    m.coords.push_back({L * i / n, 0.0, 0.0});
    m.node_ids.push_back(i + 1);
  }
  for (int i = 0; i < n; ++i) m.add_element(ElementType::bar2, {i, i + 1}, i + 1);
  m.node_sets["ROOT"] = {0};
  for (int i = 0; i < n; ++i) m.element_sets["ROD"].push_back(i);
  io::Section& sec = add_steel_section(m, "ROD");
  sec.bar = true;
  sec.bar_area = A;
  fe::ComponentOptions o;
  o.fixed_sets = {"ROOT"};
  fe::Component c(MPI_COMM_WORLD, m, o);
  ASSERT_EQ(c.dofs().dofs_per_node(), 2);
  std::vector<PetscInt> rows;
  for (int v : c.dofs().owned_nodes())
    if (!c.dofs().is_fixed(v)) rows.push_back(c.dofs().node_dof(v));
  IS is = nullptr;
  FLEXUQ_PETSC(ISCreateGeneral(c.comm(), static_cast<PetscInt>(rows.size()), rows.data(), PETSC_COPY_VALUES, &is));
  Mat K = nullptr, M = nullptr;
  FLEXUQ_PETSC(MatCreateSubMatrix(c.K(), is, is, MAT_INITIAL_MATRIX, &K));
  FLEXUQ_PETSC(MatCreateSubMatrix(c.M(), is, is, MAT_INITIAL_MATRIX, &M));
  fe::ModeOptions mo = mode_options(5);
  mo.constrained = true;
  const auto f = fe::solve_modes(K, M, mo).frequencies_hz();
  FLEXUQ_PETSC(MatDestroy(&K));
  FLEXUQ_PETSC(MatDestroy(&M));
  FLEXUQ_PETSC(ISDestroy(&is));
  ASSERT_GE(f.size(), 5u);
  double worst = 0, worst_chain = 0;
  for (int k = 1; k <= 5; ++k) {
    worst = std::max(worst, std::abs(f[static_cast<std::size_t>(k - 1)] / rod_hz(L, k) - 1));
    worst_chain = std::max(worst_chain, std::abs(f[static_cast<std::size_t>(k - 1)] / chain_hz(L, n, k) - 1));
  }
  if (c.dofs().begin() == 0)
    std::printf("[BarRod] 2-D, 200 elements: f1 %.4f Hz (exact %.4f), worst of 5 vs the rod %.2e, vs the chain %.2e\n", f[0],
                rod_hz(L, 1), worst, worst_chain);
  EXPECT_LT(worst_chain, 1e-9);
  EXPECT_LT(worst, 3e-4);
}

TEST(BarElements, SkewBarIn3DAndOnBeamNodesIsTheAxialRod) {
  // A chain of bar2 elements along a skew direction e in 3-D (3 DOFs per node) and on 6-DOF nodes:
  // K e = 0 across, K's axial projection equals the 1-D rod's (E A/h)[1 −1; −1 1], M = ρ A h/6
  // [2 1; 1 2] ⊗ I, the rotations get nothing; the axial frequencies of the projected chain equal
  // the chain's closed form (1e-9).
  const Eigen::Vector3d e = Eigen::Vector3d(1, 2, 2) / 3.0;
  const double L = 2.0, A = 3e-4;
  const int n = 100;
  for (int dpn : {3, 6}) {
    const int N = (n + 1) * dpn;
    Eigen::MatrixXd K = Eigen::MatrixXd::Zero(N, N), M = Eigen::MatrixXd::Zero(N, N);
    for (int i = 0; i < n; ++i) {
      const Eigen::Vector3d a = e * (L * i / n), b = e * (L * (i + 1) / n);
      const auto t = fe::bar_terms({a.x(), a.y(), a.z()}, {b.x(), b.y(), b.z()}, A, dpn, i + 1);
      K.block(i * dpn, i * dpn, 2 * dpn, 2 * dpn) += kE * t.K_E;
      M.block(i * dpn, i * dpn, 2 * dpn, 2 * dpn) += kRho * t.M1;
    }
    // Axial projection T (free nodes 1..n; node 0 clamped): column i puts e on node i + 1.
    Eigen::MatrixXd T = Eigen::MatrixXd::Zero(N, n);
    for (int i = 0; i < n; ++i) T.block<3, 1>((i + 1) * dpn, i) = e;
    const Eigen::MatrixXd Ka = T.transpose() * K * T, Ma = T.transpose() * M * T;
    Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> es(Ka, Ma);
    double worst = 0;
    for (int k = 1; k <= 5; ++k)
      worst = std::max(worst, std::abs(std::sqrt(es.eigenvalues()(k - 1)) / (2 * M_PI) / chain_hz(L, n, k) - 1));
    EXPECT_LT(worst, 1e-9) << dpn;
    // Transverse motion (a unit vector ⟂ e at every node) and rotations: no stiffness.
    const Eigen::Vector3d p = Eigen::Vector3d(2, -1, 0).normalized();
    Eigen::VectorXd u = Eigen::VectorXd::Zero(N);
    for (int i = 0; i <= n; ++i) u.segment<3>(i * dpn) = p * (1 + i);
    EXPECT_LT((K * u).norm(), 1e-12 * K.norm() * u.norm()) << dpn;
    if (dpn == 6) {
      EXPECT_EQ(K.block(3, 0, 3, N).cwiseAbs().maxCoeff(), 0.0);
      EXPECT_EQ(M.block(3, 0, 3, N).cwiseAbs().maxCoeff(), 0.0);
    }
    EXPECT_NEAR(M(0, 0), kRho * A * (L / n) / 3, 1e-12 * kRho * A * L);
    EXPECT_NEAR(M(0, dpn), kRho * A * (L / n) / 6, 1e-12 * kRho * A * L);
  }
}

namespace {
std::string input_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}
} // namespace

TEST(PlaneElements, BadInputIsRefusedNamingTheElement) {
  const double sq[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
  // Zero and negative thickness.
  for (double t : {0.0, -0.01}) {
    const std::string msg = input_error([&] { fe::plane_terms(ElementType::quad4, sq, plane_section(t, false), 17); });
    EXPECT_NE(msg.find("element 17 (quad4)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("thickness"), std::string::npos) << msg;
  }
  // Degenerate: two coincident corners of a triangle; a quad whose corners cross (a bow tie).
  const double tri[] = {0, 0, 0, 1, 0, 0, 1, 0, 0};
  std::string msg = input_error([&] { fe::plane_terms(ElementType::tri3, tri, plane_section(0.1, false), 23); });
  EXPECT_NE(msg.find("element 23 (tri3)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("degenerate"), std::string::npos) << msg;
  const double bow[] = {0, 0, 0, 1, 1, 0, 1, 0, 0, 0, 1, 0};
  msg = input_error([&] { fe::plane_terms(ElementType::quad4, bow, plane_section(0.1, false), 29); });
  EXPECT_NE(msg.find("element 29 (quad4)"), std::string::npos) << msg;
  // Either sense of the corners is accepted: the clockwise square gives the same matrices.
  const double cw[] = {0, 0, 0, 0, 1, 0, 1, 1, 0, 1, 0, 0};
  const auto a = fe::plane_terms(ElementType::quad4, sq, plane_section(0.1, false), 1);
  const auto b = fe::plane_terms(ElementType::quad4, cw, plane_section(0.1, false), 1);
  Eigen::VectorXd ux = Eigen::VectorXd::Zero(8);
  for (int r = 0; r < 8; r += 2) ux(r) = 1;
  EXPECT_NEAR(ux.dot(a.M1 * ux), ux.dot(b.M1 * ux), 1e-15);
  EXPECT_NEAR(a.K0.trace(), b.K0.trace(), 1e-12 * a.K0.trace());
  // A bar of coincident nodes and one of zero area.
  msg = input_error([&] { fe::bar_terms({1, 2, 0}, {1, 2, 0}, 1e-4, 2, 31); });
  EXPECT_NE(msg.find("element 31 (bar2)"), std::string::npos) << msg;
  msg = input_error([&] { fe::bar_terms({0, 0, 0}, {1, 0, 0}, 0.0, 3, 37); });
  EXPECT_NE(msg.find("element 37 (bar2)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("area"), std::string::npos) << msg;
  // ν = 0.5 in plane strain: refused with the material and the element named.
  io::Mesh m = grid_mesh(ElementType::quad4, 1, 1, 2, 2, 0.1, true);
  m.materials["STEEL"].nu = 0.5;
  // (on MPI_COMM_SELF: a bad element found by one rank's assembly is the CLI's business, which
  // aborts every rank; here each rank checks its own copy)
  msg = input_error([&] { fe::Component(MPI_COMM_SELF, m, {}); });
  EXPECT_NE(msg.find("STEEL"), std::string::npos) << msg;
  EXPECT_NE(msg.find("quad4 element 1"), std::string::npos) << msg;
  EXPECT_NE(msg.find("plane strain"), std::string::npos) << msg;
  // A degenerate element inside a component: the mesh and the element named.
  io::Mesh d = grid_mesh(ElementType::quad4, 1, 1, 2, 2, 0.1, false);
  d.coords[static_cast<std::size_t>(d.element(3)[2])] = d.coords[static_cast<std::size_t>(d.element(3)[0])];
  msg = input_error([&] { fe::Component(MPI_COMM_SELF, d, {}); });
  EXPECT_NE(msg.find("grid: element 4 (quad4)"), std::string::npos) << msg;
  // A 2-D mesh with a node off the plane.
  io::Mesh z = grid_mesh(ElementType::tri3, 1, 1, 2, 2, 0.1, false);
  z.coords[4][2] = 0.01;
  msg = input_error([&] { fe::Component(MPI_COMM_SELF, z, {}); });
  EXPECT_NE(msg.find("node 5 has z = 0.01"), std::string::npos) << msg;
}

TEST(PlaneElements, AffineTermsFollowANewMaterialWithoutReassembly) {
  // What a campaign does: K(θ), M(θ) re-evaluated from the affine terms for another (E, ν, ρ) equal
  // the operators assembled afresh with that material (plane stress: E/(1−ν), G; plane strain: λ, μ;
  // bars: E), to round-off.
  for (bool strain : {false, true}) {
    io::Mesh m = grid_mesh(ElementType::quad8, 0.4, 0.1, 8, 2, 0.01, strain);
    fe::Component c(MPI_COMM_WORLD, m, {});
    ASSERT_EQ(c.groups().size(), 1u);
    EXPECT_EQ(c.groups()[0].shell, !strain); // plane stress takes the shells' coefficients
    fe::IsoMaterial other = c.groups()[0].material;
    other.E = 7e10;
    other.nu = 0.33;
    other.rho = 2700;
    c.set_materials({other});
    m.materials["STEEL"] = test::material("STEEL", 7e10, 0.33, 2700);
    fe::ComponentOptions direct;
    direct.keep_affine = false;
    const fe::Component fresh(MPI_COMM_WORLD, m, direct);
    EXPECT_LT(test::rel_diff(c.K(), fresh.K()), 1e-13) << (strain ? "strain" : "stress");
    EXPECT_LT(test::rel_diff(c.M(), fresh.M()), 1e-13) << (strain ? "strain" : "stress");
  }
}

TEST(PlaneElements, NodalStressesOfAConstantStrainField) {
  // fe::nodal_stresses on a 2-D component: the linear field u = a + B x on the distorted patch gives
  // at every node σ = D ε (Voigt sxx, syy, szz, sxy, syz, szx; σ_zz = 0 in plane stress, λ(ε_xx + ε_yy)
  // in plane strain), to round-off — the stress-recovery patch test.
  const LinearField lf;
  const Eigen::Vector3d& eps = lf.eps;
  for (bool strain : {false, true})
    for (ElementType type : kTypes) {
      const Patch p = irregular_patch(type);
      io::Mesh m;
      m.source = "patch";
      for (std::size_t v = 0; v < p.X.size(); ++v) {
        m.coords.push_back({p.X[v].x(), p.X[v].y(), 0.0});
        m.node_ids.push_back(static_cast<long>(v) + 1);
      }
      for (std::size_t e = 0; e < p.elems.size(); ++e) {
        m.add_element(type, p.elems[e], static_cast<long>(e) + 1);
        m.element_sets["ALL"].push_back(static_cast<int>(e));
      }
      io::Section& sec = add_steel_section(m, "ALL");
      sec.plane = true;
      sec.plane_section = plane_section(0.01, strain);
      const fe::Component c(MPI_COMM_SELF, m, {});
      std::vector<double> u;
      for (const auto& x : p.X) {
        const Eigen::Vector2d ux = lf.at(x);
        u.insert(u.end(), {ux(0), ux(1)});
      }
      const auto s = fe::nodal_stresses(c, u.data(), 2, 1);
      const Eigen::Vector3d sig = elasticity(strain) * eps;
      const double szz = strain ? lame_lambda() * (eps(0) + eps(1)) : 0.0;
      double worst = 0;
      for (std::size_t v = 0; v < p.X.size(); ++v) {
        const double* o = s.data() + 6 * v;
        const double d[6] = {o[0] - sig(0), o[1] - sig(1), o[2] - szz, o[3] - sig(2), o[4], o[5]};
        for (double x : d) worst = std::max(worst, std::abs(x));
      }
      EXPECT_LT(worst, 1e-10 * sig.cwiseAbs().maxCoeff()) << io::element_name(type) << (strain ? " strain" : " stress");
    }
}
