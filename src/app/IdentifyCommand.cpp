// SPDX-License-Identifier: MIT
// `flexuq identify job.yaml`: seed 003 ch. 6's parameter identification (docs/rom.md "Parameter
// identification"): parameters named by key paths of a simulate job, BFGS on the adjoint gradient of the
// signals' least-squares misfit, full model or the ROM of `flexuq rom`. Sample run:
//   build/bin/flexuq identify configs/ident/cart-pendulum-identify.yaml
#include "flexuq/app/Commands.hpp"
#include "flexuq/app/JobKeys.hpp"
#include "flexuq/app/JobOptions.hpp"
#include "flexuq/app/JobParameters.hpp"
#include "flexuq/app/SimulationOptions.hpp"
#include "flexuq/config/NodeReader.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/core/Log.hpp"
#include "flexuq/ident/Identify.hpp"
#include "flexuq/ident/Measurements.hpp"
#include "flexuq/io/OutputFile.hpp"
#include "flexuq/rom/Basis.hpp"
#include "flexuq/workflow/SimulationSpec.hpp"

#include <memory>
#include <sstream>

namespace flexuq::app {

namespace {

struct Parsed {
  ident::IdentifyJob job;
  std::shared_ptr<rom::ReducedBasis> basis;
  bool normalise = false;
  std::string measurements, time_column; ///< measurements.file (empty: synthetic, at the targets), .time
};

Parsed parse_identify_job(MPI_Comm comm, const io::Config& cfg) {
  Parsed out;
  auto& job = out.job;
  const std::string src = cfg.source();
  job.model_path = cfg.resolve_path(cfg.get<std::string>("model"));
  const auto model = io::Config::load(comm, job.model_path);
  model.mark_used("snapshots");
  model.mark_used("rom");
  const auto spec = parse_simulation_job(model);
  job.problem.solver = spec.solver;

  const io::NodeReader rd(src);
  if (cfg.has("measurements")) {
    out.measurements = cfg.resolve_path(cfg.get<std::string>("measurements.file"));
    out.time_column = cfg.get<std::string>("measurements.time", "time");
  }
  const bool from_file = !out.measurements.empty();
  const YAML::Node params = cfg.node("parameters");
  FLEXUQ_REQUIRE(params.IsMap() && params.size() > 0,
                 src << ": parameters must map key paths of the simulate job to {start: …, target: …}, e.g. "
                        "{bodies.0.mass: {start: 2.3, target: 2.12}}");
  std::vector<campaign::ParameterSpec> ps;
  std::vector<double> start, target;
  for (const auto& kv : params) {
    const auto name = kv.first.as<std::string>();
    const std::string key = "parameters." + name;
    FLEXUQ_REQUIRE(name.find('.') != std::string::npos || name.find('[') != std::string::npos,
                   src << ": " << key << ": a parameter is a key path of the simulate job (bodies.0.mass, forces[2].damping)");
    FLEXUQ_REQUIRE(kv.second.IsMap(), src << ": " << key << " must be {start: …, target: …}");
    campaign::ParameterSpec p;
    p.name = name;
    ps.push_back(p);
    job.names.push_back(name);
    rd.keys(kv.second, key, {"start", "target"});
    start.push_back(rd.required(kv.second, key, "start"));
    FLEXUQ_REQUIRE(start.back() > 0, src << ": " << key << ".start must be > 0 (the search keeps parameters positive)");
    FLEXUQ_REQUIRE(from_file || kv.second["target"],
                   src << ": " << key << ".target" << rd.at(kv.second)
                       << " is missing: without `measurements` the measurements are synthetic, made by the model at "
                          "every parameter's target");
    if (kv.second["target"]) target.push_back(rd.required(kv.second, key, "target"));
  }
  // With measured data the targets are optional (known values to compare with), for all or none.
  FLEXUQ_REQUIRE(target.empty() || target.size() == start.size(),
                 src << ": parameters: give `target` for every parameter or for none (" << target.size() << " of "
                     << start.size() << ")");
  cfg.mark_used("parameters");
  job.start = Eigen::Map<const ident::Vec>(start.data(), static_cast<Eigen::Index>(start.size()));
  job.target = Eigen::Map<const ident::Vec>(target.data(), static_cast<Eigen::Index>(target.size()));
  auto at = job_at_sample(job.model_path, JobEdits(cfg, model, ps));
  job.problem.make = [at](const ident::Vec& p) {
    const std::vector<double> theta(p.data(), p.data() + p.size());
    return std::move(workflow::build_simulation(at(theta)).system);
  };

  // Signals, by body name.
  const mbs::System sys0 = job.problem.make(job.start);
  const YAML::Node sigs = cfg.node("signals");
  FLEXUQ_REQUIRE(sigs.IsSequence() && sigs.size() > 0,
                 src << ": signals must list {body: …, quantity: x|y|z|vx|vy|vz|angle|rate} entries");
  for (std::size_t i = 0; i < sigs.size(); ++i) {
    const std::string key = "signals[" + std::to_string(i) + "]";
    const YAML::Node n = sigs[i];
    rd.require_map(n, key);
    rd.keys(n, key, {"name", "body", "quantity", "axis", "weight"});
    ident::Signal s;
    const auto body = rd.text(n, key, "body");
    s.body = sys0.body_index(body, src + ": " + key + ".body" + rd.at(n));
    FLEXUQ_REQUIRE(s.body >= 0, src << ": " << key << ".body" << rd.at(n) << ": the ground has no signals");
    const auto q = rd.text(n, key, "quantity");
    const auto kind = parse_enum(ident::kSignalKindNames, q);
    if (!kind) rd.fail(n, key + ".quantity", "unknown value '" + q + "' (known: x, y, z, vx, vy, vz, angle, rate)");
    s.kind = *kind;
    s.name = rd.text(n, key, "name", body + "." + q);
    const auto a = rd.fixed_list(n, key, "axis", 3, "[x, y, z]", {0, 0, 1});
    const mbs::Vec3 axis(a[0], a[1], a[2]);
    if (!(axis.norm() > 0)) rd.fail(n, key + ".axis", "must be a non-zero vector");
    s.axis = axis.normalized();
    s.weight = rd.number(n, key, "weight", 1.0);
    if (!(s.weight > 0)) rd.fail(n, key + ".weight", "must be > 0");
    job.problem.signals.push_back(s);
  }
  cfg.mark_used("signals");
  out.normalise = cfg.get<bool>("normalise_signals", false);

  if (cfg.has("rom")) {
    job.rom_path = cfg.resolve_path(cfg.get<std::string>("rom"));
    out.basis = std::make_shared<rom::ReducedBasis>(rom::read_basis(job.rom_path));
  }
  job.bfgs.max_iterations = cfg.get<int>("bfgs.max_iterations", job.bfgs.max_iterations);
  FLEXUQ_REQUIRE(job.bfgs.max_iterations >= 1, src << ": bfgs.max_iterations must be >= 1");
  job.bfgs.gradient_tolerance = cfg.get<double>("bfgs.gradient_tolerance", job.bfgs.gradient_tolerance);
  job.bfgs.cost_tolerance = cfg.get<double>("bfgs.cost_tolerance", job.bfgs.cost_tolerance);
  FLEXUQ_REQUIRE(job.bfgs.gradient_tolerance >= 0 && job.bfgs.cost_tolerance >= 0,
                 src << ": bfgs.gradient_tolerance and bfgs.cost_tolerance must be >= 0");
  job.output_path = cfg.resolve_output(cfg.get<std::string>("output", "identify.h5"));
  return out;
}

} // namespace

void run_identify(MPI_Comm comm, const io::Config& cfg) {
  with_job_keys(simulate_keys(), [&] {
    auto parsed = parse_identify_job(comm, cfg);
    cfg.check_all_used();
    check_job_output(comm, cfg, parsed.job.output_path, "output");
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) { // serial, as simulate
      auto& job = parsed.job;
      try { // the solver's keys are the model job's
        (void)job.problem.steps(); // solver.step divides the run
        FLEXUQ_REQUIRE_OPTION(job.problem.solver.scheme == mbs::Scheme::hht ||
                                  job.problem.solver.scheme == mbs::Scheme::generalized_alpha,
                              "solver.type", "{}: the identification's adjoint is that of hht or generalized-alpha");
        FLEXUQ_REQUIRE_OPTION(!job.problem.solver.adaptive, "solver.adaptive", "{}: the identification runs fixed steps");
      } catch (const OptionError& e) {
        throw InputError(job.model_path + ": " + e.message_for(e.option()));
      }
      if (parsed.measurements.empty()) {
        job.problem.measured = ident::simulate_signals(job.problem, job.target); // the full model's
      } else { // measured data, interpolated onto the run's steps t_k = start + k h
        std::vector<std::string> names;
        for (const auto& s : job.problem.signals) names.push_back(s.name);
        const auto table = ident::read_measurements(parsed.measurements, parsed.time_column, names);
        const int steps = job.problem.steps();
        std::vector<double> t(static_cast<std::size_t>(steps) + 1);
        for (int k = 0; k <= steps; ++k)
          t[static_cast<std::size_t>(k)] = job.problem.solver.start + k * job.problem.solver.step;
        job.problem.measured = ident::interpolate(table, t, parsed.measurements);
      }
      if (parsed.normalise)
        for (std::size_t i = 0; i < job.problem.signals.size(); ++i) {
          const double ms = job.problem.measured.col(static_cast<Eigen::Index>(i)).squaredNorm() /
                            static_cast<double>(job.problem.measured.rows());
          FLEXUQ_REQUIRE(ms > 0, cfg.source() << ": normalise_signals: signal " << job.problem.signals[i].name
                                              << " is zero along the measured run");
          job.problem.signals[i].weight /= ms;
        }
      job.problem.basis = parsed.basis.get();
      const auto r = ident::identify(job);
      io::OutputFile out(MPI_COMM_SELF, job.output_path);
      ident::IdentifyJob tmp = job;
      tmp.output_path = out.temp();
      ident::write_identification(tmp, r);
      out.commit();
      const auto& last = r.bfgs.history.back();
      std::ostringstream os;
      os << "identify: " << (job.problem.basis ? "reduced" : "full") << " model, " << job.names.size()
         << " parameters, " << r.bfgs.history.size() - 1 << " BFGS iterations (" << last.evaluations
         << " evaluations, stop: " << r.bfgs.reason << "), J " << r.bfgs.history.front().cost << " -> " << last.cost
         << ", " << r.cpu_seconds << " s cpu ->" << " " << job.output_path;
      for (std::size_t i = 0; i < job.names.size(); ++i) {
        os << "\n  " << job.names[i] << " = " << last.p(static_cast<Eigen::Index>(i)) << " (start "
           << job.start(static_cast<Eigen::Index>(i));
        if (job.target.size() > 0) os << ", target " << job.target(static_cast<Eigen::Index>(i));
        os << ")";
      }
      log::info(MPI_COMM_SELF, os.str());
    }
    FLEXUQ_MPI(MPI_Barrier(comm));
  });
}

} // namespace flexuq::app
