// SPDX-License-Identifier: MIT
// The planar PCT simulate job (`uncertainty: {method: galerkin}`, issue #35) -> pct::PctJob, moved
// from app/PctCommand for issue #33's app bound: the mechanism under `planar:`, the uncertain inputs,
// the solver and outputs, every key checked before any work.
#include "flexuq/config/PctJob.hpp"

#include "flexuq/config/NodeReader.hpp"
#include "flexuq/core/Error.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace flexuq::io {

namespace {

std::array<double, 2> pair(const NodeReader& r, const YAML::Node& map, const std::string& key, const char* k,
                           std::array<double, 2> fallback) {
  const std::vector<double> v = r.fixed_list(map, key, k, 2, "(x, y)", {fallback[0], fallback[1]});
  return {v[0], v[1]};
}

/// A schedule `[[t1, t2, value], ...]` from @p start (a torque's `steps`, a slot's `motion`): each value
/// reached by an Adams STEP, the steps in order.
pct::StepSchedule schedule(const NodeReader& r, const YAML::Node& list, const std::string& key, double start) {
  pct::StepSchedule out;
  out.start = start;
  if (!list.IsSequence()) r.fail(list, key, "must be a list of [t1, t2, value]");
  for (std::size_t k = 0; k < list.size(); ++k) {
    const std::string sk = key + "[" + std::to_string(k) + "]";
    const std::vector<double> s = r.list(list[k], sk);
    if (s.size() != 3 || !(s[1] > s[0]) || (!out.steps.empty() && s[0] < out.steps.back()[1]))
      r.fail(list[k], sk, "needs [t1, t2, value] with t1 < t2, after the previous step");
    out.steps.push_back({s[0], s[1], s[2]});
  }
  return out;
}

uq::Distribution distribution(const NodeReader& r, const YAML::Node& p, const std::string& key) {
  const std::string d = r.text(p, key, "dist");
  auto num = [&](const char* k) { return r.required(p, key, k); };
  try {
    if (d == "normal") return uq::Distribution::normal(num("mean"), num("std"));
    if (d == "uniform") return uq::Distribution::uniform(num("low"), num("high"));
    if (d == "beta") return uq::Distribution::beta(num("alpha"), num("beta"), num("low"), num("high"));
    if (d == "gamma") return uq::Distribution::gamma(num("shape"), num("scale"), r.number(p, key, "loc", 0.0));
    if (d == "lognormal") return uq::Distribution::lognormal_from_moments(num("mean"), num("std"));
  } catch (const InputError& e) {
    if (std::string(e.what()).rfind(r.source(), 0) == 0) throw;
    r.fail(p, key, e.what());
  }
  r.fail(p["dist"], key + ".dist", "'" + d + "' is not one of normal, uniform, beta, gamma, lognormal");
}

/// The data entry a `moves` key names: bodies.<b>.mass|inertia, bodies.<b>.position|velocity.<x|y> (an
/// uncertain initial condition), joints.<j>.points.<0|1>.<x|y>, joints.<j>.length,
/// springs.<s>.stiffness|damping, contacts.<c>.stiffness|radius|damping.
int data_entry(const NodeReader& r, const YAML::Node& at, const std::string& key, const pct::PlanarMechanism& m,
               const std::string& path) {
  std::vector<std::string> part;
  std::stringstream ss(path);
  for (std::string s; std::getline(ss, s, '.');) part.push_back(s);
  try {
    if (part.size() == 3 && part[0] == "bodies" && (part[2] == "mass" || part[2] == "inertia")) {
      const int b = m.body_index(part[1]);
      if (b >= 0) return m.body_data(b, part[2] == "mass" ? 0 : 1);
    }
    if (part.size() == 4 && part[0] == "bodies" && (part[2] == "position" || part[2] == "velocity") &&
        (part[3] == "x" || part[3] == "y")) {
      const int b = m.body_index(part[1]);
      if (b >= 0) return m.initial_data(b, (part[2] == "velocity" ? 2 : 0) + (part[3] == "y" ? 1 : 0));
    }
    if (part.size() == 3 && part[0] == "springs" && (part[2] == "stiffness" || part[2] == "damping"))
      return m.spring_data(m.spring_index(part[1]), part[2] == "stiffness" ? 0 : 1);
    if (part.size() == 3 && part[0] == "contacts" && (part[2] == "stiffness" || part[2] == "radius" || part[2] == "damping"))
      return m.contact_data(m.contact_index(part[1]), part[2] == "stiffness" ? 0 : part[2] == "radius" ? 1 : 2);
    if (part.size() == 3 && part[0] == "joints" && part[2] == "length") {
      const int j = m.joint_index(part[1]);
      if (m.joints()[static_cast<std::size_t>(j)].type == pct::PlanarJoint::Type::distance) return m.joint_data(j, 4);
    }
    if (part.size() == 5 && part[0] == "joints" && part[2] == "points" && (part[3] == "0" || part[3] == "1") &&
        (part[4] == "x" || part[4] == "y"))
      return m.joint_data(m.joint_index(part[1]), (part[3] == "1" ? 2 : 0) + (part[4] == "y" ? 1 : 0));
  } catch (const InputError& e) {
    r.fail(at, key + "." + path, e.what());
  }
  r.fail(at, key + "." + path,
         "not a datum of the mechanism (bodies.<body>.mass | inertia, bodies.<body>.position | velocity.<x|y>, "
         "joints.<joint>.points.<0|1>.<x|y>, joints.<distance joint>.length, springs.<spring>.stiffness | damping, "
         "contacts.<contact>.stiffness | radius | damping)");
}

/// `bodies: [i, j]` and `points: [[x, y] on i, [x, y] on j]` in the body frames of a joint or spring, or
/// `at:` the global point(s) in the initial pose — one `[x, y]` for a joint, `[[x, y] on i, [x, y] on j]`
/// for a spring (points optional when @p points_required is false: the centres of mass).
template <class Connector>
void connector(const NodeReader& r, const YAML::Node& n, const std::string& key, const pct::PlanarMechanism& m,
               Connector& c, bool points_required) {
  const YAML::Node bs = n["bodies"], ps = n["points"], at = n["at"];
  if (!bs.IsSequence() || bs.size() != 2 || !bs[0].IsScalar() || !bs[1].IsScalar())
    r.fail(bs, key + ".bodies", "needs [body i, body j]");
  try {
    c.body_i = m.body_index(bs[0].as<std::string>());
    c.body_j = m.body_index(bs[1].as<std::string>());
  } catch (const InputError& e) {
    r.fail(bs, key + ".bodies", e.what());
  }
  if (at) {
    if (ps) r.fail(at, key + ".at", "give either points (body frames) or at (global, initial pose), not both");
    std::array<std::array<double, 2>, 2> g;
    if (points_required) { // a joint: one point
      const std::vector<double> v = r.list(at, key + ".at");
      if (v.size() != 2) r.fail(at, key + ".at", "needs [x, y] (the joint's point in the initial pose)");
      g[0] = g[1] = {v[0], v[1]};
    } else {
      if (!at.IsSequence() || at.size() != 2) r.fail(at, key + ".at", "needs [[x, y] on body i, [x, y] on body j]");
      for (int k = 0; k < 2; ++k) {
        const std::vector<double> v = r.list(at[k], key + ".at[" + std::to_string(k) + "]");
        if (v.size() != 2) r.fail(at[k], key + ".at[" + std::to_string(k) + "]", "needs 2 numbers (x, y)");
        g[static_cast<std::size_t>(k)] = {v[0], v[1]};
      }
    }
    c.si = m.body_frame_point(c.body_i, g[0]);
    c.sj = m.body_frame_point(c.body_j, g[1]);
    return;
  }
  if (!ps && !points_required) return;
  if (!ps.IsSequence() || ps.size() != 2) r.fail(ps, key + ".points", "needs [[x, y] on body i, [x, y] on body j] (or at:)");
  for (int k = 0; k < 2; ++k) {
    const std::string pk = key + ".points[" + std::to_string(k) + "]";
    const std::vector<double> v = r.list(ps[k], pk);
    if (v.size() != 2) r.fail(ps[k], pk, "needs 2 numbers (x, y)");
    std::array<double, 2>& dst = k ? c.sj : c.si;
    dst = {v[0], v[1]};
  }
}

pct::PlanarMechanism parse_mechanism(const Config& cfg, const NodeReader& r) {
  pct::PlanarMechanism m;
  const YAML::Node pl = cfg.node("planar");
  r.keys(pl, "planar", {"bodies", "joints", "torques", "springs", "contacts", "gravity"});
  const auto g = pair(r, pl, "planar", "gravity", {0, 0});
  m.set_gravity(g[0], g[1]);
  const YAML::Node bodies = pl["bodies"];
  r.require_map(bodies, "planar.bodies");
  for (const auto& kv : bodies) {
    const std::string name = kv.first.as<std::string>(), key = "planar.bodies." + name;
    const YAML::Node b = kv.second;
    r.keys(b, key, {"mass", "inertia", "position", "velocity", "angle", "angular_velocity", "specified"});
    pct::PlanarBody pb;
    pb.name = name;
    pb.mass = r.required(b, key, "mass");
    pb.inertia = r.required(b, key, "inertia");
    if (!(pb.mass > 0) || !(pb.inertia > 0)) r.fail(b, key, "mass and inertia must be positive");
    const auto p = pair(r, b, key, "position", {0, 0});
    pb.x = p[0];
    pb.y = p[1];
    const auto v = pair(r, b, key, "velocity", {0, 0});
    pb.vx = v[0];
    pb.vy = v[1];
    pb.angle = r.number(b, key, "angle", 0.0);
    pb.angular_velocity = r.number(b, key, "angular_velocity", 0.0);
    pb.specified = r.flag(b, key, "specified", false);
    try {
      m.add_body(pb);
    } catch (const InputError& e) {
      r.fail(b, key, e.what());
    }
  }
  const YAML::Node joints = pl["joints"];
  if (!joints.IsSequence()) r.fail(joints, "planar.joints", "must be a list");
  for (std::size_t i = 0; i < joints.size(); ++i) {
    const YAML::Node j = joints[i];
    const std::string key = "planar.joints[" + std::to_string(i) + "]";
    r.keys(j, key, {"name", "type", "bodies", "points", "at", "axis", "length", "motion"});
    pct::PlanarJoint pj;
    pj.name = r.text(j, key, "name");
    const std::string type = r.text(j, key, "type");
    using JT = pct::PlanarJoint::Type;
    const std::vector<std::pair<std::string, JT>> types{{"revolute", JT::revolute}, {"slot", JT::slot}, {"fixed", JT::fixed},
                                                        {"prismatic", JT::prismatic}, {"distance", JT::distance}};
    const auto ti = std::find_if(types.begin(), types.end(), [&](const auto& t) { return t.first == type; });
    if (ti == types.end())
      r.fail(j["type"], key + ".type", "'" + type + "' is not revolute, slot, fixed, prismatic or distance");
    pj.type = ti->second;
    connector(r, j, key, m, pj, true);
    pj.axis = pair(r, j, key, "axis", {1, 0});
    if (j["length"] && pj.type != JT::distance) r.fail(j["length"], key + ".length", "only a distance joint has a length");
    pj.length = r.number(j, key, "length", 0.0);
    if (j["length"] && !(pj.length > 0)) r.fail(j["length"], key + ".length", "must be positive");
    if (j["motion"]) {
      if (pj.type != JT::slot) r.fail(j["motion"], key + ".motion", "only a slot takes a motion (a driver)");
      pj.motion = schedule(r, j["motion"], key + ".motion", 0.0);
    }
    try {
      m.add_joint(pj);
    } catch (const InputError& e) {
      r.fail(j, key, e.what());
    }
  }
  if (pl["torques"]) {
    const YAML::Node ts = pl["torques"];
    if (!ts.IsSequence()) r.fail(ts, "planar.torques", "must be a list");
    for (std::size_t i = 0; i < ts.size(); ++i) {
      const YAML::Node t = ts[i];
      const std::string key = "planar.torques[" + std::to_string(i) + "]";
      r.keys(t, key, {"body", "value", "steps"});
      pct::PlanarTorque pt;
      try {
        pt.body = m.body_index(r.text(t, key, "body"));
      } catch (const InputError& e) {
        r.fail(t, key + ".body", e.what());
      }
      if (pt.body < 0) r.fail(t, key + ".body", "a torque needs a body, not the ground");
      const double v0 = r.number(t, key, "value", 0.0);
      const pct::StepSchedule steps = t["steps"] ? schedule(r, t["steps"], key + ".steps", v0) : pct::StepSchedule{v0, {}};
      pt.value = [steps](double tt) { return steps(tt); };
      m.add_torque(pt);
    }
  }
  if (pl["springs"]) {
    const YAML::Node ss = pl["springs"];
    if (!ss.IsSequence()) r.fail(ss, "planar.springs", "must be a list");
    for (std::size_t i = 0; i < ss.size(); ++i) {
      const YAML::Node sp = ss[i];
      const std::string key = "planar.springs[" + std::to_string(i) + "]";
      r.keys(sp, key, {"name", "bodies", "points", "at", "stiffness", "damping", "length"});
      pct::PlanarSpring ps;
      ps.name = r.text(sp, key, "name");
      connector(r, sp, key, m, ps, false);
      ps.stiffness = r.number(sp, key, "stiffness", 0.0);
      ps.damping = r.number(sp, key, "damping", 0.0);
      ps.length = r.number(sp, key, "length", 0.0);
      try {
        m.add_spring(ps);
      } catch (const InputError& e) {
        r.fail(sp, key, e.what());
      }
    }
  }
  if (pl["contacts"]) {
    const YAML::Node cs = pl["contacts"];
    if (!cs.IsSequence()) r.fail(cs, "planar.contacts", "must be a list");
    for (std::size_t i = 0; i < cs.size(); ++i) {
      const YAML::Node c = cs[i];
      const std::string key = "planar.contacts[" + std::to_string(i) + "]";
      r.keys(c, key, {"name", "body", "point", "normal", "origin", "radius", "stiffness", "damping"});
      pct::PlanarContact pc;
      pc.name = r.text(c, key, "name");
      try {
        pc.body = m.body_index(r.text(c, key, "body"));
      } catch (const InputError& e) {
        r.fail(c, key + ".body", e.what());
      }
      pc.point = pair(r, c, key, "point", {0, 0});
      pc.normal = pair(r, c, key, "normal", {0, 1});
      pc.origin = pair(r, c, key, "origin", {0, 0});
      pc.radius = r.number(c, key, "radius", 0.0);
      pc.stiffness = r.required(c, key, "stiffness");
      pc.damping = r.number(c, key, "damping", 0.0);
      try {
        m.add_contact(pc);
      } catch (const InputError& e) {
        r.fail(c, key, e.what());
      }
    }
  }
  cfg.mark_used("planar");
  return m;
}

} // namespace

pct::PctJob parse_pct_job(const Config& cfg) {
  const NodeReader r(cfg.source());
  if (!cfg.has("planar"))
    throw InputError(cfg.source() + ": 'uncertainty' (intrusive PCT, docs/pct.md) needs the mechanism in planar "
                                    "coordinates under 'planar:'; a 3-D job's bodies, joints and forces are sampled "
                                    "by a campaign instead");
  pct::PctJob job;
  job.mechanism = parse_mechanism(cfg, r);
  const YAML::Node u = cfg.node("uncertainty");
  r.keys(u, "uncertainty", {"method", "order", "route", "quadrature_points", "output_points", "parameters"});
  if (r.text(u, "uncertainty", "method") != "galerkin")
    r.fail(u["method"], "uncertainty.method", "only 'galerkin' (intrusive PCT) is a simulate method; sample "
                                              "the parameters in a campaign for the non-intrusive ones");
  auto integer = [&](const char* k, int fallback, int lo, int hi) {
    const double v = r.number(u, "uncertainty", k, fallback);
    if (v != std::floor(v) || v < lo || v > hi)
      r.fail(u[k], std::string("uncertainty.") + k,
             "must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return static_cast<int>(v);
  };
  job.galerkin.order = integer("order", 1, 0, 8);
  job.galerkin.quadrature_points = integer("quadrature_points", 0, 0, 40);
  job.output_points = integer("output_points", 8, 1, 40);
  const std::string route = r.text(u, "uncertainty", "route", "traditional");
  if (route != "traditional" && route != "variational")
    r.fail(u["route"], "uncertainty.route", "'" + route + "' is not traditional or variational");
  job.galerkin.route = route == "variational" ? pct::Route::variational : pct::Route::traditional;
  const YAML::Node ps = u["parameters"];
  r.require_map(ps, "uncertainty.parameters");
  if (ps.size() == 0 || ps.size() > 8) r.fail(ps, "uncertainty.parameters", "needs 1 to 8 parameters");
  for (const auto& kv : ps) {
    const std::string name = kv.first.as<std::string>(), key = "uncertainty.parameters." + name;
    const YAML::Node p = kv.second;
    r.keys(p, key, {"dist", "mean", "std", "low", "high", "alpha", "beta", "shape", "scale", "loc", "moves"});
    pct::UncertainInput in;
    in.name = name;
    in.distribution = distribution(r, p, key);
    const YAML::Node mv = p["moves"];
    r.require_map(mv, key + ".moves");
    for (const auto& t : mv)
      in.targets.emplace_back(data_entry(r, t.first, key + ".moves", job.mechanism, t.first.as<std::string>()),
                              r.number(t.second, key + ".moves." + t.first.as<std::string>()));
    std::ostringstream d;
    d << r.text(p, key, "dist");
    job.distributions.push_back(d.str());
    job.inputs.push_back(in);
  }
  cfg.mark_used("uncertainty");
  const YAML::Node s = cfg.node("solver");
  r.keys(s, "solver", {"type", "step", "start", "end", "output_step", "rho_inf", "tol", "max_iter"});
  if (r.text(s, "solver", "type", "generalized-alpha") != "generalized-alpha")
    r.fail(s["type"], "solver.type", "the PCT system is integrated by generalized-alpha only");
  job.start = r.number(s, "solver", "start", 0.0);
  job.solver.step = r.required(s, "solver", "step");
  job.solver.end = r.required(s, "solver", "end");
  job.solver.output_step = r.number(s, "solver", "output_step", 0.0);
  job.solver.rho_inf = r.number(s, "solver", "rho_inf", 1.0);
  job.solver.tol = r.number(s, "solver", "tol", 1e-12);
  job.solver.max_iter = static_cast<int>(r.number(s, "solver", "max_iter", 30));
  if (!(job.solver.end > job.start)) r.fail(s, "solver.end", "must be after solver.start");
  cfg.mark_used("solver");
  const std::vector<std::string> names = job.mechanism.output_names();
  if (cfg.has("outputs")) {
    const YAML::Node os = cfg.node("outputs");
    if (!os.IsSequence()) r.fail(os, "outputs", "must be a list of output names");
    for (std::size_t i = 0; i < os.size(); ++i) {
      const std::string n = os[i].as<std::string>();
      const auto it = std::find(names.begin(), names.end(), n);
      if (it == names.end()) {
        std::string known;
        for (const auto& k : names) known += (known.empty() ? "" : ", ") + k;
        r.fail(os[i], "outputs[" + std::to_string(i) + "]", "'" + n + "' is not an output (" + known + ")");
      }
      job.outputs.push_back(static_cast<int>(it - names.begin()));
    }
    cfg.mark_used("outputs");
  } else {
    for (std::size_t i = 0; i < names.size(); ++i) job.outputs.push_back(static_cast<int>(i));
  }
  job.output_path = cfg.resolve_output(cfg.get<std::string>("output", "pct.h5"));
  job.source = cfg.source();
  return job;
}

} // namespace flexuq::io
