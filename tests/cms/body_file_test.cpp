// SPDX-License-Identifier: MIT
// cms::BodyFile, the seam that owns a body file's layout: every part written through it (/mesh,
// /reduced with the basis written by row blocks and the stress modes, /stochastic_body with an
// expansion written by row blocks, the fitted points and the Galerkin datasets, the POD body) reads
// back field by field exactly; the datasets are those docs/hdf5-schema.md names (checked here with
// io::H5File and the literal paths: the test states the contract); a file written by one rank reads
// the same on every rank of the world; its header needs no PETSc.
#include "flexuq/cms/BodyFile.hpp"
#if defined(PETSC_VERSION_MAJOR) || defined(SLEPC_VERSION_MAJOR) || defined(PETSCSYS_H)
#error "cms/BodyFile.hpp must not include PETSc or SLEPc"
#endif

#include "MpiTestUtil.hpp"
#include "ReducedBodyFixture.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/io/Hdf5File.hpp"
#include "flexuq/io/Mesh.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

using namespace flexuq;
using namespace flexuq::test;

namespace {

constexpr std::uint64_t kNodes = 6, kDofs = 3, kColumns = 5; // synthetic_body has 5 columns

std::string tmp_path(const std::string& stem) { return "/tmp/" + unique_name("flexuq-body-file-" + stem, ".h5"); }

/// Six nodes, one tet4 and two beam2 elements, two node sets.
io::Mesh synthetic_mesh() {
  io::Mesh m;
  m.source = "synthetic body-file mesh";
  for (std::uint64_t i = 0; i < kNodes; ++i) {
    m.coords.push_back({0.1 * static_cast<double>(i), -0.25 * static_cast<double>(i * i), 1.5 + static_cast<double>(i)});
    m.node_ids.push_back(101 + 7 * static_cast<long>(i));
  }
  m.add_element(io::ElementType::tet4, {0, 1, 2, 3}, 11);
  m.add_element(io::ElementType::beam2, {3, 4}, 21);
  m.add_element(io::ElementType::beam2, {4, 5}, 22);
  m.node_sets["A"] = {0, 1};
  m.node_sets["TIP"] = {5};
  return m;
}

/// Distinct values per (node, dof, column) / (node, component, column).
double basis_value(std::uint64_t i, std::uint64_t c, std::uint64_t j) { return 1000.0 * i + 10.0 * c + j + 0.5; }
double stress_value(std::uint64_t i, std::uint64_t c, std::uint64_t j) { return -3e6 * i + 1e4 * c + j; }

std::vector<double> basis_rows(std::uint64_t first, std::uint64_t count) {
  std::vector<double> v;
  for (std::uint64_t i = first; i < first + count; ++i)
    for (std::uint64_t c = 0; c < kDofs; ++c)
      for (std::uint64_t j = 0; j < kColumns; ++j) v.push_back(basis_value(i, c, j));
  return v;
}

std::vector<double> stress_modes() {
  std::vector<double> v;
  for (std::uint64_t i = 0; i < kNodes; ++i)
    for (std::uint64_t c = 0; c < 6; ++c)
      for (std::uint64_t j = 0; j < kColumns; ++j) v.push_back(stress_value(i, c, j));
  return v;
}

/// This rank's node block of a partition of @p n nodes.
std::pair<std::uint64_t, std::uint64_t> block(MPI_Comm c, std::uint64_t n) {
  int r = 0, s = 1;
  MPI_Comm_rank(c, &r);
  MPI_Comm_size(c, &s);
  const auto r64 = static_cast<std::uint64_t>(r), s64 = static_cast<std::uint64_t>(s);
  return {n * r64 / s64, n * (r64 + 1) / s64};
}

/// A stochastic body on the synthetic nominal one: two parameters, total degree 1 (P = 3).
cms::StochasticBody synthetic_stochastic() {
  std::mt19937 g(3);
  cms::StochasticBody b;
  b.names = {"E", "rho"};
  b.dists = {uq::Distribution::normal(2.1e11, 1e10), uq::Distribution::uniform(7000.0, 8000.0)};
  b.multi_indices = uq::MultiIndexSet::total_degree(2, 1);
  b.fit = uq::FitMethod::regression;
  b.order = 1;
  b.points_used = 5;
  b.points_total = 6;
  b.nominal = synthetic_body(true);
  cms::ExpandedQuantity K{random(3, 25, g), {5, 5}, random(25, 1, g), random(25, 1, g)};
  cms::ExpandedQuantity M{random(3, 25, g), {5, 5}, {}, {}};
  cms::ExpandedQuantity lambda{random(3, 2, g), {2}, random(2, 1, g), random(2, 1, g)};
  b.pce = {{"K", K}, {"M", M}, {"mode_eigenvalues", lambda}};
  return b;
}

/// The expansion of the basis (P × nodes · dofs · columns): entry (t, k) = t + k / 1000.
double basis_coefficient(std::uint64_t t, std::uint64_t k) { return static_cast<double>(t) + 1e-3 * static_cast<double>(k); }

cms::StochasticSamples synthetic_points() {
  std::mt19937 g(5);
  cms::StochasticSamples s;
  s.germ = random(4, 2, g);
  s.index = {0, 2, 3, 5};
  s.values = {{"K", random(4, 25, g)}, {"M", random(4, 25, g)}};
  s.dims = {{"K", {5, 5}}, {"M", {5, 5}}};
  return s;
}

cms::PodBody synthetic_pod() {
  std::mt19937 g(9);
  const Eigen::Index r = 4;
  cms::PodBody b;
  b.names = {"E_left", "rho_right"};
  b.nominal = {2.0e11, 7800.0};
  b.K = {{random(r, r, g), random(r, r, g)}, {1.0, 2.0e11}, {-1, 0}};
  b.M = {{random(r, r, g)}, {7800.0}, {1}};
  b.I = {{random(static_cast<Eigen::Index>(cms::invariants_size(r)), 1, g),
          random(static_cast<Eigen::Index>(cms::invariants_size(r)), 1, g)},
         {1.0, 1.0},
         {-1, 1}};
  b.lumped = true;
  return b;
}

/// Write every part of a deterministic body file and a stochastic body through the seam, on @p c
/// (the basis and the basis expansion by node blocks of @p c's ranks). @note Collective on @p c.
void write_stochastic_file(MPI_Comm c, const std::string& path) {
  cms::BodyFile f(c, path, cms::BodyFile::Mode::create);
  f.write_mesh(synthetic_mesh());
  const auto sb = synthetic_stochastic();
  f.write_reduced(sb.nominal);
  const auto [lo, hi] = block(c, kNodes);
  f.write_basis({kNodes, kDofs, kColumns}, lo, hi - lo, basis_rows(lo, hi - lo).data());
  f.write_stress_modes(kNodes, kColumns, stress_modes(), "sxx,syy,szz,sxy,syz,szx");
  f.write_stochastic(sb);
  // The basis expansion by node blocks, P × (count · dofs · columns) per block.
  const std::uint64_t P = 3, per_node = kDofs * kColumns;
  std::vector<double> C, loo, rms;
  for (std::uint64_t t = 0; t < P; ++t)
    for (std::uint64_t k = lo * per_node; k < hi * per_node; ++k) C.push_back(basis_coefficient(t, k));
  for (std::uint64_t k = lo * per_node; k < hi * per_node; ++k) {
    loo.push_back(1e-6 * static_cast<double>(k));
    rms.push_back(2e-6 * static_cast<double>(k));
  }
  f.write_expansion_rows("basis", P, {kNodes, kDofs, kColumns}, lo, hi - lo, C.data(), loo.data(), rms.data());
  f.write_stochastic_points(synthetic_points());
  Eigen::MatrixXd ev(3, 2);
  ev << 1e4, 3e4, 10, 20, -5, 7;
  f.write_stochastic_galerkin(ev, uq::MultiIndexSet::total_degree(2, 1), 4, 17, 2.5e-9);
  f.write_body_at_source("source.h5", {2.2e11, 7100.0}, nullptr);
}

void write_pod_file(MPI_Comm c, const std::string& path) {
  cms::BodyFile f(c, path, cms::BodyFile::Mode::create);
  f.write_mesh(synthetic_mesh());
  f.write_reduced(synthetic_body(false));
  const auto pod = synthetic_pod();
  f.write_pod(pod);
  std::vector<double> V(kNodes * kDofs * 4);
  for (std::size_t k = 0; k < V.size(); ++k) V[k] = 0.25 * static_cast<double>(k);
  f.write_pod_basis({kNodes, kDofs, 4}, V.data());
  f.write_pod_points({1, 4, 6});
  f.write_pod_family("boundary", Eigen::Vector3d(0.9, 0.4, 0.1), 12, 2, 0.01);
  f.write_pod_family("internal", Eigen::Vector2d(0.99, 0.1), 9, 2, 0.0099);
  f.write_pod_truncation("energy 1e-4");
  const double table[6] = {10, 20, 11, 21, 12, 22};
  f.write_pod_point_table("pod_free_free_frequencies", 3, 2, table);
  f.write_pod_summary(4, 1e-14, 0.02, 1e-3);
  const std::vector<double> theta{2.1e11, 7900.0};
  f.write_body_at_source("pod-source.h5", theta, &theta);
}

void expect_same_stochastic(const cms::StochasticBody& a, const cms::StochasticBody& b) {
  EXPECT_EQ(a.names, b.names);
  ASSERT_EQ(a.dists.size(), b.dists.size());
  for (std::size_t i = 0; i < a.dists.size(); ++i) {
    EXPECT_EQ(a.dists[i].kind(), b.dists[i].kind()) << i;
    for (int k = 0; k < 4; ++k) EXPECT_EQ(a.dists[i].parameter(k), b.dists[i].parameter(k)) << i << " " << k;
  }
  ASSERT_EQ(a.multi_indices.size(), b.multi_indices.size());
  ASSERT_EQ(a.multi_indices.dim(), b.multi_indices.dim());
  for (int t = 0; t < a.multi_indices.size(); ++t)
    for (int i = 0; i < a.multi_indices.dim(); ++i) EXPECT_EQ(a.multi_indices(t, i), b.multi_indices(t, i));
  EXPECT_EQ(a.fit, b.fit);
  EXPECT_EQ(a.order, b.order);
  EXPECT_EQ(a.points_used, b.points_used);
  EXPECT_EQ(a.points_total, b.points_total);
  expect_same(a.nominal, b.nominal);
  for (const auto& [name, q] : a.pce) {
    ASSERT_TRUE(b.has(name)) << name;
    const auto& r = b.pce.at(name);
    EXPECT_EQ(q.dims, r.dims) << name;
    EXPECT_EQ(q.coefficients, r.coefficients) << name;
    EXPECT_EQ(q.loo, r.loo) << name;
    EXPECT_EQ(q.loo_rms, r.loo_rms) << name;
  }
}

/// Everything @p f holds, against what write_stochastic_file wrote. @note Collective on the file.
void expect_stochastic_file(const cms::BodyFile& f) {
  EXPECT_TRUE(f.has_reduced());
  EXPECT_TRUE(f.has_basis());
  EXPECT_TRUE(f.has_stress_modes());
  EXPECT_TRUE(f.has_mesh());
  EXPECT_TRUE(f.has_mesh_topology());
  EXPECT_TRUE(f.is_stochastic());
  EXPECT_FALSE(f.is_pod());
  // /reduced and /stochastic_body.
  const auto sb = synthetic_stochastic();
  expect_same(sb.nominal, f.read_reduced());
  const auto rs = f.read_stochastic();
  expect_same_stochastic(sb, rs);
  ASSERT_TRUE(rs.has("basis"));
  const auto& qb = rs.pce.at("basis");
  EXPECT_EQ(qb.dims, (std::vector<std::uint64_t>{kNodes, kDofs, kColumns}));
  ASSERT_EQ(qb.coefficients.rows(), 3);
  ASSERT_EQ(qb.coefficients.cols(), static_cast<Eigen::Index>(kNodes * kDofs * kColumns));
  for (Eigen::Index t = 0; t < 3; ++t)
    for (Eigen::Index k = 0; k < qb.coefficients.cols(); ++k)
      ASSERT_EQ(qb.coefficients(t, k), basis_coefficient(static_cast<std::uint64_t>(t), static_cast<std::uint64_t>(k)));
  for (Eigen::Index k = 0; k < qb.loo.size(); ++k) {
    ASSERT_EQ(qb.loo(k), 1e-6 * static_cast<double>(k));
    ASSERT_EQ(qb.loo_rms(k), 2e-6 * static_cast<double>(k));
  }
  // The basis: whole, checked shape, and this rank's rows.
  EXPECT_EQ(f.basis_shape(), (std::vector<std::uint64_t>{kNodes, kDofs, kColumns}));
  EXPECT_EQ(f.basis_shape(kNodes, kColumns, 3), (std::vector<std::uint64_t>{kNodes, kDofs, kColumns}));
  try {
    (void)f.basis_shape(kNodes, kColumns + 1);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(f.path() + ": /reduced/basis is not nodes x dofs per node x 6 columns"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)f.basis_shape(kNodes, kColumns, 6), InputError);
  EXPECT_EQ(f.read_basis(), basis_rows(0, kNodes));
  const auto [lo, hi] = block(f.file().comm(), kNodes);
  EXPECT_EQ(f.read_basis_rows(lo, hi - lo), basis_rows(lo, hi - lo));
  // Stress modes.
  EXPECT_EQ(f.read_stress_modes(kNodes, kColumns), stress_modes());
  try {
    (void)f.read_stress_modes(kNodes, 4);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/reduced/stress_modes is not nodes x 6 x 4 columns"), std::string::npos) << e.what();
  }
  // The mesh as stored.
  const io::Mesh mesh = synthetic_mesh();
  const cms::BodyMesh m = f.read_mesh();
  ASSERT_EQ(m.num_nodes(), kNodes);
  for (std::uint64_t i = 0; i < kNodes; ++i) {
    EXPECT_EQ(m.node_ids[i], mesh.node_ids[i]);
    for (int k = 0; k < 3; ++k) EXPECT_EQ(m.geometry[3 * i + static_cast<std::uint64_t>(k)], mesh.coords[i][static_cast<std::size_t>(k)]);
  }
  ASSERT_EQ(m.elements.size(), 2u);
  EXPECT_EQ(m.elements.at("tet4").nodes_per_element, 4u);
  EXPECT_EQ(m.elements.at("tet4").connectivity, (std::vector<std::int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(m.elements.at("tet4").ids, (std::vector<std::int64_t>{11}));
  EXPECT_EQ(m.elements.at("beam2").nodes_per_element, 2u);
  EXPECT_EQ(m.elements.at("beam2").connectivity, (std::vector<std::int64_t>{3, 4, 4, 5}));
  EXPECT_EQ(m.elements.at("beam2").ids, (std::vector<std::int64_t>{21, 22}));
  EXPECT_EQ(m.topology_mixed, (std::vector<std::int64_t>{6, 0, 1, 2, 3, 2, 2, 3, 4, 2, 2, 4, 5}));
  EXPECT_EQ(m.num_elements, 3);
  EXPECT_EQ(m.source, mesh.source);
  EXPECT_EQ(m.node_sets, (std::map<std::string, std::vector<std::int64_t>>{{"A", {0, 1}}, {"TIP", {5}}}));
  const auto nodes = f.read_mesh_nodes();
  EXPECT_EQ(nodes.ids, m.node_ids);
  ASSERT_EQ(nodes.coords.rows(), static_cast<Eigen::Index>(kNodes));
  EXPECT_EQ(nodes.coords(4, 1), mesh.coords[4][1]);
  EXPECT_EQ(f.read_mesh_geometry(), m.geometry);
  EXPECT_EQ(f.read_node_ids(), m.node_ids);
  const auto topo = f.read_mesh_topology();
  EXPECT_EQ(topo.mixed, m.topology_mixed);
  EXPECT_EQ(topo.num_elements, 3);
  EXPECT_EQ(f.node_set_names(), (std::vector<std::string>{"A", "TIP"}));
  EXPECT_TRUE(f.has_node_set("TIP"));
  EXPECT_FALSE(f.has_node_set("NOPE"));
  EXPECT_EQ(f.read_node_set("TIP", kNodes), (std::vector<std::int64_t>{5}));
  try {
    (void)f.read_node_set("TIP", 5);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/mesh/node_sets/TIP holds node 5 outside the mesh"), std::string::npos) << e.what();
  }
}

} // namespace

TEST(BodyFile, EveryPartRoundTripsFieldByField) {
  const std::string path = tmp_path("stochastic");
  write_stochastic_file(MPI_COMM_WORLD, path);
  const cms::BodyFile f(MPI_COMM_WORLD, path);
  expect_stochastic_file(f);
  // A read-only file refuses writes; a file without a body says so.
  cms::BodyFile& rw = const_cast<cms::BodyFile&>(f);
  EXPECT_THROW(rw.write_pod_truncation("x"), Error);
  const std::string empty = tmp_path("empty");
  { io::H5File e(MPI_COMM_WORLD, empty, io::H5File::Mode::create); }
  const cms::BodyFile e(MPI_COMM_WORLD, empty);
  EXPECT_FALSE(e.has_reduced());
  EXPECT_FALSE(e.has_basis());
  EXPECT_FALSE(e.has_mesh());
  EXPECT_FALSE(e.is_stochastic());
  EXPECT_TRUE(e.node_set_names().empty());
  EXPECT_THROW((void)e.basis_shape(), InputError);
  try {
    (void)e.read_mesh_nodes();
    ADD_FAILURE() << "no error";
  } catch (const InputError& x) {
    EXPECT_NE(std::string(x.what()).find(empty + ": /mesh/geometry or /mesh/node_ids is missing"), std::string::npos) << x.what();
  }
  try {
    (void)e.read_stochastic();
    ADD_FAILURE() << "no error";
  } catch (const InputError& x) {
    EXPECT_NE(std::string(x.what()).find("missing /stochastic_body/germ/names (not a stochastic body file"), std::string::npos)
        << x.what();
  }
}

TEST(BodyFile, PodBodyRoundTrips) {
  const std::string path = tmp_path("pod");
  write_pod_file(MPI_COMM_WORLD, path);
  const cms::BodyFile f(MPI_COMM_WORLD, path);
  EXPECT_TRUE(f.is_pod());
  EXPECT_TRUE(f.is_stochastic());
  EXPECT_FALSE(f.has_basis());
  const auto a = synthetic_pod(), b = f.read_pod();
  EXPECT_EQ(a.names, b.names);
  EXPECT_EQ(a.nominal, b.nominal);
  for (const auto& [x, y] : {std::make_pair(&a.K, &b.K), std::make_pair(&a.M, &b.M), std::make_pair(&a.I, &b.I)}) {
    ASSERT_EQ(x->terms.size(), y->terms.size());
    for (std::size_t t = 0; t < x->terms.size(); ++t) EXPECT_EQ(x->terms[t], y->terms[t]) << t;
    EXPECT_EQ(x->coefficients, y->coefficients);
    EXPECT_EQ(x->parameter, y->parameter);
  }
  EXPECT_EQ(a.lumped, b.lumped);
  EXPECT_EQ(f.pod_basis_shape(), (std::vector<std::uint64_t>{kNodes, kDofs, 4}));
  const auto V = f.read_pod_basis();
  ASSERT_EQ(V.size(), kNodes * kDofs * 4);
  EXPECT_EQ(V[17], 0.25 * 17);
  expect_same(synthetic_body(false), f.read_reduced());
}

// The contract: the dataset paths, shapes and attributes of docs/hdf5-schema.md, read without the seam.
TEST(BodyFile, LayoutIsTheDocumentedOne) {
  const std::string path = tmp_path("stochastic-layout"), pod = tmp_path("pod-layout");
  write_stochastic_file(MPI_COMM_WORLD, path);
  write_pod_file(MPI_COMM_WORLD, pod);
  using Shapes = std::map<std::string, std::vector<std::uint64_t>>;
  auto expect_shapes = [](const io::H5File& f, const Shapes& shapes) {
    for (const auto& [d, s] : shapes) {
      ASSERT_TRUE(f.exists(d)) << d;
      EXPECT_EQ(f.shape(d), s) << d;
    }
  };
  {
    const io::H5File f(MPI_COMM_WORLD, path, io::H5File::Mode::read);
    expect_shapes(f, {{"/mesh/geometry", {6, 3}},
                      {"/mesh/node_ids", {6}},
                      {"/mesh/topology/tet4", {1, 4}},
                      {"/mesh/topology/beam2", {2, 2}},
                      {"/mesh/element_ids/tet4", {1}},
                      {"/mesh/element_ids/beam2", {2}},
                      {"/mesh/topology_mixed", {13}},
                      {"/mesh/node_sets/A", {2}},
                      {"/mesh/node_sets/TIP", {1}},
                      {"/reduced/K", {5, 5}},
                      {"/reduced/invariants/Skl", {3, 3, 5, 5}},
                      {"/reduced/floating_frame/V", {5, 2}},
                      {"/reduced/checkout/effective_mass", {2, 6}},
                      {"/reduced/basis", {6, 3, 5}},
                      {"/reduced/stress_modes", {6, 6, 5}},
                      {"/stochastic_body/germ/names", {2}},
                      {"/stochastic_body/germ/kinds", {2}},
                      {"/stochastic_body/germ/parameters", {2, 4}},
                      {"/stochastic_body/germ/distributions", {2}},
                      {"/stochastic_body/multi_indices", {3, 2}},
                      {"/stochastic_body/pce/K/coefficients", {3, 5, 5}},
                      {"/stochastic_body/pce/K/loo", {5, 5}},
                      {"/stochastic_body/pce/K/loo_rms", {5, 5}},
                      {"/stochastic_body/pce/M/coefficients", {3, 5, 5}},
                      {"/stochastic_body/pce/mode_eigenvalues/coefficients", {3, 2}},
                      {"/stochastic_body/pce/basis/coefficients", {3, 6, 3, 5}},
                      {"/stochastic_body/pce/basis/loo", {6, 3, 5}},
                      {"/stochastic_body/pce/basis/loo_rms", {6, 3, 5}},
                      {"/stochastic_body/points/index", {4}},
                      {"/stochastic_body/points/germ", {4, 2}},
                      {"/stochastic_body/points/K", {4, 5, 5}},
                      {"/stochastic_body/points/M", {4, 5, 5}},
                      {"/stochastic_body/galerkin/eigenvalue_coefficients", {3, 2}},
                      {"/stochastic_body/galerkin/multi_indices", {3, 2}}});
    EXPECT_FALSE(f.exists("/stochastic_body/pce/M/loo"));
    EXPECT_EQ(f.read_attribute_int("/mesh", "num_elements"), 3);
    EXPECT_EQ(f.read_attribute_string("/mesh", "source"), "synthetic body-file mesh");
    EXPECT_EQ(f.read_attribute_string("/reduced/stress_modes", "components"), "sxx,syy,szz,sxy,syz,szx");
    EXPECT_EQ(f.read_attribute_string("/reduced", "stochastic_source"), "source.h5");
    EXPECT_EQ(f.read_attribute_string("/stochastic_body", "fit"), "regression");
    EXPECT_EQ(f.read_attribute_int("/stochastic_body", "order"), 1);
    EXPECT_EQ(f.read_attribute_int("/stochastic_body", "points_used"), 5);
    EXPECT_EQ(f.read_attribute_int("/stochastic_body", "points_total"), 6);
    EXPECT_NE(f.read_attribute_string("/stochastic_body", "layout").find("sum_t coefficients[t] Psi_t(xi)"), std::string::npos);
    EXPECT_EQ(f.read_attribute_int("/stochastic_body/galerkin", "operator_terms"), 4);
    EXPECT_EQ(f.read_attribute_int("/stochastic_body/galerkin", "constraint_pcg_iterations"), 17);
    EXPECT_EQ(f.read_attribute_double("/stochastic_body/galerkin", "constraint_residual"), 2.5e-9);
    EXPECT_EQ(cms::BodyFile::stochastic_galerkin_group(), "/stochastic_body/galerkin");
    // Row-major: node 1, dof 2, column 3 of the basis; germ kinds by name; the points' sample indices.
    EXPECT_EQ(f.read_all("/reduced/basis")[(1 * 3 + 2) * 5 + 3], basis_value(1, 2, 3));
    EXPECT_EQ(f.read_all("/reduced/stress_modes")[(2 * 6 + 4) * 5 + 1], stress_value(2, 4, 1));
    EXPECT_EQ(f.read_strings("/stochastic_body/germ/kinds"), (std::vector<std::string>{"normal", "uniform"}));
    EXPECT_EQ(f.read_all("/stochastic_body/germ/parameters")[4], 7000.0);
    EXPECT_EQ(f.read_all_int("/stochastic_body/points/index"), (std::vector<std::int64_t>{0, 2, 3, 5}));
    EXPECT_EQ(f.read_all("/stochastic_body/galerkin/eigenvalue_coefficients")[3], 20.0);
  }
  const io::H5File f(MPI_COMM_WORLD, pod, io::H5File::Mode::read);
  expect_shapes(f, {{"/stochastic_body/pod/basis", {6, 3, 4}},
                    {"/stochastic_body/pod/boundary/sigma", {3}},
                    {"/stochastic_body/pod/boundary/snapshots_rank", {2}},
                    {"/stochastic_body/pod/internal/sigma", {2}},
                    {"/stochastic_body/pod/internal/snapshots_rank", {2}},
                    {"/stochastic_body/pod/points", {3}},
                    {"/stochastic_body/pod/K_terms", {2, 4, 4}},
                    {"/stochastic_body/pod/M_terms", {1, 4, 4}},
                    {"/stochastic_body/pod/K_coefficients", {2}},
                    {"/stochastic_body/pod/M_coefficients", {1}},
                    {"/stochastic_body/pod/K_parameter", {2}},
                    {"/stochastic_body/pod/M_parameter", {1}},
                    {"/stochastic_body/pod/parameter_names", {2}},
                    {"/stochastic_body/pod/parameter_nominal", {2}},
                    {"/stochastic_body/pod/pod_free_free_frequencies", {3, 2}},
                    {"/stochastic_body/pod/invariant_terms", {2, cms::invariants_size(4)}},
                    {"/stochastic_body/pod/invariant_coefficients", {2}},
                    {"/stochastic_body/pod/invariant_parameter", {2}}});
  EXPECT_EQ(f.read_all_int("/stochastic_body/pod/boundary/snapshots_rank"), (std::vector<std::int64_t>{12, 2}));
  EXPECT_EQ(f.read_attribute_double("/stochastic_body/pod/boundary", "energy_lost"), 0.01);
  EXPECT_EQ(f.read_attribute_string("/stochastic_body/pod", "truncation"), "energy 1e-4");
  EXPECT_EQ(f.read_attribute_int("/stochastic_body/pod", "rank"), 4);
  EXPECT_EQ(f.read_attribute_double("/stochastic_body/pod", "affine_check"), 1e-14);
  EXPECT_EQ(f.read_attribute_double("/stochastic_body/pod", "max_free_free_relative_difference"), 0.02);
  EXPECT_EQ(f.read_attribute_double("/stochastic_body/pod", "max_free_free_above_cb"), 1e-3);
  EXPECT_EQ(f.read_attribute_int("/stochastic_body/pod/invariant_terms", "lumped_I5_I7"), 1);
  EXPECT_EQ(f.read_attribute_string("/reduced", "stochastic_source"), "pod-source.h5");
  EXPECT_EQ(f.read_all("/stochastic_body/pod/pod_free_free_frequencies")[3], 21.0);
}

// A file written by one rank (rank 0 on MPI_COMM_SELF: the layout does not depend on who wrote it)
// reads the same through the seam on every rank of the world, distributed rows included; and the
// matrices-only /reduced of an old POD body-at file with a /mesh copied from another body file.
TEST(BodyFile, OneRankWritesEveryRankReads) {
  const std::string path = tmp_path("one-rank"), old = tmp_path("old-pod-body-at");
  if (world_rank() == 0) {
    write_stochastic_file(MPI_COMM_SELF, path);
    cms::BodyFile f(MPI_COMM_SELF, old, cms::BodyFile::Mode::create);
    Eigen::MatrixXd K(2, 2), M(2, 2);
    K << 4, 1, 2, 9;
    M << 1, 0.5, 0.25, 2;
    f.write_reduced_matrices(K, M, {3.5, 4.5}, "pod");
    const cms::BodyFile src(MPI_COMM_SELF, path);
    EXPECT_TRUE(f.copy_mesh_from(src)); // body-at copies /mesh unchanged
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const cms::BodyFile f(MPI_COMM_WORLD, path);
  expect_stochastic_file(f);
  const io::H5File g(MPI_COMM_WORLD, old, io::H5File::Mode::read);
  EXPECT_EQ(g.read_all("/reduced/K"), (std::vector<double>{4, 1, 2, 9}));
  EXPECT_EQ(g.read_all("/reduced/M"), (std::vector<double>{1, 0.5, 0.25, 2}));
  EXPECT_EQ(g.read_all("/reduced/checkout/free_free_reduced_hz"), (std::vector<double>{3.5, 4.5}));
  EXPECT_EQ(g.read_attribute_string("/reduced", "method"), "pod");
  const cms::BodyFile o(g);
  EXPECT_TRUE(o.has_reduced());
  const cms::BodyMesh copied = o.read_mesh(), written = f.read_mesh();
  EXPECT_EQ(copied.geometry, written.geometry);
  EXPECT_EQ(copied.node_ids, written.node_ids);
  EXPECT_EQ(copied.topology_mixed, written.topology_mixed);
  EXPECT_EQ(copied.node_sets, written.node_sets);
  EXPECT_EQ(copied.elements.at("beam2").connectivity, written.elements.at("beam2").connectivity);
  EXPECT_EQ(copied.source, written.source);
}
