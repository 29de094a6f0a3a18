// SPDX-License-Identifier: MIT
#include "flexuq/workflow/PodBody.hpp"

#include "flexuq/core/Assert.hpp"
#include "flexuq/core/Comm.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/core/Log.hpp"
#include "flexuq/core/Model.hpp"
#include "flexuq/core/RootTask.hpp"
#include "flexuq/io/Hdf5File.hpp"
#include "flexuq/io/OutputFile.hpp"
#include "flexuq/pod/Pod.hpp"
#include "flexuq/pod/Snapshots.hpp"
#include "flexuq/pod/StreamingPod.hpp"

#include "flexuq/cms/BodyFile.hpp"
#include "flexuq/cms/FloatingFrame.hpp"
#include "flexuq/cms/PodBody.hpp"
#include "flexuq/cms/ReducedBodyBuild.hpp"

#include <algorithm>
#include <cmath>

namespace flexuq::workflow {

namespace {

bool is_mode_column(const std::string& kind) {
  return kind == "fixed_interface_mode" || kind == "free_interface_mode" || kind == "mixed_interface_mode";
}

/// Rows [begin, begin + local) of every rank, on rank 0 scaled by @p per_row entries per row.
void layout(MPI_Comm c, PetscInt local, std::size_t per_row, std::vector<int>& counts, std::vector<int>& displs) {
  const int size = [&] {
    int s = 0;
    MPI_Comm_size(c, &s);
    return s;
  }();
  long long mine = static_cast<long long>(local) * static_cast<long long>(per_row);
  FLEXUQ_REQUIRE(mine < (1LL << 31), "pod: " << mine << " basis entries on one rank exceed an MPI count");
  int m = static_cast<int>(mine);
  counts.assign(static_cast<std::size_t>(size), 0);
  displs.assign(static_cast<std::size_t>(size), 0);
  FLEXUQ_MPI(MPI_Allgather(&m, 1, MPI_INT, counts.data(), 1, MPI_INT, c));
  for (int r = 1; r < size; ++r)
    displs[static_cast<std::size_t>(r)] = displs[static_cast<std::size_t>(r - 1)] + counts[static_cast<std::size_t>(r - 1)];
}

using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

} // namespace

PodBasisSummary pod_basis(MPI_Comm comm, const std::vector<campaign::Journal::Location>& points,
                          const cms::ReducedBody& nominal, const std::vector<double>& nominal_basis, std::uint64_t nodes,
                          int dofs_per_node, const pod::Truncation& truncation, const std::string& output) {
  Comm world(comm);
  MPI_Comm c = world.get();
  const bool root = world.rank() == 0;
  // Rank 0: the successful points in sample order (the journal's order is the scheduling's) and the
  // column families of the aligned basis (every point has the reference's columns).
  std::vector<int> family; // per column: 0 boundary/constraint, 1 normal mode
  if (root)
    for (const auto& k : nominal.column_kinds) family.push_back(is_mode_column(k) ? 1 : 0);
  long long head[2] = {static_cast<long long>(points.size()), static_cast<long long>(family.size())};
  FLEXUQ_MPI(MPI_Bcast(head, 2, MPI_LONG_LONG, 0, c));
  const long long N = head[0];
  const auto n = static_cast<std::size_t>(head[1]);
  family.resize(n);
  FLEXUQ_MPI(MPI_Bcast(family.data(), static_cast<int>(n), MPI_INT, 0, c));
  FLEXUQ_REQUIRE_OPTION(N > 0, "stochastic.method", "{}: pod: no point succeeded, there are no snapshots");
  std::vector<Eigen::Index> cols_b, cols_i;
  for (std::size_t j = 0; j < n; ++j) (family[j] ? cols_i : cols_b).push_back(static_cast<Eigen::Index>(j));

  const auto rows = static_cast<PetscInt>(nodes * static_cast<std::uint64_t>(dofs_per_node));
  const PetscInt local = pod::split_rows(c, rows).second; // not a structured binding: the lambdas below use it
  std::vector<int> counts, displs;
  layout(c, local, n, counts, displs);
  // Seed 000 Algorithm 4 takes one POD per column index over the samples (its bar has one boundary
  // mode and a handful of internal ones). With many aligned modes per family a POD per family of all
  // their snapshots spans the same space at a rank no larger than the sum of the per-column ranks, and
  // needs no choice of r per column: we follow that (docs/stochastic-cb.md).
  pod::StreamingPod pb(c, local), pi(c, local);
  RowMat block(local, static_cast<Eigen::Index>(n));
  PodBasisSummary s;
  for (long long p = 0; p < N; ++p) {
    const double* src = nullptr;
    campaign::SampleRecord rec; // rank 0: this point only
    if (root) {
      rec = campaign::Journal::read_at(points[static_cast<std::size_t>(p)]);
      const auto cs = rec.outputs.find(column_scale_output("basis"));
      if (cs != rec.outputs.end()) rec.outputs["basis"] = expand_column_scaled(nominal_basis, cs->second);
      const auto& b = rec.outputs.at("basis");
      // Every point journals the reference's columns (StochasticBodyModel::output_sizes).
      FLEXUQ_ASSERT(b.size() == static_cast<std::size_t>(rows) * n,
                    "journal: point " << rec.index << " has " << b.size() << " basis values, expected "
                                      << static_cast<std::size_t>(rows) * n);
      src = b.data();
      const auto ff = rec.outputs.find("free_free_frequencies");
      s.point_free_free.push_back(ff == rec.outputs.end() ? std::vector<double>{} : ff->second);
    }
    FLEXUQ_MPI(MPI_Scatterv(src, counts.data(), displs.data(), MPI_DOUBLE, block.data(),
                            static_cast<int>(block.size()), MPI_DOUBLE, 0, c));
    if (!cols_b.empty()) pb.append_local(block(Eigen::all, cols_b));
    if (!cols_i.empty()) pi.append_local(block(Eigen::all, cols_i));
  }
  Eigen::MatrixXd U(local, 0);
  Eigen::VectorXd sig_b, sig_i;
  // One family's POD: its snapshot count, rank, lost energy and normalised σ; its columns appended to U.
  const auto add_family = [&](const pod::StreamingPod& p, long long& snapshots, int& rank, double& lost, Eigen::VectorXd& sig) {
    const auto r = p.result(truncation);
    snapshots = p.snapshots();
    rank = r.rank;
    lost = r.energy_lost;
    sig = r.sigma_normalised();
    Eigen::MatrixXd W(local, U.cols() + r.rank);
    W << U, r.U_local;
    U = std::move(W);
  };
  if (!cols_b.empty()) add_family(pb, s.snapshots_boundary, s.rank_boundary, s.energy_lost_boundary, sig_b);
  if (!cols_i.empty()) add_family(pi, s.snapshots_internal, s.rank_internal, s.energy_lost_internal, sig_i);
  // The union of the two orthonormal families → one orthonormal V (TSQR; a direction the two share
  // is kept once: σ of [U_b U_i] below 1e-10 of √2 would be a dependent combination).
  const auto svd = pod::svd_tsqr(c, U);
  int r = 0;
  while (r < svd.sigma.size() && svd.sigma(r) > 1e-10 * svd.sigma(0)) ++r;
  s.rank = r;
  s.V_local = svd.U_local.leftCols(r);
  s.Ui_local = U.rightCols(s.rank_internal);
  if (root) {
    cms::BodyFile f(MPI_COMM_SELF, output, cms::BodyFile::Mode::append);
    std::vector<std::int64_t> idx;
    for (const auto& q : points) idx.push_back(static_cast<std::int64_t>(q.index));
    f.write_pod_points(idx);
    const auto fam = [&](const std::string& name, const Eigen::VectorXd& sig, long long snaps, int rank, double lost) {
      if (snaps == 0) return;
      f.write_pod_family(name, sig, snaps, rank, lost);
    };
    fam("boundary", sig_b, s.snapshots_boundary, s.rank_boundary, s.energy_lost_boundary);
    fam("internal", sig_i, s.snapshots_internal, s.rank_internal, s.energy_lost_internal);
    f.write_pod_truncation(truncation.describe());
  }
  return s;
}

namespace {

/// Rows of V in the natural layout (nodes × dofs per node, pod::split_rows) → columns of the
/// component's vectors (fixed nodes have no DOFs: their rows are zero in every snapshot).
class NaturalToComponent {
public:
  NaturalToComponent(const fe::Component& c, PetscInt local_rows) {
    const auto& d = c.dofs();
    const int dpn = d.dofs_per_node();
    FLEXUQ_PETSC(VecCreateMPI(c.comm(), local_rows, PETSC_DETERMINE, natural_.out()));
    FLEXUQ_PETSC(MatCreateVecs(c.K(), x_.out(), nullptr));
    std::vector<PetscInt> from, to;
    for (int v : d.owned_nodes()) {
      for (int k = 0; k < dpn; ++k) {
        if (d.dof(v, k) < 0) continue; // a fixed component
        from.push_back(static_cast<PetscInt>(v) * dpn + k);
        to.push_back(d.dof(v, k));
      }
    }
    IsH a, b;
    FLEXUQ_PETSC(ISCreateGeneral(c.comm(), static_cast<PetscInt>(from.size()), from.data(), PETSC_COPY_VALUES, a.out()));
    FLEXUQ_PETSC(ISCreateGeneral(c.comm(), static_cast<PetscInt>(to.size()), to.data(), PETSC_COPY_VALUES, b.out()));
    FLEXUQ_PETSC(VecScatterCreate(natural_.get(), a.get(), x_.get(), b.get(), scatter_.out()));
  }
  /// Component-layout rows of the columns of @p V_local (natural rows). @note Collective.
  Eigen::MatrixXd operator()(const Eigen::MatrixXd& V_local) const {
    PetscInt nx = 0;
    FLEXUQ_PETSC(VecGetLocalSize(x_.get(), &nx));
    Eigen::MatrixXd X(nx, V_local.cols());
    for (Eigen::Index j = 0; j < V_local.cols(); ++j) {
      PetscScalar* a = nullptr;
      FLEXUQ_PETSC(VecGetArray(natural_.get(), &a));
      Eigen::Map<Eigen::VectorXd>(a, V_local.rows()) = V_local.col(j);
      FLEXUQ_PETSC(VecRestoreArray(natural_.get(), &a));
      FLEXUQ_PETSC(VecZeroEntries(x_.get()));
      FLEXUQ_PETSC(VecScatterBegin(scatter_.get(), natural_.get(), x_.get(), INSERT_VALUES, SCATTER_FORWARD));
      FLEXUQ_PETSC(VecScatterEnd(scatter_.get(), natural_.get(), x_.get(), INSERT_VALUES, SCATTER_FORWARD));
      const PetscScalar* b = nullptr;
      FLEXUQ_PETSC(VecGetArrayRead(x_.get(), &b));
      X.col(j) = Eigen::Map<const Eigen::VectorXd>(b, nx);
      FLEXUQ_PETSC(VecRestoreArrayRead(x_.get(), &b));
    }
    return X;
  }

private:
  VecH natural_, x_;
  ScatterH scatter_;
};

Eigen::MatrixXd project(MPI_Comm c, Mat A, const Eigen::MatrixXd& X) {
  const Eigen::MatrixXd P = pod::inner(c, X, pod::apply(A, X));
  return 0.5 * (P + P.transpose());
}

/// Which parameter scales each coefficient: c_t(θ) = c_t(θ̄) θ_p / θ̄_p (p = −1: constant). Checked
/// by doubling each θ_p in turn; a coefficient that moves otherwise is an InputError.
void scaling_parameters(const std::vector<double>& c0, const std::vector<double>& c2,
                        std::vector<std::int64_t>& map, std::size_t p, const std::string& name) {
  for (std::size_t t = 0; t < c0.size(); ++t) {
    const double a = c0[t], b = c2[t];
    if (std::abs(b - a) <= 1e-14 * std::abs(a)) continue;
    FLEXUQ_REQUIRE_OPTION(
        std::abs(b - 2 * a) <= 1e-12 * std::abs(a) && map[t] < 0, "stochastic.method",
        "{}: pod: parameter '"
            << name
            << "' does not scale its affine terms "
               "linearly (method pod evaluates K(θ) = Σ c_t(θ) K_t with each c_t proportional to one parameter: "
               "use E and rho parameters, one per element set)");
    map[t] = static_cast<std::int64_t>(p);
  }
}

/// Elastic eigenvalues of the pair → the first @p count frequencies [Hz] (NaN where there are fewer).
std::vector<double> frequencies(const Eigen::MatrixXd& K, const Eigen::MatrixXd& M, int count, bool free_free) {
  std::vector<double> f(static_cast<std::size_t>(count), std::nan(""));
  Eigen::VectorXd lam;
  if (free_free) {
    lam = cms::elastic_coordinates(K, M).eigenvalues;
  } else {
    Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> es(K, M);
    lam = es.eigenvalues();
  }
  for (Eigen::Index i = 0; i < std::min<Eigen::Index>(count, lam.size()); ++i)
    f[static_cast<std::size_t>(i)] = std::sqrt(std::max(0.0, lam(i))) / (2 * M_PI);
  return f;
}

/// Per-point values (N × count) and their mean and std (NaN-free columns) under /statistics/<name>.
void write_point_values(cms::BodyFile& f, const std::string& name, const std::vector<std::vector<double>>& v) {
  if (v.empty() || v[0].empty()) return;
  const std::size_t N = v.size(), m = v[0].size();
  std::vector<double> flat, mean(m, 0.0), sd(m, 0.0);
  for (const auto& row : v) flat.insert(flat.end(), row.begin(), row.end());
  for (std::size_t j = 0; j < m; ++j) {
    for (const auto& row : v) mean[j] += row[j] / static_cast<double>(N);
    for (const auto& row : v) sd[j] += (row[j] - mean[j]) * (row[j] - mean[j]);
    sd[j] = N > 1 ? std::sqrt(sd[j] / static_cast<double>(N - 1)) : 0.0;
  }
  f.write_pod_point_table(name, N, m, flat.data());
  io::H5File& stats = f.file_for_writing(); // the campaign statistics beside the body
  stats.write_replicated("/statistics/" + name + "/mean", {m}, mean.data());
  stats.write_replicated("/statistics/" + name + "/std", {m}, sd.data());
}

} // namespace

PodProjectionSummary pod_project(MPI_Comm comm, const PodBasisSummary& basis, const PodProjection& p,
                                 const std::string& output) {
  Comm world(comm);
  MPI_Comm c = world.get();
  auto copts = p.component;
  copts.keep_affine = true;
  fe::Component comp(c, *p.mesh, copts);
  fe::MaterialParametrisation params(comp, p.parameters);
  params.apply(comp, p.nominal);
  const NaturalToComponent to_comp(comp, static_cast<PetscInt>(basis.V_local.rows()));
  // M(θ̄)-orthonormal: V ← V L⁻ᵀ with VᵀM(θ̄)V = LLᵀ (V is orthonormal and M positive definite on the
  // free DOFs, so L is as well conditioned as M on span V).
  Eigen::MatrixXd Vn = basis.V_local;
  {
    const Eigen::LLT<Eigen::MatrixXd> llt(project(c, comp.M(), to_comp(Vn)));
    FLEXUQ_REQUIRE(llt.info() == Eigen::Success, "pod: VᵀM(θ̄)V is not positive definite");
    const Eigen::MatrixXd Linv = llt.matrixL().solve(Eigen::MatrixXd::Identity(Vn.cols(), Vn.cols()));
    Vn = Vn * Linv.transpose();
  }
  const Eigen::MatrixXd X = to_comp(Vn);
  const Eigen::MatrixXd Xi = to_comp(basis.Ui_local);
  std::vector<Eigen::MatrixXd> Kt, Mt, Kti, Mti;
  for (std::size_t t = 0; t < comp.stiffness_terms().size(); ++t) {
    Kt.push_back(project(c, comp.stiffness_terms().term(t), X));
    if (Xi.cols() > 0) Kti.push_back(project(c, comp.stiffness_terms().term(t), Xi));
  }
  for (std::size_t t = 0; t < comp.mass_terms().size(); ++t) {
    Mt.push_back(project(c, comp.mass_terms().term(t), X));
    if (Xi.cols() > 0) Mti.push_back(project(c, comp.mass_terms().term(t), Xi));
  }
  // θ → coefficients: each parameter doubled in turn.
  const auto c0 = params.coefficients(p.nominal);
  cms::PodBody body;
  body.names = p.names;
  body.nominal = p.nominal;
  body.K = {Kt, c0.stiffness, std::vector<std::int64_t>(c0.stiffness.size(), -1)};
  body.M = {Mt, c0.mass, std::vector<std::int64_t>(c0.mass.size(), -1)};
  for (std::size_t q = 0; q < p.nominal.size(); ++q) {
    auto th = p.nominal;
    th[q] *= 2;
    const auto c2 = params.coefficients(th);
    scaling_parameters(c0.stiffness, c2.stiffness, body.K.parameter, q, p.names[q]);
    scaling_parameters(c0.mass, c2.mass, body.M.parameter, q, p.names[q]);
  }
  // Floating-frame invariants of V (linear in M(θ), so affine like M̄): the linear forms at θ̄ and
  // with each mass parameter doubled give one term per parameter and a constant term.
  auto linear_invariants_here = [&] {
    std::vector<VecH> phys;
    for (Eigen::Index j = 0; j < X.cols(); ++j) {
      VecH v;
      FLEXUQ_PETSC(MatCreateVecs(comp.M(), v.out(), nullptr));
      PetscScalar* a = nullptr;
      FLEXUQ_PETSC(VecGetArray(v.get(), &a));
      for (Eigen::Index r = 0; r < X.rows(); ++r) a[r] = X(r, j);
      FLEXUQ_PETSC(VecRestoreArray(v.get(), &a));
      phys.push_back(std::move(v));
    }
    const cms::Invariants inv = cms::compute_invariants(comp, phys, project(c, comp.M(), X));
    body.lumped = inv.lumped;
    return cms::PodBody::linear_invariants(inv);
  };
  {
    const Eigen::VectorXd l0 = linear_invariants_here();
    std::vector<Eigen::MatrixXd> terms{l0};
    std::vector<std::int64_t> which{-1};
    for (std::size_t q = 0; q < p.nominal.size(); ++q) {
      if (std::find(body.M.parameter.begin(), body.M.parameter.end(), static_cast<std::int64_t>(q)) == body.M.parameter.end())
        continue;
      auto th = p.nominal;
      th[q] *= 2;
      params.apply(comp, th);
      terms.push_back(linear_invariants_here() - l0);
      which.push_back(static_cast<std::int64_t>(q));
      terms[0] -= terms.back();
    }
    params.apply(comp, p.nominal);
    body.I = {terms, std::vector<double>(terms.size(), 1.0), which};
  }
  const cms::AffineReducedTerms Ki{Kti, c0.stiffness, body.K.parameter}, Mi{Mti, c0.mass, body.M.parameter};
  PodProjectionSummary s;
  s.rank = static_cast<int>(X.cols());
  // The affine sum against the projection of K(θ), M(θ) assembled at a point (the first one).
  {
    std::vector<double> th = p.nominal;
    if (world.rank() == 0 && !p.points.empty()) th = p.points[0];
    FLEXUQ_MPI(MPI_Bcast(th.data(), static_cast<int>(th.size()), MPI_DOUBLE, 0, c));
    params.apply(comp, th);
    const Eigen::MatrixXd K = project(c, comp.K(), X), M = project(c, comp.M(), X);
    const Eigen::MatrixXd Ka = body.K_at(th), Ma = body.M_at(th);
    s.affine_check = std::max((Ka - K).cwiseAbs().maxCoeff() / K.cwiseAbs().maxCoeff(),
                              (Ma - M).cwiseAbs().maxCoeff() / M.cwiseAbs().maxCoeff());
    // The invariants likewise (their linear form, largest entry).
    const Eigen::VectorXd Ia = body.I.at(th, p.nominal), Id = linear_invariants_here();
    s.affine_check = std::max(s.affine_check, (Ia - Id).cwiseAbs().maxCoeff() / Id.cwiseAbs().maxCoeff());
    params.apply(comp, p.nominal);
  }
  // V (natural layout, M(θ̄)-orthonormal) on rank 0 for the file: r columns, never the snapshots.
  std::vector<int> vc, vd;
  layout(c, static_cast<PetscInt>(Vn.rows()), static_cast<std::size_t>(s.rank), vc, vd);
  const RowMat Vr = Vn;
  std::vector<double> full(world.rank() == 0 ? static_cast<std::size_t>(vd.back() + vc.back()) : 0);
  FLEXUQ_MPI(MPI_Gatherv(Vr.data(), static_cast<int>(Vr.size()), MPI_DOUBLE, full.data(), vc.data(), vd.data(),
                         MPI_DOUBLE, 0, c));
  std::string error;
  if (world.rank() == 0) {
    try {
      // Per point: the POD body's frequencies against the point's Craig–Bampton ones.
      std::vector<std::vector<double>> ff, fi, diff;
      for (std::size_t i = 0; i < p.points.size(); ++i) {
        const auto& th = p.points[i];
        if (p.free_free > 0) {
          ff.push_back(frequencies(body.K_at(th), body.M_at(th), p.free_free, true));
          std::vector<double> d(ff.back().size());
          for (std::size_t j = 0; j < d.size(); ++j) {
            d[j] = (ff.back()[j] - p.point_free_free[i][j]) / p.point_free_free[i][j];
            s.max_free_free_error = std::max(s.max_free_free_error, std::abs(d[j]));
            s.max_free_free_above = std::max(s.max_free_free_above, d[j]);
          }
          diff.push_back(d);
        }
        if (p.fixed_interface > 0 && !Kti.empty())
          fi.push_back(frequencies(Ki.at(th, p.nominal), Mi.at(th, p.nominal), p.fixed_interface, false));
      }
      cms::BodyFile f(MPI_COMM_SELF, output, cms::BodyFile::Mode::append);
      const auto dpn = static_cast<std::uint64_t>(comp.dofs().dofs_per_node());
      f.write_pod_basis({p.mesh->num_nodes(), dpn, static_cast<std::uint64_t>(s.rank)}, full.data());
      f.write_pod(body);
      write_point_values(f, "pod_free_free_frequencies", ff);
      write_point_values(f, "pod_free_free_relative_difference", diff);
      write_point_values(f, "pod_fixed_interface_frequencies", fi);
      f.write_pod_summary(static_cast<std::int64_t>(s.rank), s.affine_check, s.max_free_free_error,
                          s.max_free_free_above);
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  broadcast(c, error);
  if (!error.empty()) throw Error(error);
  return s;
}

bool is_pod_body(MPI_Comm comm, const std::string& path) {
  int rank = 0, yes = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) {
    try {
      const cms::BodyFile f(MPI_COMM_SELF, path);
      yes = f.is_pod() ? 1 : 0;
    } catch (const std::exception&) {
      yes = 0; // the caller's reader reports a missing or broken file
    }
  }
  FLEXUQ_MPI(MPI_Bcast(&yes, 1, MPI_INT, 0, comm));
  return yes != 0;
}

void pod_body_at(MPI_Comm comm, const BodyAtJob& job) {
  const std::string& path = job.body;
  const std::string& output = job.output;
  Comm world(comm);
  io::OutputFile target(world.get(), output); // written under a temporary name, renamed at the end
  on_root(world.get(), [&] {
    const cms::BodyFile src(MPI_COMM_SELF, path);
    const auto body = src.read_pod();
    const auto& names = body.names;
    std::vector<double> theta = body.nominal;
    for (const auto& st : job.settings) {
      const std::size_t i = parameter_index(st, names, path);
      const double v = st.value;
      FLEXUQ_REQUIRE(!st.germ, "body-at: " << path << " is a POD body (exact at every θ, no germ): give physical "
                                           "values, NAME=value");
      FLEXUQ_REQUIRE(v > 0, "body-at: --set " << st.shown() << ": E and rho must be positive");
      theta[i] = v;
    }
    const Eigen::MatrixXd K = body.K_at(theta), M = body.M_at(theta);
    const auto r = static_cast<int>(K.rows());
    cms::BodyFile out(MPI_COMM_SELF, target.temp(), cms::BodyFile::Mode::create);
    const auto vshape = src.pod_basis_shape();
    if (body.has_invariants()) {
      // The whole `/reduced` layout of `flexuq reduce`: invariants by the affine rule, the check-out
      // and floating-frame coordinates from them (cms::checkout_from_invariants).
      cms::ReducedBody rb;
      rb.method = "pod";
      rb.mode_interface = "none"; // the columns mix boundary and interior modes of many bodies
      rb.K = K;
      rb.M = M;
      for (int j = 0; j < r; ++j) {
        rb.dof_labels.push_back("POD " + std::to_string(j + 1));
        rb.column_kinds.push_back("pod_vector");
      }
      rb.column_scale = Eigen::VectorXd::Ones(r);
      rb.dofs_per_node = vshape.size() == 3 ? static_cast<std::int64_t>(vshape[1]) : 0;
      const Eigen::VectorXd d = M.diagonal().cwiseSqrt().cwiseInverse();
      const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(d.asDiagonal() * M * d.asDiagonal(), Eigen::EigenvaluesOnly);
      rb.basis_rcond = es.eigenvalues()(0) / es.eigenvalues()(r - 1); // of the scaled M̄(θ): 1 at θ̄
      rb.invariants = body.invariants_at(theta);
      rb.checkout = cms::checkout_from_invariants(rb.invariants, K, M);
      out.write_reduced(rb);
    } else { // a file written before the POD invariants: K̄, M̄ and the reduced frequencies only
      out.write_reduced_matrices(K, M, frequencies(K, M, std::max(0, r - 6), true), "pod");
    }
    const auto vb = src.read_pod_basis();
    out.write_basis(vshape, vb.data());
    out.write_body_at_source(path, theta);
    FLEXUQ_REQUIRE(out.copy_mesh_from(src), "body-at: cannot copy /mesh from " << path << " to " << output);
  });
  target.commit();
  log::info(world.get(), "body-at: the POD body of " + path + " at the given parameters (exact in V, no expansion) -> " +
                             output);
}

} // namespace flexuq::workflow
