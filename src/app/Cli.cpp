// SPDX-License-Identifier: MIT
#include "flexuq/app/Cli.hpp"

#include "flexuq/core/Error.hpp"

namespace flexuq::app {

std::string usage() {
  return "usage: flexuq <command> <job.yaml> [--set key=value]... [--log-level error|warn|info|debug]\n"
         "              [--log-view] [PETSc/SLEPc options]\n"
         "commands:\n"
         "  run       run the command the job file names (key 'command', default modes)\n"
         "  modes     eigenmodes of a component (free-free or with fixed node sets) -> HDF5 + XDMF\n"
         "  reduce    reduced flexible body: Craig-Bampton and the other CMS bases, GCMS -> HDF5\n"
         "  simulate  multibody simulation (rigid bodies, joints, HHT / generalized-alpha / RK45) -> HDF5\n"
         "  rom       reduced-order multibody model (type-sensitive POD, constraint reduction) from snapshots -> HDF5\n"
         "  identify  model parameters from measured signals: adjoint gradient + BFGS, full model or ROM -> HDF5\n"
         "  static    nonlinear static solver: SVK continuum in NFE / NFF / LFF, load steps with SNES -> HDF5\n"
         "  campaign  sampling / polynomial-chaos campaign over groups of ranks (--resume continues one)\n"
         "  body-at   a deterministic body from a stochastic body file: body-at F.h5 --set E=2.05e11 -o at.h5\n"
         "  help      this text\n"
         "  version   the flexuq version\n"
         "Any option starting with a single '-' goes to the PETSc/SLEPc options database, e.g.\n"
         "  -modes_eps_ncv 60 -modes_st_mat_mumps_icntl_14 50 -log_view\n"
         "Unused options are reported at the end. See docs/config.md for the job-file keys.\n";
}

CliArgs parse_cli(int argc, char** argv) {
  CliArgs a;
  std::vector<std::string> pos;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    auto value = [&](const std::string& flag) -> std::string {
      const auto eq = s.find('=');
      if (eq != std::string::npos) return s.substr(eq + 1);
      FLEXUQ_REQUIRE(i + 1 < argc, flag << " needs a value");
      return argv[++i];
    };
    if (s == "--help" || s == "-h") {
      a.verb = "help";
    } else if (s == "--version") {
      a.verb = "version";
    } else if (s.rfind("--set", 0) == 0) {
      a.overrides.push_back(value("--set"));
    } else if (s.rfind("--log-level", 0) == 0) {
      a.log_level = value("--log-level");
    } else if (s == "--log-view") {
      a.petsc_args.push_back("-log_view");
    } else if (s == "-o" || s.rfind("--output", 0) == 0) {
      a.output = value("-o");
    } else if (s == "--resume") {
      a.resume = true;
    } else if (s.rfind("--", 0) == 0) {
      throw InputError("unknown flag '" + s + "'\n" + usage());
    } else if (!s.empty() && s[0] == '-') {
      a.petsc_args.push_back(s);
      // A following value (not an option) belongs to this PETSc option.
      if (i + 1 < argc && argv[i + 1][0] != '-') a.petsc_args.push_back(argv[++i]);
      else if (i + 1 < argc && argv[i + 1][0] == '-' && argv[i + 1][1] >= '0' && argv[i + 1][1] <= '9')
        a.petsc_args.push_back(argv[++i]); // negative number
    } else {
      pos.push_back(s);
    }
  }
  if (a.verb.empty()) {
    FLEXUQ_REQUIRE(!pos.empty(), "no command given\n" << usage());
    a.verb = pos[0];
    pos.erase(pos.begin());
  }
  if (a.verb != "help" && a.verb != "version") {
    FLEXUQ_REQUIRE(!pos.empty(), "'" << a.verb << "' needs a job file\n" << usage());
    a.config = pos[0];
    FLEXUQ_REQUIRE(pos.size() == 1, "unexpected argument '" << pos[1] << "'\n" << usage());
  }
  return a;
}

} // namespace flexuq::app
