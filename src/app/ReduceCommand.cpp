// SPDX-License-Identifier: MIT
// Sample runs:
//   mpirun -n 2 build/bin/flexuq reduce configs/crank-cb.yaml
//   mpirun -n 2 build/bin/flexuq reduce configs/crank-cb.yaml --set reduce.method=herting
#include "flexuq/app/ReduceCommand.hpp"
#include "flexuq/app/EnumOptions.hpp"
#include "flexuq/app/JobKeys.hpp"
#include "flexuq/app/JobOptions.hpp"
#include "flexuq/app/MatrixModel.hpp"
#include "flexuq/cms/Gcms.hpp"
#include "flexuq/core/Comm.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/core/Log.hpp"
#include "flexuq/app/ComponentConfig.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

namespace flexuq::app {

namespace {

cms::InterfaceSpec parse_interface(const io::Config& cfg, const YAML::Node& n, std::size_t i) {
  const std::string key = "reduce.interfaces[" + std::to_string(i) + "]";
  FLEXUQ_REQUIRE(n.IsMap(), cfg.source() << ": " << key << " must be a mapping {set: NAME, kind: all-dofs|rbe2|rbe3}");
  cms::InterfaceSpec s;
  for (const auto& kv : n) {
    const auto k = kv.first.as<std::string>();
    FLEXUQ_REQUIRE(k == "set" || k == "kind" || k == "ref" || k == "weights" || k == "grid",
                   cfg.source() << ": unknown key '" << key << "." << k << "' (set, kind, ref, weights, grid)");
  }
  FLEXUQ_REQUIRE(n["set"], cfg.source() << ": " << key << ".set is missing");
  try {
    s.set = n["set"].as<std::string>();
    const std::string kind = n["kind"] ? n["kind"].as<std::string>() : "all-dofs";
    if (kind == "all-dofs") s.kind = cms::InterfaceKind::all_dofs;
    else if (kind == "rbe2") s.kind = cms::InterfaceKind::rbe2;
    else if (kind == "rbe3") s.kind = cms::InterfaceKind::rbe3;
    else throw InputError(cfg.source() + ": " + key + ".kind '" + kind + "' (all-dofs, rbe2 or rbe3)");
    if (n["ref"]) {
      const auto r = n["ref"].as<std::vector<double>>();
      FLEXUQ_REQUIRE(r.size() == 3, cfg.source() << ": " << key << ".ref needs [x, y, z]");
      FLEXUQ_REQUIRE(s.kind != cms::InterfaceKind::all_dofs, cfg.source() << ": " << key << ".ref needs kind rbe2 or rbe3");
      for (std::size_t a = 0; a < 3; ++a)
        FLEXUQ_REQUIRE(std::isfinite(r[a]), cfg.source() << ": " << key << ".ref[" << a << "] is " << r[a]
                                                         << ": the reference point needs finite coordinates");
      s.ref = std::array<double, 3>{r[0], r[1], r[2]};
    }
    if (n["weights"]) // one value for all nodes (docs/config.md) or one per node
      s.weights = n["weights"].IsScalar() ? std::vector<double>{n["weights"].as<double>()} : n["weights"].as<std::vector<double>>();
    for (std::size_t w = 0; w < s.weights.size(); ++w)
      FLEXUQ_REQUIRE(std::isfinite(s.weights[w]),
                     cfg.source() << ": " << key << ".weights[" << w << "] is " << s.weights[w] << ": weights must be finite");
  } catch (const YAML::Exception&) {
    throw InputError(cfg.source() + ": " + key + " has a value of the wrong type");
  }
  return s;
}

} // namespace

ReduceJob parse_reduce_job(const io::Config& cfg) {
  ReduceJob j;
  j.build.method = parse_reduce_method(cfg.get<std::string>("reduce.method"));
  // Supports of single components ({set, dofs}, or a mesh's *BOUNDARY / SPC set: a symmetry plane, a
  // roller) may stay beside the interfaces (the free-interface methods use the rigid motions they
  // leave, cms::WorkSpace::motions); whole-node supports are refused by check_reduce_supports once
  // the mesh is read.
  for (const char* k : {"model.fixed", "modes.fixed"})
    FLEXUQ_REQUIRE(!cfg.has(k) || j.build.method != cms::Method::gcms,
                   cfg.source() << ": '" << k << "' with supports of single components is not implemented with "
                                << "reduce.method gcms (its translation and rotation fields are those of a free body); "
                                   "use another method");
  if (j.build.method == cms::Method::gcms) parse_gcms_options(cfg, "reduce.gcms", j.build.gcms);
  const YAML::Node list = cfg.node("reduce.interfaces");
  FLEXUQ_REQUIRE(list.IsSequence() && list.size() > 0,
                 cfg.source() << ": reduce.interfaces must be a non-empty list of {set, kind}");
  for (std::size_t i = 0; i < list.size(); ++i) {
    j.interfaces.push_back(parse_interface(cfg, list[i], i));
    // grid: the Nastran grid id of an rbe2/rbe3 reference point (OP4 BDOF rows; deck jobs set it).
    if (list[i]["grid"]) {
      try {
        j.op4_options.reference_grids[static_cast<int>(i)] = list[i]["grid"].as<long>();
      } catch (const YAML::Exception&) {
        throw InputError(cfg.source() + ": reduce.interfaces[" + std::to_string(i) + "].grid must be an integer");
      }
    }
  }
  // Guyan keeps no modes: any count is accepted, and at least one is asked of the solvers (as before).
  // The other methods accept count 0 as well (not gcms, which is built from its modes): Craig–Bampton
  // is then Guyan's basis, the free-interface methods keep the rigid-body (or inertia-relief) modes
  // and the attachment modes only, as seed 002's slider-crank runs them ("0 free-interface modes").
  const bool guyan = j.build.method == cms::Method::guyan;
  auto& mo = j.reducer.modes;
  mo = parse_mode_options(cfg, "reduce.modes", ModeKeys{false, j.build.method != cms::Method::gcms});
  mo.fixed_key = "reduce.interfaces"; // fixed-interface modes hold the interfaces
  if (guyan && !mo.band_hz) mo.count = std::max(mo.count, 1);
  if (cfg.has("reduce.modes.interface")) {
    const auto s = cfg.get<std::string>("reduce.modes.interface");
    FLEXUQ_REQUIRE(s == "free" || s == "fixed" || s == "mixed",
                   cfg.source() << ": reduce.modes.interface is 'free', 'fixed' or 'mixed', got '" << s << "'");
    j.build.mode_interface = s == "free" ? cms::ModeInterface::free
                             : s == "fixed" ? cms::ModeInterface::fixed
                                            : cms::ModeInterface::mixed;
  }
  // reduce.modes.recycle (issue #38 item 2): auto = a stochastic-CB point (and a campaign sample that
  // reduces a body again) starts its fixed-interface modes from the reference's (Rayleigh–Ritz);
  // block = the block Krylov eigensolver started from them; off = a full solve.
  if (cfg.has("reduce.modes.recycle")) {
    const auto s = cfg.get<std::string>("reduce.modes.recycle");
    FLEXUQ_REQUIRE(s == "auto" || s == "block" || s == "off",
                   cfg.source() << ": reduce.modes.recycle is 'auto', 'block' or 'off', got '" << s << "'");
    mo.recycle = s != "off";
    mo.recycle_block = s == "block";
  }
  // Mixed-interface modes: the interfaces (set names) held fixed for the eigenproblem.
  const bool mixed = j.build.mode_interface == cms::ModeInterface::mixed;
  FLEXUQ_REQUIRE(mixed == cfg.has("reduce.modes.fixed_interfaces"),
                 cfg.source() << (mixed ? ": reduce.modes.interface: mixed needs reduce.modes.fixed_interfaces (the "
                                          "sets of the interfaces held fixed)"
                                        : ": reduce.modes.fixed_interfaces is given but reduce.modes.interface is not "
                                          "'mixed'"));
  if (mixed) {
    FLEXUQ_REQUIRE(j.build.method == cms::Method::herting || j.build.method == cms::Method::hintz_constraint,
                   cfg.source() << ": reduce.modes.interface: mixed is accepted by herting and hintz-constraint only, not "
                                << cms::method_name(j.build.method));
    j.build.fixed_interfaces = cfg.get<std::vector<std::string>>("reduce.modes.fixed_interfaces");
    FLEXUQ_REQUIRE(!j.build.fixed_interfaces.empty(),
                   cfg.source() << ": reduce.modes.fixed_interfaces must list at least one interface set (none held "
                                   "fixed: use reduce.modes.interface: free)");
    for (const auto& h : j.build.fixed_interfaces)
      FLEXUQ_REQUIRE(std::any_of(j.interfaces.begin(), j.interfaces.end(), [&](const cms::InterfaceSpec& s) { return s.set == h; }),
                     cfg.source() << ": reduce.modes.fixed_interfaces: '" << h << "' is not one of the sets under reduce.interfaces");
  }
  j.build.residual_vectors = cfg.get<bool>("reduce.residual_vectors", false);
  j.reducer.residual_loads = cfg.get<std::vector<std::string>>("reduce.residual_loads", {});
  FLEXUQ_REQUIRE(j.reducer.residual_loads.empty() || j.build.residual_vectors,
                 cfg.source() << ": reduce.residual_loads is given but reduce.residual_vectors is not true");
  j.build.scaling = parse_reduce_scaling(cfg.get<std::string>("reduce.scaling", "none"));
  if (cfg.has("reduce.solve_block")) { // absent: automatic (cms::default_solve_block)
    j.reducer.solve_block = cfg.get<int>("reduce.solve_block");
    FLEXUQ_REQUIRE(j.reducer.solve_block >= 1, cfg.source() << ": reduce.solve_block must be a positive integer (right-hand "
                                                               "sides per solve; 1 = one at a time), got "
                                                            << j.reducer.solve_block);
  }
  j.free_free = cfg.get<int>("reduce.checkout.free_free", 10);
  // A component on single-component supports has no free-free modes of one rigid body (a symmetry
  // plane leaves 3 rigid motions): the check-out's full free-free comparison is not made.
  const bool supported = cfg.has("model.fixed") || cfg.has("modes.fixed");
  FLEXUQ_REQUIRE(!supported || !cfg.has("reduce.checkout.free_free") || j.free_free == 0,
                 cfg.source() << ": reduce.checkout.free_free needs a free component; with supports in model.fixed give 0 or omit it");
  if (supported) j.free_free = 0;
  j.stress_modes = cfg.get<bool>("reduce.stress_modes", false);
  if (cfg.has("reduce.matrix_market")) {
    const YAML::Node mm = cfg.node("reduce.matrix_market");
    bool on = false;
    if (YAML::convert<bool>::decode(mm, on)) {
      if (on) j.matrix_market = "reduced";
    } else {
      j.matrix_market = cfg.get<std::string>("reduce.matrix_market");
    }
  }
  // reduce.op4: a file name, or {file, format: binary|ascii, phi_sets: [SET, ...]}.
  if (cfg.has("reduce.op4")) {
    if (cfg.node("reduce.op4").IsMap()) {
      j.op4 = cfg.get<std::string>("reduce.op4.file");
      const std::string f = cfg.get<std::string>("reduce.op4.format", "binary");
      FLEXUQ_REQUIRE(f == "binary" || f == "ascii", cfg.source() << ": reduce.op4.format is binary or ascii, got '" << f << "'");
      j.op4_options.format = f == "ascii" ? io::Op4Format::ascii : io::Op4Format::binary;
      j.op4_options.phi_sets = cfg.get<std::vector<std::string>>("reduce.op4.phi_sets", {});
    } else {
      j.op4 = cfg.get<std::string>("reduce.op4");
    }
    FLEXUQ_REQUIRE(!j.op4.empty(), cfg.source() << ": reduce.op4 needs a file name");
  }
  return j;
}

void check_reduce_supports(const io::Config& cfg, const io::Mesh* mesh) {
  for (const char* k : {"model.fixed", "modes.fixed"}) {
    if (!cfg.has(k)) continue;
    fe::ComponentOptions o;
    app::parse_fixed(cfg, k, o);
    for (const auto& set : o.fixed_sets) // a set the reader gave components (*BOUNDARY, SPC) fixes those only
      FLEXUQ_REQUIRE(mesh && mesh->set_components.count(io::upper(set)),
                     cfg.source() << ": '" << k << "' lists node set " << set
                                  << ", which a reduce job does not take: the interfaces replace supports (a grounded "
                                     "component has no free-interface modes); list the set under reduce.interfaces "
                                     "(supports of single components, {set, dofs} or the mesh's *BOUNDARY / SPC sets, "
                                     "are accepted)");
  }
}

void run_reduce(MPI_Comm comm_in, const io::Config& cfg) {
  Comm comm(comm_in);
  MPI_Comm c = comm.get();
  log::PhaseTimes times;
  ReduceJob job = parse_reduce_job(cfg);
  job.source = cfg.source();
  job.output = cfg.resolve_output(cfg.get<std::string>("output", "reduced.h5"));
  if (job.matrix_market == "reduced") job.matrix_market = job.output.substr(0, job.output.find_last_of('.'));
  if (!job.op4.empty()) job.op4 = cfg.resolve_output(job.op4);
  // Outputs checked before any work; written under temporary names and renamed at the end.
  check_job_output(c, cfg, job.output, "output");
  if (!job.matrix_market.empty())
    for (const char* m : {"_K.mtx", "_M.mtx"}) check_job_output(c, cfg, job.matrix_market + m, "reduce.matrix_market");
  if (!job.op4.empty()) check_job_output(c, cfg, job.op4, "reduce.op4");
  auto copts = app::component_options(cfg);
  copts.keep_affine = false;
  const std::unique_ptr<fe::Component> comp =
      load_component(c, cfg, copts, times, std::string("flexuq reduce: ") + cms::method_name(job.build.method) + " of",
                     [&](const io::Mesh* mesh) { check_reduce_supports(cfg, mesh); });
  with_job_keys(reduce_keys(), [&] { workflow::run_reduce(c, *comp, job, times); });
}

} // namespace flexuq::app
