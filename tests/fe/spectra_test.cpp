// SPDX-License-Identifier: MIT
// Analytic spectra (Euler–Bernoulli cantilever and free-free beam: bending, axial, torsion), the
// seed-000 half-bar spectrum with its multiplicities (van Voorthuizen 2020, Sec. 7.5 bar 1;
// reference spectrum computed independently: the thesis gives none), spectrum slicing, mechanism
// detection, and 1 rank = N ranks (eigenvalues to 1e-10, subspaces by principal angles).
#include "FeTestUtil.hpp"

#include "flexuq/io/Generators.hpp"

#include <gtest/gtest.h>

#include <cmath>

using namespace flexuq;

namespace {

fe::ModeSet solve(const fe::Component& c, int count) {
  fe::ModeOptions o;
  o.count = count;
  o.constrained = c.has_fixed_nodes();
  o.constraint_description = "test";
  return fe::solve_modes(c.K(), c.M(), o);
}

std::string beam_yaml(int elements, const std::string& fixed, const std::string& section) {
  return "model:\n  generator: {type: beam, length: 2.0, elements: " + std::to_string(elements) +
         ", section: " + section + "}\n  material: {E: 2.0e11, nu: 0.3, rho: 7800}\n" +
         (fixed.empty() ? "" : "  fixed: [" + fixed + "]\n");
}

constexpr double kE = 2.0e11, kRho = 7800, kL = 2.0;
const double kG = kE / 2.6;

double bending_hz(double betaL, double I, double A) {
  return betaL * betaL / (2 * M_PI * kL * kL) * std::sqrt(kE * I / (kRho * A));
}

} // namespace

TEST(Spectra, CantileverBendingMatchesEulerBernoulli) {
  // Square 20 mm section: each bending frequency is double (two planes).
  const double a = 0.02, A = a * a, I = a * a * a * a / 12;
  auto c = test::component_from_yaml(MPI_COMM_WORLD, beam_yaml(60, "END0", "{shape: RECT, dims: [0.02, 0.02]}"));
  auto m = solve(*c, 6);
  const auto f = m.frequencies_hz();
  const double betaL[3] = {1.8751040687, 4.6940911330, 7.8547574382};
  for (int k = 0; k < 3; ++k) {
    const double exact = bending_hz(betaL[k], I, A);
    EXPECT_NEAR(f[2 * k], exact, 1e-5 * exact) << "mode " << 2 * k + 1;
    EXPECT_NEAR(f[2 * k + 1], exact, 1e-5 * exact) << "mode " << 2 * k + 2;
    EXPECT_EQ(m.multiplicity[2 * k], 2);
  }
  EXPECT_TRUE(m.rigid_eigenvalues.empty());
  for (double r : m.residuals) EXPECT_LT(r, 1e-8);
}

TEST(Spectra, FreeFreeBeamBendingAxialTorsion) {
  // Circular section r = 10 mm: torsion of a circle has J = I_x, so f_T = n/(2L) sqrt(G/ρ);
  // axial f_L = n/(2L) sqrt(E/ρ); bending βL = 4.7300, 7.8532 (double each).
  const double r = 0.01, A = M_PI * r * r, I = M_PI * std::pow(r, 4) / 4;
  auto c = test::component_from_yaml(MPI_COMM_WORLD, beam_yaml(80, "", "{shape: CIRC, dims: [0.01]}"));
  auto m = solve(*c, 40);
  EXPECT_EQ(m.rigid_eigenvalues.size(), 6u);
  const auto f = m.frequencies_hz();
  auto nearest = [&](double target) {
    double best = f[0];
    for (double v : f)
      if (std::abs(v - target) < std::abs(best - target)) best = v;
    return best;
  };
  for (double bl : {4.7300407449, 7.8532046241}) {
    const double exact = bending_hz(bl, I, A);
    EXPECT_NEAR(nearest(exact), exact, 1e-5 * exact);
  }
  const double fT = std::sqrt(kG / kRho) / (2 * kL), fL = std::sqrt(kE / kRho) / (2 * kL);
  // Linear interpolation of twist/axial displacement with consistent mass: error O((π/N)²)/12.
  EXPECT_NEAR(nearest(fT), fT, 2e-4 * fT);
  EXPECT_NEAR(nearest(2 * fT), 2 * fT, 8e-4 * fT);
  EXPECT_NEAR(nearest(fL), fL, 2e-4 * fL);
}

TEST(Spectra, SeedHalfBarGroupsAndMultiplicities) {
  // van Voorthuizen 2020, Sec. 7.5, bar 1 (reference values computed independently, not thesis numbers): 21 nodes (20 elements), L = 0.15, clamped at both ends and
  // the middle; square 10 mm section with J = 0.1406 a⁴ and I_x = I_y + I_z (a GENERAL section
  // carries exactly these values); E, G from the seed's (G, C) = (76.9e9, 166.7e9); ρ = 7870.
  const double a = 0.01, A = a * a, I = std::pow(a, 4) / 12, J = 0.1406 * std::pow(a, 4);
  const std::string section = "{shape: GENERAL, dims: [" + std::to_string(A) + ", " + std::to_string(I) + ", 0, " +
                              std::to_string(I) + ", " + std::to_string(J) + "]}";
  char buf[400];
  std::snprintf(buf, sizeof buf,
                "model:\n  generator: {type: beam, length: 0.15, elements: 20, section: {shape: GENERAL, dims: "
                "[%.17g, %.17g, 0, %.17g, %.17g]}}\n  material: {G: 76.9e9, C: 166.7e9, rho: 7870}\n"
                "  fixed: [END0, END1, MID]\n",
                A, I, I, J);
  (void)section;
  auto c = test::component_from_yaml(MPI_COMM_WORLD, buf);
  EXPECT_EQ(c->dofs().global_size(), 108); // T6: K_ii is 108 × 108 for 21 nodes
  auto m = solve(*c, 18);
  const double expected[] = {3.350e9, 3.350e9, 3.350e9, 3.350e9, 1.458e10, 1.458e10, 2.546e10, 2.546e10, 2.546e10,
                             2.546e10, 4.495e10, 4.495e10, 5.978e10, 5.978e10, 9.801e10, 9.801e10, 9.801e10, 9.801e10};
  const int mult[] = {4, 4, 4, 4, 2, 2, 4, 4, 4, 4, 2, 2, 2, 2, 4, 4, 4, 4};
  for (int i = 0; i < 18; ++i) {
    // The digest quotes 4 significant digits: agree to within half a unit of the 4th digit.
    const double half_unit = 0.5e-3 * std::pow(10.0, std::floor(std::log10(expected[i])));
    EXPECT_NEAR(m.eigenvalues[i], expected[i], half_unit) << "lambda " << i + 1;
    EXPECT_EQ(m.multiplicity[i], mult[i]) << "lambda " << i + 1;
  }
  // T8: the first axial group against FE 4.4947e10 (1e-4) and analytic (π/0.075)² E/ρ (1 %).
  const double E = 9 * 166.7e9 * 76.9e9 / (3 * 166.7e9 + 76.9e9);
  EXPECT_NEAR(m.eigenvalues[10], 4.4947e10, 1e-4 * 4.4947e10);
  EXPECT_NEAR(m.eigenvalues[10], std::pow(M_PI / 0.075, 2) * E / 7870, 0.01 * m.eigenvalues[10]);
  // T9: bending eigenvalues scale with E, torsion with G (re-evaluate the affine operator).
}

TEST(Spectra, ModulusScalingThroughAffineOperator) {
  // seed-000 T9: λ_bend ∝ E, λ_tors ∝ G; mode shapes invariant. Uses the affine K(θ) (no re-assembly).
  auto c = test::component_from_yaml(
      MPI_COMM_WORLD, beam_yaml(20, "END0, END1", "{shape: RECT, dims: [0.01, 0.01]}"), /*keep_affine=*/true);
  auto m0 = solve(*c, 6);
  auto mat = c->groups()[0].material;
  const double E0 = mat.E, G0 = mat.G();
  // Scale E by 1.1 keeping G: ν changes accordingly (ν = E/2G − 1).
  const double E1 = 1.1 * E0, nu1 = E1 / (2 * G0) - 1;
  c->set_materials({fe::IsoMaterial::checked("scaled", E1, nu1, mat.rho)});
  auto m1 = solve(*c, 6);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(m1.eigenvalues[i] / m0.eigenvalues[i], 1.1, 1e-9); // bending group
  const auto V0 = test::natural_columns(*c, m0.vectors), V1 = test::natural_columns(*c, m1.vectors);
  const auto cos = test::subspace_cosines(V0.leftCols(4), V1.leftCols(4));
  EXPECT_GT(cos.minCoeff(), 1 - 1e-9);
}

TEST(Spectra, SpectrumSlicingFindsEveryModeInTheBand) {
  auto c = test::component_from_yaml(MPI_COMM_WORLD, beam_yaml(40, "END0", "{shape: RECT, dims: [0.02, 0.01]}"));
  auto ref = solve(*c, 12);
  const auto fr = ref.frequencies_hz();
  fe::ModeOptions o;
  o.band_hz = std::make_pair(0.5 * (fr[1] + fr[2]), 0.5 * (fr[8] + fr[9])); // modes 3..9
  o.constrained = true;
  auto band = fe::solve_modes(c->K(), c->M(), o);
  ASSERT_EQ(band.eigenvalues.size(), 7u);
  for (int i = 0; i < 7; ++i) EXPECT_NEAR(band.eigenvalues[i], ref.eigenvalues[i + 2], 1e-9 * ref.eigenvalues[i + 2]);
}

TEST(Spectra, MechanismIsReported) {
  // Clamping only the nodes on one edge line of a box leaves the rotation about that line free:
  // one zero-energy mode, which must be reported as a mechanism (InputError), not returned as a mode.
  io::BoxSpec s;
  s.size = {0.2, 0.05, 0.05};
  s.cells = {4, 1, 1};
  auto mesh = io::generate_box(s);
  for (std::size_t n = 0; n < mesh.num_nodes(); ++n)
    if (mesh.coords[n][1] == 0.0 && mesh.coords[n][2] == 0.0) mesh.node_sets["EDGE"].push_back(static_cast<int>(n));
  fe::ComponentOptions o;
  o.default_material = test::material("steel", 2e11, 0.3, 7800);
  o.fixed_sets = {"EDGE"};
  fe::Component c(MPI_COMM_WORLD, mesh, o);
  try {
    solve(c, 4);
    ADD_FAILURE() << "expected a mechanism error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("mechanism: 1 zero-energy"), std::string::npos) << e.what();
  }
}

TEST(Spectra, OneRankEqualsAllRanks) {
  // The same free-free solid solved on all ranks and on each rank alone.
  const char* yaml = R"(
model:
  generator: {type: box, size: [0.3, 0.1, 0.1], cells: [6, 2, 2], order: 2}
  material: {E: 2.0e11, nu: 0.3, rho: 7800}
)";
  auto cw = test::component_from_yaml(MPI_COMM_WORLD, yaml);
  auto cs = test::component_from_yaml(MPI_COMM_SELF, yaml);
  auto mw = solve(*cw, 12), ms = solve(*cs, 12);
  ASSERT_EQ(mw.eigenvalues.size(), ms.eigenvalues.size());
  EXPECT_EQ(mw.rigid_eigenvalues.size(), 6u);
  for (std::size_t i = 0; i < mw.eigenvalues.size(); ++i)
    EXPECT_NEAR(mw.eigenvalues[i], ms.eigenvalues[i], 1e-10 * ms.eigenvalues[i]) << i;
  const auto Vw = test::natural_columns(*cw, mw.vectors), Vs = test::natural_columns(*cs, ms.vectors);
  // Compare cluster by cluster (degenerate pairs only as subspaces).
  std::size_t i = 0;
  while (i < mw.eigenvalues.size()) {
    const int k = mw.multiplicity[i];
    const auto cos = test::subspace_cosines(Vw.middleCols(i, k), Vs.middleCols(i, k));
    EXPECT_GT(cos.minCoeff(), 1 - 1e-8) << "cluster at mode " << i + 1;
    if (k == 1) {
      EXPECT_GT(test::mac(Vw.col(i), Vs.col(i)), 1 - 1e-10);
    }
    i += static_cast<std::size_t>(k);
  }
  // Rigid-body subspace: the six rigid modes span the same space.
  const auto Rw = test::natural_columns(*cw, mw.rigid_vectors), Rs = test::natural_columns(*cs, ms.rigid_vectors);
  EXPECT_GT(test::subspace_cosines(Rw, Rs).minCoeff(), 1 - 1e-8);
}
