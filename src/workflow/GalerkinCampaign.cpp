// SPDX-License-Identifier: MIT
// `flexuq campaign` with method.type: galerkin (issue #7 / tracker 11): the eigenvalue and mode
// PCE of an FE component by stochastic Galerkin projection (sg::solve_component), written in the
// campaign layout by the same writer as the non-intrusive methods (campaign::write_expansion_results
// of uq::summarize_pce summaries), plus the mode-shape coefficients. docs/sg.md, docs/hdf5-schema.md.
#include "flexuq/workflow/GalerkinCampaign.hpp"

#include "flexuq/campaign/Results.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/core/Log.hpp"
#include "flexuq/fe/MaterialParametrisation.hpp"
#include "flexuq/fe/ModesFile.hpp"
#include "flexuq/io/Hdf5File.hpp"
#include "flexuq/io/OutputFile.hpp"
#include "flexuq/sg/EigenSolver.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace flexuq::workflow {

void write_galerkin_solve(io::H5File& f, const std::string& group, const sg::EigenOptions& e,
                          const sg::ExpansionOptions& x, const sg::StochasticLayout& layout, const sg::EigenResult& r) {
  const std::string& G = group;
  f.ensure_group(G);
  f.write_attribute(G, "order", static_cast<std::int64_t>(e.order));
  f.write_attribute(G, "operator_order", static_cast<std::int64_t>(x.order));
  f.write_attribute(G, "solver", std::string(enum_name(sg::kMethodNames, e.method)));
  f.write_attribute(G, "normalization", std::string(enum_name(sg::kNormalizationNames, e.normalization)));
  f.write_attribute(G, "preconditioner", std::string(enum_name(sg::kPreconditionerNames, e.preconditioner)));
  if (!r.resumed_from_preconditioner.empty()) // --resume continued another preconditioner's checkpoint
    f.write_attribute(G, "resumed_from_preconditioner", r.resumed_from_preconditioner);
  f.write_attribute(G, "iterations", static_cast<std::int64_t>(r.iterations));
  f.write_attribute(G, "pcg_iterations", static_cast<std::int64_t>(r.pcg_iterations));
  f.write_attribute(G, "converged", static_cast<std::int64_t>(r.converged ? 1 : 0));
  f.write_attribute(G, "change", r.change);
  f.write_attribute(G, "block_groups", static_cast<std::int64_t>(layout.n_groups()));
  f.write_attribute(G, "ranks_per_group", static_cast<std::int64_t>(layout.ranks_per_group()));
  f.write_replicated(G + "/mean_eigenvalues", {r.mean_eigenvalues.size()}, r.mean_eigenvalues.data());
  std::vector<std::int64_t> mult(r.multiplicity.begin(), r.multiplicity.end());
  f.write_replicated(G + "/multiplicity", {mult.size()}, mult.data());
  if (!r.galerkin_spectrum.empty())
    f.write_replicated(G + "/spectrum", {r.galerkin_spectrum.size()}, r.galerkin_spectrum.data());
}

namespace {

/// The mode PCE coefficients u_s^(b) in the input's node order, and per entry the mean (block 0)
/// and std (√Σ_{b>0} (u^(b))²) of the orthonormal expansion: /pce/mode_shapes/coefficients
/// (nodes × dofs per node × modes × P_β), /statistics/mode_shapes/{mean, std} (nodes × dofs per
/// node × modes). Group 0 writes. @note Collective (world).
void write_mode_shapes(const std::string& path, const sg::StochasticLayout& layout, const fe::Component& comp,
                       const sg::EigenResult& r) {
  const int P = r.basis.size(), n = static_cast<int>(r.modes.size());
  const sg::BlockSpace blocks(layout, P, comp.K());
  std::vector<std::vector<double>> all(n);
  for (int s = 0; s < n; ++s) blocks.gather_all(r.modes[s].get(), all[s]);
  if (layout.group_index() != 0) return;
  const auto nl = static_cast<std::size_t>(blocks.n_local());
  std::vector<VecH> vs;
  std::vector<Vec> raw;
  for (int s = 0; s < n; ++s)
    for (int b = 0; b < P; ++b) {
      vs.push_back(blocks.create_spatial());
      PetscScalar* a = nullptr;
      FLEXUQ_PETSC(VecGetArray(vs.back().get(), &a));
      std::copy(all[s].begin() + static_cast<std::ptrdiff_t>(b * nl),
                all[s].begin() + static_cast<std::ptrdiff_t>((b + 1) * nl), a);
      FLEXUQ_PETSC(VecRestoreArray(vs.back().get(), &a));
      raw.push_back(vs.back().get());
    }
  const fe::NaturalLayout natural(comp);
  const auto coef = natural.gather(raw); // [node][component][s·P + b]
  const std::uint64_t nodes = comp.mesh().num_nodes(), dpn = static_cast<std::uint64_t>(comp.dofs().dofs_per_node());
  const std::uint64_t rows = natural.node_end() - natural.node_begin();
  const std::size_t entries = static_cast<std::size_t>(rows * dpn) * n;
  std::vector<double> mean(entries), sd(entries);
  for (std::size_t e = 0; e < entries; ++e) {
    mean[e] = coef[e * P];
    double v = 0;
    for (int b = 1; b < P; ++b) v += coef[e * P + b] * coef[e * P + b];
    sd[e] = std::sqrt(v);
  }
  io::H5File f(layout.group(), path, io::H5File::Mode::append);
  const auto un = static_cast<std::uint64_t>(n), uP = static_cast<std::uint64_t>(P);
  f.write_rows("/pce/mode_shapes/coefficients", {nodes, dpn, un, uP}, natural.node_begin(), rows, coef.data());
  f.write_rows("/statistics/mode_shapes/mean", {nodes, dpn, un}, natural.node_begin(), rows, mean.data());
  f.write_rows("/statistics/mode_shapes/std", {nodes, dpn, un}, natural.node_begin(), rows, sd.data());
  f.write_attribute("/pce/mode_shapes", "layout",
                    std::string("nodes x dofs_per_node x modes x P: u_s^(b) on /pce/eigenvalues/multi_indices, input "
                                "node order; normalised E[u_s^T M u_t Psi_k] = delta_st delta_k0 (galerkin)"));
}

} // namespace

void run_galerkin_campaign(MPI_Comm comm, const GalerkinJob& job, bool resume) {
  const auto& o = job.options;
  log::Phase phase(comm, "galerkin campaign");
  const sg::StochasticLayout layout(comm, o.ranks_per_sample);
  uq::StochasticSpace space;
  for (const auto& p : o.params) space.add(p.name, p.dist);
  log::info(comm, FLEXUQ_MSG("flexuq campaign: stochastic Galerkin, " << space.dim() << " inputs, order "
                                                                       << job.eigen.order << ", operator order "
                                                                       << job.expansion.order << ", "
                                                                       << layout.n_groups() << " block group(s) of "
                                                                       << layout.ranks_per_group() << " rank(s)"));
  const fe::Component comp(layout.group(), job.mesh, job.component);
  const fe::MaterialParametrisation par(comp, job.parameters);
  const auto map = sg::parametrisation_map(par);
  // The sweeps are checkpointed beside the output; --resume continues from the last one.
  sg::EigenOptions eo = job.eigen;
  eo.checkpoint = o.output + ".sg_checkpoint.h5";
  eo.checkpoint_seconds = o.checkpoint_seconds; // campaign.checkpoint_seconds, as for a campaign's file
  eo.resume = resume;
  const auto r = [&] {
    try {
      return sg::solve_component(layout, comp, space, map, job.expansion, eo);
    } catch (const InputError& e) { // name the job: sg's messages name options, not files
      rethrow_input_error(e, o.source + ": ");
    }
  }();
  if (!r.converged && job.eigen.method == sg::Method::InverseSubspace)
    log::warn(comm, FLEXUQ_MSG("flexuq campaign: the Galerkin iteration did not converge in " << r.iterations
                                                                                             << " sweeps (sine "
                                                                                             << r.change << ")"));
  const auto eig = r.eigenvalue_pce(space.families());
  int negative = 0;
  const auto freq = sg::frequency_pce(eig, space, &negative);
  if (negative > 0)
    log::warn(comm, FLEXUQ_MSG("flexuq campaign: the eigenvalue PCE is negative at "
                               << negative << " Gauss node value(s); raise " << job.eigen.key << ".order"));
  uq::SummaryOptions so;
  so.pce.seed = o.seed;
  const std::map<std::string, uq::OutputSummary> summaries{
      {"eigenvalues", uq::summarize_pce(space, eig, "galerkin", so)},
      {"frequencies", uq::summarize_pce(space, freq, "galerkin (Gauss projection of sqrt(eigenvalues)/2pi)", so)}};
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  io::OutputFile out(comm, o.output); // renamed onto o.output once everything is written
  if (rank == 0) {
    io::H5File f(MPI_COMM_SELF, out.temp(), io::H5File::Mode::create);
    campaign::write_expansion_results(f, o.params, "galerkin", summaries);
    write_galerkin_solve(f, "/galerkin", job.eigen, job.expansion, layout, r);
    f.write_attribute("/galerkin", "negative_eigenvalue_nodes", static_cast<std::int64_t>(negative));
  }
  FLEXUQ_MPI(MPI_Barrier(comm));
  if (job.mode_shapes) write_mode_shapes(out.temp(), layout, comp, r);
  out.commit();
  if (rank == 0 && r.converged) std::remove(eo.checkpoint.c_str()); // the results are written: nothing to resume
  if (rank == 0) {
    std::ostringstream os;
    os << "flexuq campaign: stochastic Galerkin done (" << r.iterations << " sweeps, " << r.pcg_iterations
       << " PCG iterations) → " << o.output << "\n"
       << uq::format_summary("frequencies", summaries.at("frequencies"));
    log::info(MPI_COMM_SELF, os.str());
  }
}

} // namespace flexuq::workflow
