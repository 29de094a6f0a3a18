// SPDX-License-Identifier: MIT
// The Galerkin-projected system: both assembly routes give the same residual (seed 004 V5), the order-1
// mass–spring–damper equals Eqs. 4.59–4.64 and E[V] the corrected Eq. 4.53, the projection equals the
// triple-product tensor of uq, sizes (V13), quadrature orders, refusal of non-polynomial terms, V18.
#include "flexuq/core/Error.hpp"
#include "flexuq/pct/Galerkin.hpp"
#include "flexuq/pct/Models.hpp"
#include "flexuq/uq/TripleProduct.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>


namespace flexuq::pct {

namespace {

Vec random_vec(std::mt19937& rng, int n, double scale, const Vec& centre = Vec()) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Vec v(n);
  for (int i = 0; i < n; ++i) v[i] = (centre.size() ? centre[i] : 0.0) + scale * u(rng);
  return v;
}

std::vector<UncertainInput> stiffness_input(double kbar, double sigma) {
  return {{"k", flexuq::uq::Distribution::normal(kbar, sigma), {{MassSpringDamper::stiffness, 1.0}}}};
}

double rel(const Vec& a, const Vec& b) { return (a - b).norm() / std::max(1e-300, b.norm()); }

} // namespace

TEST(PctGalerkin, MsdRoutesAgreeAndMatchThesisEquations) {
  const double m = 1.3, c = 0.4, g = 9.81, kbar = 100, sig = 10;
  MassSpringDamper msd(m, c, g, kbar);
  std::mt19937 rng(7);
  for (int order : {1, 2, 3}) {
    GalerkinOptions o;
    o.order = order;
    GalerkinSystem sys(msd, stiffness_input(kbar, sig), o);
    EXPECT_EQ(sys.points(), order + 1); // degree 2p+1 → p+1 Gauss points
    EXPECT_TRUE(sys.exact());
    const int N = sys.n();
    for (int trial = 0; trial < 3; ++trial) {
      const Vec q = random_vec(rng, N, 0.1), v = random_vec(rng, N, 1), a = random_vec(rng, N, 10),
                l = random_vec(rng, sys.m(), 5);
      const Vec rt = sys.residual(Route::traditional, q, v, a, l, 0.3);
      const Vec rv = sys.residual(Route::variational, q, v, a, l, 0.3);
      EXPECT_LT(rel(rt, rv), 1e-12) << "order " << order;
      if (order == 1) { // layout [x0, x1, y0, y1]; Eqs. 4.59–4.64 with the orthonormal ψ1 = ξ
        Vec ref(4);
        ref << m * a[0] - l[0], m * a[1] - l[1], m * a[2] + kbar * q[2] + sig * q[3] + m * g + c * v[2],
            m * a[3] + sig * q[2] + kbar * q[3] + c * v[3];
        EXPECT_LT(rel(rt, ref), 1e-13);
        const Vec ph = sys.phi(q);
        EXPECT_NEAR(ph[0], q[0], 1e-15);
        EXPECT_NEAR(ph[1], q[1], 1e-15);
        // E[V] = m g y0 + ½k̄y0² + ½k̄y1² + σ y0 y1 (Eq. 4.53 with its typo corrected)
        const double ev = m * g * q[2] + 0.5 * kbar * (q[2] * q[2] + q[3] * q[3]) + sig * q[2] * q[3];
        EXPECT_NEAR(sys.potential_energy(q), ev, 1e-13 * std::abs(ev));
        EXPECT_NEAR(sys.kinetic_energy(q, v), 0.5 * m * v.squaredNorm(), 1e-14);
      }
    }
  }
}

TEST(PctGalerkin, ProjectionEqualsTripleProductTensor) {
  // The projected stiffness block K̊_ab = E[k ψ_a ψ_b] = k̄ δ_ab + σ E[ψ_1 ψ_a ψ_b] (Hermite, order 4),
  // read off the linear force, against uq's closed-form triple products.
  const double kbar = 100, sig = 7;
  MassSpringDamper msd(1, 0, 0, kbar);
  GalerkinOptions o;
  o.order = 4;
  GalerkinSystem sys(msd, stiffness_input(kbar, sig), o);
  const int T = sys.terms();
  const flexuq::uq::PolynomialFamily h = flexuq::uq::PolynomialFamily::hermite();
  for (int b = 0; b < T; ++b) {
    Vec q = Vec::Zero(sys.n());
    q[T + b] = 1.0; // y_b
    const Vec f = sys.force(q, Vec::Zero(sys.n()), 0);
    for (int a = 0; a < T; ++a)
      EXPECT_NEAR(-f[T + a], kbar * (a == b) + sig * flexuq::uq::triple_product(h, 1, a, b), 1e-11) << a << "," << b;
  }
  // A quadratic term through the tensor: E[y² ψ_a] = Σ_bc y_b y_c E[ψ_a ψ_b ψ_c] is what the Legendre
  // projection of a planar norm row E[(e0² + e3² − 1) ψ_a] must give.
  PlanarMechanism mech;
  mech.add_body({"b", 1, 1, 0, 0, 0, false, 0});
  const std::vector<UncertainInput> in{{"u", flexuq::uq::Distribution::uniform(-1, 1), {{0, 1.0}}}};
  GalerkinOptions o2;
  o2.order = 3;
  GalerkinSystem ps(mech, in, o2);
  std::mt19937 rng(3);
  const Vec q = random_vec(rng, ps.n(), 0.5);
  const Vec ph = ps.phi(q);
  const int T2 = ps.terms();
  const flexuq::uq::PolynomialFamily leg = flexuq::uq::PolynomialFamily::legendre();
  for (int a = 0; a < T2; ++a) {
    double ref = a == 0 ? -1.0 : 0.0;
    for (int b = 0; b < T2; ++b)
      for (int cc = 0; cc < T2; ++cc)
        ref += (q[2 * T2 + b] * q[2 * T2 + cc] + q[3 * T2 + b] * q[3 * T2 + cc]) * flexuq::uq::triple_product(leg, a, b, cc);
    EXPECT_NEAR(ph[a], ref, 1e-13);
  }
}

TEST(PctGalerkin, OtherAskeyFamilies) {
  // Gamma (Laguerre chaos) and beta (Jacobi chaos) stiffness k = X = α + βξ (affine in the germ): the
  // projected stiffness E[k ψ_a ψ_b] = α δ_ab + β (a_0 δ_ab + √b_1 E[ψ_1 ψ_a ψ_b]) (ξ = a_0 + √b_1 ψ_1) with
  // uq's triple products (for these families by uq's own exact Gauss rule), and the two routes agree.
  const std::vector<flexuq::uq::Distribution> cases{flexuq::uq::Distribution::gamma(3.0, 5.0, 80.0),
                                                    flexuq::uq::Distribution::beta(2.0, 3.0, 90.0, 110.0)};
  std::mt19937 rng(17);
  for (const auto& dist : cases) {
    MassSpringDamper msd(1, 0.3, 9.81, dist.mean());
    GalerkinOptions o;
    o.order = 3;
    GalerkinSystem sys(msd, {{"k", dist, {{MassSpringDamper::stiffness, 1.0}}}}, o);
    const int T = sys.terms();
    const flexuq::uq::PolynomialFamily fam = dist.germ_family();
    const double alpha = dist.from_germ(0.0), beta = dist.from_germ(1.0) - alpha;
    const Vec f0 = sys.force(Vec::Zero(sys.n()), Vec::Zero(sys.n()), 0);
    for (int b = 0; b < T; ++b) {
      Vec q = Vec::Zero(sys.n());
      q[T + b] = 1.0;
      const Vec f = sys.force(q, Vec::Zero(sys.n()), 0) - f0;
      for (int a = 0; a < T; ++a) {
        const double exi = fam.a(0) * (a == b) + std::sqrt(fam.b(1)) * flexuq::uq::triple_product(fam, 1, a, b);
        EXPECT_NEAR(-f[T + a], alpha * (a == b) + beta * exi, 1e-10 * dist.mean()) << fam.name() << " " << a << "," << b;
      }
    }
    const Vec q = random_vec(rng, sys.n(), 0.1), v = random_vec(rng, sys.n(), 1), a = random_vec(rng, sys.n(), 5),
              l = random_vec(rng, sys.m(), 2);
    EXPECT_LT(rel(sys.residual(Route::traditional, q, v, a, l, 0), sys.residual(Route::variational, q, v, a, l, 0)), 1e-12)
        << fam.name();
  }
}

TEST(PctGalerkin, SliderCrankRoutesAgreeAndSizes) {
  const PlanarMechanism crank = seed004_slider_crank();
  std::mt19937 rng(11);
  for (int order : {1, 2}) {
    GalerkinOptions o;
    o.order = order;
    GalerkinSystem sys(crank, seed004_link_lengths(crank), o);
    if (order == 1) { // V13: q̊ 24, λ̊ 21 (+ q̊̇ 24 and the SI2 μ̊ 21 = 90 equations)
      EXPECT_EQ(sys.terms(), 3);
      EXPECT_EQ(sys.n(), 24);
      EXPECT_EQ(sys.m(), 21);
      EXPECT_EQ(sys.points(), 3); // 3×3 Gauss–Hermite, as the digest's reproduction
    } else {
      EXPECT_EQ(sys.terms(), 6);
      EXPECT_EQ(sys.points(), 5);
    }
    const Vec q0 = sys.lift(crank.initial_positions());
    for (int trial = 0; trial < 2; ++trial) {
      const Vec q = random_vec(rng, sys.n(), 0.05, q0), v = random_vec(rng, sys.n(), 0.5),
                a = random_vec(rng, sys.n(), 2), l = random_vec(rng, sys.m(), 3);
      const Vec rt = sys.residual(Route::traditional, q, v, a, l, 0.995); // inside the torque's switch
      const Vec rv = sys.residual(Route::variational, q, v, a, l, 0.995);
      EXPECT_LT(rel(rt, rv), 1e-12) << "order " << order;
      // r̊ = M̊ q̊̈ − f̊ − Φ̊_qᵀλ̊ with M̊ and Φ̊_q from their own assemblies
      const Vec split = sys.mass(q) * a - sys.force(q, v, 0.995) - sys.phi_q(q).transpose() * l;
      EXPECT_LT(rel(rt, split), 1e-12);
    }
  }
  // Another family: uniform link lengths (Legendre chaos) at order 2.
  std::vector<UncertainInput> in = seed004_link_lengths(crank);
  in[0].distribution = flexuq::uq::Distribution::uniform(0.9, 1.1);
  GalerkinOptions o;
  o.order = 2;
  GalerkinSystem sys(crank, in, o);
  const Vec q = random_vec(rng, sys.n(), 0.05, sys.lift(crank.initial_positions())), v = random_vec(rng, sys.n(), 0.5),
            a = random_vec(rng, sys.n(), 2), l = random_vec(rng, sys.m(), 3);
  EXPECT_LT(rel(sys.residual(Route::traditional, q, v, a, l, 0.2), sys.residual(Route::variational, q, v, a, l, 0.2)),
            1e-12);
}

namespace {
// A spring of free length L between the ground and a point mass: V = ½k(√(x² + y²) − L)², not polynomial.
class SqrtSpring : public MassSpringDamper {
public:
  SqrtSpring() : MassSpringDamper(1, 0, 0, 1) {}
  std::vector<std::string> non_polynomial_terms() const override { return {"spring 'rear' length sqrt(dr.dr)"}; }
};
} // namespace

TEST(PctGalerkin, NonPolynomialTermsRefusedOrPseudoSpectral) {
  SqrtSpring model;
  GalerkinOptions o;
  try {
    GalerkinSystem sys(model, stiffness_input(1, 0.1), o);
    FAIL() << "a non-polynomial model was projected silently";
  } catch (const flexuq::OptionError& e) {
    EXPECT_EQ(e.option(), "quadrature_points");
    EXPECT_NE(std::string(e.what()).find("spring 'rear' length"), std::string::npos) << e.what();
    EXPECT_NE(e.message_for("uncertainty.quadrature_points").find("set uncertainty.quadrature_points"),
              std::string::npos);
  }
  o.quadrature_points = 6;
  GalerkinSystem sys(model, stiffness_input(1, 0.1), o);
  EXPECT_FALSE(sys.exact());
  EXPECT_EQ(sys.points(), 6);
  // A log-normal input is not affine in its germ: refused the same way, naming the input.
  MassSpringDamper msd(1, 0, 0, 1);
  std::vector<UncertainInput> in{{"k", flexuq::uq::Distribution::lognormal(0, 0.1), {{MassSpringDamper::stiffness, 1.0}}}};
  try {
    GalerkinSystem s2(msd, in, GalerkinOptions{});
    FAIL();
  } catch (const flexuq::OptionError& e) {
    EXPECT_NE(std::string(e.what()).find("input 'k'"), std::string::npos) << e.what();
  }
  in[0].targets = {{17, 1.0}};
  EXPECT_THROW(GalerkinSystem(msd, in, GalerkinOptions{1, 3, Route::traditional}), flexuq::InputError);
  GalerkinOptions bad;
  bad.order = -1;
  EXPECT_THROW(GalerkinSystem(msd, stiffness_input(1, 0.1), bad), flexuq::OptionError);
}

TEST(PctModels, PlanarKinematicsV19) {
  // e = (cos θ/2, sin θ/2), ė = θ̇/2 (−sin θ/2, cos θ/2): T = ½m|v|² + ½Jθ̇², A(e) = R(θ), e0² + e3² = 1.
  PlanarMechanism mech;
  mech.add_body({"b", 2.5, 0.7, 0, 0, 0, false, 0});
  mech.add_joint({"pin", PlanarJoint::Type::revolute, 0, -1, {0.3, -0.2}, {0, 0}, {1, 0}});
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-3, 3);
  const std::vector<double> p = mech.nominal_data();
  for (int trial = 0; trial < 5; ++trial) {
    const double th = u(rng), w = u(rng), vx = u(rng), vy = u(rng), x = u(rng), y = u(rng);
    const HyperDual q[] = {x, y, std::cos(th / 2), std::sin(th / 2)};
    const HyperDual v[] = {vx, vy, -0.5 * w * std::sin(th / 2), 0.5 * w * std::cos(th / 2)};
    EXPECT_NEAR(mech.kinetic_energy(q, v, p.data()).v, 0.5 * 2.5 * (vx * vx + vy * vy) + 0.5 * 0.7 * w * w, 1e-12);
    HyperDual phi[3];
    mech.constraints(q, p.data(), phi);
    // r + A s_i − 0 with A = R(θ): the rotated pin point
    EXPECT_NEAR(phi[0].v, x + std::cos(th) * 0.3 + std::sin(th) * 0.2, 1e-14);
    EXPECT_NEAR(phi[1].v, y + std::sin(th) * 0.3 - std::cos(th) * 0.2, 1e-14);
    EXPECT_NEAR(phi[2].v, 0.0, 1e-15);
    const double qd[] = {x, y, std::cos(th / 2), std::sin(th / 2)};
    EXPECT_NEAR(std::remainder(mech.outputs(qd, p.data())[2] - th, 2 * std::acos(-1.0)), 0.0, 1e-13);
  }
}

TEST(PctGalerkin, AnalyticJacobiansAgainstFiniteDifferencesV20) {
  // M̊ = ∂r̊/∂q̊̈ and Φ̊_q against central differences of the residual and of Φ̊ (slider-crank, order 2).
  const PlanarMechanism crank = seed004_slider_crank();
  GalerkinOptions o;
  o.order = 2;
  const GalerkinSystem sys(crank, seed004_link_lengths(crank), o);
  std::mt19937 rng(13);
  const Vec q = random_vec(rng, sys.n(), 0.05, sys.lift(crank.initial_positions())), v = random_vec(rng, sys.n(), 0.5),
            a = random_vec(rng, sys.n(), 2), l = random_vec(rng, sys.m(), 3);
  const Mat mass = sys.mass(q), jac = sys.phi_q(q);
  const double h = 1e-6;
  double em = 0, ej = 0;
  for (int j = 0; j < sys.n(); ++j) {
    Vec ap = a, am = a, qp = q, qm = q;
    ap[j] += h;
    am[j] -= h;
    qp[j] += h;
    qm[j] -= h;
    const Vec dm = (sys.residual(Route::traditional, q, v, ap, l, 0.5) - sys.residual(Route::traditional, q, v, am, l, 0.5)) / (2 * h);
    const Vec dj = (sys.phi(qp) - sys.phi(qm)) / (2 * h);
    em = std::max(em, (dm - mass.col(j)).cwiseAbs().maxCoeff());
    ej = std::max(ej, (dj - jac.col(j)).cwiseAbs().maxCoeff());
  }
  EXPECT_LT(em, 1e-6 * mass.cwiseAbs().maxCoeff());
  EXPECT_LT(ej, 1e-6 * jac.cwiseAbs().maxCoeff());
  // γ̊ = −(Φ̊_q q̊̇)_q q̊̇: the second difference of Φ̊ along q̊̇
  const double t = 1e-4;
  const Vec d2 = (sys.phi(q + t * v) - 2 * sys.phi(q) + sys.phi(q - t * v)) / (t * t);
  EXPECT_LT((d2 + sys.gamma(q, v)).cwiseAbs().maxCoeff(), 1e-5 * (1 + d2.cwiseAbs().maxCoeff()));
}

TEST(PctModels, SmoothStepV18) {
  EXPECT_EQ(smooth_step(0.99, 0.99, 1.0, 1.01, -1.0), 1.0);
  EXPECT_EQ(smooth_step(1.01, 0.99, 1.0, 1.01, -1.0), -1.0);
  EXPECT_NEAR(smooth_step(1.0, 0.99, 1.0, 1.01, -1.0), 0.0, 1e-14);
  const double h = 1e-9; // the slope is 6(x2 − x1)Δ(1 − Δ)/(t2 − t1): O(h) at both ends
  EXPECT_NEAR((smooth_step(0.99 + h, 0.99, 1.0, 1.01, -1.0) - 1.0) / h, 0.0, 1e-4);
  EXPECT_NEAR((smooth_step(1.01 - h, 0.99, 1.0, 1.01, -1.0) + 1.0) / h, 0.0, 1e-4);
}

} // namespace flexuq::pct
