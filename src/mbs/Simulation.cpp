// SPDX-License-Identifier: MIT
#include "flexuq/mbs/Simulation.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/io/Hdf5File.hpp"
#include "flexuq/io/MeshOutput.hpp"
#include "flexuq/la/Mechanics.hpp"
#include "flexuq/mbs/Animation.hpp"
#include "flexuq/io/Mesh.hpp"
#include "flexuq/mbs/FlexibleBody.hpp"

#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <set>

namespace flexuq::mbs {

std::vector<std::string> OutputSpec::columns() const {
  switch (quantity) {
  case Quantity::position:
  case Quantity::velocity:
  case Quantity::acceleration:
  case Quantity::angular_velocity:
    return {"x", "y", "z"};
  case Quantity::angle:
    return {"angle"};
  case Quantity::reaction:
    return {"fx", "fy", "fz", "mx", "my", "mz"};
  case Quantity::energy:
    return {"kinetic", "potential", "strain", "work", "balance"};
  case Quantity::drift:
    return {"position", "velocity"};
  case Quantity::coordinates:
    return {"x", "y", "z", "e0", "e1", "e2", "e3"};
  case Quantity::coordinate_rates:
    return {"vx", "vy", "vz", "e0_dot", "e1_dot", "e2_dot", "e3_dot"};
  case Quantity::stress:
    return {"sxx", "syy", "szz", "sxy", "syz", "szx"};
  case Quantity::von_mises:
    return {"von_mises"};
  }
  return {};
}

void rebuild_with(SimulationJob& job, const std::vector<std::shared_ptr<const FlexibleData>>& flex) {
  job.system = job.system.with_flexible(flex);
  for (auto& os : job.outputs)
    if (!os.interface.empty()) os.L = job.system.point_map(os.body, os.interface, os.point, "output '" + os.name + "'");
    else if (os.node >= 0) os.L = os.node_rows * job.system.bodies()[static_cast<std::size_t>(os.body)].flex->V;
}

std::function<void(const State&, double)> make_recorder(const SimulationJob& job, SimulationResult& r) {
  const System& sys = job.system;
  r.outputs.resize(job.outputs.size());
  r.reactions.resize(sys.joints().size());
  r.coordinates.resize(sys.bodies().size());
  r.elastic.resize(sys.bodies().size());
  if (job.snapshots) {
    r.active_rows.clear();
    for (const int row : sys.active_rows()) r.active_rows.push_back(sys.row_label(row));
  }
  // The unwrapped joint angles carry over from one output to the next.
  struct Angles {
    std::vector<double> last, unwrapped;
    bool first = true;
  };
  auto angles = std::make_shared<Angles>();
  angles->last.assign(job.outputs.size(), 0.0);
  angles->unwrapped.assign(job.outputs.size(), 0.0);
  return [&job, &r, angles](const State& st, double work) {
    const System& sys = job.system;
    auto& last_angle = angles->last;
    auto& unwrapped = angles->unwrapped;
    bool& first = angles->first;
    r.time.push_back(st.t);
    if (job.snapshots) {
      r.snap_q.insert(r.snap_q.end(), st.q.data(), st.q.data() + st.q.size());
      r.snap_v.insert(r.snap_v.end(), st.v.data(), st.v.data() + st.v.size());
      r.snap_a.insert(r.snap_a.end(), st.a.data(), st.a.data() + st.a.size());
      r.snap_lambda.insert(r.snap_lambda.end(), st.lambda.data(), st.lambda.data() + st.lambda.size());
    }
    const double kin = sys.kinetic_energy(st.q, st.v), pot = sys.potential_energy(st.q), strain = sys.strain_energy(st.q);
    const double row[5] = {kin, pot, strain, work, kin + pot + strain - work};
    r.energy.insert(r.energy.end(), row, row + 5);
    // Row by row, without the dense C_q (a 1,600-body chain spent most of its run here).
    r.drift.push_back(sys.phi_all(st.q, st.t).lpNorm<Eigen::Infinity>());
    r.drift.push_back(sys.phi_dot_all(st.q, st.v, st.t).lpNorm<Eigen::Infinity>());
    const auto reactions = sys.joint_reactions(st.q, st.lambda, st.t);
    for (std::size_t j = 0; j < sys.joints().size(); ++j)
      r.reactions[j].insert(r.reactions[j].end(), reactions[j].data(), reactions[j].data() + 6);
    for (std::size_t b = 0; b < sys.bodies().size(); ++b) {
      const int bi = static_cast<int>(b);
      const auto pose = sys.pose(st.q, bi); // [r, p] (a planar body's too: [x, y, z0, e0, 0, 0, e3])
      r.coordinates[b].insert(r.coordinates[b].end(), pose.data(), pose.data() + 7);
      for (int k = 0; k < sys.n_elastic(bi); ++k) r.elastic[b].push_back(st.q(sys.offset(bi) + 7 + k));
    }
    for (std::size_t o = 0; o < job.outputs.size(); ++o) {
      const OutputSpec& os = job.outputs[o];
      auto& out = r.outputs[o];
      Vec3 w;
      switch (os.quantity) {
      case Quantity::position:
        w = sys.point_position(st.q, os.body, os.point, os.L);
        out.insert(out.end(), w.data(), w.data() + 3);
        break;
      case Quantity::velocity:
        w = sys.point_velocity(st.q, st.v, os.body, os.point, os.L);
        out.insert(out.end(), w.data(), w.data() + 3);
        break;
      case Quantity::acceleration:
        w = sys.point_acceleration(st.q, st.v, st.a, os.body, os.point, os.L);
        out.insert(out.end(), w.data(), w.data() + 3);
        break;
      case Quantity::angular_velocity:
        w = sys.angular_velocity(st.q, st.v, os.body);
        out.insert(out.end(), w.data(), w.data() + 3);
        break;
      case Quantity::coordinates:
      case Quantity::coordinate_rates: {
        const auto pose = os.quantity == Quantity::coordinates ? sys.pose(st.q, os.body) : sys.pose(st.v, os.body, true);
        out.insert(out.end(), pose.data(), pose.data() + 7);
        break;
      }
      case Quantity::angle: {
        const double a = sys.joint_angle(st.q, os.joint);
        if (!first) {
          double d = a - last_angle[o];
          d -= 2 * M_PI * std::round(d / (2 * M_PI));
          unwrapped[o] += d;
        } else {
          unwrapped[o] = a;
        }
        last_angle[o] = a;
        out.push_back(unwrapped[o]);
        break;
      }
      case Quantity::reaction: {
        const auto re = sys.joint_reaction(st.q, st.lambda, os.joint, st.t);
        out.insert(out.end(), re.data(), re.data() + 6);
        break;
      }
      case Quantity::energy:
        out.insert(out.end(), row, row + 5);
        break;
      case Quantity::drift:
        out.push_back(r.drift[r.drift.size() - 2]);
        out.push_back(r.drift.back());
        break;
      case Quantity::stress:
      case Quantity::von_mises: {
        // σ_node = f S_node ξ with ξ = V η (modal stress recovery; the body frame's axes).
        const auto& fd = sys.bodies()[os.body].flex;
        if (!(fd && fd->stress_modes)) // the reduce option, named by the caller (OptionError)
          throw OptionError("stress_modes", "{}").wrapped("output '" + os.name + "': body '" + sys.bodies()[os.body].name +
                                                              "' has no stress modes here (a deterministic body file made with ",
                                                          ": true is needed)");
        // ξ = V η; a GCMS body: the co-rotated amplitudes Âᵀ q_flx (stresses in the axes of its rotation A).
        const Vec eta = st.q.segment(sys.offset(os.body) + 7, sys.n_elastic(os.body));
        const Vec xi = sys.body_model(os.body).strain_amplitudes(eta);
        const auto n = xi.size();
        double vm = 0.0, sig[6];
        for (const auto node : os.nodes) {
          const double* S = fd->stress_modes->data() + static_cast<std::size_t>(node) * 6 * static_cast<std::size_t>(n);
          for (int c = 0; c < 6; ++c) sig[c] = fd->stress_scale * Eigen::Map<const Eigen::RowVectorXd>(S + c * n, n).dot(xi);
          if (os.quantity == Quantity::von_mises) vm = std::max(vm, la::von_mises(sig)); // a stress output has one node
        }
        if (os.quantity == Quantity::stress)
          out.insert(out.end(), sig, sig + 6);
        else
          out.push_back(vm);
        break;
      }
      }
    }
    first = false;
  };
}

SimulationResult run_simulation(SimulationJob& job, const std::function<void(double)>& progress) {
  const auto t_start = std::chrono::steady_clock::now();
  SimulationResult r;
  Integrator integ(job.system, job.solver);
  State s;
  r.redundant_rows = integ.initialise(s);
  r.sparse = integ.sparse();
  r.stats = integ.run(s, make_recorder(job, r), progress);
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  return r;
}

void write_simulation(const std::string& path, const SimulationJob& job, const SimulationResult& r) {
  const System& sys = job.system;
  io::H5File f(MPI_COMM_SELF, path, io::H5File::Mode::create);
  const auto nt = static_cast<std::uint64_t>(r.time.size());
  auto table = [&](const std::string& name, const std::vector<double>& data, const std::vector<std::string>& cols) {
    f.write_replicated(name, {nt, static_cast<std::uint64_t>(cols.size())}, data.data());
    std::string joined;
    for (const auto& c : cols) joined += (joined.empty() ? "" : ",") + c;
    f.write_attribute(name, "columns", joined);
  };
  f.write_replicated("/time", {nt}, r.time.data());
  f.ensure_group("/outputs");
  for (std::size_t o = 0; o < job.outputs.size(); ++o) table("/outputs/" + job.outputs[o].name, r.outputs[o], job.outputs[o].columns());
  table("/energy", r.energy, {"kinetic", "potential", "strain", "work", "balance"});
  table("/drift", r.drift, {"position", "velocity"});
  f.ensure_group("/reactions");
  for (std::size_t j = 0; j < sys.joints().size(); ++j)
    table("/reactions/" + sys.joints()[j].name, r.reactions[j], {"fx", "fy", "fz", "mx", "my", "mz"});
  f.ensure_group("/bodies");
  for (std::size_t b = 0; b < sys.bodies().size(); ++b) {
    f.ensure_group("/bodies/" + sys.bodies()[b].name);
    table("/bodies/" + sys.bodies()[b].name + "/q", r.coordinates[b], {"x", "y", "z", "e0", "e1", "e2", "e3"});
    const int ne = sys.n_elastic(static_cast<int>(b));
    if (ne > 0) {
      std::vector<std::string> cols;
      for (int k = 0; k < ne; ++k) cols.push_back("eta" + std::to_string(k + 1));
      table("/bodies/" + sys.bodies()[b].name + "/elastic", r.elastic[b], cols);
      f.write_attribute("/bodies/" + sys.bodies()[b].name, "body_file", job.flexible_files.at(sys.bodies()[b].name));
    }
  }
  if (job.snapshots) {
    // Seed 003's training data: the whole state at every output time, and which coordinate is which.
    const auto n = static_cast<std::uint64_t>(sys.n()), m = static_cast<std::uint64_t>(r.active_rows.size());
    f.ensure_group("/snapshots");
    f.write_replicated("/snapshots/q", {nt, n}, r.snap_q.data());
    f.write_replicated("/snapshots/v", {nt, n}, r.snap_v.data());
    f.write_replicated("/snapshots/a", {nt, n}, r.snap_a.data());
    f.write_replicated("/snapshots/lambda", {nt, m}, r.snap_lambda.data());
    std::vector<std::int64_t> body(n), type(n);
    for (int k = 0; k < sys.n(); ++k) {
      const int b = sys.body_of_coordinate(k), local = k - sys.offset(b);
      body[static_cast<std::size_t>(k)] = b;
      type[static_cast<std::size_t>(k)] = local < 3 ? 0 : (local < 7 ? 1 : 2);
    }
    f.write_replicated("/snapshots/coordinate_body", {n}, body.data());
    f.write_replicated("/snapshots/coordinate_type", {n}, type.data());
    f.write_attribute("/snapshots/coordinate_type", "values", std::string("0 translational, 1 rotational, 2 flexible"));
    std::vector<std::string> bodies;
    for (const auto& b : sys.bodies()) bodies.push_back(b.name);
    f.write_strings("/snapshots/bodies", bodies);
    f.write_strings("/snapshots/rows", r.active_rows.empty() ? std::vector<std::string>{""} : r.active_rows);
  }
  f.write_strings("/redundant_rows", r.redundant_rows.empty() ? std::vector<std::string>{""} : r.redundant_rows);
  f.ensure_group("/solver");
  f.write_attribute("/solver", "type", std::string(scheme_name(job.solver.scheme)));
  f.write_attribute("/solver", "alpha", job.solver.alpha);
  f.write_attribute("/solver", "step", job.solver.step);
  f.write_attribute("/solver", "steps", static_cast<std::int64_t>(r.stats.steps));
  f.write_attribute("/solver", "rejected", static_cast<std::int64_t>(r.stats.rejected));
  f.write_attribute("/solver", "newton_iterations", static_cast<std::int64_t>(r.stats.newton_iterations));
  f.write_attribute("/solver", "jacobians", static_cast<std::int64_t>(r.stats.jacobians));
  f.write_attribute("/solver", "max_drift", r.stats.max_drift);
  f.write_attribute("/solver", "wall_seconds", r.wall_seconds);
  f.write_attribute("/solver", "linear_algebra", std::string(r.sparse ? "sparse" : "dense"));
  if (job.animation) {
    const auto slash = path.find_last_of('/');
    write_animation(f, slash == std::string::npos ? path : path.substr(slash + 1), io::xdmf_path_for(path), job, r);
  }
}

} // namespace flexuq::mbs
