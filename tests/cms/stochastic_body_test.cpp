// SPDX-License-Identifier: MIT
// The stochastic reduced body without a campaign (issue #6 items 2 and 4):
//  - global scaling: one parameter E on every element scales K by E/E0 and leaves M and every
//    eigenvector unchanged, so the aligned per-point body is K̄ = (E/E0) K̄0, M̄ = M̄0, Φ = Φ0
//    exactly, and the expansions are rank one in K̄ (K̄_α ∝ K̄0) with vanishing higher M̄ and basis
//    coefficients;
//  - the value type: invariants flatten/unflatten, write/read round trip, evaluation at ξ;
//  - no successful point → a clear error.
#include "flexuq/cms/StochasticBody.hpp"
#include "flexuq/cms/StochasticBodyModel.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/app/ComponentConfig.hpp"
#include "flexuq/io/Config.hpp"
#include "flexuq/io/Hdf5File.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <cmath>

using namespace flexuq;

namespace {

const char* const kBox = R"(
model:
  generator: {type: box, size: [0.3, 0.1, 0.05], cells: [6, 2, 2], order: 1}
  material: {E: 2.0e11, nu: 0.3, rho: 7800}
)";

cms::StochasticReduceOptions box_options(const std::vector<fe::MaterialParameter>& params, std::vector<double> nominal) {
  cms::StochasticReduceOptions o;
  o.interfaces = {{"XMIN", cms::InterfaceKind::rbe2, {}, {}}, {"XMAX", cms::InterfaceKind::rbe2, {}, {}}};
  o.reducer.modes.count = 4;
  o.build.method = cms::Method::craig_bampton;
  o.free_free = 4;
  o.parameters = params;
  o.nominal = std::move(nominal);
  return o;
}

std::unique_ptr<cms::StochasticBodyModel> box_model(MPI_Comm comm, const cms::StochasticReduceOptions& o) {
  const auto cfg = io::Config::from_string(kBox, "<test>");
  return std::make_unique<cms::StochasticBodyModel>(comm, app::load_mesh(cfg), app::component_options(cfg), o);
}

Eigen::MatrixXd as_matrix(const std::vector<double>& v, Eigen::Index n) {
  return Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(v.data(), n, n);
}

int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

} // namespace

TEST(StochasticBody, GlobalScalingGivesScaledMatricesAndAFixedBasis) {
  const double E0 = 2.0e11;
  fe::MaterialParameter pE;
  pE.name = "E";
  pE.property = fe::MaterialProperty::E;
  auto model = box_model(MPI_COMM_WORLD, box_options({pE}, {E0}));
  const auto& K0 = model->nominal_body().K;
  const auto& M0 = model->nominal_body().M;
  const auto n = K0.rows();
  ASSERT_EQ(n, 16); // 2 × 6 reference DOFs + 4 fixed-interface modes
  const auto dist = uq::Distribution::lognormal_from_moments(E0, 2.0e10);

  // Per point: exact scaling (to the round-off of a fresh factorisation).
  const std::vector<double> germ{-2.0, -1.2, -0.5, 0.0, 0.4, 1.0, 1.7, 2.5};
  cms::StochasticSamples s;
  s.germ.resize(static_cast<Eigen::Index>(germ.size()), 1);
  const auto& basis0 = model->nominal_basis();
  for (std::size_t i = 0; i < germ.size(); ++i) {
    const double E = dist.from_germ(germ[i]);
    const auto out = model->evaluate({E});
    const Eigen::MatrixXd K = as_matrix(out.at("K"), n), M = as_matrix(out.at("M"), n);
    EXPECT_LT((K - (E / E0) * K0).norm(), 1e-10 * (E / E0) * K0.norm()) << "point " << i;
    EXPECT_LT((M - M0).norm(), 1e-10 * M0.norm()) << "point " << i;
    EXPECT_GT(out.at("alignment_min_mac")[0], 1 - 1e-10);
    for (std::size_t j = 0; j < out.at("mode_eigenvalues").size(); ++j)
      EXPECT_NEAR(out.at("mode_eigenvalues")[j] / model->nominal_body().mode_eigenvalues(static_cast<Eigen::Index>(j)),
                  E / E0, 1e-10);
    if (world_rank() == 0) {
      const auto& b = out.at("basis");
      ASSERT_EQ(b.size(), basis0.size());
      double diff = 0, scale = 0;
      for (std::size_t k = 0; k < b.size(); ++k) {
        diff = std::max(diff, std::abs(b[k] - basis0[k]));
        scale = std::max(scale, std::abs(basis0[k]));
      }
      EXPECT_LT(diff, 1e-9 * scale) << "point " << i << ": the aligned basis must not depend on a global E";
    }
    s.germ(static_cast<Eigen::Index>(i), 0) = germ[i];
    s.index.push_back(i);
    for (const auto& [name, v] : out) {
      if (name == "basis" && world_rank() != 0) continue;
      auto& Y = s.values[name];
      Y.conservativeResize(static_cast<Eigen::Index>(germ.size()), static_cast<Eigen::Index>(v.size()));
      Y.row(static_cast<Eigen::Index>(i)) = Eigen::Map<const Eigen::RowVectorXd>(v.data(), static_cast<Eigen::Index>(v.size()));
    }
  }
  for (const auto& [name, d] : model->field_dims()) s.dims[name] = d;
  s.dims["mode_eigenvalues"] = {4};
  s.dims["free_free_frequencies"] = {4};
  s.dims["mode_frequencies"] = {4};
  s.dims["alignment_min_mac"] = {1};
  if (world_rank() != 0) s.dims.erase("basis");
  cms::StochasticFitOptions fo;
  fo.order = 3;
  fo.points_total = germ.size();
  const auto body = cms::fit_stochastic_body({"E"}, {dist}, s, model->nominal_body(), fo);
  ASSERT_EQ(body.multi_indices.size(), 4);
  // K̄_α = c_α K̄0 (rank one), M̄_α = 0 and Φ_α = 0 for α ≠ 0.
  const auto& CK = body.pce.at("K").coefficients;
  Eigen::VectorXd k0r(n * n);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j) k0r(i * n + j) = K0(i, j);
  for (Eigen::Index t = 0; t < CK.rows(); ++t) {
    const Eigen::VectorXd kt = CK.row(t).transpose();
    const double c = kt.dot(k0r) / k0r.squaredNorm();
    EXPECT_LT((kt - c * k0r).norm(), 1e-9 * CK.row(0).norm()) << "K coefficient " << t << " is not proportional to K0";
  }
  const auto& CM = body.pce.at("M").coefficients;
  for (Eigen::Index t = 1; t < CM.rows(); ++t) EXPECT_LT(CM.row(t).norm(), 1e-10 * CM.row(0).norm());
  if (world_rank() == 0) {
    const auto& CB = body.pce.at("basis").coefficients;
    for (Eigen::Index t = 1; t < CB.rows(); ++t) EXPECT_LT(CB.row(t).norm(), 1e-9 * CB.row(0).norm()) << "basis term " << t;
  }
  // The mean of E/E0 is 1 (E0 is the mean): the zero-order K̄ is K̄0 up to the truncation of exp.
  EXPECT_NEAR(CK.row(0).dot(k0r) / k0r.squaredNorm(), 1.0, 1e-3);
  // The body at a germ point reproduces the point's matrices within the expansion's error.
  const auto b1 = body.at_germ({1.0});
  const double E1 = dist.from_germ(1.0);
  EXPECT_LT((b1.K - (E1 / E0) * K0).norm(), 1e-3 * K0.norm());
  EXPECT_LT((b1.M - M0).norm(), 1e-10 * M0.norm());
  ASSERT_EQ(b1.checkout.reduced_hz.size(), model->nominal_body().checkout.reduced_hz.size());
  for (Eigen::Index i = 0; i < b1.checkout.reduced_hz.size(); ++i)
    EXPECT_NEAR(b1.checkout.reduced_hz(i) / model->nominal_body().checkout.reduced_hz(i), std::sqrt(E1 / E0), 1e-3);
}

TEST(StochasticBody, WriteReadRoundTripAndEvaluation) {
  fe::MaterialParameter pE, prho;
  pE.name = "E";
  pE.property = fe::MaterialProperty::E;
  prho.name = "rho";
  prho.property = fe::MaterialProperty::rho;
  auto o = box_options({pE, prho}, {2.0e11, 7800});
  o.basis = false;
  auto model = box_model(MPI_COMM_WORLD, o);
  const std::vector<uq::Distribution> dists{uq::Distribution::lognormal_from_moments(2.0e11, 1.0e10),
                                            uq::Distribution::uniform(7600, 8000)};
  const Eigen::MatrixXd germ = (Eigen::MatrixXd(8, 2) << -1.5, -0.9, -0.7, 0.3, 0.0, 0.0, 0.6, -0.4, 1.2, 0.8, -0.2, 0.6,
                                0.9, -0.6, 1.8, 0.1).finished();
  cms::StochasticSamples s;
  s.germ = germ;
  for (Eigen::Index i = 0; i < germ.rows(); ++i) {
    const auto out = model->evaluate({dists[0].from_germ(germ(i, 0)), dists[1].from_germ(germ(i, 1))});
    s.index.push_back(static_cast<std::uint64_t>(i));
    for (const char* q : {"K", "M", "mode_eigenvalues", "invariants", "free_free_frequencies"}) {
      const auto& v = out.at(q);
      auto& Y = s.values[q];
      Y.conservativeResize(germ.rows(), static_cast<Eigen::Index>(v.size()));
      Y.row(i) = Eigen::Map<const Eigen::RowVectorXd>(v.data(), static_cast<Eigen::Index>(v.size()));
      s.dims[q] = {v.size()};
    }
  }
  const auto n = static_cast<std::uint64_t>(model->n_columns());
  s.dims["K"] = s.dims["M"] = {n, n};
  cms::StochasticFitOptions fo; // order by LOO in [1, 3]
  fo.points_total = 8;
  const auto body = cms::fit_stochastic_body({"E", "rho"}, dists, s, model->nominal_body(), fo);
  EXPECT_EQ(body.fit, "regression");
  EXPECT_GE(body.order, 1);
  const std::string path = "/tmp/flexuq-stochastic-body-test.h5";
  {
    io::H5File f(MPI_COMM_WORLD, path, io::H5File::Mode::create);
    body.nominal.write(f);
    body.write(f);
  }
  const auto back = cms::StochasticBody::read(MPI_COMM_WORLD, path);
  EXPECT_EQ(back.names, body.names);
  EXPECT_EQ(back.order, body.order);
  EXPECT_EQ(back.multi_indices.size(), body.multi_indices.size());
  const std::vector<double> theta{2.07e11, 7712};
  const auto a = body.at(theta), b = back.at(theta);
  EXPECT_EQ((a.K - b.K).norm(), 0.0);
  EXPECT_EQ((a.M - b.M).norm(), 0.0);
  EXPECT_EQ(a.invariants.mass, b.invariants.mass);
  // The mass invariant is linear in rho: exact in the expansion (order >= 1).
  EXPECT_NEAR(a.invariants.mass, 7712 * 0.3 * 0.1 * 0.05, 1e-9 * a.invariants.mass);
  // Invariants flatten and unflatten exactly.
  const auto v = cms::flatten_invariants(a.invariants);
  const auto inv = cms::unflatten_invariants(v, a.n_columns(), a.invariants.lumped);
  EXPECT_EQ(cms::flatten_invariants(inv), v);
  EXPECT_THROW(body.at({2.07e11, 9000}), InputError); // outside the uniform law's support
}

TEST(StochasticBody, NoSuccessfulPointIsAClearError) {
  cms::StochasticSamples s;
  s.germ.resize(0, 1);
  cms::StochasticFitOptions fo;
  fo.points_total = 5;
  try {
    (void)cms::fit_stochastic_body({"E"}, {uq::Distribution::normal(1, 0.1)}, s, cms::ReducedBody{}, fo);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("none of the 5 points succeeded"), std::string::npos) << e.what();
  }
}

TEST(StochasticBody, PathsTheStochasticReductionCannotTake) {
  auto o = box_options({}, {});
  o.build.method = cms::Method::gcms;
  EXPECT_THROW(cms::validate_stochastic(o, "job.yaml"), InputError);
  o = box_options({}, {});
  o.build.scaling = cms::Scaling::max;
  EXPECT_THROW(cms::validate_stochastic(o, "job.yaml"), InputError);
  o = box_options({}, {});
  o.reducer.modes.band_hz = std::make_pair(0.0, 1000.0);
  EXPECT_THROW(cms::validate_stochastic(o, "job.yaml"), InputError);
}
