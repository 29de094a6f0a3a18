// SPDX-License-Identifier: MIT
// Mixed-interface normal modes (Wevers 2024, ch. 2, the mixed-interface variant of
// Herting/Hintz CMM: GHEP with the held DOFs removed, padded with
// zeros, the zero eigenvalues of the remaining rigid modes skipped) for Herting and Hintz CMM:
// all interfaces held = the fixed variant, none held = the free variant (subspaces by principal
// angles); Herting ≡ Hintz CMM (equal reduced spectra); the GHEP residual with the held rows
// exactly 0; Rayleigh–Ritz bounds and monotone convergence; leftover rigid motions of a line or a
// single node skipped and their inertia relief kept; mechanisms and bad input as InputErrors;
// `reduce.modes.interface: mixed` / `reduce.modes.fixed_interfaces` in the job parser.
#include "CmsTestUtil.hpp"

#include "flexuq/app/ReduceCommand.hpp"
#include "flexuq/cms/Reduction.hpp"
#include "flexuq/io/Hdf5File.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

using namespace flexuq;
using Eigen::MatrixXd;
using Eigen::VectorXd;

namespace {

const std::string kBox = test::steel_box_yaml();

/// A component from @p yaml after @p edit has changed its mesh (extra node sets, cut elements).
std::unique_ptr<fe::Component> component(MPI_Comm comm, const std::string& yaml,
                                         const std::function<void(io::Mesh&)>& edit = {}) {
  auto cfg = io::Config::from_string(yaml, "<test>");
  auto opts = app::component_options(cfg);
  opts.keep_affine = false;
  io::Mesh mesh = app::load_mesh(cfg);
  if (edit) edit(mesh);
  return std::make_unique<fe::Component>(comm, std::move(mesh), opts);
}

/// Nodes of @p mesh with the given coordinates (NaN = any), in internal order.
std::vector<int> nodes_at(const io::Mesh& mesh, double x, double y, double z) {
  std::vector<int> out;
  const double want[3] = {x, y, z};
  for (int n = 0; n < static_cast<int>(mesh.num_nodes()); ++n) {
    bool ok = true;
    for (int d = 0; d < 3; ++d) ok = ok && (std::isnan(want[d]) || std::abs(mesh.coords[n][d] - want[d]) < 1e-12);
    if (ok) out.push_back(n);
  }
  return out;
}

struct Fixture : test::CmsFixture {
  Fixture(MPI_Comm comm, int modes, const std::vector<cms::InterfaceSpec>& interfaces, std::unique_ptr<fe::Component> c = {})
      : CmsFixture(c ? std::move(c) : test::component_from_yaml(comm, kBox), interfaces, modes) {}
  cms::ReducedBasis build(cms::Method m, cms::ModeInterface mi, std::vector<std::string> held = {}) {
    cms::BuildOptions b;
    b.method = m;
    b.mode_interface = mi;
    b.fixed_interfaces = std::move(held);
    return red->build(b);
  }
  /// Physical columns (RBE2 working vectors mapped back) in natural order.
  MatrixXd cols(const std::vector<VecH>& v) const { return physical_columns(v); }
};

std::vector<cms::InterfaceSpec> specs(std::initializer_list<const char*> sets,
                                      cms::InterfaceKind k = cms::InterfaceKind::all_dofs) {
  return test::interfaces(sets, k);
}

/// Sine of the largest principal angle between span(A) and span(B) (columns scaled to unit norm
/// first: the bases mix mass-normalised modes, unit constraint modes and tiny inertia-relief modes).
double max_angle_sine(MatrixXd A, MatrixXd B) {
  EXPECT_EQ(A.cols(), B.cols());
  const VectorXd na = A.colwise().norm().cwiseInverse().transpose(), nb = B.colwise().norm().cwiseInverse().transpose();
  A = A * na.asDiagonal(); // (a diagonal product is lazy: the norms must be evaluated first)
  B = B * nb.asDiagonal();
  Eigen::HouseholderQR<MatrixXd> qa(A), qb(B);
  const MatrixXd Qa = qa.householderQ() * MatrixXd::Identity(A.rows(), A.cols());
  const MatrixXd Qb = qb.householderQ() * MatrixXd::Identity(B.rows(), B.cols());
  Eigen::JacobiSVD<MatrixXd> svd(Qb - Qa * (Qa.transpose() * Qb));
  return svd.singularValues()(0);
}

VectorXd gen_eigs(const cms::ReducedBasis& b) { return test::pencil_eigenvalues(b.K, b.M); }

/// Elastic eigenvalues of a reduced free-free model (its 6 rigid ones dropped).
VectorXd elastic(const cms::ReducedBasis& b) {
  const VectorXd e = gen_eigs(b);
  return e.tail(e.size() - 6);
}

double max_rel(const VectorXd& a, const VectorXd& b) {
  EXPECT_EQ(a.size(), b.size());
  return ((a - b).array() / b.array()).abs().maxCoeff();
}

int count_kind(const cms::ReducedBasis& b, cms::ColumnKind k) {
  return static_cast<int>(std::count(b.kinds.begin(), b.kinds.end(), k));
}

} // namespace

TEST(CmsMixed, AllHeldIsTheFixedVariantNoneHeldTheFreeVariant) {
  using M_ = cms::Method;
  const auto mixed = cms::ModeInterface::mixed;
  for (auto kind : {cms::InterfaceKind::all_dofs, cms::InterfaceKind::rbe2}) {
    Fixture f(MPI_COMM_WORLD, 6, specs({"XMIN", "XMAX"}, kind));
    for (auto m : {M_::herting, M_::hintz_constraint}) {
      const auto fx = f.build(m, cms::ModeInterface::fixed), mx = f.build(m, mixed, {"XMIN", "XMAX"});
      ASSERT_EQ(mx.n_columns(), fx.n_columns()) << cms::method_name(m); // no inertia relief: no rigid motion left
      EXPECT_EQ(count_kind(mx, cms::ColumnKind::inertia_relief), 0);
      EXPECT_EQ(count_kind(mx, cms::ColumnKind::mixed_interface_mode), 6);
      EXPECT_EQ(mx.mode_interface, cms::ModeInterface::mixed);
      EXPECT_LT(max_angle_sine(f.cols(mx.columns), f.cols(fx.columns)), 1e-8) << cms::method_name(m);
      EXPECT_LT(max_rel(elastic(mx), elastic(fx)), 1e-8) << cms::method_name(m);
      for (std::size_t i = 0; i < fx.mode_eigenvalues.size(); ++i)
        EXPECT_NEAR(mx.mode_eigenvalues[i], fx.mode_eigenvalues[i], 1e-10 * fx.mode_eigenvalues[i]);
      // None held (an empty selection, API only): the free variant, H for all 6 rigid modes.
      const auto fr = f.build(m, cms::ModeInterface::free), m0 = f.build(m, mixed, {});
      ASSERT_EQ(m0.n_columns(), fr.n_columns()) << cms::method_name(m);
      EXPECT_EQ(count_kind(m0, cms::ColumnKind::inertia_relief), 6);
      EXPECT_LT(max_angle_sine(f.cols(m0.columns), f.cols(fr.columns)), 1e-8) << cms::method_name(m);
      EXPECT_LT(max_rel(elastic(m0), elastic(fr)), 1e-8) << cms::method_name(m);
      for (std::size_t j = 0; j < m0.n_columns(); ++j)
        if (m0.kinds[j] == cms::ColumnKind::inertia_relief) {
          EXPECT_EQ(m0.labels[j], fr.labels[j]);
        }
    }
  }
}

TEST(CmsMixed, HertingAndHintzConstraintAreEquivalent) {
  // CMM → Herting (eqs 40–41) holds for any interface type: equal reduced spectra. MID: the
  // cross-section x = 0.15.
  auto comp = component(MPI_COMM_WORLD, kBox, [](io::Mesh& m) { m.node_sets["MID"] = nodes_at(m, 0.15, NAN, NAN); });
  ASSERT_EQ(comp->mesh().node_set("MID").size(), 9u);
  Fixture f(MPI_COMM_WORLD, 6, specs({"XMIN", "XMAX", "MID"}), std::move(comp));
  for (const std::vector<std::string>& held :
       {std::vector<std::string>{"XMIN"}, std::vector<std::string>{"XMAX", "MID"}}) {
    const auto her = f.build(cms::Method::herting, cms::ModeInterface::mixed, held);
    const auto cmm = f.build(cms::Method::hintz_constraint, cms::ModeInterface::mixed, held);
    EXPECT_LT(max_rel(elastic(her), elastic(cmm)), 1e-8) << held[0];
    EXPECT_LT(max_angle_sine(f.cols(her.columns), f.cols(cmm.columns)), 1e-8) << held[0];
    EXPECT_EQ(her.fixed_interfaces, held);
    // They differ from both the fixed and the free variants.
    const VectorXd fx = elastic(f.build(cms::Method::herting, cms::ModeInterface::fixed));
    const VectorXd fr = elastic(f.build(cms::Method::herting, cms::ModeInterface::free));
    EXPECT_GT(max_rel(elastic(her), fx), 1e-6);
    EXPECT_GT(max_rel(elastic(her).head(6), fr.head(6)), 1e-6);
  }
}

TEST(CmsMixed, ModesSolveTheHeldGhepAndConvergeFromAbove) {
  Fixture f(MPI_COMM_WORLD, 8, specs({"XMIN", "XMAX"}));
  const auto& ms = f.red->mixed_modes({"XMIN"});
  ASSERT_EQ(ms.vectors.size(), 8u);
  EXPECT_TRUE(ms.rigid_eigenvalues.empty());
  const auto& bd = f.ws->boundary();
  const MatrixXd Nb = f.red->boundary_rows(ms.vectors);
  Mat K = f.ws->K(), M = f.ws->M();
  VecH r = f.ws->new_vector(), t = f.ws->new_vector();
  double worst = 0;
  for (std::size_t n = 0; n < ms.vectors.size(); ++n) {
    Vec phi = ms.vectors[n].get();
    for (std::size_t k = 0; k < bd.size(); ++k)
      if (bd[k].interface == 0) {
        EXPECT_EQ(Nb(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(n)), 0.0);
      }
    // Residual on the free rows only: the held rows carry the reactions, not part of the GHEP.
    auto zero_held = [&](Vec v) {
      std::vector<VecH> one;
      one.push_back(f.ws->new_vector());
      FLEXUQ_PETSC(VecCopy(v, one[0].get()));
      const MatrixXd vb = f.red->boundary_rows(one);
      double held = 0;
      PetscInt lo = 0, hi = 0;
      FLEXUQ_PETSC(VecGetOwnershipRange(v, &lo, &hi));
      for (std::size_t k = 0; k < bd.size(); ++k)
        if (bd[k].interface == 0) {
          held = std::max(held, std::abs(vb(static_cast<Eigen::Index>(k), 0)));
          if (bd[k].work >= lo && bd[k].work < hi) FLEXUQ_PETSC(VecSetValue(v, bd[k].work, 0.0, INSERT_VALUES));
        }
      FLEXUQ_PETSC(VecAssemblyBegin(v));
      FLEXUQ_PETSC(VecAssemblyEnd(v));
      return held;
    };
    FLEXUQ_PETSC(MatMult(K, phi, r.get()));
    FLEXUQ_PETSC(MatMult(M, phi, t.get()));
    PetscScalar mm = 0;
    FLEXUQ_PETSC(VecDot(t.get(), phi, &mm));
    EXPECT_NEAR(PetscRealPart(mm), 1.0, 1e-10);
    FLEXUQ_PETSC(VecAXPY(r.get(), -ms.eigenvalues[n], t.get()));
    FLEXUQ_PETSC(MatMult(K, phi, t.get()));
    const double reaction = zero_held(t.get());
    zero_held(r.get());
    PetscReal kn = 0, rn = 0;
    FLEXUQ_PETSC(VecNorm(t.get(), NORM_2, &kn));
    FLEXUQ_PETSC(VecNorm(r.get(), NORM_2, &rn));
    worst = std::max(worst, rn / kn);
    EXPECT_GT(reaction, 1e-6 * kn) << "mode " << n << ": no reactions at the held rows";
  }
  EXPECT_LT(worst, 1e-9);
  // Rayleigh–Ritz: reduced free-free ω² ≥ full ones, decreasing as modes are added (nested spaces).
  auto comp = test::component_from_yaml(MPI_COMM_WORLD, kBox);
  fe::ModeOptions o;
  o.count = 12;
  const auto full = fe::solve_modes(comp->K(), comp->M(), o);
  VectorXd prev;
  for (int n : {0, 2, 6, 12}) {
    Fixture g(MPI_COMM_WORLD, n, specs({"XMIN", "XMAX"}));
    const auto b = g.build(cms::Method::herting, cms::ModeInterface::mixed, {"XMIN"});
    EXPECT_EQ(count_kind(b, cms::ColumnKind::mixed_interface_mode), n);
    const VectorXd ev = elastic(b);
    for (Eigen::Index k = 0; k < std::min<Eigen::Index>(ev.size(), 12); ++k)
      EXPECT_GE(ev(k), full.eigenvalues[static_cast<std::size_t>(k)] * (1 - 1e-10)) << "n=" << n << " k=" << k;
    if (prev.size()) {
      for (Eigen::Index k = 0; k < 6; ++k) EXPECT_LE(ev(k), prev(k) * (1 + 1e-10)) << "n=" << n << " k=" << k;
    }
    prev = ev;
  }
  EXPECT_LT((prev(0) - full.eigenvalues[0]) / full.eigenvalues[0], 1e-2);
}

TEST(CmsMixed, LeftoverRigidMotionsAreSkippedAndRelieved) {
  // LINE: the nodes of the edge x = 0, z = 0 (collinear along y) leave the rotation about it free;
  // CORNER: one node leaves the 3 rotations about it; MID (cross-section x = 0.15) is never held.
  auto comp = component(MPI_COMM_WORLD, kBox, [](io::Mesh& m) {
    m.node_sets["LINE"] = nodes_at(m, 0, NAN, 0);
    m.node_sets["CORNER"] = nodes_at(m, 0.3, 0.1, 0.05);
    m.node_sets["MID"] = nodes_at(m, 0.15, NAN, NAN);
  });
  ASSERT_EQ(comp->mesh().node_set("LINE").size(), 3u);
  fe::ModeOptions o;
  o.count = 1;
  const auto full = fe::solve_modes(comp->K(), comp->M(), o);
  Fixture f(MPI_COMM_WORLD, 5, specs({"LINE", "CORNER", "MID"}), std::move(comp));
  const MatrixXd Rb = f.ws->rigid_boundary_rows();
  struct Case {
    std::vector<std::string> held;
    std::vector<int> picks;
  };
  for (const Case& c : {Case{{"LINE"}, {4}}, Case{{"CORNER"}, {3, 4, 5}}, Case{{"LINE", "CORNER"}, {}}}) {
    const auto fr = f.red->free_rigid(c.held);
    EXPECT_EQ(fr.picks, c.picks) << c.held[0];
    ASSERT_EQ(fr.Z.cols(), static_cast<Eigen::Index>(c.picks.size()));
    // Φ_R Z vanishes at the held coordinates.
    for (std::size_t k = 0; k < f.ws->n_boundary(); ++k) {
      const int itf = f.ws->boundary()[k].interface;
      if (std::find(c.held.begin(), c.held.end(), f.ws->interfaces()[static_cast<std::size_t>(itf)].set) != c.held.end()) {
        EXPECT_LT((Rb.row(static_cast<Eigen::Index>(k)) * fr.Z).norm(), 1e-12) << c.held[0];
      }
    }
    const auto& ms = f.red->mixed_modes(c.held);
    EXPECT_EQ(ms.rigid_eigenvalues.size(), c.picks.size()) << c.held[0];
    ASSERT_EQ(ms.eigenvalues.size(), 5u);
    EXPECT_GT(ms.eigenvalues.front(), 1e-3 * full.eigenvalues.front()) << c.held[0] << ": a zero eigenvalue kept";
    for (auto m : {cms::Method::herting, cms::Method::hintz_constraint}) {
      const auto b = f.build(m, cms::ModeInterface::mixed, c.held);
      EXPECT_EQ(count_kind(b, cms::ColumnKind::inertia_relief), static_cast<int>(c.picks.size()));
      EXPECT_EQ(count_kind(b, cms::ColumnKind::mixed_interface_mode), 5);
      const VectorXd e = gen_eigs(b);
      // The 6 rigid motions (Φ_CΦ_Rb = Φ_R), no more.
      EXPECT_EQ((e.array().abs() < 1e-6 * full.eigenvalues.front()).count(), 6) << c.held[0];
      EXPECT_GE(e(6), full.eigenvalues.front() * (1 - 1e-10)) << c.held[0];
    }
    const auto her = f.build(cms::Method::herting, cms::ModeInterface::mixed, c.held);
    const auto cmm = f.build(cms::Method::hintz_constraint, cms::ModeInterface::mixed, c.held);
    EXPECT_LT(max_rel(elastic(her), elastic(cmm)), 1e-8) << c.held[0];
  }
  const auto b = f.build(cms::Method::herting, cms::ModeInterface::mixed, {"LINE"});
  EXPECT_NE(std::find(b.labels.begin(), b.labels.end(), "inertia-relief mode ry"), b.labels.end());
}

TEST(CmsMixed, MechanismsAndBadSelectionsAreInputErrors) {
  // Two hex8 cells hinged on the edge x = 0.1, z = 0: the top nodes of their shared face are split.
  auto comp = component(MPI_COMM_WORLD, R"(
model:
  generator: {type: box, size: [0.2, 0.1, 0.1], cells: [2, 1, 1], order: 1}
  material: {E: 2.0e11, nu: 0.3, rho: 7800}
)",
                        [](io::Mesh& m) {
                          for (int n : nodes_at(m, 0.1, NAN, 0.1)) {
                            const int copy = static_cast<int>(m.coords.size());
                            m.coords.push_back(m.coords[n]);
                            m.node_ids.push_back(1000 + copy);
                            m.node_sets["ALL"].push_back(copy);
                            for (std::size_t e = 0; e < m.num_elements(); ++e) {
                              double cx = 0;
                              for (int a = 0; a < m.element_size(e); ++a) cx += m.coords[m.element(e)[a]][0] / 8;
                              if (cx < 0.1) continue;
                              for (auto i = m.elem_offsets[e]; i < m.elem_offsets[e + 1]; ++i)
                                if (m.elem_nodes[static_cast<std::size_t>(i)] == n) m.elem_nodes[static_cast<std::size_t>(i)] = copy;
                            }
                          }
                        });
  Fixture f(MPI_COMM_WORLD, 3, specs({"XMIN", "XMAX"}), std::move(comp));
  // Both faces held: no mechanism (the constraint modes and the fixed variant work).
  EXPECT_NO_THROW(f.build(cms::Method::herting, cms::ModeInterface::mixed, {"XMIN", "XMAX"}));
  // One face held: the other cell swings about the hinge.
  try {
    f.red->mixed_modes({"XMIN"});
    ADD_FAILURE() << "no error for a hinged cell";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("mechanism"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[XMIN]"), std::string::npos) << e.what();
  }
  // None held: 7 zero-energy modes where the geometry leaves 6.
  try {
    f.red->mixed_modes({});
    ADD_FAILURE() << "no error for 7 zero-energy modes";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("mechanism: 7 zero-energy modes"), std::string::npos) << e.what();
  }
  // Selections and methods.
  Fixture g(MPI_COMM_WORLD, 2, specs({"XMIN", "XMAX"}));
  EXPECT_THROW(g.red->mixed_modes({"NOPE"}), InputError);
  EXPECT_THROW(g.red->mixed_modes({"XMIN", "XMIN"}), InputError);
  for (auto m : {cms::Method::craig_bampton, cms::Method::craig_chang, cms::Method::rubin_martinez, cms::Method::guyan,
                 cms::Method::hurty, cms::Method::hintz_attachment, cms::Method::gcms})
    EXPECT_THROW(g.build(m, cms::ModeInterface::mixed, {"XMIN"}), InputError) << cms::method_name(m);
  cms::BuildOptions b;
  b.method = cms::Method::herting;
  b.fixed_interfaces = {"XMIN"}; // without mode_interface mixed
  EXPECT_THROW(g.red->build(b), InputError);
}

namespace {
const std::string kJob = R"(
model:
  generator: {type: box, size: [0.3, 0.1, 0.05], cells: [6, 2, 2], order: 1}
  material: {E: 2.0e11, nu: 0.3, rho: 7800}
reduce:
  method: herting
  interfaces:
    - {set: XMIN, kind: all-dofs}
    - {set: XMAX, kind: rbe2}
  modes: {count: 4}
  checkout: {free_free: 3}
)";

/// parse_reduce_job throws an InputError whose message contains every one of @p parts.
void expect_error(const std::vector<std::string>& overrides, const std::vector<std::string>& parts) {
  try {
    app::parse_reduce_job(io::Config::from_string(kJob, "<job>", overrides));
    ADD_FAILURE() << "no error for " << overrides.back();
  } catch (const InputError& e) {
    for (const auto& p : parts) EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
  }
}
} // namespace

TEST(CmsMixedJob, ParsesTheKeysAndNamesThemInErrors) {
  const auto j = app::parse_reduce_job(
      io::Config::from_string(kJob, "<job>", {"reduce.modes.interface=mixed", "reduce.modes.fixed_interfaces=[XMAX]"}));
  EXPECT_EQ(j.build.mode_interface, cms::ModeInterface::mixed);
  EXPECT_EQ(j.build.fixed_interfaces, std::vector<std::string>{"XMAX"});
  EXPECT_EQ(app::parse_reduce_job(io::Config::from_string(kJob, "<job>", {"reduce.modes.interface=fixed"})).build.mode_interface,
            cms::ModeInterface::fixed);
  const std::string mixed = "reduce.modes.interface=mixed", key = "reduce.modes.fixed_interfaces";
  expect_error({mixed}, {"<job>", key});
  expect_error({mixed, key + "=[]"}, {"<job>", key, "at least one"});
  expect_error({mixed, key + "=[XMIN, NOPE]"}, {"<job>", key, "'NOPE'"});
  expect_error({key + "=[XMIN]"}, {"<job>", key, "not 'mixed'"});
  expect_error({"reduce.modes.interface=free", key + "=[XMIN]"}, {key});
  expect_error({"reduce.method=craig-bampton", mixed, key + "=[XMIN]"}, {"reduce.modes.interface", "craig-bampton"});
  expect_error({"reduce.modes.interface=mixd"}, {"reduce.modes.interface", "'mixd'"});
}

TEST(CmsMixedJob, ReducesEndToEnd) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string out = "/tmp/flexuq-cb-mixed-job-np" + std::to_string(size) + ".h5";
  app::run_reduce(MPI_COMM_WORLD, io::Config::from_string(kJob + "output: " + out + "\n", "<job>",
                                                          {"reduce.modes.interface=mixed", "reduce.modes.fixed_interfaces=[XMAX]"}));
  io::H5File f(MPI_COMM_WORLD, out, io::H5File::Mode::read);
  const auto labels = f.read_strings("/reduced/dof_labels");
  EXPECT_EQ(std::count(labels.begin(), labels.end(), "mixed-interface mode 1"), 1);
  for (double r : f.read_all("/reduced/checkout/rigid_residual")) EXPECT_LT(r, 1e-9);
}
