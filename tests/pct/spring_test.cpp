// SPDX-License-Identifier: MIT
// Planar springs and dampers under PCT (seed 004 V22's point): a zero-length spring is polynomial and a
// body hanging on it with uncertain k is the mass–spring–damper (coefficient for coefficient, an identity
// between two independent models); a spring of free length L needs |d| = √(dᵀd): refused, naming it, or
// projected pseudo-spectrally — on a body held on the vertical line |d| = −y at every node, so the
// pseudo-spectral run must equal the mass–spring–damper shifted by −L.
#include "flexuq/core/Error.hpp"
#include "flexuq/pct/Galerkin.hpp"
#include "flexuq/pct/Models.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace flexuq::pct {

namespace {

constexpr double kM = 1.0, kC = 0.4, kG = 9.81, kK = 100.0, kSigma = 10.0;

PlanarMechanism hanging(double length, bool slot) {
  PlanarMechanism m;
  const int b = m.add_body({"ball", kM, 0.1, 0, -length, 0, true, 0});
  if (slot) m.add_joint({"slot", PlanarJoint::Type::slot, -1, b, {0, 0}, {0, 0}, {0, 1}});
  m.add_spring({"rear", -1, b, {0, 0}, {0, 0}, kK, kC, length});
  m.set_gravity(0, -kG);
  return m;
}

/// y coefficients of a PCT run to t = 1 (order 2, h = 1e-3).
Vec run_y(const GalerkinSystem& sys, int y_coordinate) {
  DaeState s = sys.initial_state();
  AlphaOptions o;
  o.end = 1.0;
  integrate_alpha(sys, s, o, {});
  return s.q.segment(y_coordinate * sys.terms(), sys.terms());
}

} // namespace

TEST(PctSprings, ZeroLengthSpringIsTheMassSpringDamper) {
  const PlanarMechanism m = hanging(0.0, false);
  EXPECT_TRUE(m.non_polynomial_terms().empty());
  GalerkinOptions o;
  o.order = 2;
  const GalerkinSystem planar(m, {{"k", uq::Distribution::normal(kK, kSigma), {{m.spring_data(0, 0), 1.0}}}}, o);
  EXPECT_TRUE(planar.exact());
  const MassSpringDamper msd(kM, kC, kG, kK);
  const GalerkinSystem ref(msd, {{"k", uq::Distribution::normal(kK, kSigma), {{MassSpringDamper::stiffness, 1.0}}}}, o);
  const Vec a = run_y(planar, 1), b = run_y(ref, 1);
  EXPECT_LT((a - b).cwiseAbs().maxCoeff(), 1e-10) << a.transpose() << " vs " << b.transpose();
  EXPECT_GT(a.tail(2).norm(), 1e-3); // the uncertain stiffness spreads y
}

TEST(PctSprings, FreeLengthSpringRefusedOrPseudoSpectral) {
  const double L = 0.5;
  const PlanarMechanism m = hanging(L, true);
  ASSERT_EQ(m.non_polynomial_terms().size(), 1u);
  const std::vector<UncertainInput> in{{"k", uq::Distribution::normal(kK, kSigma), {{m.spring_data(0, 0), 1.0}}}};
  GalerkinOptions o;
  o.order = 2;
  try {
    GalerkinSystem sys(m, in, o);
    FAIL() << "the spring's square root was projected silently";
  } catch (const OptionError& e) {
    EXPECT_EQ(e.option(), "quadrature_points");
    EXPECT_NE(std::string(e.what()).find("spring 'rear' (free length 0.5"), std::string::npos) << e.what();
  }
  o.quadrature_points = 3;
  const GalerkinSystem ps(m, in, o);
  EXPECT_FALSE(ps.exact());
  EXPECT_EQ(ps.points(), 3);
  const MassSpringDamper msd(kM, kC, kG, kK);
  GalerkinOptions oe;
  oe.order = 2;
  const GalerkinSystem ref(msd, {{"k", uq::Distribution::normal(kK, kSigma), {{MassSpringDamper::stiffness, 1.0}}}}, oe);
  Vec a = run_y(ps, 1);
  a[0] += L; // y = y_msd − L
  const Vec b = run_y(ref, 1);
  EXPECT_LT((a - b).cwiseAbs().maxCoeff(), 1e-10) << a.transpose() << " vs " << b.transpose();
}

} // namespace flexuq::pct
