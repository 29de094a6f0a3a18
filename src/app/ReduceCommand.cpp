// SPDX-License-Identifier: MIT
// Sample runs:
//   mpirun -n 2 build/bin/flexuq reduce configs/crank-cb.yaml
//   mpirun -n 2 build/bin/flexuq reduce configs/crank-cb.yaml --set reduce.method=herting
#include "flexuq/app/ReduceCommand.hpp"
#include "flexuq/app/EnumOptions.hpp"
#include "flexuq/app/JobKeys.hpp"
#include "flexuq/app/JobOptions.hpp"
#include "flexuq/app/MatrixModel.hpp"
#include "flexuq/cms/BodyFile.hpp"
#include "flexuq/cms/Gcms.hpp"
#include "flexuq/cms/Reduce.hpp"
#include "flexuq/cms/ReducedBodyBuild.hpp"
#include "flexuq/core/Comm.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/core/Log.hpp"
#include "flexuq/core/RootTask.hpp"
#include "flexuq/fe/StressRecovery.hpp"
#include "flexuq/app/ComponentConfig.hpp"
#include "flexuq/config/ConfigCounts.hpp"
#include "flexuq/io/Limits.hpp"
#include "flexuq/io/OutputFile.hpp"

#include <algorithm>
#include <iomanip>
#include <memory>
#include <optional>
#include <sstream>

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
      s.ref = std::array<double, 3>{r[0], r[1], r[2]};
    }
    if (n["weights"]) // one value for all nodes (docs/config.md) or one per node
      s.weights = n["weights"].IsScalar() ? std::vector<double>{n["weights"].as<double>()} : n["weights"].as<std::vector<double>>();
  } catch (const YAML::Exception&) {
    throw InputError(cfg.source() + ": " + key + " has a value of the wrong type");
  }
  return s;
}

} // namespace

ReduceJob parse_reduce_job(const io::Config& cfg) {
  ReduceJob j;
  for (const char* k : {"model.fixed", "modes.fixed"})
    FLEXUQ_REQUIRE(!cfg.has(k), cfg.source() << ": '" << k
                                             << "' is not allowed in a reduce job: the interfaces replace supports "
                                                "(a grounded component has no free-interface modes); list the set "
                                                "under reduce.interfaces");
  j.build.method = parse_reduce_method(cfg.get<std::string>("reduce.method"));
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
  if (guyan && !mo.band_hz) mo.count = std::max(mo.count, 1);
  if (cfg.has("reduce.modes.interface")) {
    const auto s = cfg.get<std::string>("reduce.modes.interface");
    FLEXUQ_REQUIRE(s == "free" || s == "fixed" || s == "mixed",
                   cfg.source() << ": reduce.modes.interface is 'free', 'fixed' or 'mixed', got '" << s << "'");
    j.build.mode_interface = s == "free" ? cms::ModeInterface::free
                             : s == "fixed" ? cms::ModeInterface::fixed
                                            : cms::ModeInterface::mixed;
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
  j.free_free = cfg.get<int>("reduce.checkout.free_free", 10);
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

void run_reduce(MPI_Comm comm_in, const io::Config& cfg) {
  Comm comm(comm_in);
  MPI_Comm c = comm.get();
  log::PhaseTimes times;
  const std::string output = cfg.resolve_output(cfg.get<std::string>("output", "reduced.h5"));
  ReduceJob job = parse_reduce_job(cfg);
  if (!job.matrix_market.empty() && job.matrix_market == "reduced") {
    const auto dot = output.find_last_of('.');
    job.matrix_market = dot == std::string::npos ? output : output.substr(0, dot);
  }
  // Outputs checked before any work; written under temporary names and renamed at the end.
  check_job_output(c, cfg, output, "output");
  if (!job.matrix_market.empty())
    for (const char* m : {"_K.mtx", "_M.mtx"}) check_job_output(c, cfg, job.matrix_market + m, "reduce.matrix_market");
  if (!job.op4.empty()) check_job_output(c, cfg, cfg.resolve_output(job.op4), "reduce.op4");
  auto copts = app::component_options(cfg);
  copts.keep_affine = false;
  std::unique_ptr<fe::Component> comp =
      load_component(c, cfg, copts, times, std::string("flexuq reduce: ") + cms::method_name(job.build.method) + " of");
  if (!comp->has_coordinates()) {
    FLEXUQ_REQUIRE(job.build.method != cms::Method::gcms,
                   cfg.source() << ": reduce.method gcms needs node coordinates; " << comp->mesh().source << " gives none");
    for (const auto& i : job.interfaces)
      FLEXUQ_REQUIRE(i.kind == cms::InterfaceKind::all_dofs,
                     cfg.source() << ": the rbe2/rbe3 interface on set " << i.set << " needs node coordinates; "
                                  << comp->mesh().source << " gives none (add x y z to the label file)");
  }
  if (job.stress_modes) {
    const auto& types = comp->mesh().elem_type;
    FLEXUQ_REQUIRE(comp->has_coordinates() && std::any_of(types.begin(), types.end(), io::is_solid),
                   cfg.source() << ": reduce.stress_modes needs solid elements with coordinates; " << comp->mesh().source
                                << " has none (beam stresses and external matrices are not recovered)");
  }
  std::unique_ptr<cms::WorkSpace> ws;
  {
    log::Phase p(c, "interfaces", &times);
    try {
      ws = std::make_unique<cms::WorkSpace>(*comp, job.interfaces);
    } catch (const InputError& e) { // name the job file, the key and the set
      throw InputError(cfg.source() + ": " + reduce_keys().message(e));
    }
  }
  log::info(c, "  DOFs: " + std::to_string(comp->dofs().global_size()) + " free, " + std::to_string(ws->n_boundary()) +
                   " boundary coordinates");
  const cms::ReduceResult red = cms::reduce(*ws, job.reducer, job.build, job.free_free, &times);
  const cms::ReducedBasis& rb = red.basis;
  {
    log::Phase p(c, "write results", &times);
    io::OutputFile out(c, output);
    cms::write_reduced_file(out.temp(), *ws, rb, red.invariants, red.checkout, times.entries());
    if (job.stress_modes) {
      // Modal stress recovery: the nodal stresses of every basis column (fe/StressRecovery.hpp),
      // from the basis just written, on rank 0 (mesh and materials are replicated).
      on_root(c, [&] {
        cms::BodyFile f(MPI_COMM_SELF, out.temp(), cms::BodyFile::Mode::append);
        const auto shape = f.basis_shape();
        const auto basis = f.read_basis();
        const auto S = fe::nodal_stresses(*comp, basis.data(), static_cast<int>(shape[1]), static_cast<int>(shape[2]));
        f.write_stress_modes(shape[0], shape[2], S, fe::kStressComponents);
      });
    }
    std::optional<io::OutputFile> mm, op4;
    if (!job.matrix_market.empty()) {
      mm.emplace(c, job.matrix_market);
      cms::write_matrix_market(c, mm->temp(), rb);
    }
    if (!job.op4.empty()) {
      op4.emplace(c, cfg.resolve_output(job.op4));
      try {
        cms::write_reduced_op4(op4->temp(), *ws, rb, job.op4_options);
      } catch (const InputError& e) {
        throw InputError(cfg.source() + ": reduce.op4: " + e.what());
      }
    }
    // Every file written: only now do they replace older results.
    out.commit();
    if (mm) mm->commit();
    if (op4) op4->commit();
  }
  std::ostringstream os;
  os << "  basis: " << rb.n_columns() << " columns (" << ws->n_boundary() << " boundary coordinates, "
     << rb.mode_eigenvalues.size() << " " << enum_name(cms::kModeInterfaceNames, rb.mode_interface) << "-interface modes";
  if (!rb.fixed_interfaces.empty()) {
    os << ", held fixed:";
    for (const auto& s : rb.fixed_interfaces) os << " " << s;
  }
  os << "); reciprocal condition of the scaled reduced mass " << std::scientific << std::setprecision(2)
     << rb.basis_rcond << "\n";
  os << cms::checkout_summary(rb, red.checkout);
  os << "  per-phase wall time:\n" << times.summary(c);
  os << "  results: " << output << " (+ .xdmf)";
  if (!job.matrix_market.empty()) os << ", " << job.matrix_market << "_K.mtx, " << job.matrix_market << "_M.mtx";
  if (!job.op4.empty()) os << ", " << cfg.resolve_output(job.op4) << " (OP4: KAA, MAA, BDOF" << (job.op4_options.phi_sets.empty() ? "" : ", PHI, PHIDOF") << ")";
  log::info(c, os.str());
}

} // namespace flexuq::app
