// SPDX-License-Identifier: MIT
#include "flexuq/app/SimulationOptions.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/io/Hdf5File.hpp"
#include "flexuq/io/Mesh.hpp"
#include "flexuq/mbs/FlexibleBody.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

namespace flexuq::app {

using mbs::FlexibleOptions;
using mbs::ForceSpec;
using mbs::ForceType;
using mbs::JointSpec;
using mbs::JointType;
using mbs::kGround;
using mbs::OutputSpec;
using mbs::Quantity;
using mbs::RigidBody;
using mbs::SolverOptions;
using mbs::System;
using mbs::TimeFunction;
using mbs::Vec3;
using mbs::Vec4;

namespace {

/// Reads the job's nested maps with strict keys and messages naming file, key and line.
class Reader {
public:
  explicit Reader(const io::Config& cfg) : cfg_(cfg) {}

  std::string at(const YAML::Node& n) const {
    return n.Mark().line >= 0 ? " (line " + std::to_string(n.Mark().line + 1) + ")" : std::string();
  }
  [[noreturn]] void fail(const YAML::Node& n, const std::string& key, const std::string& msg) const {
    throw InputError(cfg_.source() + ": " + key + at(n) + ": " + msg);
  }
  void require_map(const YAML::Node& n, const std::string& key) const {
    if (!n.IsMap()) fail(n, key, "must be a mapping {key: value, ...}");
  }
  void keys(const YAML::Node& n, const std::string& key, const std::set<std::string>& allowed) const {
    require_map(n, key);
    for (const auto& kv : n) {
      const auto k = kv.first.as<std::string>();
      if (!allowed.count(k)) {
        std::string list;
        for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
        throw InputError(cfg_.source() + ": unknown key '" + key + "." + k + "'" + at(kv.first) + " (" + list + ")");
      }
    }
  }
  double number(const YAML::Node& n, const std::string& key) const {
    try {
      const double v = n.as<double>();
      if (!std::isfinite(v)) fail(n, key, "must be a finite number");
      return v;
    } catch (const YAML::Exception&) {
      fail(n, key, "must be a number");
    }
  }
  double number(const YAML::Node& map, const std::string& key, const char* k, double fallback) const {
    return map[k] ? number(map[k], key + "." + k) : fallback;
  }
  double required(const YAML::Node& map, const std::string& key, const char* k) const {
    if (!map[k]) fail(map, key, std::string("'") + k + "' is missing");
    return number(map[k], key + "." + k);
  }
  std::string text(const YAML::Node& map, const std::string& key, const char* k, const std::string& fallback = {}) const {
    if (!map[k]) {
      if (fallback.empty()) fail(map, key, std::string("'") + k + "' is missing");
      return fallback;
    }
    try {
      return map[k].as<std::string>();
    } catch (const YAML::Exception&) {
      fail(map[k], key + "." + k, "must be a string");
    }
  }
  bool flag(const YAML::Node& map, const std::string& key, const char* k, bool fallback) const {
    if (!map[k]) return fallback;
    try {
      return map[k].as<bool>();
    } catch (const YAML::Exception&) {
      fail(map[k], key + "." + k, "must be true or false");
    }
  }
  std::vector<double> list(const YAML::Node& n, const std::string& key) const {
    if (!n.IsSequence()) fail(n, key, "must be a list of numbers");
    std::vector<double> v;
    for (std::size_t i = 0; i < n.size(); ++i) v.push_back(number(n[i], key + "[" + std::to_string(i) + "]"));
    return v;
  }
  Vec3 vec3(const YAML::Node& map, const std::string& key, const char* k, const Vec3& fallback) const {
    if (!map[k]) return fallback;
    const auto v = list(map[k], key + "." + k);
    if (v.size() != 3) fail(map[k], key + "." + k, "needs 3 numbers [x, y, z], got " + std::to_string(v.size()));
    return Vec3(v[0], v[1], v[2]);
  }
  /// value: c | table: [[t, v], …] | harmonic: {amplitude, frequency, phase, offset} | polynomial: [c0, c1, …]
  TimeFunction function(const YAML::Node& map, const std::string& key, double fallback) const {
    int given = 0;
    TimeFunction f = TimeFunction::constant(fallback);
    if (map["value"]) {
      ++given;
      f = TimeFunction::constant(number(map["value"], key + ".value"));
    }
    if (map["table"]) {
      ++given;
      const YAML::Node t = map["table"];
      if (!t.IsSequence() || t.size() == 0) fail(t, key + ".table", "must be a list of [t, value] rows");
      std::vector<std::pair<double, double>> pts;
      for (std::size_t i = 0; i < t.size(); ++i) {
        const auto row = list(t[i], key + ".table[" + std::to_string(i) + "]");
        if (row.size() != 2) fail(t[i], key + ".table[" + std::to_string(i) + "]", "needs [t, value]");
        pts.emplace_back(row[0], row[1]);
      }
      f = TimeFunction::table(pts, cfg_.source() + ": " + key + ".table" + at(t));
    }
    if (map["harmonic"]) {
      ++given;
      const YAML::Node h = map["harmonic"];
      const std::string hk = key + ".harmonic";
      keys(h, hk, {"amplitude", "frequency", "phase", "offset"});
      f = TimeFunction::harmonic(required(h, hk, "amplitude"), required(h, hk, "frequency"), number(h, hk, "phase", 0.0),
                                 number(h, hk, "offset", 0.0));
    }
    if (map["polynomial"]) {
      ++given;
      f = TimeFunction::polynomial(list(map["polynomial"], key + ".polynomial"));
    }
    if (given > 1) fail(map, key, "give one of value, table, harmonic, polynomial");
    return f;
  }

private:
  const io::Config& cfg_;
};

Quantity parse_quantity(const std::string& s, const Reader& rd, const YAML::Node& n, const std::string& key) {
  static const std::map<std::string, Quantity> q = {
      {"position", Quantity::position}, {"velocity", Quantity::velocity}, {"acceleration", Quantity::acceleration},
      {"angle", Quantity::angle},       {"reaction", Quantity::reaction}, {"energy", Quantity::energy},
      {"drift", Quantity::drift},       {"coordinates", Quantity::coordinates},
      {"angular_velocity", Quantity::angular_velocity}, {"coordinate_rates", Quantity::coordinate_rates},
      {"stress", Quantity::stress}, {"von_mises", Quantity::von_mises}};
  const auto it = q.find(s);
  if (it == q.end())
    rd.fail(n, key, "unknown quantity '" + s +
                        "' (position, velocity, acceleration, angle, reaction, energy, drift, coordinates, coordinate_rates, "
                        "angular_velocity, stress, von_mises)");
  return it->second;
}

/// The translation rows (3 × n) of node @p label of body file @p src in its /reduced/basis
/// ((n_nodes, dofs per node, n), docs/hdf5-schema.md), and the node's mesh-frame position in @p x
/// (from the mesh the source holds). Reads those rows only (a basis can be large). Throws InputError
/// naming the file.
mbs::Mat read_node_rows(const mbs::FlexibleSource& src, std::int64_t label, Eigen::Index n, Vec3& x) {
  const auto it = std::find(src.ids.begin(), src.ids.end(), label);
  if (it == src.ids.end()) throw InputError("node " + std::to_string(label) + " is not in the mesh of " + src.path);
  const auto i = static_cast<Eigen::Index>(it - src.ids.begin());
  x = src.coords.row(i).transpose();
  const io::H5File f(MPI_COMM_SELF, src.path, io::H5File::Mode::read);
  if (!f.exists("/reduced/basis"))
    throw InputError(src.path + " has no /reduced/basis: a body given by matrices has no nodes to follow");
  const auto shape = f.shape("/reduced/basis");
  if (shape.size() != 3 || shape[0] != src.ids.size() || shape[1] < 3 || shape[2] != static_cast<std::uint64_t>(n))
    throw InputError(src.path + ": /reduced/basis is not nodes (" + std::to_string(src.ids.size()) +
                     ") x dofs per node x " + std::to_string(n) + " columns");
  const auto rows = f.read_rows("/reduced/basis", static_cast<std::uint64_t>(i), 1); // dofs per node × n
  return Eigen::Map<const Eigen::Matrix<double, 3, Eigen::Dynamic, Eigen::RowMajor>>(rows.data(), 3, n);
}

} // namespace

mbs::SimulationJob read_simulation_job(const io::Config& cfg) {
  Reader rd(cfg);
  mbs::SimulationJob job;
  System& sys = job.system;
  std::set<std::string> grounds = {"ground"};

  // ---- bodies ----
  const YAML::Node bodies = cfg.node("bodies");
  rd.require_map(bodies, "bodies");
  for (const auto& kv : bodies) {
    const auto name = kv.first.as<std::string>();
    const std::string key = "bodies." + name;
    const YAML::Node b = kv.second;
    rd.require_map(b, key);
    const std::string type = rd.text(b, key, "type", "rigid");
    if (type == "ground") {
      rd.keys(b, key, {"type"});
      grounds.insert(name);
      continue;
    }
    if (type != "rigid" && type != "flexible" && type != "gcms")
      rd.fail(b["type"], key + ".type", "unknown body type '" + type + "' (rigid, ground, flexible, gcms)");
    RigidBody body;
    body.name = name;
    if (type == "flexible" || type == "gcms") { // gcms: a flexible body whose file must be a GCMS body
      rd.keys(b, key, {"type", "body", "position", "orientation", "velocity", "angular_velocity", "damping", "stiffness_scale",
                       "parameters", "frame"});
      FlexibleOptions fo;
      if (b["frame"]) { // the body frame held at an interface (seed 000's CB bars); default the mean axes
        rd.keys(b["frame"], key + ".frame", {"interface"});
        fo.frame_interface = rd.text(b["frame"], key + ".frame", "interface");
      }
      if (b["damping"]) {
        rd.keys(b["damping"], key + ".damping", {"ratio"});
        fo.damping_ratio = rd.required(b["damping"], key + ".damping", "ratio");
        if (fo.damping_ratio < 0) rd.fail(b["damping"], key + ".damping.ratio", "must be >= 0");
      }
      fo.stiffness_scale = rd.number(b, key, "stiffness_scale", 1.0);
      if (fo.stiffness_scale <= 0) rd.fail(b["stiffness_scale"], key + ".stiffness_scale", "must be > 0");
      const std::string file = cfg.resolve_path(rd.text(b, key, "body"));
      std::shared_ptr<const mbs::FlexibleSource> src;
      try {
        src = mbs::read_flexible_source(file);
      } catch (const InputError& e) {
        rd.fail(b["body"], key + ".body", e.what());
      }
      if (type == "gcms" && src->nominal.method != "gcms")
        rd.fail(b["type"], key + ".type", file + " is a " + src->nominal.method + " body, not gcms (reduce.method: gcms)");
      fo.gcms = type == "gcms";
      if (fo.gcms && (b["damping"] || b["frame"] || b["parameters"]))
        rd.fail(b, key, "a gcms body takes no damping, frame or parameters (seed 001's formulation has none)");
      if (b["parameters"]) { // a stochastic body evaluated at these parameters (the others at their means)
        const std::string pk = key + ".parameters";
        rd.require_map(b["parameters"], pk);
        if (!src->stochastic) rd.fail(b["parameters"], pk, file + " has no /stochastic_body (a deterministic body)");
        std::vector<double> theta = src->means();
        const auto& names = src->stochastic->names;
        for (const auto& kv : b["parameters"]) {
          const auto pname = kv.first.as<std::string>();
          const auto it = std::find(names.begin(), names.end(), pname);
          if (it == names.end()) {
            std::string list;
            for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
            rd.fail(kv.first, pk, "'" + pname + "' is not a parameter of the stochastic body (" + list + ")");
          }
          theta[static_cast<std::size_t>(it - names.begin())] = rd.number(kv.second, pk + "." + pname);
        }
        try {
          body.flex = src->data(fo, &theta);
        } catch (const InputError& e) {
          rd.fail(b["parameters"], pk, e.what());
        }
      } else {
        try {
          body.flex = src->data(fo);
        } catch (const InputError& e) {
          rd.fail(b, key, e.what());
        }
      }
      job.flexible_files[name] = file;
      job.sources[name] = src;
      job.flexible_options[name] = fo;
    } else {
      rd.keys(b, key, {"type", "mass", "inertia", "position", "orientation", "velocity", "angular_velocity"});
      body.mass = rd.required(b, key, "mass");
      if (!b["inertia"]) rd.fail(b, key, "'inertia' is missing ([Ixx, Iyy, Izz], 6 or 9 values, about the centre of mass)");
      const auto in = rd.list(b["inertia"], key + ".inertia");
      if (in.size() == 3) body.inertia = Vec3(in[0], in[1], in[2]).asDiagonal();
      else if (in.size() == 6)
        body.inertia << in[0], in[3], in[5], in[3], in[1], in[4], in[5], in[4], in[2]; // Ixx Iyy Izz Ixy Iyz Ixz
      else if (in.size() == 9) body.inertia = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(in.data());
      else rd.fail(b["inertia"], key + ".inertia", "needs 3 (principal), 6 (Ixx Iyy Izz Ixy Iyz Ixz) or 9 values");
      // Physical checks before the solver (a massless body the joints hold is allowed; the saddle
      // matrix's rank test names it otherwise).
      if (!(std::isfinite(body.mass) && body.mass >= 0))
        rd.fail(b["mass"], key + ".mass", "must be finite and >= 0, got " + std::to_string(body.mass));
      if (!body.inertia.allFinite()) rd.fail(b["inertia"], key + ".inertia", "must be finite");
      const double scale = body.inertia.cwiseAbs().maxCoeff();
      if ((body.inertia - body.inertia.transpose()).cwiseAbs().maxCoeff() > 1e-12 * scale)
        rd.fail(b["inertia"], key + ".inertia", "is not symmetric (Ixy = Iyx, Iyz = Izy, Ixz = Izx)");
      const Eigen::Vector3d pm = Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(body.inertia).eigenvalues();
      const double tol = 1e-9 * scale;
      if (pm(0) < -tol)
        rd.fail(b["inertia"], key + ".inertia", "is not positive semi-definite (principal moment " + std::to_string(pm(0)) + ")");
      if (pm(2) > pm(0) + pm(1) + tol) {
        std::ostringstream os;
        os << "violates the triangle inequality: principal moments " << pm(0) << ", " << pm(1) << ", " << pm(2)
           << " (each must be at most the sum of the other two for a real mass distribution)";
        rd.fail(b["inertia"], key + ".inertia", os.str());
      }
    }
    body.position = rd.vec3(b, key, "position", Vec3::Zero());
    if (b["orientation"]) {
      const YAML::Node o = b["orientation"];
      const std::string ok = key + ".orientation";
      rd.keys(o, ok, {"axis", "angle", "euler_parameters"});
      if (o["euler_parameters"]) {
        if (o["axis"] || o["angle"]) rd.fail(o, ok, "give either axis + angle or euler_parameters");
        const auto e = rd.list(o["euler_parameters"], ok + ".euler_parameters");
        if (e.size() != 4) rd.fail(o, ok + ".euler_parameters", "needs [e0, e1, e2, e3]");
        const Vec4 p(e[0], e[1], e[2], e[3]);
        if (std::abs(p.norm() - 1.0) > 1e-6)
          rd.fail(o, ok + ".euler_parameters", "must have unit norm, got " + std::to_string(p.norm()));
        body.orientation = p.normalized();
      } else {
        const Vec3 axis = rd.vec3(o, ok, "axis", Vec3::UnitZ());
        if (axis.norm() < 1e-12) rd.fail(o, ok + ".axis", "is zero");
        body.orientation = mbs::from_axis_angle(axis, rd.number(o, ok, "angle", 0.0));
      }
    }
    body.velocity = rd.vec3(b, key, "velocity", Vec3::Zero());
    body.angular_velocity = rd.vec3(b, key, "angular_velocity", Vec3::Zero());
    try {
      sys.add_body(body);
    } catch (const InputError& e) {
      throw InputError(cfg.source() + ": " + key + rd.at(b) + ": " + e.what());
    }
  }
  auto body_of = [&](const std::string& name, const std::string& who) {
    return grounds.count(name) ? kGround : sys.body_index(name, cfg.source() + ": " + who);
  };

  // ---- plane: every rigid body held in one plane (2-D mechanisms with the *-2d joints) ----
  // A planar joint to the ground per body, named "<body>.plane" (3 rows: on the plane, no tilt).
  if (cfg.has("plane")) {
    const YAML::Node pl = cfg.node("plane");
    if (!pl.IsMap()) rd.fail(pl, "plane", "must be a map {normal, point}");
    rd.keys(pl, "plane", {"normal", "point"});
    const Vec3 normal = rd.vec3(pl, "plane", "normal", Vec3::UnitZ());
    const Vec3 origin = rd.vec3(pl, "plane", "point", Vec3::Zero());
    if (!(normal.norm() > 1e-12)) rd.fail(pl, "plane.normal", "must not be zero");
    for (std::size_t b = 0; b < sys.bodies().size(); ++b) {
      const auto& body = sys.bodies()[b];
      if (body.flex)
        rd.fail(pl, "plane", "body '" + body.name + "' is flexible: hold it with a planar joint on one of its interfaces");
      const double off = normal.normalized().dot(body.position - origin);
      if (std::abs(off) > 1e-9 * std::max(1.0, body.position.norm()))
        rd.fail(pl, "plane", "body '" + body.name + "' is " + std::to_string(off) + " m off the plane");
      JointSpec js;
      js.name = body.name + ".plane";
      js.type = JointType::planar;
      js.body_i = kGround;
      js.body_j = static_cast<int>(b);
      js.point = body.position;
      js.axis = normal;
      try {
        sys.add_joint(js);
      } catch (const InputError& e) {
        throw InputError(cfg.source() + ": plane" + rd.at(pl) + ": " + e.what());
      }
    }
  }

  // ---- joints ----
  if (cfg.has("joints")) {
    const YAML::Node joints = cfg.node("joints");
    if (!joints.IsSequence()) rd.fail(joints, "joints", "must be a list of joints");
    for (std::size_t i = 0; i < joints.size(); ++i) {
      const YAML::Node j = joints[i];
      std::string key = "joints[" + std::to_string(i) + "]";
      rd.keys(j, key, {"name", "type", "bodies", "point", "point2", "axis", "axis2", "distance", "value", "table",
                       "harmonic", "polynomial", "interface"});
      JointSpec js;
      js.name = rd.text(j, key, "name");
      key += " (" + js.name + ")";
      try {
        js.type = mbs::parse_joint_type(rd.text(j, key, "type"));
      } catch (const InputError& e) {
        rd.fail(j["type"], key + ".type", e.what());
      }
      if (!j["bodies"] || !j["bodies"].IsSequence() || j["bodies"].size() != 2)
        rd.fail(j, key, "'bodies' needs two body names [first, second]");
      const std::string who = "joint '" + js.name + "'" + rd.at(j);
      js.body_i = body_of(j["bodies"][0].as<std::string>(), who);
      js.body_j = body_of(j["bodies"][1].as<std::string>(), who);
      if (j["interface"]) { // one name (for the flexible one of the two bodies) or [first, second]
        const YAML::Node in = j["interface"];
        auto flexible = [&](int b) { return b != kGround && sys.bodies()[b].flex != nullptr; };
        if (in.IsSequence()) {
          if (in.size() != 2) rd.fail(in, key + ".interface", "needs one name or two [first, second] (null for a rigid body)");
          if (!in[0].IsNull()) js.interface_i = in[0].as<std::string>();
          if (!in[1].IsNull()) js.interface_j = in[1].as<std::string>();
        } else {
          const std::string name = rd.text(j, key, "interface");
          if (flexible(js.body_i) && flexible(js.body_j))
            rd.fail(in, key + ".interface", "both bodies are flexible: give [interface on the first, interface on the second]");
          if (!flexible(js.body_i) && !flexible(js.body_j))
            rd.fail(in, key + ".interface", "neither body is flexible; interfaces belong to flexible bodies");
          (flexible(js.body_i) ? js.interface_i : js.interface_j) = name;
        }
        js.interface_i = io::upper(js.interface_i);
        js.interface_j = io::upper(js.interface_j);
      }
      js.point = rd.vec3(j, key, "point", Vec3::Zero());
      js.has_point2 = static_cast<bool>(j["point2"]);
      js.point2 = rd.vec3(j, key, "point2", js.point);
      js.axis = rd.vec3(j, key, "axis", Vec3::UnitZ());
      js.has_axis2 = static_cast<bool>(j["axis2"]);
      js.axis2 = rd.vec3(j, key, "axis2", Vec3::UnitX());
      js.distance = rd.number(j, key, "distance", -1.0);
      if (j["distance"] && !(js.distance >= 0 && std::isfinite(js.distance)))
        rd.fail(j["distance"], key + ".distance", "must be finite and >= 0 (leave it out for the initial distance)");
      const bool driver = js.type == JointType::angle_driver || js.type == JointType::translation_driver;
      if (!driver && (j["value"] || j["table"] || j["harmonic"] || j["polynomial"]))
        rd.fail(j, key, "value / table / harmonic / polynomial apply to angle-driver and translation-driver joints only");
      if (driver) js.motion = rd.function(j, key, 0.0);
      try {
        sys.add_joint(js);
      } catch (const InputError& e) {
        throw InputError(cfg.source() + ": " + key + rd.at(j) + ": " + e.what());
      }
    }
  }

  // ---- forces ----
  if (cfg.has("forces")) {
    const YAML::Node forces = cfg.node("forces");
    if (!forces.IsSequence()) rd.fail(forces, "forces", "must be a list of forces");
    for (std::size_t i = 0; i < forces.size(); ++i) {
      const YAML::Node f = forces[i];
      const std::string key = "forces[" + std::to_string(i) + "]";
      rd.require_map(f, key);
      ForceSpec fs;
      const std::string type = rd.text(f, key, "type");
      const std::string who = "force " + key + rd.at(f);
      if (type == "gravity") {
        rd.keys(f, key, {"type", "g"});
        fs.type = ForceType::gravity;
        fs.direction = rd.vec3(f, key, "g", Vec3(0, -9.81, 0));
      } else if (type == "torque" || type == "force") {
        rd.keys(f, key, {"type", "body", "body2", "axis", "frame", "point", "interface", "value", "table", "harmonic",
                         "polynomial"});
        fs.type = type == "torque" ? ForceType::torque : ForceType::force;
        fs.body = body_of(rd.text(f, key, "body"), who);
        if (f["body2"]) {
          if (type == "force") rd.fail(f["body2"], key + ".body2", "a force has no reaction body (use a spring or a torque)");
          fs.body2 = body_of(rd.text(f, key, "body2"), who);
        }
        fs.direction = rd.vec3(f, key, "axis", Vec3::Zero());
        if (fs.direction.norm() < 1e-12) rd.fail(f, key, "'axis' is missing or zero");
        const std::string frame = rd.text(f, key, "frame", "global");
        if (frame != "global" && frame != "body") rd.fail(f["frame"], key + ".frame", "must be global or body");
        fs.body_frame = frame == "body";
        Vec3 default_point = fs.body == kGround ? Vec3::Zero() : sys.bodies()[fs.body].position;
        if (f["interface"]) {
          if (fs.body == kGround || !sys.bodies()[fs.body].flex)
            rd.fail(f["interface"], key + ".interface", "applies to a force or torque on a flexible body");
          fs.interface = io::upper(rd.text(f, key, "interface"));
          try { // default point: the interface's reference point at t = 0
            const auto& body = sys.bodies()[fs.body];
            default_point = body.position + mbs::rotation(body.orientation) * body.flex->interface(fs.interface, who).ref;
          } catch (const InputError& e) {
            rd.fail(f["interface"], key + ".interface", e.what());
          }
        }
        fs.point = rd.vec3(f, key, "point", default_point);
        fs.value = rd.function(f, key, 1.0);
      } else if (type == "rotational-damper") {
        rd.keys(f, key, {"type", "body", "body2", "axis", "frame", "damping"});
        fs.type = ForceType::rotational_damper;
        fs.body = body_of(rd.text(f, key, "body"), who);
        if (f["body2"]) fs.body2 = body_of(rd.text(f, key, "body2"), who);
        fs.direction = rd.vec3(f, key, "axis", Vec3::Zero());
        if (fs.direction.norm() < 1e-12) rd.fail(f, key, "'axis' is missing or zero");
        const std::string frame = rd.text(f, key, "frame", "global");
        if (frame != "global" && frame != "body") rd.fail(f["frame"], key + ".frame", "must be global or body");
        fs.body_frame = frame == "body";
        if (!f["damping"]) rd.fail(f, key, "'damping' is missing (N·m·s/rad)");
        fs.damping = rd.number(f, key, "damping", 0.0);
        if (fs.damping < 0) rd.fail(f["damping"], key + ".damping", "must be >= 0");
      } else if (type == "spring") {
        rd.keys(f, key, {"type", "bodies", "point", "point2", "stiffness", "damping", "length"});
        fs.type = ForceType::spring;
        if (!f["bodies"] || !f["bodies"].IsSequence() || f["bodies"].size() != 2)
          rd.fail(f, key, "'bodies' needs two body names");
        fs.body = body_of(f["bodies"][0].as<std::string>(), who);
        fs.body2 = body_of(f["bodies"][1].as<std::string>(), who);
        fs.point = rd.vec3(f, key, "point", Vec3::Zero());
        fs.point2 = rd.vec3(f, key, "point2", Vec3::Zero());
        fs.stiffness = rd.number(f, key, "stiffness", 0.0);
        fs.damping = rd.number(f, key, "damping", 0.0);
        fs.length = rd.number(f, key, "length", -1.0);
        if (fs.stiffness < 0 || fs.damping < 0) rd.fail(f, key, "stiffness and damping must be >= 0");
      } else {
        rd.fail(f["type"], key + ".type", "unknown force type '" + type + "' (torque, force, gravity, spring, rotational-damper)");
      }
      try {
        sys.add_force(fs);
      } catch (const InputError& e) {
        throw InputError(cfg.source() + ": " + key + rd.at(f) + ": " + e.what());
      }
    }
  }

  // ---- solver ----
  SolverOptions& o = job.solver;
  if (cfg.has("solver")) {
    const YAML::Node s = cfg.node("solver");
    rd.keys(s, "solver", {"type", "alpha", "rho_inf", "step", "start", "end", "tol", "max_iter", "adaptive", "rtol",
                          "atol", "min_step", "max_step", "output_step", "project", "quadratic_velocity", "matrix",
                          "project_velocities", "linear_algebra", "formulation", "drift_limit"});
    // newmark: seed 001's Newmark (β = 1/4, γ = 1/2), i.e. the HHT scheme with α = 0.
    const std::string type = rd.text(s, "solver", "type", "hht");
    const bool newmark = type == "newmark";
    try {
      o.scheme = newmark ? mbs::Scheme::hht : mbs::parse_scheme(type);
    } catch (const InputError& e) {
      rd.fail(s["type"], "solver.type", std::string(e.what()) + " or newmark (hht with alpha 0)");
    }
    if (newmark && s["alpha"]) rd.fail(s["alpha"], "solver.alpha", "newmark is hht with alpha 0; give type: hht to choose alpha");
    o.alpha = rd.number(s, "solver", "alpha", newmark ? 0.0 : o.alpha);
    o.rho_inf = rd.number(s, "solver", "rho_inf", o.rho_inf);
    o.step = rd.number(s, "solver", "step", o.step);
    o.start = rd.number(s, "solver", "start", o.start);
    o.end = rd.number(s, "solver", "end", o.end);
    o.tol = rd.number(s, "solver", "tol", o.tol);
    o.max_iter = static_cast<int>(rd.number(s, "solver", "max_iter", o.max_iter));
    o.adaptive = rd.flag(s, "solver", "adaptive", o.adaptive);
    o.rtol = rd.number(s, "solver", "rtol", o.rtol);
    o.atol = rd.number(s, "solver", "atol", o.atol);
    o.min_step = rd.number(s, "solver", "min_step", std::min(o.min_step, o.step));
    o.max_step = rd.number(s, "solver", "max_step", o.max_step);
    o.output_step = rd.number(s, "solver", "output_step", o.output_step);
    o.project = rd.flag(s, "solver", "project", o.project);
    o.project_velocities = rd.flag(s, "solver", "project_velocities", o.project_velocities);
    const std::string matrix = rd.text(s, "solver", "matrix", "blocks");
    if (matrix != "blocks" && matrix != "finite-difference")
      rd.fail(s["matrix"], "solver.matrix", "must be blocks or finite-difference, got '" + matrix + "'");
    o.fd_matrix = matrix == "finite-difference";
    const std::string formulation = rd.text(s, "solver", "formulation", "stabilized");
    if (formulation != "stabilized" && formulation != "index-3")
      rd.fail(s["formulation"], "solver.formulation", "must be stabilized or index-3, got '" + formulation + "'");
    o.stabilized = formulation == "stabilized";
    o.drift_limit = rd.number(s, "solver", "drift_limit", o.drift_limit);
    try {
      o.linear_algebra = mbs::parse_linear_algebra(rd.text(s, "solver", "linear_algebra", "auto"));
    } catch (const InputError& e) {
      rd.fail(s["linear_algebra"], "solver.linear_algebra", e.what());
    }
    sys.set_quadratic_velocity(rd.flag(s, "solver", "quadratic_velocity", true));
  }
  try {
    o.validate();
  } catch (const InputError& e) {
    throw InputError(cfg.source() + ": " + e.what());
  }

  // ---- outputs ----
  if (cfg.has("outputs")) {
    const YAML::Node outs = cfg.node("outputs");
    if (!outs.IsSequence()) rd.fail(outs, "outputs", "must be a list");
    std::set<std::string> names;
    for (std::size_t i = 0; i < outs.size(); ++i) {
      const YAML::Node n = outs[i];
      const std::string key = "outputs[" + std::to_string(i) + "]";
      rd.keys(n, key, {"name", "quantity", "body", "joint", "point", "interface", "node", "set"});
      OutputSpec os;
      os.name = rd.text(n, key, "name");
      if (os.name.find('/') != std::string::npos) rd.fail(n["name"], key + ".name", "must not contain '/'");
      if (!names.insert(os.name).second) rd.fail(n, key, "output name '" + os.name + "' is used twice");
      os.quantity = parse_quantity(rd.text(n, key, "quantity"), rd, n, key + ".quantity");
      const bool needs_body = os.quantity == Quantity::position || os.quantity == Quantity::velocity ||
                              os.quantity == Quantity::acceleration || os.quantity == Quantity::coordinates ||
                              os.quantity == Quantity::coordinate_rates || os.quantity == Quantity::angular_velocity;
      const bool needs_joint = os.quantity == Quantity::angle || os.quantity == Quantity::reaction;
      const bool stress = os.quantity == Quantity::stress || os.quantity == Quantity::von_mises;
      const bool needs_point = os.quantity == Quantity::position || os.quantity == Quantity::velocity ||
                               os.quantity == Quantity::acceleration;
      if (stress) {
        // Recovered stresses: a flexible body whose file has /reduced/stress_modes, at a node (label
        // of the body file's mesh) or, for von_mises, the largest over a node set of that mesh.
        os.body = body_of(rd.text(n, key, "body"), "output '" + os.name + "'" + rd.at(n));
        if (os.body == kGround || !sys.bodies()[os.body].flex) rd.fail(n, key, "stress outputs need a flexible body");
        const auto& fd = *sys.bodies()[os.body].flex;
        if (!fd.stress_modes)
          rd.fail(n, key, fd.source + " has no /reduced/stress_modes (reduce it with reduce.stress_modes: true; stochastic "
                                      "bodies carry none)");
        if (n["point"] || n["interface"] || n["joint"]) rd.fail(n, key, "stress outputs take 'node' or 'set', not 'point', 'interface' or 'joint'");
        if (static_cast<bool>(n["node"]) == static_cast<bool>(n["set"])) rd.fail(n, key, "give one of 'node' (a node label) and 'set'");
        if (n["set"] && os.quantity == Quantity::stress)
          rd.fail(n["set"], key + ".set", "a stress tensor is given at one node: use 'node', or von_mises for the largest over a set");
        const io::H5File f(MPI_COMM_SELF, fd.source, io::H5File::Mode::read);
        const auto ids = f.read_all_int("/mesh/node_ids");
        if (n["node"]) {
          const auto label = static_cast<std::int64_t>(rd.number(n, key, "node", 0.0));
          const auto it = std::find(ids.begin(), ids.end(), label);
          if (it == ids.end()) rd.fail(n["node"], key + ".node", "node " + std::to_string(label) + " is not in the mesh of " + fd.source);
          os.nodes.push_back(it - ids.begin());
        } else {
          const std::string set = io::upper(rd.text(n, key, "set"));
          if (!f.exists("/mesh/node_sets/" + set)) rd.fail(n["set"], key + ".set", "node set '" + set + "' is not in " + fd.source);
          os.nodes = f.read_all_int("/mesh/node_sets/" + set);
          if (os.nodes.empty()) rd.fail(n["set"], key + ".set", "node set '" + set + "' is empty");
        }
      } else if (n["set"] || (n["node"] && !needs_point)) {
        rd.fail(n, key, "'node' applies to position, velocity, acceleration, stress and von_mises outputs, 'set' to "
                        "von_mises");
      }
      if (needs_body) {
        os.body = body_of(rd.text(n, key, "body"), "output '" + os.name + "'" + rd.at(n));
        if (os.body == kGround) rd.fail(n, key, "the ground does not move");
        os.point = rd.vec3(n, key, "point", Vec3::Zero());
        if (n["node"]) {
          // A node of a flexible body's mesh, deformed: its mesh-frame position plus the translation
          // rows of /reduced/basis at that node (Φ_node ξ = Φ_node V η); rigid bodies have no mesh.
          if (n["point"] || n["interface"]) rd.fail(n, key, "give 'node' or 'point' (with 'interface'), not both");
          const auto& body = sys.bodies()[os.body];
          if (!body.flex) rd.fail(n["node"], key + ".node", "body '" + body.name + "' is not flexible");
          const auto& src = *job.sources.at(body.name); // every flexible body has one
          if (src.stochastic)
            rd.fail(n["node"], key + ".node",
                    "body '" + body.name + "' is stochastic: its basis changes with θ and its file holds the nominal one; "
                    "give a point on an interface instead");
          const auto label = static_cast<std::int64_t>(rd.number(n, key, "node", 0.0));
          try {
            os.node_rows = read_node_rows(src, label, body.flex->V.rows(), os.point);
          } catch (const InputError& e) {
            rd.fail(n["node"], key + ".node", e.what());
          }
          os.node = label;
          os.L = os.node_rows * body.flex->V;
        } else if (n["interface"]) {
          if (!sys.bodies()[os.body].flex) rd.fail(n["interface"], key + ".interface", "body is not flexible");
          try {
            os.interface = io::upper(rd.text(n, key, "interface"));
            // A GCMS body's interface point is its reference point (point_map refuses another): the default.
            if (sys.gcms(os.body) && !n["point"])
              os.point = sys.bodies()[os.body].flex->interface(os.interface, "output '" + os.name + "'").ref;
            os.L = sys.point_map(os.body, os.interface, os.point, "output '" + os.name + "'");
          } catch (const InputError& e) {
            rd.fail(n["interface"], key + ".interface", e.what());
          }
        }
        if (sys.gcms(os.body) && needs_point && !n["node"] && !n["interface"])
          rd.fail(n, key, "body '" + sys.bodies()[os.body].name + "' is a GCMS body, whose frame does not move: give a 'node' "
                          "or an 'interface' (its reference point)");
        if (sys.gcms(os.body) && (os.quantity == Quantity::coordinates || os.quantity == Quantity::coordinate_rates))
          rd.fail(n, key, "body '" + sys.bodies()[os.body].name + "' is a GCMS body: its frame is held (its coordinates q "
                          "are /bodies/" + sys.bodies()[os.body].name + "/elastic of the result)");
        if (sys.gcms(os.body) && os.quantity == Quantity::angular_velocity)
          rd.fail(n, key, "body '" + sys.bodies()[os.body].name + "' is a GCMS body: its frame does not turn (use node "
                          "velocities or the coordinates)");
      } else if (!stress && (n["body"] || n["point"] || n["interface"])) {
        rd.fail(n, key, "'body' and 'point' apply to position, velocity, acceleration, coordinates, coordinate_rates, "
                       "angular_velocity");
      }
      if (needs_joint) {
        const std::string jn = rd.text(n, key, "joint");
        for (std::size_t j = 0; j < sys.joints().size(); ++j)
          if (sys.joints()[j].name == jn) os.joint = static_cast<int>(j);
        if (os.joint < 0) rd.fail(n, key, "joint '" + jn + "' does not exist");
        if (os.quantity == Quantity::angle) {
          const JointType t = sys.joints()[os.joint].type;
          for (int jb : {sys.joints()[os.joint].body_i, sys.joints()[os.joint].body_j})
            if (sys.gcms(jb)) rd.fail(n, key, "joint '" + jn + "' is on the GCMS body '" + sys.bodies()[jb].name + "', which has no angle");
          if (t != JointType::revolute && t != JointType::cylindrical && t != JointType::angle_driver &&
              t != JointType::revolute_2d)
            rd.fail(n, key, "an angle needs a revolute, revolute-2d, cylindrical or angle-driver joint ('" + jn + "' is " +
                                mbs::joint_type_name(t) + ")");
        }
      } else if (n["joint"]) {
        rd.fail(n, key, "'joint' applies to angle and reaction outputs");
      }
      job.outputs.push_back(os);
    }
  }
  job.animation = cfg.get<bool>("animation", true);
  job.output_path = cfg.resolve_output(cfg.get<std::string>("output", "simulation.h5"));
  return job;
}

} // namespace flexuq::app
