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
#include "BeamSectionUtil.hpp"
#include "PetscTestUtil.hpp"

#include <petscmat.h>

#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstdio>
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
  // The elements lie in the plane of R's first two columns: R.col(2) is their normal.
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
      // about an in-plane axis ρh³A/12; about the normal (k = 2) α ρh³A/12
      const double Ir = (k == 2 ? fe::kShellDrilling : 1.0) * kRho * h * h * h / 12 * A;
      EXPECT_NEAR(th.dot(p.M * th), Ir, 1e-12 * Ir);
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

// ---- plates through fe::Component ----------------------------------------------------------------

namespace {

/// Every element of @p m into element set @p elset, a shell section of thickness @p h and material
/// STEEL (the test material).
void add_steel_shell_section(io::Mesh& m, const std::string& elset, double h) {
  for (std::size_t e = 0; e < m.num_elements(); ++e) m.element_sets[elset].push_back(static_cast<int>(e));
  io::Material mat;
  mat.name = "STEEL";
  mat.E = kE;
  mat.nu = kNu;
  mat.rho = kRho;
  m.materials["STEEL"] = mat;
  io::Section s;
  s.elset = elset;
  s.material = "STEEL";
  s.shell = true;
  s.shell_section = section(h);
  s.where.file = m.source;
  m.sections.push_back(s);
}

/// A flat rectangular plate [0, a] × [0, b] in the plane z = 0, nx × ny quads (each cut into two
/// triangles along alternating diagonals when @p triangles), shell section h on element set PLATE of
/// material STEEL; node sets EDGE (the boundary), X0, XA, Y0, YB (the four edges).
io::Mesh plate_mesh(double a, double b, int nx, int ny, double h, bool triangles) {
  io::Mesh m;
  m.source = "plate";
  auto node = [&](int i, int j) { return j * (nx + 1) + i; };
  for (int j = 0; j <= ny; ++j)
    for (int i = 0; i <= nx; ++i) {
      m.coords.push_back({a * i / nx, b * j / ny, 0.0});
      m.node_ids.push_back(node(i, j) + 1);
      const int n = node(i, j);
      if (i == 0) m.node_sets["X0"].push_back(n);
      if (i == nx) m.node_sets["XA"].push_back(n);
      if (j == 0) m.node_sets["Y0"].push_back(n);
      if (j == ny) m.node_sets["YB"].push_back(n);
      if (i == 0 || i == nx || j == 0 || j == ny) m.node_sets["EDGE"].push_back(n);
    }
  long id = 1;
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const int c[4] = {node(i, j), node(i + 1, j), node(i + 1, j + 1), node(i, j + 1)};
      if (!triangles) {
        m.add_element(ElementType::shell4, {c[0], c[1], c[2], c[3]}, id++);
      } else if ((i + j) % 2 == 0) {
        m.add_element(ElementType::shell3, {c[0], c[1], c[2]}, id++);
        m.add_element(ElementType::shell3, {c[0], c[2], c[3]}, id++);
      } else {
        m.add_element(ElementType::shell3, {c[0], c[1], c[3]}, id++);
        m.add_element(ElementType::shell3, {c[1], c[2], c[3]}, id++);
      }
    }
  add_steel_shell_section(m, "PLATE", h);
  return m;
}

/// Explicit solver options: the closed-form comparisons below do not depend on the automatic shift
/// and zero-mode tolerance (ThinPlatesNeedNoSolverKeys tests those on thin plates).
fe::ModeOptions thin_shell_options(int count, double shift, bool constrained, double rigid_tol = 1e-22) {
  fe::ModeOptions mo;
  mo.count = count;
  mo.shift = shift;
  mo.rigid_tol = rigid_tol;
  mo.constrained = constrained;
  mo.progress = false;
  return mo;
}

/// Frequencies (Hz) of K, M restricted to the DOFs keep(node, component) says to keep.
template <class Keep>
std::vector<double> restricted_frequencies(const fe::Component& c, Keep keep, const fe::ModeOptions& mo) {
  std::vector<PetscInt> rows;
  for (int v : c.dofs().owned_nodes())
    for (int k = 0; k < 6; ++k)
      if (keep(v, k)) rows.push_back(c.dofs().node_dof(v) + k);
  IS is = nullptr;
  FLEXUQ_PETSC(ISCreateGeneral(c.comm(), static_cast<PetscInt>(rows.size()), rows.data(), PETSC_COPY_VALUES, &is));
  Mat K = nullptr, M = nullptr;
  FLEXUQ_PETSC(MatCreateSubMatrix(c.K(), is, is, MAT_INITIAL_MATRIX, &K));
  FLEXUQ_PETSC(MatCreateSubMatrix(c.M(), is, is, MAT_INITIAL_MATRIX, &M));
  const auto modes = fe::solve_modes(K, M, mo);
  FLEXUQ_PETSC(MatDestroy(&K));
  FLEXUQ_PETSC(MatDestroy(&M));
  FLEXUQ_PETSC(ISDestroy(&is));
  return modes.frequencies_hz();
}

/// Mindlin plate (shear factor 5/6, rotary inertia ρh³/12), hard simple supports on all edges
/// (w = 0 and the rotation about the edge normal 0): with w = W sin αx sin βy, φx = X cos αx sin βy,
/// φy = Y sin αx cos βy (u = z φ) the energies give a 3×3 pencil per (m, n); its lowest root is
/// the flexural frequency (Hz). The first @p count over m, n ≤ 10, ascending.
std::vector<double> mindlin_ss_frequencies(double a, double b, double h, int count) {
  const double G = shear_modulus(), D = kE * h * h * h / (12 * (1 - kNu * kNu)), S = 5.0 / 6.0 * G * h;
  std::vector<double> f;
  for (int m = 1; m <= 10; ++m)
    for (int n = 1; n <= 10; ++n) {
      const double al = m * M_PI / a, be = n * M_PI / b;
      Eigen::Matrix3d K, M = Eigen::Matrix3d::Zero();
      K << S * (al * al + be * be), S * al, S * be,                                        //
          S * al, D * (al * al + (1 - kNu) / 2 * be * be) + S, D * al * be * (1 + kNu) / 2, //
          S * be, D * al * be * (1 + kNu) / 2, D * (be * be + (1 - kNu) / 2 * al * al) + S;
      M.diagonal() << kRho * h, kRho * h * h * h / 12, kRho * h * h * h / 12;
      Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::Matrix3d> es(K, M);
      f.push_back(std::sqrt(es.eigenvalues()(0)) / (2 * M_PI));
    }
  std::sort(f.begin(), f.end());
  f.resize(static_cast<std::size_t>(count));
  return f;
}

double max_rel_error(const std::vector<double>& f, const std::vector<double>& ref) {
  double e = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) e = std::max(e, std::abs(f.at(i) / ref[i] - 1));
  return e;
}

} // namespace

TEST(ShellPlate, FreePlateHasExactlySixRigidModes) {
  for (bool tri : {false, true}) {
    fe::ComponentOptions o;
    fe::Component c(MPI_COMM_WORLD, plate_mesh(1.0, 0.6, 10, 6, 0.01, tri), o);
    // The lowest elastic plate mode is near 0.4 D/(ρh) (free square-ish plate): shift well below it.
    const auto modes = fe::solve_modes(c.K(), c.M(), thin_shell_options(4, -1.0, false, 1e-16));
    if (c.dofs().begin() == 0)
      std::printf("[ShellPlate] free %s: s %.3e, rigid |lambda| <= %.3e, lambda_7 %.3e\n", tri ? "shell3" : "shell4",
                  modes.spectrum_scale,
                  std::abs(*std::max_element(modes.rigid_eigenvalues.begin(), modes.rigid_eigenvalues.end(),
                                             [](double x, double y) { return std::abs(x) < std::abs(y); })),
                  modes.eigenvalues.empty() ? 0.0 : modes.eigenvalues[0]);
    EXPECT_EQ(modes.rigid_eigenvalues.size(), 6u) << (tri ? "shell3" : "shell4");
    ASSERT_FALSE(modes.eigenvalues.empty());
    EXPECT_GT(modes.eigenvalues[0], 1e6 * std::abs(*std::max_element(modes.rigid_eigenvalues.begin(), modes.rigid_eigenvalues.end(),
                                                                     [](double x, double y) { return std::abs(x) < std::abs(y); })));
  }
}

TEST(ShellPlate, SimplySupportedPlateMatchesMindlinAndKirchhoffClosedForms) {
  // 50 × 30 elements on a 1 × 0.6 plate, a/h from 10 (thick) to 1000 (the locking test): the first
  // six frequencies within 1 % (quads) and 2 % (triangles) of the Navier solution of Mindlin's plate;
  // at a/h = 1000 that is Kirchhoff's π²((m/a)² + (n/b)²)√(D/(ρh)) to 1e-5.
  const double a = 1.0, b = 0.6;
  for (double ah : {10.0, 100.0, 1000.0}) {
    const double h = a / ah;
    const auto ref = mindlin_ss_frequencies(a, b, h, 6);
    if (ah == 1000.0) {
      const double D = kE * h * h * h / (12 * (1 - kNu * kNu));
      const double f11 = M_PI * M_PI * (1 / (a * a) + 1 / (b * b)) * std::sqrt(D / (kRho * h)) / (2 * M_PI);
      EXPECT_NEAR(ref[0] / f11, 1.0, 1e-5);
    }
    for (bool tri : {false, true}) {
      fe::ComponentOptions o;
      fe::Component c(MPI_COMM_WORLD, plate_mesh(a, b, 50, 30, h, tri), o);
      const auto& X = c.mesh().coords;
      // Keep w, θx, θy (the membrane is decoupled in a flat plate); hard simple supports: w = 0 on
      // every edge, θx = 0 on x = 0, a and θy = 0 on y = 0, b.
      auto keep = [&](int v, int k) {
        const double x = X[static_cast<std::size_t>(v)][0], y = X[static_cast<std::size_t>(v)][1];
        const bool xe = std::abs(x) < 1e-12 || std::abs(x - a) < 1e-12, ye = std::abs(y) < 1e-12 || std::abs(y - b) < 1e-12;
        if (k == 2) return !xe && !ye;
        if (k == 3) return !xe;
        if (k == 4) return !ye;
        return false;
      };
      const double lambda1 = std::pow(2 * M_PI * ref[0], 2);
      const auto f = restricted_frequencies(c, keep, thin_shell_options(6, 0.0, true));
      ASSERT_GE(f.size(), 6u);
      const double err = max_rel_error(f, ref);
      EXPECT_LT(err, tri ? 0.02 : 0.01) << (tri ? "shell3" : "shell4") << " a/h = " << ah << ": f1 " << f[0] << " vs " << ref[0]
                                       << ", f6 " << f[5] << " vs " << ref[5];
      (void)lambda1;
      if (c.dofs().begin() == 0)
        std::printf("[ShellPlate] %s a/h %6.0f: max error of f1..f6 %.4f %%\n", tri ? "shell3" : "shell4", ah, 100 * err);
    }
  }
}

TEST(ShellPlate, ClampedSquarePlateMatchesLeissaAndOneRankEqualsAll) {
  // Clamped square plate, a/h = 1000, whole edge nodes fixed (a fixed node set): λ = ω a² √(ρh/D)
  // of the first six modes, 35.985, 73.394, 73.394, 108.22, 131.58, 132.20 (Leissa, Vibration of
  // Plates, NASA SP-160, clamped square plate, with the converged values of later superposition
  // solutions), within 1 % (quads) and 2 % (triangles) on a 50 × 50 mesh. The same component on one
  // rank gives the same frequencies to 1e-9.
  const double a = 1.0, h = a / 1000, D = kE * h * h * h / (12 * (1 - kNu * kNu));
  const double lam[6] = {35.985, 73.394, 73.394, 108.22, 131.58, 132.20};
  std::vector<double> ref;
  for (double l : lam) ref.push_back(l / (a * a) * std::sqrt(D / (kRho * h)) / (2 * M_PI));
  int size = 1, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (bool tri : {false, true}) {
    fe::ComponentOptions o;
    o.fixed_sets = {"EDGE"};
    const double lambda1 = std::pow(2 * M_PI * ref[0], 2);
    const auto mo = thin_shell_options(6, 0.0, true);
    fe::Component c(MPI_COMM_WORLD, plate_mesh(a, a, 50, 50, h, tri), o);
    const auto modes = fe::solve_modes(c.K(), c.M(), mo);
    const auto f = modes.frequencies_hz();
    ASSERT_GE(f.size(), 6u);
    const double err = max_rel_error(f, ref);
    EXPECT_LT(err, tri ? 0.02 : 0.01) << (tri ? "shell3" : "shell4") << ": f1 " << f[0] << " vs " << ref[0];
    EXPECT_GT(modes.eigenvalues[0], 0.5 * lambda1);
    if (rank == 0) std::printf("[ShellPlate] clamped %s: max error of f1..f6 %.4f %%\n", tri ? "shell3" : "shell4", 100 * err);
    if (size > 1 && rank == 0) {
      fe::Component one(MPI_COMM_SELF, plate_mesh(a, a, 50, 50, h, tri), o);
      const auto f1 = fe::solve_modes(one.K(), one.M(), mo).frequencies_hz();
      for (std::size_t k = 0; k < 6; ++k) EXPECT_NEAR(f1.at(k) / f[k], 1.0, 1e-9) << "mode " << k + 1;
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

TEST(ShellPlate, ThinPlatesNeedNoSolverKeys) {
  // a/h = 1000 with the default shift and zero-mode tolerance (issue #37): the scale s of both is
  // max K_ii/M_ii over the translations, and the zero-mode tolerance of six-DOF nodes is 1e-13·s
  // (fe/Modes.cpp). Over all DOFs s would be set by the rotations (≈ 12κG/(ρh²)), the default
  // rigid_tol·s would call the first clamped modes a mechanism and the default shift −1e-8·s would
  // sit orders of magnitude below a free plate's spectrum.
  const double a = 1.0, h = a / 1000, D = kE * h * h * h / (12 * (1 - kNu * kNu));
  const double hz = std::sqrt(D / (kRho * h)) / (a * a) / (2 * M_PI); // f = λ·hz, λ = ωa²√(ρh/D)
  // Default options but for count; constrained when a set is fixed.
  auto modes_of = [&](int n, const std::string& fixed) {
    fe::ComponentOptions o;
    if (!fixed.empty()) o.fixed_sets = {fixed};
    fe::Component c(MPI_COMM_WORLD, plate_mesh(a, a, n, n, h, false), o);
    fe::ModeOptions mo;
    mo.count = 3;
    mo.progress = false;
    mo.constrained = !fixed.empty();
    return fe::solve_modes(c.K(), c.M(), mo);
  };
  {
    // Clamped: Leissa's 35.985, 73.394 (double) on a 40 × 40 quad mesh within 1.5 %.
    const auto modes = modes_of(40, "EDGE");
    const auto f = modes.frequencies_hz();
    ASSERT_GE(f.size(), 3u);
    const double lam[3] = {35.985, 73.394, 73.394};
    for (int k = 0; k < 3; ++k)
      EXPECT_NEAR(f[static_cast<std::size_t>(k)] / (lam[k] * hz), 1.0, 0.015) << "clamped mode " << k + 1;
    // Six DOFs per node: the scale is a translational one, E/(ρ a_e²) in order of magnitude (4.6×
    // it here), 600× below the rotational 12κG/(ρh²).
    const double ae = a / 40;
    EXPECT_LT(modes.spectrum_scale, 20 * kE / (kRho * ae * ae));
  }
  {
    // Cantilever (edge x = 0 clamped): λ₁ = 3.492 (Leissa, CFFF square plate, ν = 0.3) within 2 % on
    // a 20 × 20 mesh. λ₁ ≈ 3e-10·s here: below the solids' default rigid_tol of 1e-9, so this fails
    // without the six-DOF default of 1e-13.
    const auto modes = modes_of(20, "X0");
    ASSERT_FALSE(modes.eigenvalues.empty());
    EXPECT_NEAR(modes.frequencies_hz()[0] / (3.492 * hz), 1.0, 0.02);
    EXPECT_LT(modes.eigenvalues[0], 1e-9 * modes.spectrum_scale);
  }
  {
    // Free: six rigid modes, and the first elastic one is the free square plate's twist mode,
    // λ = 13.47 for ν = 0.3 (Leissa, FFFF), within 2 % on a 20 × 20 mesh.
    const auto modes = modes_of(20, "");
    EXPECT_EQ(modes.rigid_eigenvalues.size(), 6u);
    ASSERT_FALSE(modes.eigenvalues.empty());
    EXPECT_NEAR(modes.frequencies_hz()[0] / (13.47 * hz), 1.0, 0.02);
  }
}

// ---- a cylinder of warped quads ------------------------------------------------------------------

namespace {

/// Sanders–Koiter thin shell, circular cylinder (radius R, length L, thickness h) with shear
/// diaphragms at both ends (v = w = 0, u free): u = A cos(λx) cos nθ, v = B sin(λx) sin nθ,
/// w = C sin(λx) cos nθ, λ = mπ/L. Each strain is one trigonometric form times a row of (A, B, C):
/// ε_x = u,x, ε_θ = (v,θ + w)/R, γ = v,x + u,θ/R, κ_x = −w,xx, κ_θ = (v,θ − w,θθ)/R²,
/// τ = (−2 w,xθ + 3/2 v,x − u,θ/(2R))/R; energy C_m(ε_x² + ε_θ² + 2νε_xε_θ + (1−ν)/2 γ²) +
/// D(κ_x² + κ_θ² + 2νκ_xκ_θ + (1−ν)/2 τ²), kinetic ρh(u̇² + v̇² + ẇ²). Lowest root per (m, n ≥ 1),
/// each twice (cos nθ and sin nθ), ascending, Hz.
std::vector<double> sanders_cylinder_frequencies(double R, double L, double h, int count) {
  const double Cm = kE * h / (1 - kNu * kNu), D = kE * h * h * h / (12 * (1 - kNu * kNu));
  std::vector<double> f;
  for (int m = 1; m <= 12; ++m)
    for (int n = 1; n <= 16; ++n) {
      const double l = m * M_PI / L;
      Eigen::RowVector3d ex(-l, 0, 0), et(0, n / R, 1 / R), g(-n / R, l, 0);
      Eigen::RowVector3d kx(0, 0, l * l), kt(0, n / (R * R), n * n / (R * R)), tw(0.5 * n / (R * R), 1.5 * l / R, 2 * l * n / R);
      Eigen::Matrix3d K = Cm * (ex.transpose() * ex + et.transpose() * et + kNu * (ex.transpose() * et + et.transpose() * ex) +
                                (1 - kNu) / 2 * g.transpose() * g) +
                          D * (kx.transpose() * kx + kt.transpose() * kt + kNu * (kx.transpose() * kt + kt.transpose() * kx) +
                               (1 - kNu) / 2 * tw.transpose() * tw);
      Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::Matrix3d> es(K, kRho * h * Eigen::Matrix3d::Identity());
      const double fr = std::sqrt(es.eigenvalues()(0)) / (2 * M_PI);
      f.insert(f.end(), {fr, fr});
    }
  std::sort(f.begin(), f.end());
  f.resize(static_cast<std::size_t>(count));
  return f;
}

/// The cylinder as nθ × nx shell4 elements whose every other ring of nodes is turned by half an
/// element, so that each quadrilateral is warped (its corners are not in one plane).
io::Mesh warped_cylinder(double R, double L, double h, int nt, int nx, double* warp) {
  io::Mesh m;
  m.source = "cylinder";
  auto node = [&](int i, int j) { return j * nt + (i % nt); };
  for (int j = 0; j <= nx; ++j)
    for (int i = 0; i < nt; ++i) {
      const double th = 2 * M_PI * (i + 0.5 * (j % 2)) / nt;
      m.coords.push_back({L * j / nx, R * std::cos(th), R * std::sin(th)});
      m.node_ids.push_back(node(i, j) + 1);
      if (j == 0 || j == nx) m.node_sets["ENDS"].push_back(node(i, j));
    }
  *warp = 0;
  for (int j = 0; j < nx; ++j)
    for (int i = 0; i < nt; ++i) {
      const std::vector<int> c = {node(i, j), node(i + 1, j), node(i + 1, j + 1), node(i, j + 1)};
      m.add_element(ElementType::shell4, c, static_cast<long>(m.num_elements()) + 1);
      // Warping: distance of corner 4 from the plane of corners 1-3 over the diagonal.
      Eigen::Vector3d X[4];
      for (int k = 0; k < 4; ++k) X[k] = Eigen::Vector3d(m.coords[c[k]][0], m.coords[c[k]][1], m.coords[c[k]][2]);
      const Eigen::Vector3d nrm = (X[1] - X[0]).cross(X[2] - X[0]).normalized();
      *warp = std::max(*warp, std::abs(nrm.dot(X[3] - X[0])) / (X[2] - X[0]).norm());
    }
  add_steel_shell_section(m, "SHELL", h);
  return m;
}

} // namespace

TEST(ShellCylinder, WarpedQuadsMatchSandersShearDiaphragmFrequencies) {
  // R = 1, L = 4, h = 0.05 (R/h = 20), 64 × 32 warped quads; ends: v = w = 0 (the translations in
  // the end plane), u and the rotations free, so the axial translation is the one rigid mode.
  const double R = 1.0, L = 4.0, h = 0.05;
  double warp = 0;
  fe::ComponentOptions o;
  fe::Component c(MPI_COMM_WORLD, warped_cylinder(R, L, h, 64, 32, &warp), o);
  EXPECT_GT(warp, 1e-3); // the quads are warped, not flat
  const auto ref = sanders_cylinder_frequencies(R, L, h, 6);
  // n = 0 modes stay above the six: torsion (π/L)√(G/ρ).
  EXPECT_LT(ref[5], 0.5 * std::sqrt(shear_modulus() / kRho) / L);
  std::vector<char> end(c.mesh().num_nodes(), 0);
  for (int v : c.mesh().node_set("ENDS")) end[static_cast<std::size_t>(v)] = 1;
  auto keep = [&](int v, int k) { return !(end[static_cast<std::size_t>(v)] && (k == 1 || k == 2)); };
  auto mo = thin_shell_options(6, -1.0, false, 1e-16);
  const auto f = restricted_frequencies(c, keep, mo);
  ASSERT_GE(f.size(), 6u);
  const double err = max_rel_error(f, ref);
  if (c.dofs().begin() == 0)
    std::printf("[ShellCylinder] warping %.3g; f1..f6 %.2f %.2f %.2f %.2f %.2f %.2f Hz vs Sanders %.2f %.2f %.2f %.2f %.2f %.2f: "
                "max error %.3f %%\n",
                warp, f[0], f[1], f[2], f[3], f[4], f[5], ref[0], ref[1], ref[2], ref[3], ref[4], ref[5], 100 * err);
  EXPECT_LT(err, 0.02);
}

// ---- shells in a component: affine terms, beams beside shells, nonstructural mass ---------------

namespace {

/// uᵀ M u for the rigid translation along axis k (the total mass).
double translational_mass(const fe::Component& c, int k) {
  VecH u, Mu;
  FLEXUQ_PETSC(MatCreateVecs(c.M(), u.out(), Mu.out()));
  FLEXUQ_PETSC(VecSet(u.get(), 0.0));
  for (int v : c.dofs().owned_nodes())
    if (!c.dofs().is_fixed(v)) FLEXUQ_PETSC(VecSetValue(u.get(), c.dofs().node_dof(v) + k, 1.0, INSERT_VALUES));
  FLEXUQ_PETSC(VecAssemblyBegin(u.get()));
  FLEXUQ_PETSC(VecAssemblyEnd(u.get()));
  FLEXUQ_PETSC(MatMult(c.M(), u.get(), Mu.get()));
  PetscScalar m = 0;
  FLEXUQ_PETSC(VecDot(u.get(), Mu.get(), &m));
  return PetscRealPart(m);
}

} // namespace

TEST(ShellComponent, PoissonRatioEntersOnlyThroughTheAffineCoefficients) {
  // K(E, ν) = E/(1−ν) K_A + G K_G is exact for any ν: re-evaluating the terms at (E', ν') equals a
  // fresh assembly with E', ν'.
  fe::ComponentOptions o;
  o.keep_affine = true;
  fe::Component c(MPI_COMM_WORLD, plate_mesh(1.0, 0.6, 8, 5, 0.02, false), o);
  ASSERT_EQ(c.groups().size(), 1u);
  EXPECT_TRUE(c.groups()[0].shell);
  EXPECT_EQ(c.stiffness_terms().name(0), "E/(1-nu):STEEL");
  EXPECT_EQ(c.stiffness_terms().name(1), "G:STEEL");
  EXPECT_NEAR(c.stiffness_theta()[0], kE / (1 - kNu), 1e-6);
  EXPECT_NEAR(c.stiffness_theta()[1], shear_modulus(), 1e-6);
  fe::IsoMaterial m = c.groups()[0].material;
  m.E = 7e10;
  m.nu = 0.15;
  m.rho = 2700;
  c.set_materials({m});
  io::Mesh other = plate_mesh(1.0, 0.6, 8, 5, 0.02, false);
  other.materials["STEEL"].E = 7e10;
  other.materials["STEEL"].nu = 0.15;
  other.materials["STEEL"].rho = 2700;
  fe::ComponentOptions direct;
  direct.keep_affine = false;
  fe::Component fresh(MPI_COMM_WORLD, other, direct);
  EXPECT_LT(test::rel_diff(c.K(), fresh.K()), 1e-13);
  EXPECT_LT(test::rel_diff(c.M(), fresh.M()), 1e-13);
}

TEST(ShellComponent, BeamsBesideShellsAndNonstructuralMass) {
  // A plate with a rectangular beam stiffener along y = 0, both of material STEEL on the edge nodes
  // (6 DOFs each): two groups (shells, beams), the total mass ρ(h a b + A a) + nsm a b, and a free
  // component with exactly six rigid modes.
  const double a = 1.0, b = 0.6, h = 0.01, nsm = 3.5;
  io::Mesh m = plate_mesh(a, b, 10, 6, h, false);
  m.sections[0].shell_section.nsm = nsm;
  const auto& y0 = m.node_sets.at("Y0");
  for (std::size_t k = 0; k + 1 < y0.size(); ++k) {
    m.add_element(ElementType::beam2, {y0[k], y0[k + 1]}, 1000 + static_cast<long>(k));
    m.element_sets["STIFFENER"].push_back(static_cast<int>(m.num_elements()) - 1);
  }
  test::add_rect_beam_section(m, "STIFFENER", "STEEL", 0.02, 0.05);
  fe::ComponentOptions o;
  o.keep_affine = true;
  fe::Component c(MPI_COMM_WORLD, m, o);
  ASSERT_EQ(c.groups().size(), 2u);
  EXPECT_TRUE(c.groups()[0].shell);
  EXPECT_TRUE(c.groups()[1].beam);
  EXPECT_TRUE(c.has_constant_mass());
  EXPECT_EQ(c.mass_terms().names().back(), "constant:nonstructural mass");
  const double mass = kRho * (h * a * b + 0.02 * 0.05 * a) + nsm * a * b;
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(translational_mass(c, k), mass, 1e-10 * mass);
  const auto modes = fe::solve_modes(c.K(), c.M(), thin_shell_options(3, -1.0, false, 1e-16));
  EXPECT_EQ(modes.rigid_eigenvalues.size(), 6u);
}

TEST(ShellComponent, MissingSectionsAreRefusedAndSolidsBesideShellsAccepted) {
  auto message = [](io::Mesh m, const fe::ComponentOptions& o) {
    try {
      fe::Component c(MPI_COMM_WORLD, std::move(m), o);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  fe::ComponentOptions o;
  io::Mesh m = plate_mesh(1.0, 1.0, 2, 2, 0.01, false);
  m.sections.clear();
  o.default_material = m.materials.at("STEEL");
  EXPECT_NE(message(m, o).find("plate: shell element 1 (shell4) has no shell section"), std::string::npos);
  // The job's default shell section covers them; a zero thickness there is refused.
  o.shell_section = section(0.0);
  EXPECT_NE(message(m, o).find("shell thickness must be positive"), std::string::npos);
  o.shell_section = section(0.01);
  EXPECT_EQ(message(m, o), "no error");
  io::Mesh mixed = plate_mesh(1.0, 1.0, 2, 2, 0.01, false);
  mixed.coords.push_back({0, 0, 1});
  mixed.node_ids.push_back(100);
  mixed.add_element(ElementType::tet4, {0, 1, 3, 9}, 100);
  // A solid beside the shells is accepted since issue #37 item 1 (tests/fe/mixed_test.cpp).
  EXPECT_EQ(message(mixed, o), "no error");
}
