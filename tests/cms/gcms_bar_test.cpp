// SPDX-License-Identifier: MIT
// GCMS on the free-free prismatic bars of seed-001 (E2: 100 mm square section, 2 m long,
// E = 1.5 GPa, ν = 0.3, ρ = 1000; E3: 100 × 60 mm rectangle; E5: equilateral triangle, side 130 mm;
// E4: circle, d = 100 mm), hex20, bar axis z, SI units, unit Euclidean mode norms, origin at the
// nodal centroid. Square and rectangle come from io::generate_box (4 × 4 × 40); triangle (3 kite
// blocks, D3-symmetric) and circle (5-block O-grid, 4 symmetry lines) are mapped boxes with 2 × 2
// cells per block and 20 along the bar.
// Digest §8.2: B1 (frequencies), B3 (cond Ψ), B4 (rank deficiency 6), B5 (circle: 12), B6 (cond Φ_f),
// B7 (cond Φ_f of the rectangle), B8 (cosine removal on the rectangle, also with the c_th sweep),
// B9 (canonical pairs, cosine 0.993 on square / triangle / circle), B10 (key cosines), B11 (GS + scaling),
// and A15 (rotating a degenerate pair: invariants unchanged; canonicalisation undoes the rotation).
// The modes {B1, B1*, B2, B2*, T1, T2, L1, L2} are picked from the first free-free modes by a
// displacement-pattern classifier (per cross-section: mean in-plane translation = bending, mean
// twist = torsion, mean axial displacement = longitudinal).
#include "FeTestUtil.hpp"

#include "flexuq/cms/Gcms.hpp"
#include "flexuq/io/Generators.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
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

io::Material e2_material() {
  io::Material m;
  m.name = "E2";
  m.E = 1.5e9;
  m.nu = 0.3;
  m.rho = 1000;
  return m;
}

/// Rectangular section wx × wy centred on the z axis, 2 m long, hex20 cells[0] × cells[1] × cells[2].
io::Mesh box_bar(double wx, double wy, std::array<int, 3> cells) {
  io::BoxSpec s;
  s.origin = {-wx / 2, -wy / 2, 0};
  s.size = {wx, wy, 2.0};
  s.cells = cells;
  s.order = 2;
  return io::generate_box(s);
}

/// Maps the unit square (u, v) onto one quadrilateral block of a cross-section (counter-clockwise).
using BlockMap = std::function<Eigen::Vector2d(double u, double v)>;

/// A 2 m bar along z whose section is made of blocks, each meshed n × n (hex20, nz along z) by
/// mapping a generated unit box; the nodes the blocks share are merged.
io::Mesh block_bar(const std::vector<BlockMap>& blocks, int n, int nz, const std::string& name) {
  io::Mesh m;
  m.source = "test:" + name;
  std::map<std::array<long, 3>, int> index;
  long eid = 0;
  io::BoxSpec s;
  s.size = {1, 1, 2.0};
  s.cells = {n, n, nz};
  s.order = 2;
  const io::Mesh box = io::generate_box(s);
  for (const auto& map : blocks) {
    std::vector<int> node(box.num_nodes());
    for (std::size_t i = 0; i < box.num_nodes(); ++i) {
      const auto& x = box.coords[i];
      const Eigen::Vector2d p = map(x[0], x[1]);
      const std::array<double, 3> c{p(0), p(1), x[2]};
      const std::array<long, 3> key{std::lround(c[0] * 1e8), std::lround(c[1] * 1e8), std::lround(c[2] * 1e8)};
      const auto [it, fresh] = index.emplace(key, static_cast<int>(m.coords.size()));
      if (fresh) {
        m.node_sets["ALL"].push_back(static_cast<int>(m.coords.size()));
        m.coords.push_back(c);
        m.node_ids.push_back(static_cast<long>(m.coords.size()));
      }
      node[i] = it->second;
    }
    for (std::size_t e = 0; e < box.num_elements(); ++e) {
      std::vector<int> nodes;
      for (int k = 0; k < box.element_size(e); ++k) nodes.push_back(node[static_cast<std::size_t>(box.element(e)[k])]);
      m.element_sets["ALL"].push_back(static_cast<int>(m.num_elements()));
      m.add_element(io::ElementType::hex20, nodes, ++eid);
    }
  }
  m.validate();
  return m;
}

BlockMap bilinear(Eigen::Vector2d a, Eigen::Vector2d b, Eigen::Vector2d c, Eigen::Vector2d d) {
  return [=](double u, double v) -> Eigen::Vector2d {
    return (1 - u) * (1 - v) * a + u * (1 - v) * b + u * v * c + (1 - u) * v * d;
  };
}

/// Equilateral triangle (side a, centroid at the origin, a vertex on +y) as 3 kite blocks
/// (vertex, edge midpoint, centroid, edge midpoint): the mesh has the section's D3 symmetry.
io::Mesh triangle_bar(double a, int n, int nz) {
  const double h = a * std::sqrt(3.0) / 2;
  const Eigen::Vector2d P[3] = {{-a / 2, -h / 3}, {a / 2, -h / 3}, {0, 2 * h / 3}}; // counter-clockwise
  std::vector<BlockMap> blocks;
  for (int i = 0; i < 3; ++i) {
    const Eigen::Vector2d& v = P[i];
    blocks.push_back(bilinear(v, 0.5 * (v + P[(i + 1) % 3]), Eigen::Vector2d::Zero(), 0.5 * (v + P[(i + 2) % 3])));
  }
  return block_bar(blocks, n, nz, "triangle bar");
}

/// Circle of radius r as a 5-block O-grid (inner square of half side 0.4 r, four blocks out to the
/// arc): the mesh has 4 symmetry lines, as the paper's.
io::Mesh circle_bar(double r, int n, int nz) {
  const double s = 0.4 * r;
  std::vector<BlockMap> blocks{bilinear({-s, -s}, {s, -s}, {s, s}, {-s, s})};
  for (int j = 0; j < 4; ++j) {
    const double t0 = (-0.25 + 0.5 * j) * M_PI, t1 = t0 + 0.5 * M_PI;
    const Eigen::Vector2d a(std::sqrt(2.0) * s * std::cos(t0), std::sqrt(2.0) * s * std::sin(t0));
    const Eigen::Vector2d b(std::sqrt(2.0) * s * std::cos(t1), std::sqrt(2.0) * s * std::sin(t1));
    // u outward from the inner square's side to the arc, v counter-clockwise along them.
    blocks.push_back([=](double u, double v) -> Eigen::Vector2d {
      const double t = t0 + v * (t1 - t0);
      return (1 - u) * (a + v * (b - a)) + u * r * Eigen::Vector2d(std::cos(t), std::sin(t));
    });
  }
  return block_bar(blocks, n, nz, "circle bar");
}

std::unique_ptr<Bar> make_bar(io::Mesh mesh, int n_modes) {
  auto bar = std::make_unique<Bar>();
  fe::ComponentOptions o;
  o.default_material = e2_material();
  o.keep_affine = false;
  bar->c = std::make_unique<fe::Component>(MPI_COMM_WORLD, std::move(mesh), o);
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
    square = make_bar(box_bar(0.1, 0.1, {4, 4, 40}), 22).release();
  }
  static void TearDownTestSuite() {
    delete square;
    square = nullptr;
    delete rectangle;
    rectangle = nullptr;
    delete triangle;
    triangle = nullptr;
    delete circle;
    circle = nullptr;
  }
  static const Bar& rect() {
    if (!rectangle) rectangle = make_bar(box_bar(0.1, 0.06, {4, 4, 40}), 22).release();
    return *rectangle;
  }
  static const Bar& tri() {
    if (!triangle) triangle = make_bar(triangle_bar(0.13, 2, 20), 22).release();
    return *triangle;
  }
  static const Bar& circ() {
    if (!circle) circle = make_bar(circle_bar(0.05, 2, 20), 22).release();
    return *circle;
  }
  static Bar* square;
  static Bar* rectangle;
  static Bar* triangle;
  static Bar* circle;
};
Bar* GcmsBar::square = nullptr;
Bar* GcmsBar::rectangle = nullptr;
Bar* GcmsBar::triangle = nullptr;
Bar* GcmsBar::circle = nullptr;

TEST_F(GcmsBar, B1SquareBarFrequencies) {
  ASSERT_EQ(square->sel.size(), 8u) << "classifier did not find 4 bending, 2 torsion, 2 axial modes";
  const auto f = selected_hz(*square);
  // E2 bar of Zwölfer & Gerstmayr, Sect. 5.1; converged hex20 values computed independently (not in
  // the paper): B1 31.196 (double), B2 84.634 (double), T1 174.42, T2 348.83,
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
  o.canonicalize = false; // the raw rotated basis: the invariants must not need canonicalisation
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
  if (root()) std::printf("[rectangle] cond(Phi_f) %.4e  cosine n_x %d  cond_xs %.2f  final cond(Phi) %.1f\n", init.cond_phi_f,
              res.removed_columns("cosine"), scaled.cond_phi_f, res.stages.back().cond_phi);
  if (root())
    for (const auto& r : res.removed) std::printf("  %s %s %.5f %s\n", r.field.c_str(), r.reason.c_str(), r.measure, r.detail.c_str());
  EXPECT_EQ(init.deficiency_phi_f, 6); // B4 for the rectangle
  // B7 (digest §8.2): cond(Φ_f) of the rectangle ≈ 1e6, accepted within [3e5, 3e6]; paper 9.61e5 (its
  // section dimensions unknown), the digest's own hex20 bar 9.78e5. Measured here 9.778e5 (4 × 4 × 40,
  // 100 × 60 mm), identical to 4 digits at 1 and 2 ranks. Asserted: the digest's window, and 2 % around the
  // digest's independent 9.78e5 (which also keeps the paper's 9.61e5, 1.7 % below, just inside); the
  // figure comes from the smallest σ(Φ_f), the Poisson fields of the L/T pairs, so it moves with the mesh
  // but not with round-off or the rank count.
  EXPECT_GE(init.cond_phi_f, 3e5);
  EXPECT_LE(init.cond_phi_f, 3e6);
  EXPECT_NEAR(init.cond_phi_f, 9.78e5, 0.02 * 9.78e5);
  EXPECT_EQ(res.removed_columns("cosine"), 18);
  EXPECT_GE(scaled.cond_phi_f, 30.0);
  EXPECT_LE(scaled.cond_phi_f, 45.0);
}

namespace {

/// Global dot product of mode m (0-based) of two bases with the same row layout.
double mode_dot(const cms::GcmsBasis& a, int ma, const cms::GcmsBasis& b, int mb) {
  double d = a.local_mode(ma).cwiseProduct(b.local_mode(mb)).sum();
  MPI_Allreduce(MPI_IN_PLACE, &d, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return d;
}

/// Field index of component k (0 = x) of selected mode m (1-based) in the initial basis.
int fld(int m, int k) { return 4 + 3 * (m - 1) + k; }

/// The selected modes with the B1 pair rotated by @p a1 and the B2 pair by @p a2 (radians).
std::vector<VecH> rotated_pairs(const Bar& b, double a1, double a2) {
  auto modes = b.selected();
  std::vector<VecH> out;
  for (int p = 0; p < 2; ++p) {
    const double a = p == 0 ? a1 : a2;
    for (int i = 0; i < 2; ++i) {
      VecH v;
      VecDuplicate(modes[0].get(), v.out());
      const double ca = i == 0 ? std::cos(a) : -std::sin(a), cb = i == 0 ? std::sin(a) : std::cos(a);
      VecAXPBYPCZ(v.get(), ca, cb, 0.0, modes[static_cast<std::size_t>(2 * p)].get(),
                  modes[static_cast<std::size_t>(2 * p + 1)].get());
      out.push_back(std::move(v));
    }
  }
  for (std::size_t i = 4; i < modes.size(); ++i) out.push_back(std::move(modes[i]));
  return out;
}

/// B9 on one bar: canonical pairs, cosine removal at 0.993.
void check_b9(const char* name, const Bar& b, int deficiency) {
  ASSERT_EQ(b.sel.size(), 8u) << name << ": classifier did not find 4 bending, 2 torsion, 2 axial modes";
  cms::GcmsOptions o;
  o.strategy = cms::GcmsStrategy::cosine;
  o.cosine_threshold = 0.993; // canonicalize: true is the default
  const auto res = cms::build_gcms(MPI_COMM_WORLD, *b.c, b.selected(), o);
  // The two bending pairs are the degenerate eigenspaces, x member first.
  ASSERT_EQ(res.clusters.size(), 2u) << name;
  for (const auto& cl : res.clusters) {
    EXPECT_EQ(cl.axis, (std::vector<int>{0, 1})) << name;
    EXPECT_LE(cl.spread, 1e-8) << name;
  }
  const double cond_xs = res.stages[2].cond_phi_f;
  if (root())
    std::printf("[B9 %s] %lld nodes, cond(Phi_f) %.3e, vanishing %d, cosine n_x %d, cond_x %.3e, cond_xs %.2f\n", name,
                b.c->mesh().num_nodes() * 1LL, res.stages[0].cond_phi_f, res.stages[0].deficiency_phi_f,
                res.removed_columns("cosine"), res.stages[1].cond_phi_f, cond_xs);
  EXPECT_EQ(res.stages[0].deficiency_phi_f, deficiency) << name; // B4 / B5
  EXPECT_EQ(res.removed_columns("cosine"), 18) << name;
  EXPECT_GE(cond_xs, 30.0) << name;
  EXPECT_LE(cond_xs, 45.0) << name;
}

} // namespace

TEST_F(GcmsBar, B9SquareTriangleCircleCanonicalPairsCosineRemoval) {
  check_b9("square", *square, 6);
  check_b9("triangle", tri(), 6);
  check_b9("circle", circ(), 12);
}

TEST_F(GcmsBar, B10SquareKeyCosines) {
  ASSERT_EQ(square->sel.size(), 8u);
  std::vector<Vec> raw;
  const auto sel = square->selected();
  for (const auto& v : sel) raw.push_back(v.get());
  std::vector<double> ev;
  for (int i : square->sel) ev.push_back(square->modes.eigenvalues[static_cast<std::size_t>(i)]);
  auto basis = cms::GcmsBasis::from_component(*square->c, raw, true);
  const auto cl = cms::canonicalize_degenerate(basis, ev, 1e-6);
  ASSERT_EQ(cl.size(), 2u);
  const Eigen::MatrixXd C = cms::cosine_from_gram(basis.field_gram()).cwiseAbs();
  // Modes: 1 = B1 (x), 2 = B1* (y), 3 = B2 (x), 4 = B2* (y), 5 = T1, 6 = T2, 7 = L1, 8 = L2.
  const double l2_b1[2] = {C(fld(8, 2), fld(1, 0)), C(fld(8, 2), fld(2, 1))};
  const double t1_b1[2] = {C(fld(5, 0), fld(2, 2)), C(fld(5, 1), fld(1, 2))};
  const double poisson[2] = {C(fld(1, 1), fld(2, 0)), C(fld(3, 1), fld(4, 0))};
  if (root())
    std::printf("[B10 square] |cos| L2_z-B1 in-plane %.5f %.5f; T1 in-plane-B1_z %.5f %.5f; Poisson B1 %.8f B2 %.8f\n",
                l2_b1[0], l2_b1[1], t1_b1[0], t1_b1[1], poisson[0], poisson[1]);
  for (int i = 0; i < 2; ++i) {
    EXPECT_NEAR(l2_b1[i], 0.979, 0.003);
    EXPECT_NEAR(t1_b1[i], 0.998, 0.003);
    EXPECT_GE(poisson[i], 0.9999);
  }
}

TEST_F(GcmsBar, A15CanonicalisationUndoesAnyRotationOfTheDegeneratePairs) {
  ASSERT_EQ(square->sel.size(), 8u);
  cms::GcmsOptions o;
  o.strategy = cms::GcmsStrategy::cosine;
  const auto ref = cms::build_gcms(MPI_COMM_WORLD, *square->c, square->selected(), o);
  for (const auto& [a1, a2] : std::vector<std::pair<double, double>>{{17, 61}, {4, -45}, {90, 180}}) {
    const auto rot = cms::build_gcms(MPI_COMM_WORLD, *square->c, rotated_pairs(*square, a1 * M_PI / 180, a2 * M_PI / 180), o);
    // Same canonical modes, signs included (up to the eigensolver's accuracy).
    for (int m = 0; m < 4; ++m)
      EXPECT_NEAR(mode_dot(rot.basis, m, ref.basis, m), 1.0, 1e-8) << "mode " << m + 1 << " after " << a1 << "/" << a2;
    EXPECT_EQ(rot.removed_columns("cosine"), ref.removed_columns("cosine"));
    ASSERT_EQ(rot.removed.size(), ref.removed.size());
    for (std::size_t i = 0; i < rot.removed.size(); ++i) EXPECT_EQ(rot.removed[i].field, ref.removed[i].field);
    EXPECT_NEAR(rot.stages[2].cond_phi_f, ref.stages[2].cond_phi_f, 1e-6 * ref.stages[2].cond_phi_f);
  }
  // Without canonicalisation the cosine result depends on the rotation (the paper's Sect. 5.2 counts
  // for repeated eigenvalues are basis-dependent), the
  // subspace invariants do not (A15).
  o.canonicalize = false;
  const auto raw = cms::build_gcms(MPI_COMM_WORLD, *square->c, rotated_pairs(*square, M_PI / 4, M_PI / 4), o);
  if (root())
    std::printf("[A15 square] canonical: n_x %d cond_xs %.2f; both pairs at 45 deg, not canonicalised: n_x %d cond_xs %.2f\n",
                ref.removed_columns("cosine"), ref.stages[2].cond_phi_f, raw.removed_columns("cosine"),
                raw.stages[2].cond_phi_f);
  EXPECT_NEAR(raw.stages[0].cond_phi_f, ref.stages[0].cond_phi_f, 1e-6 * ref.stages[0].cond_phi_f);
  EXPECT_EQ(raw.stages[0].deficiency_phi_f, ref.stages[0].deficiency_phi_f);
}

TEST_F(GcmsBar, B8RectangleCosineThresholdSweep) {
  const Bar& b = rect();
  ASSERT_EQ(b.sel.size(), 8u);
  cms::GcmsOptions o;
  o.strategy = cms::GcmsStrategy::cosine;
  o.cosine_sweep = true;
  const auto res = cms::build_gcms(MPI_COMM_WORLD, *b.c, b.selected(), o);
  const auto& sw = res.sweep;
  ASSERT_GE(sw.steps.size(), 3u);
  if (root()) {
    std::printf("[sweep rectangle] chosen c_th %.3f (%s):", sw.threshold, sw.converged ? "converged" : "floor");
    int last = -1;
    for (const auto& st : sw.steps)
      if (st.removed_columns != last) {
        std::printf(" [%.3f: n_x %d, cond_xs %.2f]", st.threshold, st.removed_columns, st.cond_xs);
        last = st.removed_columns;
      }
    std::printf("\n");
  }
  EXPECT_EQ(res.cosine_threshold, sw.threshold);
  EXPECT_GE(sw.threshold, o.cosine_floor);
  EXPECT_LE(sw.threshold, 1.0);
  for (std::size_t i = 1; i < sw.steps.size(); ++i) {
    EXPECT_LT(sw.steps[i].threshold, sw.steps[i - 1].threshold);
    EXPECT_GE(sw.steps[i].removed_columns, sw.steps[i - 1].removed_columns) << "n_x not monotone at " << sw.steps[i].threshold;
  }
  // B8 ranges at the chosen threshold.
  EXPECT_EQ(res.removed_columns("cosine"), 18);
  EXPECT_GE(res.stages[2].cond_phi_f, 30.0);
  EXPECT_LE(res.stages[2].cond_phi_f, 45.0);
}
