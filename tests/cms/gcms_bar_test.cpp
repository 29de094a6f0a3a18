// SPDX-License-Identifier: MIT
// GCMS on the free-free prismatic bars of seed-001 (E2: 100 mm square section, 2 m long,
// E = 1.5 GPa, ν = 0.3, ρ = 1000; E3: 100 × 60 mm rectangle), hex20 meshes made with
// io::generate_box, bar axis z, SI units, unit Euclidean mode norms, origin at the nodal centroid.
// Digest §8.2: B1 (frequencies), B3 (cond Ψ), B4 (rank deficiency 6), B6 (cond Φ_f), B8 (cosine
// removal on the rectangle), B11 (GS + scaling), and A15 (invariance under rotating a degenerate pair).
// The modes {B1, B1*, B2, B2*, T1, T2, L1, L2} are picked from the first free-free modes by a
// displacement-pattern classifier (per cross-section: mean in-plane translation = bending, mean
// twist = torsion, mean axial displacement = longitudinal).
#include "FeTestUtil.hpp"

#include "flexuq/cms/Gcms.hpp"
#include "flexuq/io/Generators.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>

using namespace flexuq;

namespace {

struct Bar {
  std::unique_ptr<fe::Component> c;
  fe::ModeSet modes;
  std::vector<double> f;           // Hz, all computed elastic modes
  std::vector<char> type;          // 'B', 'T', 'L' per mode
  std::vector<int> sel;            // B1, B1*, B2, B2*, T1, T2, L1, L2 (indices into modes)
  std::vector<VecH> selected() const {
    std::vector<VecH> out;
    for (int i : sel) {
      VecH v;
      VecDuplicate(modes.vectors[static_cast<std::size_t>(i)].get(), v.out());
      VecCopy(modes.vectors[static_cast<std::size_t>(i)].get(), v.get());
      out.push_back(std::move(v));
    }
    return out;
  }
};

std::unique_ptr<Bar> make_bar(double wx, double wy, std::array<int, 3> cells, int n_modes) {
  auto bar = std::make_unique<Bar>();
  io::BoxSpec s;
  s.origin = {-wx / 2, -wy / 2, 0};
  s.size = {wx, wy, 2.0};
  s.cells = cells;
  s.order = 2;
  fe::ComponentOptions o;
  io::Material m;
  m.name = "E2";
  m.E = 1.5e9;
  m.nu = 0.3;
  m.rho = 1000;
  o.default_material = m;
  bar->c = std::make_unique<fe::Component>(MPI_COMM_WORLD, io::generate_box(s), o);
  fe::ModeOptions mo;
  mo.count = n_modes;
  bar->modes = fe::solve_modes(bar->c->K(), bar->c->M(), mo);
  bar->f = bar->modes.frequencies_hz();
  // Classify by sections z = const.
  const auto V = test::natural_columns(*bar->c, bar->modes.vectors);
  const auto& X = bar->c->mesh().coords;
  std::map<long, std::vector<int>> levels;
  for (std::size_t n = 0; n < X.size(); ++n) levels[std::lround(X[n][2] * 1e6)].push_back(static_cast<int>(n));
  std::vector<int> bend, tors, lon;
  for (Eigen::Index j = 0; j < V.cols(); ++j) {
    double eb = 0, et = 0, el = 0;
    for (const auto& [z, nodes] : levels) {
      Eigen::Vector3d mean = Eigen::Vector3d::Zero();
      double tw = 0, r2 = 0;
      for (int n : nodes) {
        const Eigen::Vector3d u = V.block<3, 1>(3 * n, j);
        mean += u;
        tw += -X[n][1] * u[0] + X[n][0] * u[1];
        r2 += X[n][0] * X[n][0] + X[n][1] * X[n][1];
      }
      mean /= static_cast<double>(nodes.size());
      eb += nodes.size() * (mean[0] * mean[0] + mean[1] * mean[1]);
      el += nodes.size() * mean[2] * mean[2];
      et += tw * tw / r2;
    }
    const char t = eb >= et && eb >= el ? 'B' : (et >= el ? 'T' : 'L');
    bar->type.push_back(t);
    (t == 'B' ? bend : t == 'T' ? tors : lon).push_back(static_cast<int>(j));
  }
  if (bend.size() >= 4 && tors.size() >= 2 && lon.size() >= 2)
    bar->sel = {bend[0], bend[1], bend[2], bend[3], tors[0], tors[1], lon[0], lon[1]};
  return bar;
}

bool root() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r == 0;
}

std::vector<double> selected_hz(const Bar& b) {
  std::vector<double> out;
  for (int i : b.sel) out.push_back(b.f[static_cast<std::size_t>(i)]);
  return out;
}

} // namespace

class GcmsBar : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    square = make_bar(0.1, 0.1, {4, 4, 40}, 22).release();
  }
  static void TearDownTestSuite() {
    delete square;
    square = nullptr;
    delete rectangle;
    rectangle = nullptr;
  }
  static const Bar& rect() {
    if (!rectangle) rectangle = make_bar(0.1, 0.06, {4, 4, 40}, 22).release();
    return *rectangle;
  }
  static Bar* square;
  static Bar* rectangle;
};
Bar* GcmsBar::square = nullptr;
Bar* GcmsBar::rectangle = nullptr;

TEST_F(GcmsBar, B1SquareBarFrequencies) {
  ASSERT_EQ(square->sel.size(), 8u) << "classifier did not find 4 bending, 2 torsion, 2 axial modes";
  const auto f = selected_hz(*square);
  // Converged hex20 (digest §3): B1 31.196 (double), B2 84.634 (double), T1 174.42, T2 348.83,
  // L1 306.129, L2 611.917 Hz; 0.5 %. Analytic L1 = 306.19, T1 = 174.39 Hz; 1 %.
  const double ref[8] = {31.196, 31.196, 84.634, 84.634, 174.42, 348.83, 306.129, 611.917};
  for (int i = 0; i < 8; ++i) EXPECT_NEAR(f[static_cast<std::size_t>(i)], ref[i], 5e-3 * ref[i]) << "selected mode " << i;
  EXPECT_NEAR(f[6], 306.19, 0.01 * 306.19);
  EXPECT_NEAR(f[4], 174.39, 0.01 * 174.39);
  for (int i = 0; i < 4; i += 2) EXPECT_EQ(square->modes.multiplicity[static_cast<std::size_t>(square->sel[i])], 2);
}

TEST_F(GcmsBar, B3B4B6B11SquareBarWithGramSchmidt) {
  ASSERT_EQ(square->sel.size(), 8u);
  cms::GcmsOptions o; // gram-schmidt, scaling, SVD loop
  const auto res = cms::build_gcms(MPI_COMM_WORLD, *square->c, square->selected(), o);
  const auto& init = res.stages.front();
  // B3: the 8 unit-norm modes are nearly orthogonal.
  EXPECT_LE(res.cond_psi, 1.01);
  // B4: rank deficiency of Φ_f is 6 — σ(S) has exactly 2 vanishing values behind a gap ≥ 30×,
  // themselves ≤ 1e-4 σ_max.
  EXPECT_EQ(init.deficiency_phi_f, 6);
  const auto& s = init.sigma_flexible;
  ASSERT_EQ(s.size(), 24);
  EXPECT_GE(s(21) / s(22), 30.0);
  EXPECT_LE(s(22) / s(0), 1e-4);
  // B6: cond(Φ_f) ≈ 3e6.
  EXPECT_GE(init.cond_phi_f, 1e6);
  EXPECT_LE(init.cond_phi_f, 1e7);
  // GS removes the 6 dependent columns; after scaling cond(Φ_f) = 1 (A10 on real data).
  EXPECT_EQ(res.removed_columns("gram-schmidt"), 6);
  const auto& scaled = res.stages[2];
  ASSERT_EQ(scaled.name, "after scaling");
  EXPECT_NEAR(scaled.cond_phi_f, 1.0, 1e-10);
  // B11: no rigid–flexible dependency; cond(Φ) of order 10².
  EXPECT_EQ(res.removed_columns("svd"), 0);
  EXPECT_EQ(res.stages.back().deficiency_phi, 0);
  EXPECT_GE(res.stages.back().cond_phi, 10.0);
  EXPECT_LE(res.stages.back().cond_phi, 1e3);
  EXPECT_EQ(res.columns.size(), 84u - 6u);
  EXPECT_EQ(res.labels.size(), res.columns.size());
  if (root()) std::printf("[square] cond(Psi) %.4f  cond(Phi_f) %.3e  sigma_S(22..24)/sigma_1 %.2e %.2e %.2e  GS+scaled cond(Phi) %.1f\n",
              res.cond_psi, init.cond_phi_f, s(21) / s(0), s(22) / s(0), s(23) / s(0), res.stages.back().cond_phi);
  // The kept columns are Φ's columns in the component's DOF layout: t_x is 1 on every x DOF.
  PetscReal sum = 0;
  VecSum(res.columns[0].get(), &sum);
  PetscReal n2 = 0;
  VecNorm(res.columns[0].get(), NORM_2, &n2);
  EXPECT_NEAR(sum * sum, n2 * n2 * static_cast<double>(square->c->mesh().num_nodes()), 1e-8 * sum * sum);
}

TEST_F(GcmsBar, A15RotatingTheDegeneratePairChangesNoInvariant) {
  ASSERT_EQ(square->sel.size(), 8u);
  auto modes = square->selected();
  // Rotate the B1 pair by 17° inside its eigenspace.
  const double a = 17.0 * M_PI / 180.0;
  VecH r0, r1;
  VecDuplicate(modes[0].get(), r0.out());
  VecDuplicate(modes[0].get(), r1.out());
  VecAXPBYPCZ(r0.get(), std::cos(a), std::sin(a), 0.0, modes[0].get(), modes[1].get());
  VecAXPBYPCZ(r1.get(), -std::sin(a), std::cos(a), 0.0, modes[0].get(), modes[1].get());
  std::vector<VecH> rotated;
  rotated.push_back(std::move(r0));
  rotated.push_back(std::move(r1));
  for (std::size_t i = 2; i < modes.size(); ++i) rotated.push_back(std::move(modes[i]));
  cms::GcmsOptions o;
  const auto a0 = cms::build_gcms(MPI_COMM_WORLD, *square->c, square->selected(), o);
  const auto a1 = cms::build_gcms(MPI_COMM_WORLD, *square->c, rotated, o);
  EXPECT_NEAR(a1.stages[0].cond_phi_f, a0.stages[0].cond_phi_f, 1e-6 * a0.stages[0].cond_phi_f);
  EXPECT_EQ(a1.stages[0].deficiency_phi_f, a0.stages[0].deficiency_phi_f);
  EXPECT_EQ(a1.removed_columns("gram-schmidt"), a0.removed_columns("gram-schmidt"));
}

TEST_F(GcmsBar, B8RectangleCosineRemoval) {
  const Bar& b = rect();
  ASSERT_EQ(b.sel.size(), 8u);
  cms::GcmsOptions o;
  o.strategy = cms::GcmsStrategy::cosine;
  o.cosine_threshold = 0.993;
  o.csv = "gcms_rectangle_cos.csv";
  const auto res = cms::build_gcms(MPI_COMM_WORLD, *b.c, b.selected(), o);
  const auto& init = res.stages.front();
  const auto& scaled = res.stages[2];
  if (root()) std::printf("[rectangle] cond(Phi_f) %.3e  cosine n_x %d  cond_xs %.2f  final cond(Phi) %.1f\n", init.cond_phi_f,
              res.removed_columns("cosine"), scaled.cond_phi_f, res.stages.back().cond_phi);
  if (root())
    for (const auto& r : res.removed) std::printf("  %s %s %.5f %s\n", r.field.c_str(), r.reason.c_str(), r.measure, r.detail.c_str());
  EXPECT_EQ(init.deficiency_phi_f, 6); // B4 for the rectangle
  EXPECT_EQ(res.removed_columns("cosine"), 18);
  EXPECT_GE(scaled.cond_phi_f, 30.0);
  EXPECT_LE(scaled.cond_phi_f, 45.0);
}
