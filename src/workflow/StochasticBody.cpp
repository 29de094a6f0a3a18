// SPDX-License-Identifier: MIT
// Sample runs:
//   mpirun -n 4 build/bin/flexuq reduce configs/crank-scb.yaml            # 2 groups of 2 ranks
//   mpirun -n 4 build/bin/flexuq reduce configs/crank-scb.yaml --resume   # after a kill / time-out
//   mpirun -n 2 build/bin/flexuq body-at crank-scb.h5 --set E=2.05e11 -o crank-at.h5
#include "flexuq/workflow/StochasticBody.hpp"

#include "flexuq/campaign/Campaign.hpp"
#include "flexuq/campaign/Results.hpp"
#include "flexuq/cms/BodyFile.hpp"
#include "flexuq/cms/StochasticBody.hpp"
#include "flexuq/core/Assert.hpp"
#include "flexuq/core/Comm.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/core/Log.hpp"
#include "flexuq/core/RootTask.hpp"
#include "flexuq/core/Signals.hpp"
#include "flexuq/io/Hdf5File.hpp"
#include "flexuq/io/MeshOutput.hpp"
#include "flexuq/io/OutputFile.hpp"
#include "flexuq/sg/StochasticCb.hpp"
#include "flexuq/uq/Summary.hpp"
#include "flexuq/workflow/GalerkinCampaign.hpp"
#include "flexuq/workflow/PodBody.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iomanip>
#include <memory>
#include <sstream>

namespace flexuq::workflow {

namespace {

/// What group 0's model computed at the nominal parameters (world rank 0 is its leader).
struct Nominal {
  cms::ReducedBody body;
  std::vector<double> basis;
  bool set = false;
  std::chrono::steady_clock::time_point ready; ///< when the reference body was done (this rank's group)
};

/// The journaled points → the samples the expansions are fitted to (successful points only).
cms::StochasticSamples collect(const campaign::Plan& plan, const std::vector<campaign::SampleRecord>& records,
                               const std::map<std::string, std::vector<std::uint64_t>>& dims) {
  cms::StochasticSamples s;
  std::vector<const campaign::SampleRecord*> ok;
  for (const auto& r : records)
    if (r.status == 0) ok.push_back(&r);
  const auto N = static_cast<Eigen::Index>(ok.size());
  s.germ.resize(N, static_cast<Eigen::Index>(plan.params.size()));
  for (Eigen::Index i = 0; i < N; ++i) {
    s.germ.row(i) = plan.germ.row(static_cast<Eigen::Index>(ok[static_cast<std::size_t>(i)]->index));
    s.index.push_back(ok[static_cast<std::size_t>(i)]->index);
    if (!plan.weights.empty()) s.weights.push_back(plan.weights[ok[static_cast<std::size_t>(i)]->index]);
  }
  for (const auto& [name_, d] : dims) {
    const std::string& name = name_; // a plain reference: clang cannot capture a structured binding in FLEXUQ_MSG's lambda
    std::size_t entries = 1;
    for (auto x : d) entries *= static_cast<std::size_t>(x);
    Eigen::MatrixXd Y(N, static_cast<Eigen::Index>(entries));
    for (Eigen::Index i = 0; i < N; ++i) {
      const auto& v = ok[static_cast<std::size_t>(i)]->outputs.at(name);
      FLEXUQ_REQUIRE(v.size() == entries, "journal: point " << ok[static_cast<std::size_t>(i)]->index << " has "
                                                             << v.size() << " values of '" << name << "', expected " << entries);
      Y.row(i) = Eigen::Map<const Eigen::RowVectorXd>(v.data(), static_cast<Eigen::Index>(entries));
    }
    s.values.emplace(name, std::move(Y));
    s.dims.emplace(name, d);
  }
  return s;
}

/// Method pod after the points: the nominal body and mesh (rank 0), then the POD of the journaled
/// point bases (workflow/PodBody.cpp, collective).
void run_pod_body(MPI_Comm c, const campaign::Plan& plan, const io::Mesh& mesh, const Nominal& nominal,
                  const pod::Truncation& truncation, PodProjection pp) {
  const std::string& output = plan.results_path; // the temporary file, renamed onto plan.output at the end
  int rank = 0;
  MPI_Comm_rank(c, &rank);
  std::vector<campaign::Journal::Location> points;
  std::string error;
  std::uint64_t dpn = 0;
  if (rank == 0) {
    try {
      FLEXUQ_ASSERT(nominal.set, "no nominal body on rank 0");
      // Locations only: the point bases are read one at a time by pod_basis.
      for (auto& r : campaign::Journal::locate(plan.output + ".journal"))
        if (r.status == 0) {
          pp.points.push_back(plan.sample(r.index));
          points.push_back(std::move(r));
        }
      dpn = static_cast<std::uint64_t>(nominal.body.dofs_per_node);
      const auto n = static_cast<std::uint64_t>(nominal.body.n_columns());
      cms::BodyFile f(MPI_COMM_SELF, output, cms::BodyFile::Mode::append);
      f.write_mesh(mesh);
      f.write_reduced(nominal.body);
      f.write_basis({static_cast<std::uint64_t>(mesh.num_nodes()), dpn, n}, nominal.basis.data());
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  broadcast(c, error);
  if (!error.empty()) throw Error(error);
  FLEXUQ_MPI(MPI_Bcast(&dpn, 1, MPI_UINT64_T, 0, c));
  const auto s = pod_basis(c, points, nominal.body, nominal.basis, static_cast<std::uint64_t>(mesh.num_nodes()),
                           static_cast<int>(dpn), truncation, output);
  pp.point_free_free = s.point_free_free;
  const auto ps = pod_project(c, s, pp, output);
  std::ostringstream os;
  os << "  POD basis (" << truncation.describe() << "): boundary family rank " << s.rank_boundary << " of "
     << s.snapshots_boundary << " snapshots (lost energy " << std::scientific << std::setprecision(2)
     << s.energy_lost_boundary << "), internal family rank " << s.rank_internal << " of " << s.snapshots_internal
     << " (lost energy " << s.energy_lost_internal << "); V has " << s.rank << " columns, M-orthonormal at the "
     << "parameter means\n  affine terms projected on V: check against VᵀK(θ)V at a point " << ps.affine_check
     << "\n  reduced free-free frequencies of the POD body against each point's Craig-Bampton body: up to "
     << ps.max_free_free_error << " lower (Rayleigh-Ritz in the larger span V), at most " << ps.max_free_free_above
     << " higher (the truncated part)\n  results: " << plan.output
     << " (/reduced: the body at the parameter means; /stochastic_body/pod: V and the POD spectra)";
  log::info(c, os.str());
}

/// Run @p fn on rank 0 (core/RootTask.hpp) and log the summary it returns on rank 0. @note Collective.
void on_rank0(MPI_Comm c, const std::function<std::string()>& fn) {
  std::string summary;
  on_root(c, [&] { summary = fn(); });
  log::info(c, summary);
}

/// Shape of a body's basis: nodes × dofs per node × columns (input node order).
std::vector<std::uint64_t> basis_dims(const io::Mesh& mesh, const cms::ReducedBody& body) {
  return {static_cast<std::uint64_t>(mesh.num_nodes()), static_cast<std::uint64_t>(body.dofs_per_node),
          static_cast<std::uint64_t>(body.n_columns())};
}

/// The successful points' bases on disk beside the output (`<output>.basis_scratch`: one raw block
/// per point, in sample order), so that the expansion reads a block of nodes of every point at a
/// time (cms::fit_and_write_by_blocks) instead of holding every basis: rank 0 held 30 bases and
/// several copies of their table (4.4 GB peak at 127 k DOF, 5.6× one reduction). Removed when done.
class BasisScratch {
public:
  BasisScratch(std::string path, std::vector<std::uint64_t> dims) : path_(std::move(path)), dims_(std::move(dims)) {
    entries_ = 1;
    for (auto d : dims_) entries_ *= d;
  }
  ~BasisScratch() {
    if (f_) {
      std::fclose(f_);
      std::remove(path_.c_str());
    }
  }
  BasisScratch(const BasisScratch&) = delete;
  BasisScratch& operator=(const BasisScratch&) = delete;

  const std::vector<std::uint64_t>& dims() const { return dims_; }

  /// Move record @p r's basis here (a successful record must have one of the right size, or its
  /// column scales under exact scaling); the record keeps its small outputs only.
  void take(campaign::SampleRecord& r) {
    const auto cs = r.outputs.find(column_scale_output("basis"));
    if (cs != r.outputs.end()) {
      // Exact scaling: the basis is the reference's with these column factors; nothing to write.
      if (r.status == 0) {
        FLEXUQ_REQUIRE(points_ == 0 && cs->second.size() == dims_.back(),
                       "journal: point " << r.index << " has " << cs->second.size() << " basis column scales, expected "
                                         << dims_.back()
                                         << (points_ ? " (and other points journaled whole bases: a journal resumed across "
                                                       "flexuq versions; run again without --resume)"
                                                     : ""));
        scales_.push_back(std::move(cs->second));
      }
      r.outputs.erase(cs);
      return;
    }
    const auto it = r.outputs.find("basis");
    if (r.status == 0) {
      FLEXUQ_REQUIRE(scales_.empty(), "journal: point " << r.index << " has a whole basis, other points column scales (a "
                                                            "journal resumed across flexuq versions; run again without --resume)");
      if (!f_) {
        f_ = std::fopen(path_.c_str(), "w+b");
        FLEXUQ_REQUIRE(f_ != nullptr, path_ << ": cannot create the scratch file of the point bases");
      }
      FLEXUQ_REQUIRE(it != r.outputs.end() && it->second.size() == entries_,
                     "journal: point " << r.index << " has " << (it == r.outputs.end() ? 0 : it->second.size())
                                       << " values of 'basis', expected " << entries_);
      FLEXUQ_REQUIRE(std::fseek(f_, static_cast<long>(points_ * entries_ * sizeof(double)), SEEK_SET) == 0 &&
                         std::fwrite(it->second.data(), sizeof(double), entries_, f_) == entries_,
                     path_ << ": cannot write the basis of point " << r.index << " (disk full?)");
      ++points_;
    }
    if (it != r.outputs.end()) r.outputs.erase(it);
  }

  /// cms::RowBlockReader: rows [first, first + count) of every point's basis.
  void read_rows(std::uint64_t first, std::uint64_t count, Eigen::MatrixXd& Y) {
    const std::uint64_t per_row = entries_ / dims_[0], n = count * per_row;
    FLEXUQ_ASSERT(static_cast<std::uint64_t>(Y.rows()) == points_ && static_cast<std::uint64_t>(Y.cols()) == n,
                  "basis block of the wrong shape");
    std::vector<double> buf(n);
    for (std::uint64_t i = 0; i < points_; ++i) {
      FLEXUQ_REQUIRE(std::fseek(f_, static_cast<long>((i * entries_ + first * per_row) * sizeof(double)), SEEK_SET) == 0 &&
                         std::fread(buf.data(), sizeof(double), n, f_) == n,
                     path_ << ": cannot read back the basis of point " << i);
      Y.row(static_cast<Eigen::Index>(i)) = Eigen::Map<const Eigen::RowVectorXd>(buf.data(), static_cast<Eigen::Index>(n));
    }
  }

  /// True when the points journaled column scales (exact scaling) instead of bases.
  bool column_scaled() const { return !scales_.empty(); }
  /// Their column scales, points × columns (in the order the records were taken).
  Eigen::MatrixXd scales() const {
    Eigen::MatrixXd S(static_cast<Eigen::Index>(scales_.size()), static_cast<Eigen::Index>(dims_.back()));
    for (std::size_t i = 0; i < scales_.size(); ++i)
      S.row(static_cast<Eigen::Index>(i)) = Eigen::Map<const Eigen::RowVectorXd>(scales_[i].data(), S.cols());
    return S;
  }

private:
  std::string path_;
  std::vector<std::uint64_t> dims_;
  std::uint64_t entries_ = 0, points_ = 0;
  std::FILE* f_ = nullptr;
  std::vector<std::vector<double>> scales_;
};

/// Rank 0: the expansions fitted to the successful points, written with the mesh, the body at the
/// means and its basis, the points and an .xdmf; @p extra adds method-specific datasets. Returns the
/// summary.
std::string fit_and_write(const campaign::Plan& plan, const io::Mesh& mesh, const cms::ReducedBody& nominal_body,
                          const std::vector<double>& nominal_basis, const std::vector<campaign::SampleRecord>& records,
                          BasisScratch* bases, const cms::StochasticReduceOptions& so,
                          const std::function<void(io::H5File&, const cms::StochasticBody&)>& extra) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto n = static_cast<std::uint64_t>(nominal_body.n_columns());
  std::map<std::string, std::vector<std::uint64_t>> dims{{"K", {n, n}}, {"M", {n, n}},
                                                        {"invariants", {cms::invariants_size(static_cast<Eigen::Index>(n))}}};
  const auto m = static_cast<std::uint64_t>(nominal_body.mode_eigenvalues.size());
  if (m > 0) dims["mode_eigenvalues"] = {m};
  if (so.free_free > 0) dims["free_free_frequencies"] = {static_cast<std::uint64_t>(so.free_free)};
  const auto nn = static_cast<std::uint64_t>(mesh.num_nodes());
  const auto dpn = static_cast<std::uint64_t>(nominal_body.dofs_per_node);
  FLEXUQ_ASSERT(!so.basis || bases, "the point bases are not in a scratch file");
  const auto samples = collect(plan, records, dims); // the small quantities; the bases stream from *bases
  cms::StochasticFitOptions fo;
  fo.pce = plan.pce;
  fo.points_total = plan.size();
  std::vector<std::string> names;
  std::vector<uq::Distribution> dists;
  for (const auto& p : plan.params) {
    names.push_back(p.name);
    dists.push_back(p.dist);
  }
  const auto body = cms::fit_stochastic_body(names, dists, samples, nominal_body, fo);
  {
    io::H5File f(MPI_COMM_SELF, plan.results_path, io::H5File::Mode::append);
    cms::BodyFile bf(f); // the body; @p extra writes result layouts beside it
    bf.write_mesh(mesh);
    bf.write_reduced(body.nominal);
    if (so.basis) bf.write_basis({nn, dpn, n}, nominal_basis.data());
    bf.write_stochastic(body);
    if (so.basis && bases->column_scaled())
      cms::fit_and_write_column_scaled(body, samples, "basis", bases->dims(), nominal_basis, bases->scales(), f);
    else if (so.basis)
      cms::fit_and_write_by_blocks(body, samples, "basis", bases->dims(),
                                   [&](std::uint64_t first, std::uint64_t count, Eigen::MatrixXd& Y) {
                                     bases->read_rows(first, count, Y);
                                   },
                                   f);
    bf.write_stochastic_points(samples);
    if (extra) extra(f, body);
  }
  if (so.basis) // names the .h5 by its file name: moves with it
    cms::BodyFile::write_basis_xdmf(plan.results_path, mesh, dpn, n);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::ostringstream os;
  os << "  stochastic body: " << enum_name(uq::kFitMethodNames, body.fit) << " PCE of total degree " << body.order << " ("
     << body.multi_indices.size() << " terms) from " << body.points_used << "/" << body.points_total
     << " points; expansion and writing " << std::fixed << std::setprecision(2) << seconds << " s";
  if (body.has("free_free_frequencies") && body.pce.at("free_free_frequencies").loo.size() > 0)
    os << "; largest normalised LOO error of the reduced free-free frequencies " << std::scientific
       << std::setprecision(2) << body.pce.at("free_free_frequencies").loo.maxCoeff();
  os << "\n  results: " << plan.output << " (/reduced: the body at the parameter means; /stochastic_body: the "
     << "expansions; flexuq body-at rebuilds a body at any parameters)";
  return os.str();
}

/// Method galerkin: the SG fixed-interface and constraint modes on the block groups, the body
/// evaluated at the plan's Gauss nodes from them, then the same fit and file as collocation.
void run_galerkin_body(MPI_Comm c, const StochasticBodyJob& job, const campaign::Plan& plan, bool resume) {
  const std::string& src = job.source;
  const auto& so = job.body;
  const io::Mesh& mesh = *job.mesh;
  sg::GalerkinCbOptions go;
  go.interfaces = so.interfaces;
  go.reducer = so.reducer;
  go.eigen = job.galerkin_eigen;
  go.expansion = job.galerkin_expansion;
  go.eigen.n_modes = so.reducer.modes.count;
  go.free_free = so.free_free;
  go.free_free_key = so.key_of("checkout.free_free");
  go.basis = so.basis;
  // The SG eigen sweeps are checkpointed beside the output; --resume continues from the last one
  // (the constraint modes and the nodes are recomputed: they cost a few sweeps' worth).
  go.eigen.checkpoint = plan.output + ".sg_checkpoint.h5";
  go.eigen.checkpoint_seconds = plan.checkpoint_seconds; // campaign.checkpoint_seconds
  go.eigen.resume = resume;
  const sg::StochasticLayout layout(c, plan.ranks_per_sample);
  auto copts = job.component;
  copts.keep_affine = true;
  fe::Component comp(layout.group(), mesh, copts);
  const fe::MaterialParametrisation par(comp, so.parameters);
  uq::StochasticSpace space;
  for (const auto& p : plan.params) space.add(p.name, p.dist);
  std::vector<std::vector<double>> theta;
  for (std::size_t q = 0; q < plan.size(); ++q) theta.push_back(plan.sample(q));
  std::vector<double> nominal_germ;
  for (std::size_t k = 0; k < plan.params.size(); ++k) nominal_germ.push_back(plan.params[k].dist.to_germ(so.nominal[k]));
  log::info(c, FLEXUQ_MSG("flexuq reduce: stochastic craig-bampton of " << mesh.source << " by stochastic Galerkin (order "
                                                                       << go.eigen.order << ", operator order "
                                                                       << go.expansion.order << ", "
                                                                       << layout.n_groups() << " block group(s) of "
                                                                       << layout.ranks_per_group()
                                                                       << " rank(s)), projected on " << plan.size()
                                                                       << " Gauss nodes"));
  const auto r = [&] {
    try {
      return sg::galerkin_cb(layout, comp, par, space, plan.germ, theta, nominal_germ, so.nominal, go);
    } catch (const InputError& e) { // name the job: sg's messages name options, not files
      rethrow_input_error(e, src + ": ");
    }
  }();
  on_rank0(c, [&] {
    std::vector<campaign::SampleRecord> records;
    std::unique_ptr<BasisScratch> bases;
    if (so.basis) bases = std::make_unique<BasisScratch>(plan.output + ".basis_scratch", basis_dims(mesh, r.nominal));
    std::ostringstream failed;
    for (std::size_t q = 0; q < r.nodes.size(); ++q) {
      campaign::SampleRecord rec;
      rec.index = q;
      rec.status = r.nodes[q].ok ? 0 : 1;
      rec.reason = r.nodes[q].reason;
      rec.outputs = r.nodes[q].outputs;
      if (bases) bases->take(rec);
      if (!r.nodes[q].ok) failed << "\n    node " << q << ": " << r.nodes[q].reason;
      records.push_back(std::move(rec));
    }
    if (!failed.str().empty())
      log::warn(MPI_COMM_SELF, "flexuq reduce: Gauss nodes that failed (the fit falls back to regression):" + failed.str());
    const auto extra = [&](io::H5File& f, const cms::StochasticBody& body) {
      // The campaign layout (/parameters, /samples attributes, /statistics/<o>, /pce/<o>) of the
      // scalar outputs, from the body's expansions: mode eigenvalues, mode frequencies (the Gauss
      // projection of √λ/2π) and the reduced free-free frequencies.
      const uq::Pce lambda(space.families(), body.multi_indices, body.pce.at("mode_eigenvalues").coefficients);
      uq::SummaryOptions sopt;
      sopt.pce = plan.pce; // summarize_pce uses its seed
      std::map<std::string, uq::OutputSummary> summaries{
          {"mode_eigenvalues", uq::summarize_pce(space, lambda, "galerkin body (projection)", sopt)},
          {"mode_frequencies", uq::summarize_pce(space, sg::frequency_pce(lambda, space),
                                                 "galerkin body (Gauss projection of sqrt(eigenvalues)/2pi)", sopt)}};
      if (body.has("free_free_frequencies"))
        summaries.emplace("free_free_frequencies",
                          uq::summarize_pce(space,
                                            uq::Pce(space.families(), body.multi_indices,
                                                    body.pce.at("free_free_frequencies").coefficients),
                                            "galerkin body (projection)", sopt));
      campaign::write_expansion_results(f, plan.params, "galerkin", summaries);
      const sg::EigenResult& er = r.eigen;
      write_galerkin_solve(f, cms::BodyFile::stochastic_galerkin_group(), go.eigen, go.expansion, layout, er);
      cms::BodyFile(f).write_stochastic_galerkin(er.eigenvalues, er.basis, static_cast<std::int64_t>(r.operator_terms),
                                                 static_cast<std::int64_t>(r.constraint_pcg_iterations),
                                                 r.constraint_residual);
    };
    { io::H5File created(MPI_COMM_SELF, plan.results_path, io::H5File::Mode::create); } // no campaign wrote it
    std::string summary = fit_and_write(plan, mesh, r.nominal, r.nominal_basis, records, bases.get(), so, extra);
    if (r.eigen.converged) std::remove(go.eigen.checkpoint.c_str()); // written: nothing to resume
    std::ostringstream os;
    os << "  stochastic Galerkin: " << r.eigen.iterations << " sweeps (" << r.eigen.pcg_iterations
       << " PCG iterations) for " << r.eigen.eigenvalues.cols() << " fixed-interface modes, " << r.constraint_pcg_iterations << " PCG iterations for "
       << r.nominal.n_boundary << " constraint modes (largest relative residual " << std::scientific
       << std::setprecision(2) << r.constraint_residual << ")\n"
       << summary;
    return os.str();
  });
}

} // namespace

void run_stochastic_body(MPI_Comm comm_in, const StochasticBodyJob& job, bool resume) {
  Comm comm(comm_in);
  MPI_Comm c = comm.get();
  FLEXUQ_ASSERT(job.mesh, "a stochastic body job without a mesh");
  const auto& so = job.body;
  const auto& copts = job.component;
  const auto& mesh = job.mesh;
  const bool pod = job.method == StochasticMethod::pod;
  auto plan = job.plan;
  // Every write goes to a temporary file, renamed onto plan.output when the body is complete: a run
  // that fails or is stopped leaves an older body intact (the journal keeps the points for --resume).
  io::OutputFile out(c, plan.output);
  plan.results_path = out.temp();
  if (job.method == StochasticMethod::galerkin) {
    run_galerkin_body(c, job, plan, resume);
    return out.commit();
  }

  auto nominal = std::make_shared<Nominal>();
  ModelFactory factory = [so, copts, mesh, nominal, c](MPI_Comm group) -> std::unique_ptr<Model> {
    auto m = std::make_unique<cms::StochasticBodyModel>(group, *mesh, copts, so);
    int rank = 0;
    FLEXUQ_MPI(MPI_Comm_rank(c, &rank));
    if (rank == 0 && m->exact_scaling())
      log::info(group, "  the parameters scale K and M as a whole: every point is the reference body scaled exactly "
                       "(no factorization or eigensolve per point; " +
                           so.key_of("stochastic.exact_scaling") + ": false reduces every point)");
    nominal->body = m->nominal_body();
    nominal->basis = m->release_nominal_basis();
    nominal->set = true;
    nominal->ready = std::chrono::steady_clock::now();
    return m;
  };
  if (job.wrap_model) factory = job.wrap_model(std::move(factory));
  log::info(c, std::string("flexuq reduce: stochastic ") + cms::method_name(so.build.method) + " of " + mesh->source +
                   " by " + (pod ? "POD of the point bases" : plan.pce.fit == uq::FitMethod::projection ? "collocation (projection)" : "regression") + " on " +
                   std::to_string(plan.size()) + " points");
  campaign::run_campaign(c, plan, factory, resume);
  if (signals::stopped_early()) {
    log::info(c, "  stochastic body not fitted: the points are incomplete (run again with --resume)");
    return;
  }

  if (pod) {
    PodProjection pp;
    pp.mesh = mesh.get();
    pp.component = copts;
    pp.parameters = so.parameters;
    for (const auto& q : plan.params) pp.names.push_back(q.name);
    pp.nominal = so.nominal;
    pp.free_free = so.free_free;
    pp.fixed_interface = so.reducer.modes.count;
    run_pod_body(c, plan, *mesh, *nominal, job.truncation, std::move(pp));
    return out.commit();
  }

  // The expansions, on rank 0 from the journal (in sample order, so independent of the scheduling).
  on_rank0(c, [&] {
    FLEXUQ_ASSERT(nominal->set, "no nominal body on rank 0");
    // One record in memory at a time: its basis goes to the scratch file, its small outputs stay.
    std::unique_ptr<BasisScratch> bases;
    if (so.basis) bases = std::make_unique<BasisScratch>(plan.output + ".basis_scratch", basis_dims(*mesh, nominal->body));
    std::vector<campaign::SampleRecord> records;
    for (const auto& where : campaign::Journal::locate(plan.output + ".journal")) {
      records.push_back(campaign::Journal::read_at(where));
      if (bases) bases->take(records.back());
    }
    std::string summary = fit_and_write(plan, *mesh, nominal->body, nominal->basis, records, bases.get(), so, {});
    // Everything after the reference body (points, checkpoints, statistics, expansions, files): the
    // cost the points add to one reduction (bench/scb_vs_reduce.sh).
    std::ostringstream os;
    os << "\n  after the reference body: " << std::fixed << std::setprecision(2)
       << std::chrono::duration<double>(std::chrono::steady_clock::now() - nominal->ready).count()
       << " s (points, statistics, expansions and files)";
    return summary + os.str();
  });
  out.commit();
}

} // namespace flexuq::workflow
