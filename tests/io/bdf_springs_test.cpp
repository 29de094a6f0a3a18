// SPDX-License-Identifier: MIT
// Nastran CELAS1/CELAS2 (+PELAS), CONM2 and PARAM,AUTOSPC: the reader's fields, the constant
// stiffness and mass terms fe::Component adds (energy against independently computed axes, rigid-
// body mass against the parallel-axis theorem), closed-form spring–mass and rod-chain frequencies
// through the SLEPc mode solver, the affine re-evaluation and stochastic expansion with a constant
// term, and bad input. Runs on 1 and 2 ranks.
#include "InputErrorOf.hpp"
#include "ScratchFile.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/core/Handle.hpp"
#include "flexuq/fe/Component.hpp"
#include "flexuq/fe/MaterialParametrisation.hpp"
#include "flexuq/fe/Modes.hpp"
#include "flexuq/io/BdfReader.hpp"
#include "flexuq/sg/Expansion.hpp"
#include "flexuq/uq/StochasticSpace.hpp"

#include <Eigen/Dense>
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <fstream>
#include <sstream>

using namespace flexuq;
using namespace flexuq::io;

namespace {

std::string write_deck(const std::string& name, const std::string& text) {
  const std::string p = test::scratch_file("bdf_springs", name);
  std::ofstream(p) << text;
  return p;
}

void expect_error(const std::string& path, std::initializer_list<std::string> parts) {
  const std::string msg = test::input_error_of([&] { (void)read_bdf(path); });
  for (const auto& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << "'" << p << "' not in: " << msg;
}

int node_of(const Mesh& m, long id) {
  for (std::size_t i = 0; i < m.num_nodes(); ++i)
    if (m.node_ids[i] == id) return static_cast<int>(i);
  ADD_FAILURE() << "no grid " << id;
  return -1;
}

/// uᵀ A u for a vector given by global DOF → value (the same on every rank).
double quadratic_form(Mat A, const std::vector<std::pair<PetscInt, double>>& u) {
  VecH x, y;
  FLEXUQ_PETSC(MatCreateVecs(A, x.out(), y.out()));
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    for (const auto& [i, v] : u) FLEXUQ_PETSC(VecSetValue(x.get(), i, v, ADD_VALUES));
  FLEXUQ_PETSC(VecAssemblyBegin(x.get()));
  FLEXUQ_PETSC(VecAssemblyEnd(x.get()));
  FLEXUQ_PETSC(MatMult(A, x.get(), y.get()));
  PetscScalar d = 0;
  FLEXUQ_PETSC(VecDot(x.get(), y.get(), &d));
  return d;
}

/// A 3-segment CBAR cantilever along x (grids 1..4) with a rotated CD system 5 on grid 3.
const char* kFrame = "GRID,1,,0.,0.,0.\nGRID,2,,1.,0.,0.\nGRID,3,,2.,0.,0.,5\nGRID,4,,3.,0.,0.\n"
                     "CBAR,1,1,1,2,0.,1.,0.\nCBAR,2,1,2,3,0.,1.,0.\nCBAR,3,1,3,4,0.,1.,0.\n"
                     "PBAR,1,1,1.E-2,1.E-5,2.E-5,3.E-5\nMAT1,1,2.E11,,0.3,7800.\n"
                     "CORD2R,5,,0.,0.,0.,0.,0.,1.\n,1.,1.,0.\n";
// System 5: z = (0,0,1), x = (1,1,0)/√2, y = z × x = (−1,1,0)/√2 (MSC QRG CORD2R: A origin, B on
// z, C in the x–z plane).
const Eigen::Vector3d kE1 = Eigen::Vector3d(1, 1, 0) / std::sqrt(2.0), kE2 = Eigen::Vector3d(-1, 1, 0) / std::sqrt(2.0),
                      kE3(0, 0, 1);

} // namespace

TEST(BdfSprings, ReaderFields) {
  const std::string deck = std::string(kFrame) +
                           "PARAM,WTMASS,0.5\n"
                           "CELAS1,11,21,2,3,3,1\nPELAS,21,4.E5,0.02,,22,7.E3\n"
                           "CELAS1,12,22,4,5\n"
                           "CELAS2,13,9.E4,3,2,,,0.01\n"
                           "CONM2,31,4,,10.,0.1,0.2,0.3\n,1.,0.1,2.,0.2,0.3,3.\n"
                           "CONM2,32,2,-1,5.,1.,0.,0.5\n"
                           "CONM2,33,3,5,2.,1.,0.,0.\n,4.,,6.,,,8.\n";
  const Mesh m = read_bdf(write_deck("fields.bdf", deck));
  ASSERT_EQ(m.springs.size(), 3u);
  const auto& s1 = m.springs[0];
  EXPECT_EQ(s1.id, 11);
  EXPECT_EQ(s1.k, 4e5);
  EXPECT_EQ(s1.node_a, node_of(m, 2));
  EXPECT_EQ(s1.comp_a, 3);
  EXPECT_EQ(s1.node_b, node_of(m, 3));
  EXPECT_EQ(s1.comp_b, 1);
  EXPECT_EQ(m.springs[1].k, 7e3); // the second property of the PELAS card
  EXPECT_EQ(m.springs[1].node_b, -1); // grounded
  EXPECT_EQ(m.springs[1].comp_a, 5);
  EXPECT_EQ(m.springs[2].k, 9e4);
  EXPECT_EQ(m.springs[2].node_b, -1);
  EXPECT_NE(m.springs[0].where.str().find("fields.bdf:"), std::string::npos);

  ASSERT_EQ(m.point_masses.size(), 3u);
  const auto& a = m.point_masses[0];
  EXPECT_EQ(a.node, node_of(m, 4));
  EXPECT_EQ(a.m, 5.0); // WTMASS 0.5
  EXPECT_EQ(a.offset, (std::array<double, 3>{0.1, 0.2, 0.3}));
  // [[I11, −I21, −I31], [−I21, I22, −I32], [−I31, −I32, I33]] · WTMASS
  const double J[3][3] = {{1.0, -0.1, -0.2}, {-0.1, 2.0, -0.3}, {-0.2, -0.3, 3.0}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_DOUBLE_EQ(a.inertia[i][j], 0.5 * J[i][j]) << i << j;
  const auto& b = m.point_masses[1]; // CID −1: X is the centre of gravity in basic
  EXPECT_DOUBLE_EQ(b.offset[0], 0.0);
  EXPECT_DOUBLE_EQ(b.offset[2], 0.5);
  const auto& c = m.point_masses[2]; // CID 5: offset and inertia rotated to basic
  for (int d = 0; d < 3; ++d) EXPECT_NEAR(c.offset[d], kE1[d], 1e-15);
  const Eigen::Matrix3d Jc = Eigen::Vector3d(4, 6, 8).asDiagonal();
  Eigen::Matrix3d R; // rows: the system's axes in basic
  R.row(0) = kE1;
  R.row(1) = kE2;
  R.row(2) = kE3;
  const Eigen::Matrix3d Jb = 0.5 * R.transpose() * Jc * R;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_NEAR(c.inertia[i][j], Jb(i, j), 1e-14) << i << j;
  // GE is ignored, with a warning.
  bool ge = false;
  for (const auto& w : m.warnings) ge = ge || w.find("GE (structural damping) is ignored") != std::string::npos;
  EXPECT_TRUE(ge);
  EXPECT_TRUE(m.autospc); // Nastran's default
}

// The constant terms against energies computed here from the definitions: a spring between grid 2
// (component 3, basic z) and grid 3 (component 1 of system 5) stores ½ k (u_2z − e1·u_3)²; the
// concentrated masses store the kinetic energy of rigid bodies, m |v_cg|² + ωᵀ J ω (parallel axes).
TEST(BdfSprings, ConstantTermsHoldTheSpringEnergyAndTheRigidBodyMass) {
  const double k = 4e5, m1 = 10.0, m2 = 3.0;
  const std::string deck = std::string(kFrame) + "CELAS2,11,4.E5,2,3,3,1\n"
                                                 "CONM2,31,4,,10.,0.1,0.2,0.3\n,1.,0.1,2.,0.2,0.3,3.\n"
                                                 "CONM2,32,3,5,3.,1.,0.,0.\n,4.,,6.,,,8.\n";
  fe::ComponentOptions o;
  for (bool affine : {true, false}) {
    o.keep_affine = affine;
    fe::Component c(MPI_COMM_WORLD, read_bdf(write_deck("energy.bdf", deck)), o);
    ASSERT_EQ(c.autospc_count(), 0); // a CBAR frame has stiffness in every direction
    const Mesh& m = c.mesh();
    Mat Ks = nullptr, Ms = nullptr;
    MatH Kb, Mb; // direct assembly: K − K(without springs and masses)
    if (affine) {
      ASSERT_TRUE(c.has_constant_stiffness());
      ASSERT_TRUE(c.has_constant_mass());
      EXPECT_EQ(c.stiffness_terms().names().back(), "constant:springs");
      EXPECT_EQ(c.mass_terms().names().back(), "constant:point masses");
      EXPECT_EQ(c.stiffness_theta().back(), 1.0);
      EXPECT_EQ(c.mass_theta().back(), 1.0);
      EXPECT_EQ(c.stiffness_theta().size(), c.stiffness_terms().size());
      Ks = c.stiffness_terms().term(c.stiffness_terms().size() - 1);
      Ms = c.mass_terms().term(c.mass_terms().size() - 1);
    } else {
      // Direct assembly: K and M hold everything; the same component read without the springs and
      // masses gives the element part.
      const std::string bare = std::string(kFrame);
      fe::Component e(MPI_COMM_WORLD, read_bdf(write_deck("energy_bare.bdf", bare)), o);
      FLEXUQ_PETSC(MatDuplicate(c.K(), MAT_COPY_VALUES, Kb.out()));
      FLEXUQ_PETSC(MatAXPY(Kb.get(), -1.0, e.K(), DIFFERENT_NONZERO_PATTERN));
      FLEXUQ_PETSC(MatDuplicate(c.M(), MAT_COPY_VALUES, Mb.out()));
      FLEXUQ_PETSC(MatAXPY(Mb.get(), -1.0, e.M(), DIFFERENT_NONZERO_PATTERN));
      Ks = Kb.get();
      Ms = Mb.get();
    }
    auto dof = [&](long grid, int comp) { return c.dofs().node_dof(node_of(m, grid)) + comp; };
    // Spring: u_2 = (0.3, −0.7, 1.1, …), u_3 = (0.5, 0.2, −0.4, …) on translations.
    const Eigen::Vector3d u2(0.3, -0.7, 1.1), u3(0.5, 0.2, -0.4);
    std::vector<std::pair<PetscInt, double>> u;
    for (int d = 0; d < 3; ++d) {
      u.emplace_back(dof(2, d), u2[d]);
      u.emplace_back(dof(3, d), u3[d]);
      u.emplace_back(dof(2, 3 + d), 0.25 * (d + 1)); // rotations: a spring on translations ignores them
    }
    const double stretch = u2[2] - kE1.dot(u3);
    EXPECT_NEAR(quadratic_form(Ks, u), k * stretch * stretch, 1e-9 * k) << (affine ? "affine" : "direct");

    // Rigid-body motion v = a + ω × x, rotations ω, of the whole frame.
    const Eigen::Vector3d a(0.2, -0.1, 0.3), w(0.4, 0.5, -0.6);
    u.clear();
    for (long g = 1; g <= 4; ++g) {
      const auto& x = m.coords[static_cast<std::size_t>(node_of(m, g))];
      const Eigen::Vector3d v = a + w.cross(Eigen::Vector3d(x[0], x[1], x[2]));
      for (int d = 0; d < 3; ++d) {
        u.emplace_back(dof(g, d), v[d]);
        u.emplace_back(dof(g, 3 + d), w[d]);
      }
    }
    // Mass 1 at grid 4 (3, 0, 0) + (0.1, 0.2, 0.3), J1 in basic.
    Eigen::Matrix3d J1;
    J1 << 1.0, -0.1, -0.2, -0.1, 2.0, -0.3, -0.2, -0.3, 3.0;
    const Eigen::Vector3d cg1(3.1, 0.2, 0.3);
    // Mass 2 at grid 3 (2, 0, 0) + e1 (offset 1 along system 5's x), J2 = diag(4, 6, 8) in system 5.
    Eigen::Matrix3d R;
    R.row(0) = kE1;
    R.row(1) = kE2;
    R.row(2) = kE3;
    const Eigen::Matrix3d J2 = R.transpose() * Eigen::Vector3d(4, 6, 8).asDiagonal() * R;
    const Eigen::Vector3d cg2 = Eigen::Vector3d(2, 0, 0) + kE1;
    const Eigen::Vector3d v1 = a + w.cross(cg1), v2 = a + w.cross(cg2);
    const double expected = m1 * v1.squaredNorm() + w.dot(J1 * w) + m2 * v2.squaredNorm() + w.dot(J2 * w);
    EXPECT_NEAR(quadratic_form(Ms, u), expected, 1e-12 * expected) << (affine ? "affine" : "direct");
  }
}

namespace {

/// Grid 1 fixed, two CRODs (EA/h each, h = L/2, lumped ρAh/2 per end) to grids 2 and 3; grid 3
/// carries a grounded axial spring k and a CONM2 of mass m. Two finite modes, from the 2×2 problem
/// K = [[2 ka, −ka], [−ka, ka + k]], M = diag(ρAh, ρAh/2 + m), ka = EA/h. Every other direction of
/// grids 2 and 3 is left without stiffness and constrained by AUTOSPC. The mass's centre is 0.1
/// off the rod axis (along x), so its rigid-body mass couples the axial u_z with the constrained
/// bending rotation θ_y (v_cg,z = u̇_z − 0.1 θ̇_y): only with that coupling removed (P M P) is the
/// axial frequency the one of Nastran's eliminated system. The torsion (J large) has a mode of its
/// own far higher up (inertia m 0.1² from the offset).
struct SpringMass {
  double E = 2e11, A = 1e-4, L = 0.5, rho = 7800, k = 3e6, m = 2.5;
  std::string deck() const {
    std::ostringstream os;
    os.precision(17);
    os << "GRID,1,,0.,0.,0.\nGRID,2,,0.,0.," << L / 2 << "\nGRID,3,,0.,0.," << L << "\nCROD,1,7,1,2\nCROD,4,7,2,3\n"
       << "PROD,7,3," << A << ",1.E-3\nMAT1,3," << E << ",,0.3," << rho << "\nCELAS2,2," << k << ",3,3\nCONM2,3,3,," << m
       << ",0.1\nSPC1,1,123456,1\n";
    return os.str();
  }
  double omega(double e) const {
    const double h = L / 2, ka = e * A / h;
    Eigen::Matrix2d K, M;
    K << 2 * ka, -ka, -ka, ka + k;
    M << rho * A * h, 0, 0, rho * A * h / 2 + m;
    return std::sqrt(Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::Matrix2d>(K, M).eigenvalues()[0]);
  }
};

double lowest_frequency(const fe::Component& c) {
  fe::ModeOptions mo;
  mo.count = 1;
  mo.constrained = true;
  mo.progress = false;
  const auto modes = fe::solve_modes(c.K(), c.M(), mo);
  EXPECT_GE(modes.eigenvalues.size(), 1u);
  return modes.eigenvalues.empty() ? 0.0 : std::sqrt(modes.eigenvalues[0]);
}

} // namespace

TEST(BdfSprings, SpringMassFrequencyThroughTheAffineTermsAndTheParametrisation) {
  const SpringMass sm;
  fe::ComponentOptions o;
  o.fixed_sets = {"SPC1"};
  fe::Component c(MPI_COMM_WORLD, read_bdf(write_deck("spring_mass.bdf", sm.deck())), o);
  // Grids 2 and 3: transverse translations and bending rotations have no stiffness.
  EXPECT_EQ(c.autospc_count(), 8);
  EXPECT_NEAR(lowest_frequency(c), sm.omega(sm.E), 1e-9 * sm.omega(sm.E));

  // The spring stays when E changes: set_materials and the parametrisation re-evaluate the
  // group's terms and keep the constant term at coefficient 1.
  std::vector<fe::IsoMaterial> mats{c.groups()[0].material};
  mats[0].E = 2 * sm.E;
  c.set_materials(mats);
  EXPECT_NEAR(lowest_frequency(c), sm.omega(2 * sm.E), 1e-9 * sm.omega(2 * sm.E));
  const fe::MaterialParametrisation par(c, {{"E", fe::MaterialProperty::E, std::nullopt}});
  EXPECT_EQ(par.n_stiffness_terms(), 3);
  EXPECT_EQ(par.n_mass_terms(), 2);
  const auto coef = par.coefficients({0.5 * sm.E});
  EXPECT_EQ(coef.stiffness.size(), 3u);
  EXPECT_EQ(coef.stiffness.back(), 1.0);
  EXPECT_EQ(coef.mass.back(), 1.0);
  par.apply(c, {0.5 * sm.E});
  EXPECT_NEAR(lowest_frequency(c), sm.omega(0.5 * sm.E), 1e-9 * sm.omega(0.5 * sm.E));

  // Direct assembly (no affine terms) gives the same frequency.
  o.keep_affine = false;
  fe::Component d(MPI_COMM_WORLD, read_bdf(write_deck("spring_mass.bdf", sm.deck())), o);
  EXPECT_FALSE(d.has_constant_stiffness());
  EXPECT_NEAR(lowest_frequency(d), sm.omega(sm.E), 1e-9 * sm.omega(sm.E));

  // Stochastic expansion of the coefficients (exact projection of an affine map): the constant
  // term's column is 1 on ψ₀ and 0 elsewhere; E's columns follow E.
  uq::StochasticSpace space;
  space.add("E", uq::Distribution::lognormal_from_moments(sm.E, 0.1 * sm.E));
  const auto map = sg::parametrisation_map(par);
  EXPECT_EQ(map.n_stiffness, 3);
  sg::ExpansionOptions eo;
  eo.order = 3;
  const auto e = sg::expand_coefficients(space, map, eo);
  ASSERT_EQ(e.stiffness.cols(), 3);
  EXPECT_NEAR(e.stiffness(0, 2), 1.0, 1e-12);
  for (int a = 1; a < e.stiffness.rows(); ++a) EXPECT_NEAR(e.stiffness(a, 2), 0.0, 1e-12) << a;
  EXPECT_NEAR(e.stiffness(0, 0), sm.E, 1e-9 * sm.E); // E's mean on ψ₀
}

// AUTOSPC on a rod chain along a skew direction: every free grid has two transverse translations
// and two bending rotations without stiffness (4 n directions, none along a basic axis). With them
// constrained, the modes are exactly the axial ones of the lumped chain,
// ω_j = 2 √(k/m) sin((2j−1)π/(4n)). Were the constrained directions' mass kept, penalty modes
// √(κ/m) would fall among them; without AUTOSPC the chain is a mechanism.
TEST(BdfSprings, AutospcConstrainsTheDirectionsWithoutStiffness) {
  const int n = 6;
  const double h = 0.25, A = 2e-4, E = 7e10, rho = 2700;
  const Eigen::Vector3d dir = Eigen::Vector3d(2, -1, 2) / 3.0;
  auto deck = [&](const std::string& extra) {
    std::ostringstream os;
    os.precision(17);
    os << extra;
    for (int i = 0; i <= n; ++i) {
      const Eigen::Vector3d x = (h * i) * dir;
      os << "GRID*," << i + 1 << ",," << x[0] << "," << x[1] << "\n*," << x[2] << "\n";
    }
    for (int i = 1; i <= n; ++i) os << "CROD," << i << ",7," << i << "," << i + 1 << "\n";
    os << "PROD,7,3," << A << ",1.E-8\nMAT1,3," << E << ",,0.33," << rho << "\nSPC1,1,123456,1\n";
    return os.str();
  };
  fe::ComponentOptions o;
  o.fixed_sets = {"SPC1"};
  fe::Component c(MPI_COMM_WORLD, read_bdf(write_deck("autospc.bdf", deck(""))), o);
  EXPECT_EQ(c.autospc_count(), 4 * n);
  for (const auto& a : c.autospc_directions()) {
    const Eigen::Vector3d v(a.n[0], a.n[1], a.n[2]);
    EXPECT_NEAR(v.norm(), 1.0, 1e-12);
    EXPECT_NEAR(v.dot(dir), 0.0, 1e-8); // perpendicular to the rod
  }
  auto check = [&](double e) {
    // n − 1 modes: the solver asks for one more than it needs, and the chain has exactly n finite
    // eigenvalues (the rest are infinite: no mass). Penalty modes, were the mass kept, would sit
    // between the third and fourth axial mode (κ/m ≈ 2E/(ρh²)).
    fe::ModeOptions mo;
    mo.count = n - 1;
    mo.constrained = true;
    mo.progress = false;
    const auto modes = fe::solve_modes(c.K(), c.M(), mo);
    ASSERT_GE(modes.eigenvalues.size(), static_cast<std::size_t>(n - 1));
    const double k = e * A / h, m = rho * A * h;
    for (int j = 1; j < n; ++j) {
      const double w = 2 * std::sqrt(k / m) * std::sin((2 * j - 1) * M_PI / (4.0 * n));
      EXPECT_NEAR(std::sqrt(modes.eigenvalues[j - 1]), w, 1e-8 * w) << "E " << e << " mode " << j;
    }
  };
  check(E);
  std::vector<fe::IsoMaterial> mats{c.groups()[0].material};
  mats[0].E = 4 * E; // the constant AUTOSPC term stays; frequencies double
  c.set_materials(mats);
  check(4 * E);

  fe::Component off(MPI_COMM_WORLD, read_bdf(write_deck("autospc_no.bdf", deck("PARAM,AUTOSPC,NO\n"))), o);
  EXPECT_EQ(off.autospc_count(), 0);
  EXPECT_FALSE(off.has_constant_stiffness());
}

TEST(BdfSprings, BadInput) {
  const std::string frame(kFrame);
  expect_error(write_deck("nopelas.bdf", frame + "CELAS1,11,21,2,3\n"),
               {"nopelas.bdf:12:", "CELAS1 11 references property 21, which is not defined"});
  expect_error(write_deck("pbarpelas.bdf", frame + "CELAS1,11,1,2,3\n"), {"pbarpelas.bdf:12:", "a PBAR (a PELAS is needed)"});
  expect_error(write_deck("nogrid.bdf", frame + "CELAS2,11,1.,9,3\n"), {"nogrid.bdf:12:", "references grid 9, which is not defined"});
  expect_error(write_deck("lonegrid.bdf", frame + "GRID,9,,5.,0.,0.\nCELAS2,11,1.,2,1,9,1\n"),
               {"lonegrid.bdf:13:", "grid 9 belongs to no element"});
  expect_error(write_deck("comp7.bdf", frame + "CELAS2,11,1.,2,7\n"), {"comp7.bdf:12:", "component 7"});
  expect_error(write_deck("dupid.bdf", frame + "CELAS2,2,1.,2,1\n"), {"dupid.bdf:12:", "duplicate element id 2"});
  expect_error(write_deck("dupspring.bdf", frame + "CELAS2,11,1.,2,1\nCONM2,11,2,,1.\n"),
               {"dupspring.bdf:13:", "duplicate element id 11", "dupspring.bdf:12"});
  expect_error(write_deck("duppelas.bdf", frame + "PELAS,1,1.\n"), {"duppelas.bdf:12:", "duplicate property id 1"});
  expect_error(write_deck("nocid.bdf", frame + "CONM2,31,2,8,1.\n"), {"nocid.bdf:12:", "coordinate system 8"});
  expect_error(write_deck("negmass.bdf", frame + "CONM2,31,2,,-1.\n"), {"negmass.bdf:12:", "must not be negative"});
  expect_error(write_deck("cmass.bdf", frame + "CMASS4,31,1.,101\n"), {"cmass.bdf:12:", "CMASS4", "scalar points"});
  expect_error(write_deck("conm1.bdf", frame + "CONM1,31,2\n"), {"conm1.bdf:12:", "CONM1", "not supported"});
  // Solid meshes: no rotations, so no rotational spring; CONM2 offsets and inertia are dropped
  // with a warning (only the mass acts at the grid).
  const std::string tet = "GRID,1,,0.,0.,0.\nGRID,2,,1.,0.,0.\nGRID,3,,0.,1.,0.\nGRID,4,,0.,0.,1.\n"
                          "CTETRA,1,1,1,2,3,4\nPSOLID,1,1\nMAT1,1,1.E5,,0.3,1.\n";
  expect_error(write_deck("tetrot.bdf", tet + "CELAS2,11,1.,2,4\n"), {"tetrot.bdf:8", "component 4", "translations 1-3 only"});
  const Mesh m = read_bdf(write_deck("tetconm2.bdf", tet + "CONM2,31,2,,1.,0.1\n,1.\n"));
  ASSERT_EQ(m.point_masses.size(), 1u);
  EXPECT_EQ(m.point_masses[0].offset[0], 0.0);
  bool warned = false;
  for (const auto& w : m.warnings) warned = warned || w.find("CONM2 offsets and rotary inertia are ignored") != std::string::npos;
  EXPECT_TRUE(warned);
}
