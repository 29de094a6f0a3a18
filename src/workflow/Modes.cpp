// SPDX-License-Identifier: MIT
#include "flexuq/workflow/Modes.hpp"

#include "flexuq/core/Comm.hpp"
#include "flexuq/fe/MatrixComponent.hpp"
#include "flexuq/fe/ModesFile.hpp"
#include "flexuq/io/OutputFile.hpp"

#include <petscmat.h>

#include <iomanip>
#include <map>
#include <sstream>

namespace flexuq::workflow {

namespace {

std::string human_bytes(double b) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(1);
  if (b > 1e9)
    os << b / 1e9 << " GB";
  else
    os << b / 1e6 << " MB";
  return os.str();
}

std::string sizes_summary(const fe::Component& comp) {
  const auto& m = comp.mesh();
  if (comp.is_external()) {
    std::ostringstream os;
    os << "  matrices: " << m.num_nodes() << " nodes, stiffness terms [";
    for (std::size_t k = 0; k < comp.stiffness_terms().size(); ++k) os << (k ? ", " : "") << comp.stiffness_terms().name(k);
    os << "], mass terms [";
    for (std::size_t k = 0; k < comp.mass_terms().size(); ++k) os << (k ? ", " : "") << comp.mass_terms().name(k);
    os << "]\n  DOFs: " << comp.dofs().global_size() << " free (" << comp.dofs().dofs_per_node() << " per node)\n";
    return os.str();
  }
  std::map<std::string, long> by_type;
  for (auto t : m.elem_type) ++by_type[io::element_name(t)];
  MatInfo info{};
  MatGetInfo(comp.K(), MAT_GLOBAL_SUM, &info);
  std::ostringstream os;
  os << "  mesh: " << m.num_nodes() << " nodes, " << m.num_elements() << " elements (";
  bool first = true;
  for (const auto& [t, n] : by_type) {
    os << (first ? "" : ", ") << n << " " << t;
    first = false;
  }
  os << "), " << comp.groups().size() << " material group(s)\n";
  os << "  DOFs: " << comp.dofs().global_size() << " free (" << comp.dofs().dofs_per_node()
     << " per node), K nonzeros " << static_cast<long long>(info.nz_used) << "\n";
  return os.str();
}

} // namespace

fe::ModeSet run_modes(MPI_Comm c, const fe::Component& comp, ModesJob job, log::PhaseTimes& times) {
  log::info(c, sizes_summary(comp) + "  partition: " + comp.dofs().balance_summary());
  const std::string& prefix = job.export_prefix;
  if (!prefix.empty()) {
    log::Phase p(c, "export matrices", &times);
    io::OutputFile exported(c, prefix);
    fe::export_component(comp, exported.temp());
    exported.commit();
    log::info(c, "  matrices: " + prefix + "_{K,M}.mtx, " + prefix + "_dofs.txt, " + prefix + "_sets.yaml (model.matrices)");
  }
  fe::ModeOptions& mopt = job.modes;
  mopt.constrained = comp.has_fixed_nodes();
  std::string sets;
  for (const auto& s : comp.fixed_sets()) sets += (sets.empty() ? "" : ", ") + s;
  mopt.constraint_description = "fixed sets [" + sets + "]";

  fe::ModeSet modes;
  {
    log::Phase p(c, "eigensolve", &times);
    log::info(c, "  eigensolve: " +
                     (mopt.band_hz ? "all modes in [" + std::to_string(mopt.band_hz->first) + ", " +
                                         std::to_string(mopt.band_hz->second) + "] Hz"
                                   : std::to_string(mopt.count) + " elastic modes") +
                     (comp.has_fixed_nodes() ? ", fixed sets [" + sets + "]" : ", free-free") + " ...");
    modes = fe::solve_modes(comp.K(), comp.M(), mopt);
  }
  {
    log::Phase p(c, "write results", &times);
    io::OutputFile out(c, job.output);
    fe::write_modes_file(out.temp(), comp, modes, times.entries());
    out.commit();
  }

  // Summary on rank 0.
  std::ostringstream os;
  os << "  rigid-body modes: " << modes.rigid_eigenvalues.size() << (comp.has_fixed_nodes() ? "" : " (free-free)")
     << "; shift " << std::scientific << std::setprecision(3) << modes.shift << " rad^2/s^2; "
     << modes.iterations << " Krylov-Schur restarts\n";
  os << "   mode    frequency [Hz]    eigenvalue [rad^2/s^2]   residual    mult\n";
  const auto f = modes.frequencies_hz();
  double worst = 0;
  for (std::size_t i = 0; i < f.size(); ++i) {
    os << "  " << std::setw(5) << i + 1 << "  " << std::setw(16) << std::setprecision(8) << std::scientific << f[i]
       << "  " << std::setw(22) << std::setprecision(8) << modes.eigenvalues[i] << "  " << std::setw(10)
       << std::setprecision(2) << modes.residuals[i] << "  " << std::setw(4) << modes.multiplicity[i] << "\n";
    worst = std::max(worst, modes.residuals[i]);
  }
  os << "  worst residual " << std::setprecision(2) << worst << "\n";
  os << "  per-phase wall time:\n" << times.summary(c);
  const double peak = allreduce_max(c, log::peak_rss_bytes());
  const double total = allreduce_sum(c, log::peak_rss_bytes());
  os << "  peak memory: " << human_bytes(peak) << " per rank (max), " << human_bytes(total) << " summed over ranks\n";
  os << "  results: " << job.output << " (+ .xdmf for ParaView)";
  log::info(c, os.str());
  return modes;
}

} // namespace flexuq::workflow
