// SPDX-License-Identifier: MIT
// Seed 002 N8-N10 (digest §5.2, §5.3, §5.6): quad8 plane-stress cantilevers against the elastica
// (Bisshopp-Drucker/Mattiasson tip force, follower tip force, and the follower end moment that winds
// the beam into a circle of radius EI/M), NFE = NFFb = NFFe, one rank = all ranks; a bar2 bar against
// the closed-form SVK stretch; bad input named by field.
#include "flexuq/core/Error.hpp"
#include "flexuq/nl/Static.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace flexuq::nl;

namespace {

const double kE = 200e9, kNu = 0.3, kH = 0.05, kT = 0.01;
const double kEI = kE * kT * kH * kH * kH / 12; // 20 833.33 N m^2

StaticOptions options(Formulation f, int steps) {
  StaticOptions o;
  o.formulation = f;
  o.material = SvkMaterial{kE, kNu, kT, 1};
  o.steps = steps;
  return o;
}

std::vector<StaticSupport> clamped_root() { return {StaticSupport{"root", {true, true}, Eigen::Vector2d::Zero()}}; }

/// Tip (u, v) / L per step of a quad8 cantilever of length @p L under one load.
std::vector<Eigen::Vector2d> tip_path(MPI_Comm comm, double L, int nx, int ny, const StaticLoad& load, Formulation f,
                                      int steps, StaticResult* out = nullptr, double height = kH) {
  const StaticMesh mesh = cantilever_mesh(ElementKind::quad8, L, height, 0, {nx, ny});
  const StaticResult r = solve_static(comm, mesh, clamped_root(), {load}, options(f, steps));
  EXPECT_TRUE(r.completed) << r.failure;
  std::vector<Eigen::Vector2d> tips;
  const int tip = mesh.sets.at("tip_mid").front();
  for (const auto& s : r.steps) tips.push_back(node_displacement(mesh, s, tip) / L);
  if (out) *out = r;
  return tips;
}

// Digest §5.6 (a): u/L (shortening) and v/L at k = PL^2/EI = 1..10.
const double kFixedU[] = {0.05643, 0.16064, 0.25442, 0.32894, 0.38763, 0.43459, 0.47293, 0.50483, 0.53182, 0.55500};
const double kFixedV[] = {0.30172, 0.49346, 0.60325, 0.66996, 0.71379, 0.74457, 0.76737, 0.78498, 0.79906, 0.81061};
// §5.6 (b): follower force perpendicular to the tip, k = 1..6. k = 1..4 as the digest prints them; its
// k = 5, 6 entries (0.92666/0.80129, 1.09522/0.70266) solve neither the digest's equation nor the
// mechanics: RK4 shooting on θ'' = -k cos(θ - θ_tip), θ(0) = 0, θ'(1) = 0, θ(1) = θ_tip (Newton on
// θ'(0) and θ_tip, 4000 steps) reproduces the digest's k = 1..4 and the whole fixed-load table of (a)
// to 5 digits, and from every start (θ'(0) = 1..6, θ_tip = the digest's) converges to these k = 5, 6
// values (θ_tip 2.09816, 2.36555 rad).
const double kFollowU[] = {0.06435, 0.23264, 0.44834, 0.65725, 0.82772, 0.95050};
const double kFollowV[] = {0.32064, 0.57384, 0.72668, 0.78617, 0.78069, 0.74027};

/// |tip - elastica| / L per step (u/L counts the shortening, so the tip's x displacement is -u).
std::vector<double> elastica_errors(const std::vector<Eigen::Vector2d>& tips, const double* u, const double* v) {
  std::vector<double> e;
  for (std::size_t k = 0; k < tips.size(); ++k) e.push_back(std::hypot(-tips[k][0] - u[k], tips[k][1] - v[k]));
  return e;
}

} // namespace

// N8: tip force of fixed direction to k = 10 in 10 steps: within 1 % of L of the elastica at every
// k; NFFb and NFFe equal NFE to 1e-8 (relative to the tip displacement).
TEST(NlStatic, TipForceElastica) {
  StaticLoad load{LoadKind::force, "tip_mid", Eigen::Vector2d(0, 10 * kEI), 0};
  StaticResult nfe_res;
  const auto nfe = tip_path(MPI_COMM_WORLD, 1.0, 40, 2, load, Formulation::nfe, 10, &nfe_res);
  ASSERT_EQ(nfe.size(), 10u);
  const auto err = elastica_errors(nfe, kFixedU, kFixedV);
  for (int k = 0; k < 10; ++k) EXPECT_LT(err[k], 0.01) << "k = " << k + 1;
  std::printf("N8 NFE: worst |tip - elastica| / L = %.2e; %.2f s\n", *std::max_element(err.begin(), err.end()),
              nfe_res.seconds);
  for (Formulation f : {Formulation::nffb, Formulation::nffe}) {
    StaticResult r;
    const auto other = tip_path(MPI_COMM_WORLD, 1.0, 40, 2, load, f, 10, &r);
    ASSERT_EQ(other.size(), 10u);
    double diff = 0;
    for (int k = 0; k < 10; ++k) diff = std::max(diff, (other[k] - nfe[k]).norm() / nfe[k].norm());
    EXPECT_LT(diff, 1e-8) << formulation_name(f);
    std::printf("N8 %s: max |tip - NFE tip| / |NFE tip| = %.2e; %.2f s, frame node %d\n", formulation_name(f), diff,
                r.seconds, r.frame_node);
  }
}

// N10: a follower tip force (perpendicular to the tip, turning with the material rotation at the loaded
// node) to k = 6 in 6 steps against the elastica of §5.6 (b): within 1 % of L to k = 4 (measured 0.04,
// 0.19, 0.48, 0.78 %), 1.5 % at k = 5, 6 (measured 1.05, 1.19 %: the tip has turned 2.1-2.4 rad; the
// digest allows ~1-2 %).
TEST(NlStatic, FollowerForceElastica) {
  StaticLoad load{LoadKind::follower_force, "tip_mid", Eigen::Vector2d(0, 6 * kEI), 0};
  StaticResult r;
  const auto tips = tip_path(MPI_COMM_WORLD, 1.0, 40, 2, load, Formulation::nfe, 6, &r);
  ASSERT_EQ(tips.size(), 6u);
  const auto err = elastica_errors(tips, kFollowU, kFollowV);
  for (int k = 0; k < 6; ++k) EXPECT_LT(err[k], k < 4 ? 0.01 : 0.015) << "k = " << k + 1;
  const double worst = *std::max_element(err.begin(), err.end());
  int its = 0;
  for (const auto& s : r.steps) its += s.newton_iterations;
  std::printf("N10 NFE: worst |tip - elastica| / L = %.2e; %d Newton iterations, %.2f s\n", worst, its, r.seconds);
}

/// Pure bending of a plane-stress SVK strip of height @p h under the end moment @p M, the continuum's
/// exact state away from its ends: the fibre at reference height Y lies on the circle of radius r(Y),
/// x = C + r(Y) (sin kX, -cos kX), so its stretch is l1 = k r and the transverse stretch l2 = r';
/// E11 = (l1^2 - 1) / 2, E22 = (l2^2 - 1) / 2, S = E / (1 - nu^2) [1 nu; nu 1] (E11, E22). r minimises the
/// energy per unit length t int psi dY (linear in Y on n cells, midpoint rule, Newton; this also makes
/// the axial force zero) and the moment is its derivative in k, M(k) = t int S11 l1 r dY, taken about the
/// mid fibre; k solves M(k) = M by the secant method, on 100 and 200 cells, extrapolated (error n^-2 ->
/// n^-4). Returns k and r(0) (the mid fibre's radius). For the inextensible elastica r(0) = 1 / k = EI / M;
/// here M(k) falls below EI k by ~1.1 % at h k = 0.16.
struct PureBending {
  double kappa, r0;
};
PureBending svk_pure_bending_on(double h, double M, int n) {
  const double dy = h / n, c = kE / (1 - kNu * kNu);
  auto moment = [&](double k, double* r0) {
    Eigen::VectorXd r(n + 1);
    for (int i = 0; i <= n; ++i) r[i] = 1 / k - (i * dy - h / 2);
    for (int it = 0; it < 50; ++it) {
      // gradient g and the tridiagonal Hessian (diagonal dd, off-diagonal od) of the energy in r
      Eigen::VectorXd g = Eigen::VectorXd::Zero(n + 1), dd = Eigen::VectorXd::Zero(n + 1), od = Eigen::VectorXd::Zero(n);
      for (int i = 0; i < n; ++i) {
        const double rm = (r[i] + r[i + 1]) / 2, l1 = k * rm, l2 = (r[i + 1] - r[i]) / dy;
        const double E1 = (l1 * l1 - 1) / 2, E2 = (l2 * l2 - 1) / 2, S1 = c * (E1 + kNu * E2), S2 = c * (E2 + kNu * E1);
        const double g1 = S1 * l1 * k, g2 = S2 * l2; // d psi / d rm, d psi / d l2
        const double h11 = k * k * (c * l1 * l1 + S1), h22 = c * l2 * l2 + S2, h12 = c * kNu * l1 * l2 * k;
        g[i] += dy * (g1 / 2 - g2 / dy);
        g[i + 1] += dy * (g1 / 2 + g2 / dy);
        dd[i] += dy * (h11 / 4 + h22 / (dy * dy) - h12 / dy);
        dd[i + 1] += dy * (h11 / 4 + h22 / (dy * dy) + h12 / dy);
        od[i] += dy * (h11 / 4 - h22 / (dy * dy));
      }
      Eigen::VectorXd dr = -g; // Thomas algorithm
      for (int i = 1; i <= n; ++i) {
        const double w = od[i - 1] / dd[i - 1];
        dd[i] -= w * od[i - 1];
        dr[i] -= w * dr[i - 1];
      }
      dr[n] /= dd[n];
      for (int i = n - 1; i >= 0; --i) dr[i] = (dr[i] - od[i] * dr[i + 1]) / dd[i];
      r += dr;
      if (dr.lpNorm<Eigen::Infinity>() < 1e-15 * h) break;
    }
    *r0 = r[n / 2];
    double m = 0;
    for (int i = 0; i < n; ++i) {
      const double rm = (r[i] + r[i + 1]) / 2, l1 = k * rm, l2 = (r[i + 1] - r[i]) / dy;
      m += kT * dy * c * ((l1 * l1 - 1) / 2 + kNu * (l2 * l2 - 1) / 2) * l1 * (rm - *r0);
    }
    return m;
  };
  const double EI = kE * kT * h * h * h / 12;
  double r0 = 0, k0 = M / EI, k1 = 1.01 * k0, m0 = moment(k0, &r0) - M;
  for (int it = 0; it < 50 && std::abs(k1 - k0) > 1e-15 * k1; ++it) {
    const double m1 = moment(k1, &r0) - M;
    if (m1 == m0) break;
    const double k2 = k1 - m1 * (k1 - k0) / (m1 - m0);
    k0 = k1;
    m0 = m1;
    k1 = k2;
  }
  moment(k1, &r0);
  return {k1, r0};
}
PureBending svk_pure_bending(double h, double M) {
  const PureBending a = svk_pure_bending_on(h, M, 100), b = svk_pure_bending_on(h, M, 200);
  return {(4 * b.kappa - a.kappa) / 3, (4 * b.r0 - a.r0) / 3};
}

// N9: a follower couple on the end face of a 2 m cantilever raised to 2 pi EI / L = 65 449.85 N m in
// 8 steps. The elastica bends into circles of radius EI / M, the tip at (L sin phi / phi,
// L (1 - cos phi) / phi), phi = M L / EI, back at the root at the full load. The SVK continuum's exact
// answer (svk_pure_bending: the same circle with the SVK moment-curvature law) turns further: h kappa
// reaches 0.16, M(kappa) is 1.1 % below EI kappa, and its tip ends 1.12 % of L from the root (0.28 % for
// h = 2.5 cm). Measured on 80 x 2 quad8: |tip - SVK exact| <= 5.4e-4 L at every step (the clamp and
// the loaded face; 3.2e-4 on 320 x 4), |tip - elastica| 0.01-0.78 % of L to phi = 3 pi / 2, 0.98 and
// 1.12 % at 7 pi / 4 and 2 pi (320 x 4: 1.13 %, the mesh-converged answer); h = 2.5 cm within 0.3 %
// of the elastica. Before the couple's forces followed the current face (docs/nff.md) its moment grew
// with the face's stretch under the corner forces (1.0098 M on 80 x 2, 1.015 M on 160 x 2) and the tip
// missed by 1.7-2.1 % depending on the mesh. NFFe follows NFE to 1e-8.
TEST(NlStatic, FollowerCoupleWindsIntoCircle) {
  const double L = 2.0;
  struct Run {
    std::vector<Eigen::Vector2d> tips;
    double svk = 0, elastica = 0, elastica_to_3pi_2 = 0, svk_vs_elastica = 0;
  };
  auto run = [&](double height, Formulation f, StaticResult* r) {
    const double EI = kE * kT * height * height * height / 12, M = 2 * M_PI * EI / L;
    StaticLoad load{LoadKind::follower_couple, "tip", Eigen::VectorXd(), M};
    Run out;
    out.tips = tip_path(MPI_COMM_WORLD, L, 80, 2, load, f, 8, r, height);
    EXPECT_EQ(out.tips.size(), 8u);
    for (std::size_t k = 0; k < out.tips.size(); ++k) {
      const double lam = (k + 1) / 8.0, phi = 2 * M_PI * lam;
      const Eigen::Vector2d ela(std::sin(phi) / phi - 1, (1 - std::cos(phi)) / phi); // / L
      const PureBending pb = svk_pure_bending(height, lam * M);
      const double psi = pb.kappa * L;
      const Eigen::Vector2d svk(pb.r0 / L * std::sin(psi) - 1, pb.r0 / L * (1 - std::cos(psi)));
      out.svk = std::max(out.svk, (out.tips[k] - svk).norm());
      out.elastica = std::max(out.elastica, (out.tips[k] - ela).norm());
      if (k < 6) out.elastica_to_3pi_2 = out.elastica;
      out.svk_vs_elastica = std::max(out.svk_vs_elastica, (svk - ela).norm());
    }
    return out;
  };
  // The reference itself: small k gives EI k; the full load's k and r(0) (an independent Legendre-Galerkin
  // solution of the same 1-D problem: 3.177349 1/m, 0.3140351 m).
  const double EI = kE * kT * kH * kH * kH / 12;
  EXPECT_NEAR(svk_pure_bending(kH, 1e-3 * EI).kappa, 1e-3, 1e-8);
  const PureBending full = svk_pure_bending(kH, 2 * M_PI * EI / L);
  EXPECT_NEAR(full.kappa, 3.177349, 2e-6);
  EXPECT_NEAR(full.r0, 0.3140351, 2e-7);

  StaticResult r;
  const Run thick = run(kH, Formulation::nfe, &r);
  ASSERT_EQ(thick.tips.size(), 8u);
  EXPECT_LT(thick.svk, 1e-3);              // the continuum's answer, at every step
  EXPECT_LT(thick.elastica_to_3pi_2, 0.01); // the elastica to phi = 3 pi / 2
  EXPECT_LT(thick.elastica, thick.svk_vs_elastica + 1e-3);
  int its = 0, cuts = 0;
  for (const auto& s : r.steps) {
    its += s.newton_iterations;
    cuts += s.cuts;
  }
  std::printf("N9 NFE h = 5 cm: max |tip - SVK pure bending| / L = %.2e; |tip - elastica| / L <= %.2e to 3 pi / 2, "
              "%.2e to 2 pi (SVK exact vs elastica %.2e); tip at the full couple (%.2e, %.2e) m from the root; "
              "%d Newton iterations, %d halvings, %.2f s\n",
              thick.svk, thick.elastica_to_3pi_2, thick.elastica, thick.svk_vs_elastica, L * (1 + thick.tips[7][0]),
              L * thick.tips[7][1], its, cuts, r.seconds);
  const Run thin = run(kH / 2, Formulation::nfe, nullptr);
  ASSERT_EQ(thin.tips.size(), 8u);
  EXPECT_LT(thin.svk, 1e-3);
  EXPECT_LT(thin.elastica, 0.01);
  std::printf("N9 NFE h = 2.5 cm: max |tip - SVK pure bending| / L = %.2e, |tip - elastica| / L <= %.2e\n", thin.svk,
              thin.elastica);
  const Run nffe = run(kH, Formulation::nffe, nullptr);
  ASSERT_EQ(nffe.tips.size(), 8u);
  double diff = 0;
  for (int k = 0; k < 8; ++k) diff = std::max(diff, (nffe.tips[k] - thick.tips[k]).norm());
  EXPECT_LT(diff, 1e-8);
  std::printf("N9 NFFe: max |tip - NFE tip| / L = %.2e\n", diff);
}

// N11 (qualitative, digest §5.5): under the follower tip force to k = 6, the average term magnitudes
// order NFE >= NFFb >= NFFe at every step, and the higher-order terms relative to Q_I stay smallest
// in NFFe (measured (Q_II + Q_III + Q_IV) / Q_I at k = 6: NFE 4.25, NFFb 2.98, NFFe 0.115). The linear
// variants' average nodal-DOF error against NFE: LFE and LFFb pass the 10 % criterion by k = 2 (0.33,
// 0.44) while LFFe stays under 1 % to k = 6 (measured 0.71 %), and less on a finer mesh (20 x 1: 0.92 %).
TEST(NlStatic, TermOrderingN11) {
  const StaticLoad load{LoadKind::follower_force, "tip_mid", Eigen::Vector2d(0, 6 * kEI), 0};
  auto run = [&](Formulation f, int nx, int ny, bool terms) {
    const StaticMesh mesh = cantilever_mesh(ElementKind::quad8, 1.0, kH, 0, {nx, ny});
    StaticOptions o = options(f, 6);
    o.terms = terms;
    StaticResult r = solve_static(MPI_COMM_WORLD, mesh, clamped_root(), {load}, o);
    EXPECT_TRUE(r.completed) << formulation_name(f) << ": " << r.failure;
    return r;
  };
  const StaticResult nfe = run(Formulation::nfe, 40, 2, true), nffb = run(Formulation::nffb, 40, 2, true),
                     nffe = run(Formulation::nffe, 40, 2, true);
  ASSERT_EQ(nfe.steps.size(), 6u);
  ASSERT_EQ(nffb.steps.size(), 6u);
  ASSERT_EQ(nffe.steps.size(), 6u);
  auto higher = [](const TermMagnitudes& t) { return (t.Q[1] + t.Q[2] + t.Q[3]) / t.Q[0]; };
  for (int k = 0; k < 6; ++k) {
    const auto &a = nfe.steps[k].terms, &b = nffb.steps[k].terms, &c = nffe.steps[k].terms;
    for (int i = 0; i < 4; ++i) {
      EXPECT_GE(a.Q[i], b.Q[i]) << "Q term " << i << " step " << k + 1;
      EXPECT_GE(b.Q[i], c.Q[i]) << "Q term " << i << " step " << k + 1;
    }
    EXPECT_GT(higher(a), higher(b)) << "step " << k + 1;
    EXPECT_GT(higher(b), 10 * higher(c)) << "step " << k + 1;
  }
  std::printf("N11 (Q_II + Q_III + Q_IV) / Q_I at k = 6: NFE %.3f, NFFb %.3f, NFFe %.3f\n", higher(nfe.steps[5].terms),
              higher(nffb.steps[5].terms), higher(nffe.steps[5].terms));
  auto dof_error = [](const StaticResult& lin, const StaticResult& ref, int k) {
    return (lin.steps[k].u - ref.steps[k].u).cwiseAbs().mean() / ref.steps[k].u.cwiseAbs().mean();
  };
  const StaticResult lfe = run(Formulation::lfe, 40, 2, false), lffb = run(Formulation::lffb, 40, 2, false),
                     lffe = run(Formulation::lffe, 40, 2, false);
  ASSERT_EQ(lfe.steps.size(), 6u);
  ASSERT_EQ(lffb.steps.size(), 6u);
  ASSERT_EQ(lffe.steps.size(), 6u);
  EXPECT_GT(dof_error(lfe, nfe, 1), 0.1);
  EXPECT_GT(dof_error(lffb, nfe, 1), 0.1);
  for (int k = 0; k < 6; ++k) EXPECT_LT(dof_error(lffe, nfe, k), 0.01) << "step " << k + 1;
  const StaticResult coarse_ref = run(Formulation::nfe, 20, 1, false), coarse = run(Formulation::lffe, 20, 1, false);
  ASSERT_EQ(coarse.steps.size(), 6u);
  EXPECT_GT(dof_error(coarse, coarse_ref, 5), dof_error(lffe, nfe, 5));
  std::printf("N11 average DOF error at k = 2: LFE %.3f, LFFb %.3f, LFFe %.4f; LFFe at k = 6: %.4f (40 x 2), %.4f (20 x 1)\n",
              dof_error(lfe, nfe, 1), dof_error(lffb, nfe, 1), dof_error(lffe, nfe, 1), dof_error(lffe, nfe, 5),
              dof_error(coarse, coarse_ref, 5));
}

// N11, digest §5.4.1: a large prescribed rigid motion of the root (translation (0.3, 0.2) m and a turn
// of 1 rad, raised with λ) plus a small follower tip force (k = 0.3) that bends the beam a little. The
// average nodal-DOF error against NFE per step (10 % criterion): LFE fails by step 2 (measured 6.1,
// 13, 21, 28, 35 %: the rotation), LFFb stays under 1 % (0.03-0.46 %) and LFFe under 1e-4 (2e-6 to
// 1.4e-5): LFE < LFFb < LFFe in allowable deformation, as the thesis found (Fig. 26b).
TEST(NlStatic, RigidMotionN11) {
  const StaticMesh mesh = cantilever_mesh(ElementKind::quad8, 1.0, kH, 0, {40, 2});
  std::vector<StaticSupport> root = clamped_root();
  root[0].value = Eigen::Vector2d(0.3, 0.2);
  root[0].rotation = 1.0;
  const std::vector<StaticLoad> load{StaticLoad{LoadKind::follower_force, "tip_mid", Eigen::Vector2d(0, 0.3 * kEI), 0}};
  std::vector<StaticResult> r;
  for (Formulation f : {Formulation::nfe, Formulation::lfe, Formulation::lffb, Formulation::lffe}) {
    StaticOptions o = options(f, 5);
    o.terms = f == Formulation::nfe;
    r.push_back(solve_static(MPI_COMM_WORLD, mesh, root, load, o));
    ASSERT_TRUE(r.back().completed) << formulation_name(f) << ": " << r.back().failure;
    ASSERT_EQ(r.back().steps.size(), 5u);
  }
  // The root section really turned by 1 rad and moved by (0.3, 0.2) at λ = 1.
  const int a = mesh.sets.at("root").front(), b = mesh.sets.at("root").back();
  const Eigen::Vector2d xa = mesh.X.row(a).transpose() + node_displacement(mesh, r[0].steps.back(), a);
  const Eigen::Vector2d xb = mesh.X.row(b).transpose() + node_displacement(mesh, r[0].steps.back(), b);
  EXPECT_NEAR(std::atan2(xa[0] - xb[0], xb[1] - xa[1]), 1.0, 1e-12);
  EXPECT_LT((0.5 * (xa + xb) - Eigen::Vector2d(0.3, 0.2)).norm(), 1e-12);
  auto err = [&](int f, int k) {
    return (r[f].steps[k].u - r[0].steps[k].u).cwiseAbs().mean() / r[0].steps[k].u.cwiseAbs().mean();
  };
  for (int k = 0; k < 5; ++k) {
    if (k > 0) EXPECT_GT(err(1, k), 0.1) << "LFE, step " << k + 1;
    EXPECT_LT(err(2, k), 0.01) << "LFFb, step " << k + 1;
    EXPECT_LT(err(3, k), 1e-4) << "LFFe, step " << k + 1;
    EXPECT_LT(err(3, k), err(2, k));
    EXPECT_LT(err(2, k), err(1, k));
    std::printf("N11 rigid motion step %d: average DOF error LFE %.3e, LFFb %.3e, LFFe %.3e\n", k + 1, err(1, k), err(2, k),
                err(3, k));
  }
}

// 1 rank = all ranks: N8's load in 5 steps on 20 x 2 quad8 with the body frame (its element's DOFs coupled
// to every element, across ranks) on this communicator equals the path on each rank alone (run on 2 ranks).
TEST(NlStatic, OneRankEqualsAll) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size == 1) GTEST_SKIP() << "needs more than one rank";
  StaticLoad load{LoadKind::force, "tip_mid", Eigen::Vector2d(0, 10 * kEI), 0};
  const auto all = tip_path(MPI_COMM_WORLD, 1.0, 20, 2, load, Formulation::nffb, 5);
  const auto self = tip_path(MPI_COMM_SELF, 1.0, 20, 2, load, Formulation::nffb, 5);
  ASSERT_EQ(all.size(), self.size());
  for (std::size_t k = 0; k < all.size(); ++k) EXPECT_LT((all[k] - self[k]).norm(), 1e-9 * all[k].norm());
}

// hex8 in the solver: a 3-D cantilever (10 x 2 x 2 elements) under a dead tip force bending it well
// past the linear range (tip deflection ~ 20 % of L): NFFb (polar-decomposition frame at a node) and
// NFFe equal NFE to 1e-8; LFE differs by more than 1 %.
TEST(NlStatic, Hex8FormulationsAgree) {
  const StaticMesh mesh = cantilever_mesh(ElementKind::hex8, 1.0, 0.1, 0.1, {10, 2, 2});
  const std::vector<StaticSupport> root{StaticSupport{"root", {true, true, true}, Eigen::Vector3d::Zero()}};
  const std::vector<StaticLoad> load{StaticLoad{LoadKind::force, "tip", Eigen::Vector3d(0, 2e6, 1e6), 0}};
  const int tip = mesh.sets.at("tip_mid").front();
  StaticOptions o;
  o.material = SvkMaterial{kE, kNu, 1, 1};
  o.steps = 3;
  std::vector<Eigen::Vector3d> tips;
  for (Formulation f : {Formulation::nfe, Formulation::nffb, Formulation::nffe, Formulation::lfe}) {
    o.formulation = f;
    const StaticResult r = solve_static(MPI_COMM_WORLD, mesh, root, load, o);
    ASSERT_TRUE(r.completed) << formulation_name(f) << ": " << r.failure;
    tips.push_back(node_displacement(mesh, r.steps.back(), tip));
  }
  std::printf("hex8 tip (%.4f, %.4f, %.4f) m; NFFb %.1e, NFFe %.1e, LFE %.1e relative to NFE\n", tips[0][0], tips[0][1],
              tips[0][2], (tips[1] - tips[0]).norm() / tips[0].norm(), (tips[2] - tips[0]).norm() / tips[0].norm(),
              (tips[3] - tips[0]).norm() / tips[0].norm());
  EXPECT_GT(tips[0].norm(), 0.1);
  EXPECT_LT((tips[1] - tips[0]).norm(), 1e-8 * tips[0].norm());
  EXPECT_LT((tips[2] - tips[0]).norm(), 1e-8 * tips[0].norm());
  EXPECT_GT((tips[3] - tips[0]).norm(), 1e-2 * tips[0].norm());
}

// The assembled Jacobian is the derivative of the assembled residual (central differences), with a
// dead force, a follower force, a follower couple and a prescribed support value, in every formulation
// (the followers' load stiffness; the body frame's coupling of its element to all others).
TEST(NlStatic, JacobianMatchesResidual) {
  const StaticMesh mesh = cantilever_mesh(ElementKind::quad8, 1.0, kH, 0, {8, 1});
  const std::vector<StaticSupport> sup{StaticSupport{"root", {true, true}, Eigen::Vector2d(0.0, 0.01)}};
  const std::vector<StaticLoad> loads{StaticLoad{LoadKind::force, "tip", Eigen::Vector2d(1e4, 0), 0},
                                      StaticLoad{LoadKind::follower_force, "tip_mid", Eigen::Vector2d(2e4, 5e4), 0},
                                      StaticLoad{LoadKind::follower_couple, "tip", Eigen::VectorXd(), 3e4}};
  const int n = mesh.num_nodes() * 2;
  Eigen::VectorXd u(n); // a large bending-like motion plus noise
  for (int i = 0; i < mesh.num_nodes(); ++i) {
    const double x = mesh.X(i, 0), y = mesh.X(i, 1), th = 1.2 * x;
    u[2 * i] = std::sin(th) / 1.2 - x - y * std::sin(th) + 1e-3 * std::sin(7.0 * i);
    u[2 * i + 1] = (1 - std::cos(th)) / 1.2 + y * (std::cos(th) - 1) + 1e-3 * std::cos(5.0 * i);
  }
  for (Formulation f : {Formulation::nfe, Formulation::nffb, Formulation::nffe, Formulation::lffb, Formulation::lffe}) {
    StaticOptions o = options(f, 1);
    Eigen::VectorXd F, Fp, Fm;
    Eigen::MatrixXd J, Jd;
    static_residual(MPI_COMM_WORLD, mesh, sup, loads, o, 0.7, u, F, J);
    Eigen::MatrixXd Jfd(n, n);
    const double h = 1e-7;
    for (int j = 0; j < n; ++j) {
      Eigen::VectorXd up = u, um = u;
      up[j] += h;
      um[j] -= h;
      static_residual(MPI_COMM_WORLD, mesh, sup, loads, o, 0.7, up, Fp, Jd);
      static_residual(MPI_COMM_WORLD, mesh, sup, loads, o, 0.7, um, Fm, Jd);
      Jfd.col(j) = (Fp - Fm) / (2 * h);
    }
    const double e = (J - Jfd).norm() / J.norm();
    EXPECT_LT(e, 1e-6) << formulation_name(f);
    std::printf("Jacobian vs central differences, %s: %.1e\n", formulation_name(f), e);
  }
  // Without the load stiffness the follower terms would be missing: their size is well above the tolerance.
  StaticOptions o = options(Formulation::nfe, 1);
  Eigen::VectorXd F;
  Eigen::MatrixXd Jall, Jdead;
  static_residual(MPI_COMM_WORLD, mesh, sup, loads, o, 0.7, u, F, Jall);
  static_residual(MPI_COMM_WORLD, mesh, sup, {loads[0]}, o, 0.7, u, F, Jdead);
  EXPECT_GT((Jall - Jdead).norm() / Jall.norm(), 1e-5);
}

// bar2: a bar pulled by P stretches uniformly to the root of P = E A (s^2 - 1) s / 2 (s = 1 + u/L, SVK
// P = F S); prescribed end displacement gives the same force as the reaction. 1-D, any mesh.
TEST(NlStatic, Bar2StretchClosedForm) {
  const double A = 1e-4, E = 200e9, L = 1.5, P = 0.05 * E * A;
  const StaticMesh mesh = cantilever_mesh(ElementKind::bar2, L, 0, 0, {7});
  StaticOptions o;
  o.material = SvkMaterial{E, 0.3, 1, A};
  o.steps = 4;
  const std::vector<StaticSupport> root{StaticSupport{"root", {true}, Eigen::VectorXd::Zero(1)}};
  for (Formulation f : {Formulation::nfe, Formulation::nffb, Formulation::nffe}) {
    o.formulation = f;
    const StaticResult r = solve_static(MPI_COMM_WORLD, mesh, root, {StaticLoad{LoadKind::force, "tip", Eigen::VectorXd::Constant(1, P), 0}}, o);
    ASSERT_TRUE(r.completed) << r.failure;
    // Newton on s for the closed form.
    double s = 1;
    for (int i = 0; i < 50; ++i) s -= (0.5 * E * A * (s * s - 1) * s - P) / (0.5 * E * A * (3 * s * s - 1));
    const double u = node_displacement(mesh, r.steps.back(), mesh.sets.at("tip").front())[0];
    EXPECT_NEAR(u, (s - 1) * L, 1e-10 * L) << formulation_name(f);
    const double mid = node_displacement(mesh, r.steps.back(), 3)[0]; // uniform strain: linear u(x)
    EXPECT_NEAR(mid, (s - 1) * mesh.X(3, 0), 1e-10 * L);
  }
}

// Bad input is named by its field.
TEST(NlStatic, BadInputNamed) {
  const StaticMesh mesh = cantilever_mesh(ElementKind::quad8, 1, kH, 0, {4, 1});
  StaticOptions o = options(Formulation::nfe, 2);
  auto field = [&](const std::vector<StaticSupport>& s, const std::vector<StaticLoad>& l, const StaticOptions& op) {
    try {
      validate(mesh, s, l, op);
    } catch (const flexuq::OptionError& e) {
      return e.option();
    }
    return std::string("none");
  };
  const StaticLoad tip{LoadKind::force, "tip_mid", Eigen::Vector2d(0, 1), 0};
  EXPECT_EQ(field(clamped_root(), {tip}, o), "none");
  EXPECT_EQ(field({}, {tip}, o), "supports");
  EXPECT_EQ(field({StaticSupport{"nowhere", {true, true}, Eigen::Vector2d::Zero()}}, {tip}, o), "supports[0].set");
  EXPECT_EQ(field(clamped_root(), {StaticLoad{LoadKind::force, "tip", Eigen::Vector3d(0, 1, 0), 0}}, o), "loads[0].force");
  StaticOptions bad = o;
  bad.steps = 0;
  EXPECT_EQ(field(clamped_root(), {tip}, bad), "steps");
  bad = o;
  bad.material.nu = 0.5;
  EXPECT_EQ(field(clamped_root(), {tip}, bad), "material.nu");
  try {
    cantilever_mesh(ElementKind::quad8, 1, kH, 0, {4});
    ADD_FAILURE() << "no error";
  } catch (const flexuq::OptionError& e) {
    EXPECT_EQ(e.option(), "cells");
  }
}
