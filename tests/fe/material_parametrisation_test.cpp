// SPDX-License-Identifier: MIT
// fe::MaterialParametrisation: parameters keyed by element set, the (G, C) conversion of seed 000
// with its Poisson guard, affine coefficients equal to the component's own, and K(θ) equal to a
// component assembled directly with the sampled materials (Frobenius norms: numbering-free).
#include "FeTestUtil.hpp"

#include "flexuq/fe/MaterialParametrisation.hpp"
#include "flexuq/io/Generators.hpp"

#include <gtest/gtest.h>

using namespace flexuq;

namespace {

/// A 4 × 1 × 1 hex8 box; LEFT = the two elements with x < 0.5 (its own material), ODD = elements
/// 1 and 3 (no material of its own: it shares groups with elements outside it).
io::Mesh box() {
  io::BoxSpec s;
  s.size = {1.0, 0.25, 0.25};
  s.cells = {4, 1, 1};
  auto m = io::generate_box(s);
  for (std::size_t e = 0; e < m.num_elements(); ++e) {
    double x = 0;
    for (int k = 0; k < m.element_size(e); ++k) x += m.coords[static_cast<std::size_t>(m.element(e)[k])][0];
    if (x / m.element_size(e) < 0.5) m.element_sets["LEFT"].push_back(static_cast<int>(e));
    if (e % 2 == 1) m.element_sets["ODD"].push_back(static_cast<int>(e));
  }
  return m;
}

fe::ComponentOptions options(double E_left, double rho_left, double E_rest, double rho_rest) {
  fe::ComponentOptions o;
  o.default_material = test::material("steel", E_rest, 0.3, rho_rest);
  o.set_materials["LEFT"] = test::material("alu", E_left, 0.33, rho_left);
  o.keep_affine = true;
  return o;
}

double frobenius(Mat A) {
  PetscReal n = 0;
  FLEXUQ_PETSC(MatNorm(A, NORM_FROBENIUS, &n));
  return n;
}

fe::MaterialParameter param(const std::string& name, fe::MaterialProperty p, std::optional<std::string> set = {}) {
  fe::MaterialParameter m;
  m.name = name;
  m.property = p;
  m.element_set = std::move(set);
  return m;
}

} // namespace

TEST(MaterialParametrisation, ParametersActOnTheirElementSet) {
  fe::Component c(MPI_COMM_WORLD, box(), options(7.0e10, 2700, 2.0e11, 7800));
  ASSERT_EQ(c.groups().size(), 2u);
  const fe::MaterialParametrisation mp(c, {param("E_left", fe::MaterialProperty::E, "left"),
                                           param("rho", fe::MaterialProperty::rho)});
  ASSERT_EQ(mp.groups_of(0).size(), 1u);
  EXPECT_EQ(mp.groups_of(1).size(), 2u);
  const int left = mp.groups_of(0)[0], rest = 1 - left;
  const auto mats = mp.materials({7.5e10, 5000});
  EXPECT_EQ(mats[left].E, 7.5e10);
  EXPECT_EQ(mats[left].nu, 0.33);
  EXPECT_EQ(mats[rest].E, 2.0e11);
  EXPECT_EQ(mats[left].rho, 5000);
  EXPECT_EQ(mats[rest].rho, 5000);

  // The coefficients are the component's own for those materials, and K(θ), M(θ) equal a
  // component assembled directly with them.
  fe::Component sampled(MPI_COMM_WORLD, box(), options(7.5e10, 5000, 2.0e11, 5000));
  mp.apply(c, {7.5e10, 5000});
  const auto coef = mp.coefficients({7.5e10, 5000});
  EXPECT_EQ(coef.stiffness, c.stiffness_theta());
  EXPECT_EQ(coef.mass, c.mass_theta());
  EXPECT_NEAR(frobenius(c.K()), frobenius(sampled.K()), 1e-12 * frobenius(sampled.K()));
  EXPECT_NEAR(frobenius(c.M()), frobenius(sampled.M()), 1e-12 * frobenius(sampled.M()));
}

TEST(MaterialParametrisation, ShearAndBulkModuliWithPoissonGuard) {
  fe::Component c(MPI_COMM_WORLD, box(), options(7.0e10, 2700, 2.0e11, 7800));
  const fe::MaterialParametrisation mp(c, {param("G", fe::MaterialProperty::G), param("C", fe::MaterialProperty::C)});
  // Seed 000 (Table 7.x): G = 76.9 GPa, C = 166.7 GPa → E = 9CG/(3C+G), ν = 0.3000867.
  const double G = 76.9e9, C = 166.7e9;
  for (const auto& m : mp.materials({G, C})) {
    EXPECT_NEAR(m.E, 9 * C * G / (3 * C + G), 1e-15 * m.E);
    EXPECT_NEAR(m.nu, 0.3000867, 1e-6);
    EXPECT_NEAR(m.G(), G, 1e-12 * G);
  }
  // Only G given: C comes from the nominal material, C = E/(3(1 − 2ν)).
  const fe::MaterialParametrisation only_g(c, {param("G", fe::MaterialProperty::G)});
  const int steel = c.groups()[0].material.E == 2.0e11 ? 0 : 1;
  const auto m = only_g.materials({G})[steel];
  const double C_steel = 2.0e11 / (3 * (1 - 0.6));
  EXPECT_NEAR(m.nu, (3 * C_steel - 2 * G) / (6 * C_steel + 2 * G), 1e-14);
  // Poisson guard (seed 000, 7.3): G = 1.5 C gives ν = 0 (allowed); G > 1.5 C is rejected.
  EXPECT_NEAR(mp.materials({1.5 * C, C})[0].nu, 0.0, 1e-15);
  EXPECT_THROW(mp.materials({1.5 * C * (1 + 1e-9), C}), InputError);
  EXPECT_THROW(mp.materials({-G, C}), InputError);
  // ν and E out of range through the plain parameters are rejected too.
  const fe::MaterialParametrisation nu(c, {param("nu", fe::MaterialProperty::nu)});
  EXPECT_THROW(nu.materials({0.5}), InputError);
  EXPECT_NO_THROW(nu.materials({0.49}));
}

TEST(MaterialParametrisation, SetsMustOwnTheirMaterial) {
  fe::Component c(MPI_COMM_WORLD, box(), options(7.0e10, 2700, 2.0e11, 7800));
  EXPECT_THROW(fe::MaterialParametrisation(c, {param("E", fe::MaterialProperty::E, "ODD")}), InputError);
  EXPECT_THROW(fe::MaterialParametrisation(c, {param("E", fe::MaterialProperty::E, "NOPE")}), InputError);
  EXPECT_THROW(fe::material_property("Young", "parameter 'Young'"), InputError);
  EXPECT_EQ(fe::material_property("G", "x"), fe::MaterialProperty::G);
  EXPECT_STREQ(fe::to_string(fe::MaterialProperty::nu), "nu");
}

namespace {

double frobenius_difference(Mat A, Mat B) {
  MatH D;
  FLEXUQ_PETSC(MatDuplicate(A, MAT_COPY_VALUES, D.out()));
  FLEXUQ_PETSC(MatAXPY(D.get(), -1.0, B, SAME_NONZERO_PATTERN));
  return frobenius(D.get());
}

} // namespace

// Terms that stay proportional are merged (fewer matrices held by a stochastic reduction), and the
// merged component gives the unmerged one's K(θ), M(θ) at points away from the nominal ones.
TEST(MaterialParametrisation, ProportionalTermsMergeWithoutChangingKAndM) {
  struct Case {
    std::vector<fe::MaterialParameter> params;
    std::vector<std::vector<double>> points;
    std::size_t k_terms, m_terms;
  };
  const std::vector<Case> cases{
      // E of LEFT, rho of all: LEFT's lambda+mu, the rest's lambda+mu (constant); one mass term.
      {{param("E_left", fe::MaterialProperty::E, "LEFT"), param("rho", fe::MaterialProperty::rho)},
       {{7.5e10, 5000}, {6.0e10, 9000}}, 2, 1},
      // nu of LEFT: its lambda and mu stay apart; the rest is constant; the two densities constant.
      {{param("nu_left", fe::MaterialProperty::nu, "LEFT"), param("E", fe::MaterialProperty::E)},
       {{0.27, 1.9e11}, {0.41, 2.2e11}}, 3, 1},
      // E of all and rho of LEFT: one stiffness term, two mass terms.
      {{param("E", fe::MaterialProperty::E), param("rho_left", fe::MaterialProperty::rho, "LEFT")},
       {{1.9e11, 3000}, {2.3e11, 2500}}, 1, 2}};
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& cs = cases[i];
    fe::Component plain(MPI_COMM_WORLD, box(), options(7.0e10, 2700, 2.0e11, 7800));
    fe::Component merged(MPI_COMM_WORLD, box(), options(7.0e10, 2700, 2.0e11, 7800));
    const fe::MaterialParametrisation mp(plain, cs.params), mm(merged, cs.params);
    const auto sets = mm.proportional_terms();
    // The weights from a member of the parameters' family (the mesh's two materials are not one:
    // rho of all sets both densities to one value).
    const auto c0 = mm.coefficients(cs.points[0]);
    merged.merge_affine_terms(sets.stiffness, sets.mass, c0.stiffness, c0.mass);
    EXPECT_EQ(plain.stiffness_terms().size(), 4u);
    EXPECT_EQ(merged.stiffness_terms().size(), cs.k_terms) << "case " << i;
    EXPECT_EQ(merged.mass_terms().size(), cs.m_terms) << "case " << i;
    for (const auto& th : cs.points) {
      mp.apply(plain, th);
      mm.apply(merged, th);
      EXPECT_LT(frobenius_difference(plain.K(), merged.K()), 1e-13 * frobenius(plain.K())) << "case " << i;
      EXPECT_LT(frobenius_difference(plain.M(), merged.M()), 1e-13 * frobenius(plain.M())) << "case " << i;
    }
  }
}
