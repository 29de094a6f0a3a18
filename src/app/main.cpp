// SPDX-License-Identifier: MIT
// The flexuq command line. main is the only place that touches MPI_COMM_WORLD: every module below
// takes its communicator explicitly. Errors: one message on rank 0 and an abort of every rank.
#include "flexuq/app/Cli.hpp"
#include "flexuq/app/Commands.hpp"
#include "flexuq/config/DeckJob.hpp"
#include "flexuq/app/EnumOptions.hpp"
#include "flexuq/app/JobKeys.hpp"
#include "flexuq/app/JobOptions.hpp"
#include "flexuq/app/PctCommand.hpp"
#include "flexuq/app/ReduceCommand.hpp"
#include "flexuq/app/StaticCommand.hpp"
#include "flexuq/app/StochasticReduce.hpp"
#include "flexuq/core/Assert.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/core/Log.hpp"
#include "flexuq/core/Session.hpp"
#include "flexuq/core/Signals.hpp"
#include "flexuq/io/BdfReader.hpp"
#include "flexuq/la/MumpsBlockSolve.hpp"
#include "flexuq/la/MumpsCompression.hpp"
#include "flexuq/la/MumpsOrdering.hpp"
#include "flexuq/la/MumpsOutOfCore.hpp"
#include "flexuq/config/Config.hpp"
#include "flexuq/workflow/BodyAt.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <optional>
#include <string>

namespace {

/// `linear_solver.ordering` (docs/config.md, "Common keys"): the ordering of every MUMPS factorisation
/// of the run (la/MumpsOrdering.hpp), process-wide like the log level.
void apply_linear_solver_ordering(const std::string& name) {
  const std::string key = "linear_solver.ordering";
  const auto ordering = flexuq::parse_enum(flexuq::la::kMumpsOrderingNames, name);
  if (!ordering)
    throw flexuq::InputError(key + ": unknown value '" + name + "' (" +
                             flexuq::enum_choices(flexuq::la::kMumpsOrderingNames) + ")");
  try {
    flexuq::la::set_mumps_ordering(*ordering);
  } catch (const flexuq::OptionError& e) {
    throw flexuq::InputError(e.message_for(key));
  }
}

/// A process-wide `linear_solver` choice of the job (docs/config.md, "Common keys"), where @p key is set:
/// parsed by @p names (another value: exit 2 naming the key) and handed to @p set.
template <class E, std::size_t N, class Set>
void apply_linear_solver_choice(const flexuq::io::Config& cfg, const std::string& key, const flexuq::EnumNames<E, N>& names,
                                Set set) {
  if (!cfg.has(key)) return;
  const auto name = cfg.get<std::string>(key);
  const auto choice = flexuq::parse_enum(names, name);
  if (!choice)
    throw flexuq::InputError(key + ": unknown value '" + name + "' (" + flexuq::enum_choices(names) + ")");
  set(*choice);
}

constexpr const char* kVersion = "0.1.0";

} // namespace

int main(int argc, char** argv) {
  flexuq::app::CliArgs args;
  try {
    args = flexuq::app::parse_cli(argc, argv);
  } catch (const flexuq::Error& e) {
    flexuq::log::direct(flexuq::log::Stream::err, std::string("flexuq: error: ") + e.what() + "\n");
    return 2;
  }
  if (args.verb == "help") {
    flexuq::log::direct(flexuq::log::Stream::out, flexuq::app::usage());
    return 0;
  }
  if (args.verb == "version") {
    flexuq::log::direct(flexuq::log::Stream::out, std::string("flexuq ") + kVersion + "\n");
    return 0;
  }
  static const char* kVerbs[] = {"run", "modes", "reduce", "campaign", "simulate", "rom", "identify", "static", "body-at"};
  if (std::find(std::begin(kVerbs), std::end(kVerbs), args.verb) == std::end(kVerbs)) {
    flexuq::log::direct(flexuq::log::Stream::err,
                        "flexuq: error: unknown command '" + args.verb + "'\n" + flexuq::app::usage());
    return 2;
  }
  // PETSc sees only its own options.
  std::vector<char*> pargv{argv[0]};
  for (auto& s : args.petsc_args) pargv.push_back(s.data());
  int pargc = static_cast<int>(pargv.size());
  pargv.push_back(nullptr);
  char** pargv_ptr = pargv.data();
  std::optional<flexuq::Session> session;
  try {
    session.emplace(&pargc, &pargv_ptr);
  } catch (const flexuq::Error& e) {
    flexuq::log::direct(flexuq::log::Stream::err, std::string("flexuq: error: ") + e.what() + "\n");
    return 1;
  }
  try {
    MPI_Comm world = MPI_COMM_WORLD;
    if (!args.log_level.empty()) flexuq::log::set_level(flexuq::app::parse_log_level(args.log_level));
    if (args.verb == "body-at") { // reads a stochastic body file, not a job file
      std::vector<flexuq::workflow::BodySetting> settings;
      for (const auto& s : args.overrides) settings.push_back(flexuq::app::parse_body_setting(s));
      flexuq::app::with_job_keys(flexuq::app::reduce_keys(), // the reduce options a body file lacks, by their keys
                                 [&] { flexuq::workflow::run_body_at(world, {args.config, settings, args.output}); });
      return 0;
    }
    // A Nastran deck is a job by itself (docs/nastran.md); anything else is a YAML job file.
    auto cfg = flexuq::io::is_bdf_path(args.config) && (args.verb == "modes" || args.verb == "reduce")
                   ? flexuq::io::load_deck_job(args.config, args.verb, args.overrides)
                   : flexuq::io::Config::load(world, args.config, args.overrides);
    if (cfg.has("log.level") && args.log_level.empty())
      flexuq::log::set_level(flexuq::app::parse_log_level(cfg.get<std::string>("log.level")));
    cfg.mark_used("log");
    if (cfg.has("linear_solver.ordering")) apply_linear_solver_ordering(cfg.get<std::string>("linear_solver.ordering"));
    // out_of_core: MUMPS factors out of core (ICNTL(22), la/MumpsOutOfCore.hpp); block_solve: which block
    // solve la::ksp_mat_solve makes on more than one rank (la/MumpsBlockSolve.hpp).
    apply_linear_solver_choice(cfg, "linear_solver.out_of_core", flexuq::la::kMumpsOutOfCoreNames,
                               flexuq::la::set_mumps_out_of_core);
    apply_linear_solver_choice(cfg, "linear_solver.block_solve", flexuq::la::kMumpsBlockSolveNames,
                               flexuq::la::set_mumps_block_solve);
    // compress: MUMPS's analysis on the node graph (ICNTL(15)) where the factored matrix has node blocks
    // (la/MumpsCompression.hpp).
    apply_linear_solver_choice(cfg, "linear_solver.compress", flexuq::la::kMumpsCompressionNames,
                               flexuq::la::set_mumps_compression);
    std::string verb = args.verb;
    if (verb == "run") verb = cfg.get<std::string>("command", "modes"); // the job names its command
    else if (cfg.has("command")) {
      const auto named = cfg.get<std::string>("command");
      if (named != verb)
        throw flexuq::InputError(args.config + ": the job says 'command: " + named + "' but was run with '" + verb + "'");
    }
    // A library names a bad option by its field (OptionError): each verb says the job key (app/JobKeys).
    using flexuq::app::with_job_keys;
    if (verb == "modes") {
      with_job_keys(flexuq::app::modes_keys(), [&] { flexuq::app::run_modes(world, cfg); });
    } else if (verb == "reduce") {
      with_job_keys(flexuq::app::reduce_keys(), [&] {
        if (cfg.has("reduce.stochastic"))
          flexuq::app::run_stochastic_reduce(world, cfg, args.resume);
        else
          flexuq::app::run_reduce(world, cfg);
      });
    } else if (verb == "campaign") {
      with_job_keys(flexuq::app::campaign_keys(), [&] { flexuq::app::run_campaign(world, cfg, args.resume); });
    } else if (verb == "simulate") {
      with_job_keys(flexuq::app::simulate_keys(), [&] {
        if (cfg.has("uncertainty")) flexuq::app::run_pct_simulate(world, cfg); // intrusive PCT, docs/pct.md
        else flexuq::app::run_simulate(world, cfg);
      });
    } else if (verb == "rom") {
      flexuq::app::run_rom(world, cfg);
    } else if (verb == "identify") {
      flexuq::app::run_identify(world, cfg); // seed 003 ch. 6, docs/rom.md
    } else if (verb == "static") {
      flexuq::app::run_static(world, cfg); // seed 002's nonlinear static solver, docs/nff.md
    } else {
      throw flexuq::InputError("unknown command '" + verb + "'\n" + flexuq::app::usage());
    }
    flexuq::warn_unused_options();
  } catch (const flexuq::InputError& e) { // exit codes: 2 bad input, 3 a bug in flexuq, 1 anything else
    flexuq::fail_all(e.what(), 2);
  } catch (const flexuq::InternalError& e) {
    flexuq::fail_all(e.what(), 3);
  } catch (const YAML::Exception& e) {
    // A read of the job file that no parse pass checked (a list where a name belongs): still the
    // job's fault, exit 2 with its position rather than yaml-cpp's bare "bad conversion".
    flexuq::fail_all(args.config + ": a value of the wrong type at line " + std::to_string(e.mark.line + 1) + ", column " +
                         std::to_string(e.mark.column + 1) + " (" + e.msg + "; docs/config.md lists each key's type)",
                     2);
  } catch (const std::exception& e) {
    flexuq::fail_all(e.what(), 1);
  }
  // A campaign stopped by SIGUSR1/SIGTERM left a resumable checkpoint: tell the batch script (jobs/slurm).
  return flexuq::signals::stopped_early() ? flexuq::signals::kExitResumable : 0;
}
