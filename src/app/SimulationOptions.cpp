// SPDX-License-Identifier: MIT
#include "flexuq/app/SimulationOptions.hpp"
#include "flexuq/app/EnumOptions.hpp"
#include "flexuq/app/JobKeys.hpp"

#include "flexuq/config/NodeReader.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/io/Mesh.hpp"
#include "flexuq/mbs/MassProperties.hpp"

#include <cmath>
#include <set>

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
using mbs::TimeFunction;
using mbs::Vec3;
using mbs::Vec4;

namespace {

/// io::NodeReader (strict keys, messages naming file, key and line) with the simulate job's values:
/// vectors, time functions and the job keys the build's checks name.
class Reader : public io::NodeReader {
public:
  explicit Reader(const io::Config& cfg) : io::NodeReader(cfg.source()) {}

  /// @p key at @p n, for the checks the build makes (workflow::JobKey::fail words them as fail() does).
  workflow::JobKey job_key(const YAML::Node& n, const std::string& key) const { return {source(), key, line(n)}; }
  Vec3 vec3(const YAML::Node& map, const std::string& key, const char* k, const Vec3& fallback) const {
    const auto v = fixed_list(map, key, k, 3, "[x, y, z]", {fallback(0), fallback(1), fallback(2)});
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
      f = TimeFunction::table(pts, source() + ": " + key + ".table" + at(t));
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
};

/// The parse pass: every key of the job into a workflow::SimulationSpec, with the checks that need
/// only the job file; bodies are known by name, type and pose (their files are read by the build).
class Parser {
public:
  explicit Parser(const io::Config& cfg) : cfg_(cfg), rd_(cfg) {}

  workflow::SimulationSpec parse() {
    bodies();
    plane();
    joints();
    forces();
    solver();
    outputs();
    spec_.animation = cfg_.get<bool>("animation", true);
    spec_.output_path = cfg_.resolve_output(cfg_.get<std::string>("output", "simulation.h5"));
    return std::move(spec_);
  }

private:
  /// A joint as outputs name it: the GCMS bodies' frame joints, the plane's, the job's.
  struct KnownJoint {
    std::string name;
    JointType type;
    int body_i, body_j;
  };

  const RigidBody& body_at(int b) const { return spec_.bodies[static_cast<std::size_t>(b)].body; }
  bool flexible(int b) const { return b != kGround && spec_.bodies[static_cast<std::size_t>(b)].flexible.has_value(); }
  /// The body of a `type: gcms` entry: its frame is held, its interface points are its reference points.
  bool gcms(int b) const { return flexible(b) && spec_.bodies[static_cast<std::size_t>(b)].flexible->options.gcms; }

  /// The System index of body @p name (kGround for a ground); the message as System::body_index words it.
  int body_of(const std::string& name, const std::string& who) const {
    if (grounds_.count(name)) return kGround;
    for (std::size_t b = 0; b < spec_.bodies.size(); ++b)
      if (spec_.bodies[b].body.name == name) return static_cast<int>(b);
    std::string list = "ground";
    for (const auto& b : spec_.bodies) list += ", " + b.body.name;
    throw InputError(cfg_.source() + ": " + who + ": body '" + name + "' does not exist (bodies: " + list + ")");
  }

  void bodies() {
    const YAML::Node bodies = cfg_.node("bodies");
    rd_.require_map(bodies, "bodies");
    for (const auto& kv : bodies) {
      const auto name = kv.first.as<std::string>();
      const std::string key = "bodies." + name;
      const YAML::Node b = kv.second;
      rd_.require_map(b, key);
      const std::string type = rd_.text(b, key, "type", "rigid");
      if (type == "ground") {
        rd_.keys(b, key, {"type"});
        grounds_.insert(name);
        continue;
      }
      if (type != "rigid" && type != "planar" && type != "flexible" && type != "gcms" && type != "gs" && type != "gs3d")
        rd_.fail(b["type"], key + ".type",
                 "unknown body type '" + type + "' (rigid, planar, ground, flexible, gcms, gs, gs3d)");
      workflow::BodySpec bs;
      bs.body.name = name;
      bs.key = rd_.job_key(b, key);
      if (type == "flexible" || type == "gcms" || type == "gs" || type == "gs3d") bs.flexible = flexible_body(b, key, type);
      else rigid_body(b, key, bs.body);
      pose(b, key, bs.body);
      if (type == "planar") planar_body(b, key, bs.body);
      if (bs.flexible && (bs.flexible->options.gcms || bs.flexible->options.gs || bs.flexible->options.gs3d))
        // System::add_body holds its frame by this joint
        joint_names_.push_back({name + ".frame", JointType::fixed, kGround, static_cast<int>(spec_.bodies.size())});
      spec_.bodies.push_back(std::move(bs));
    }
  }

  /// gcms: a flexible body whose file must be a GCMS body.
  workflow::FlexibleBodySpec flexible_body(const YAML::Node& b, const std::string& key, const std::string& type) const {
    rd_.keys(b, key, {"type", "body", "position", "orientation", "velocity", "angular_velocity", "damping", "stiffness_scale",
                      "parameters", "frame"});
    workflow::FlexibleBodySpec fs;
    FlexibleOptions& fo = fs.options;
    if (b["frame"]) { // the body frame held at an interface (seed 000's CB bars); default the mean axes
      rd_.keys(b["frame"], key + ".frame", {"interface"});
      fo.frame_interface = rd_.text(b["frame"], key + ".frame", "interface");
    }
    if (b["damping"]) {
      rd_.keys(b["damping"], key + ".damping", {"ratio"});
      fo.damping_ratio = rd_.required(b["damping"], key + ".damping", "ratio");
      if (fo.damping_ratio < 0) rd_.fail(b["damping"], key + ".damping.ratio", "must be >= 0");
    }
    fo.stiffness_scale = rd_.number(b, key, "stiffness_scale", 1.0);
    if (fo.stiffness_scale <= 0) rd_.fail(b["stiffness_scale"], key + ".stiffness_scale", "must be > 0");
    fs.file = cfg_.resolve_path(rd_.text(b, key, "body"));
    fs.key = rd_.job_key(b["body"], key + ".body");
    fs.type_key = rd_.job_key(b["type"], key + ".type");
    fo.gcms = type == "gcms";
    fo.gs = type == "gs";
    fo.gs3d = type == "gs3d";
    if ((fo.gs || fo.gs3d) && (b["damping"] || b["parameters"] || !b["frame"]))
      rd_.fail(b, key, "a " + type + " body needs frame: {interface: <SET>} (the interface point that carries its frame) and takes "
                       "no damping or parameters");
    if (fo.gcms && (b["damping"] || b["frame"] || b["parameters"]))
      rd_.fail(b, key, "a gcms body takes no damping, frame or parameters (seed 001's formulation has none)");
    if (b["parameters"]) { // a stochastic body evaluated at these parameters (the others at their means)
      const std::string pk = key + ".parameters";
      rd_.require_map(b["parameters"], pk);
      fs.at_parameters = true;
      fs.parameters_key = rd_.job_key(b["parameters"], pk);
      for (const auto& kv : b["parameters"]) {
        const auto pname = kv.first.as<std::string>();
        fs.parameters.push_back({pname, rd_.number(kv.second, pk + "." + pname), rd_.job_key(kv.first, pk)});
      }
    }
    return fs;
  }

  void rigid_body(const YAML::Node& b, const std::string& key, RigidBody& body) const {
    rd_.keys(b, key, {"type", "mass", "inertia", "position", "orientation", "velocity", "angular_velocity"});
    body.mass = rd_.required(b, key, "mass");
    if (!b["inertia"]) rd_.fail(b, key, "'inertia' is missing ([Ixx, Iyy, Izz], 6 or 9 values, about the centre of mass)");
    const auto in = rd_.list(b["inertia"], key + ".inertia");
    if (in.size() == 3) body.inertia = Vec3(in[0], in[1], in[2]).asDiagonal();
    else if (in.size() == 6)
      body.inertia << in[0], in[3], in[5], in[3], in[1], in[4], in[5], in[4], in[2]; // Ixx Iyy Izz Ixy Iyz Ixz
    else if (in.size() == 9) body.inertia = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(in.data());
    else rd_.fail(b["inertia"], key + ".inertia", "needs 3 (principal), 6 (Ixx Iyy Izz Ixy Iyz Ixz) or 9 values");
    try {
      mbs::check_mass_properties(body);
    } catch (const OptionError& e) {
      rd_.fail(b[e.option()], key + "." + e.option(), e.what());
    }
  }

  /// type: planar (mbs/PlanarBody.hpp): a rigid body in planar coordinates [x, y, e0, e3], moving in
  /// the plane z = position.z: its pose and velocities must keep it there.
  void planar_body(const YAML::Node& b, const std::string& key, RigidBody& body) const {
    body.planar = true;
    if (std::abs(body.orientation(1)) > 1e-12 || std::abs(body.orientation(2)) > 1e-12)
      rd_.fail(b["orientation"], key + ".orientation", "a planar body turns about z only (axis [0, 0, 1])");
    if (body.velocity.z() != 0.0) rd_.fail(b["velocity"], key + ".velocity", "a planar body moves in the xy plane (z part must be 0)");
    if (body.angular_velocity.x() != 0.0 || body.angular_velocity.y() != 0.0)
      rd_.fail(b["angular_velocity"], key + ".angular_velocity", "a planar body turns about z only ([0, 0, w])");
  }

  void pose(const YAML::Node& b, const std::string& key, RigidBody& body) const {
    body.position = rd_.vec3(b, key, "position", Vec3::Zero());
    if (b["orientation"]) {
      const YAML::Node o = b["orientation"];
      const std::string ok = key + ".orientation";
      rd_.keys(o, ok, {"axis", "angle", "euler_parameters"});
      if (o["euler_parameters"]) {
        if (o["axis"] || o["angle"]) rd_.fail(o, ok, "give either axis + angle or euler_parameters");
        const auto e = rd_.list(o["euler_parameters"], ok + ".euler_parameters");
        if (e.size() != 4) rd_.fail(o, ok + ".euler_parameters", "needs [e0, e1, e2, e3]");
        const Vec4 p(e[0], e[1], e[2], e[3]);
        if (std::abs(p.norm() - 1.0) > 1e-6)
          rd_.fail(o, ok + ".euler_parameters", "must have unit norm, got " + std::to_string(p.norm()));
        body.orientation = p.normalized();
      } else {
        const Vec3 axis = rd_.vec3(o, ok, "axis", Vec3::UnitZ());
        if (axis.norm() < 1e-12) rd_.fail(o, ok + ".axis", "is zero");
        body.orientation = mbs::from_axis_angle(axis, rd_.number(o, ok, "angle", 0.0));
      }
    }
    body.velocity = rd_.vec3(b, key, "velocity", Vec3::Zero());
    body.angular_velocity = rd_.vec3(b, key, "angular_velocity", Vec3::Zero());
  }

  /// plane: every rigid body held in one plane (2-D mechanisms with the *-2d joints): a planar
  /// joint to the ground per body, named "<body>.plane" (3 rows: on the plane, no tilt).
  void plane() {
    if (!cfg_.has("plane")) return;
    const YAML::Node pl = cfg_.node("plane");
    if (!pl.IsMap()) rd_.fail(pl, "plane", "must be a map {normal, point}");
    rd_.keys(pl, "plane", {"normal", "point"});
    const Vec3 normal = rd_.vec3(pl, "plane", "normal", Vec3::UnitZ());
    const Vec3 origin = rd_.vec3(pl, "plane", "point", Vec3::Zero());
    if (!(normal.norm() > 1e-12)) rd_.fail(pl, "plane.normal", "must not be zero");
    for (std::size_t b = 0; b < spec_.bodies.size(); ++b) {
      const auto& body = spec_.bodies[b].body;
      if (body.planar) { // held in z = const by its coordinates
        if (std::abs(std::abs(normal.normalized().z()) - 1.0) > 1e-12)
          rd_.fail(pl, "plane.normal", "body '" + body.name + "' is planar (it moves in the xy plane): the normal must be [0, 0, 1]");
        continue;
      }
      if (spec_.bodies[b].flexible)
        rd_.fail(pl, "plane", "body '" + body.name + "' is flexible: hold it with a planar joint on one of its interfaces");
      const double off = normal.normalized().dot(body.position - origin);
      if (std::abs(off) > 1e-9 * std::max(1.0, body.position.norm()))
        rd_.fail(pl, "plane", "body '" + body.name + "' is " + std::to_string(off) + " m off the plane");
      JointSpec js;
      js.name = body.name + ".plane";
      js.type = JointType::planar;
      js.body_i = kGround;
      js.body_j = static_cast<int>(b);
      js.point = body.position;
      js.axis = normal;
      add_joint(js, rd_.job_key(pl, "plane"));
    }
  }

  void add_joint(const JointSpec& js, workflow::JobKey key) {
    joint_names_.push_back({js.name, js.type, js.body_i, js.body_j});
    spec_.joints.push_back({js, std::move(key)});
  }

  void joints() {
    if (!cfg_.has("joints")) return;
    const YAML::Node joints = cfg_.node("joints");
    if (!joints.IsSequence()) rd_.fail(joints, "joints", "must be a list of joints");
    for (std::size_t i = 0; i < joints.size(); ++i) {
      const YAML::Node j = joints[i];
      std::string key = "joints[" + std::to_string(i) + "]";
      rd_.keys(j, key, {"name", "type", "bodies", "point", "point2", "axis", "axis2", "distance", "value", "table",
                       "harmonic", "polynomial", "interface"});
      JointSpec js;
      js.name = rd_.text(j, key, "name");
      key += " (" + js.name + ")";
      try {
        js.type = parse_joint_type(rd_.text(j, key, "type"));
      } catch (const InputError& e) {
        rd_.fail(j["type"], key + ".type", e.what());
      }
      if (!j["bodies"] || !j["bodies"].IsSequence() || j["bodies"].size() != 2 || !j["bodies"][0].IsScalar() ||
          !j["bodies"][1].IsScalar())
        rd_.fail(j, key, "'bodies' needs two body names [first, second]");
      const std::string who = "joint '" + js.name + "'" + rd_.at(j);
      js.body_i = body_of(j["bodies"][0].as<std::string>(), who);
      js.body_j = body_of(j["bodies"][1].as<std::string>(), who);
      if (j["interface"]) { // one name (for the flexible one of the two bodies) or [first, second]
        const YAML::Node in = j["interface"];
        if (in.IsSequence()) {
          if (in.size() != 2) rd_.fail(in, key + ".interface", "needs one name or two [first, second] (null for a rigid body)");
          if (!in[0].IsNull()) js.interface_i = in[0].as<std::string>();
          if (!in[1].IsNull()) js.interface_j = in[1].as<std::string>();
        } else {
          const std::string name = rd_.text(j, key, "interface");
          if (flexible(js.body_i) && flexible(js.body_j))
            rd_.fail(in, key + ".interface", "both bodies are flexible: give [interface on the first, interface on the second]");
          if (!flexible(js.body_i) && !flexible(js.body_j))
            rd_.fail(in, key + ".interface", "neither body is flexible; interfaces belong to flexible bodies");
          (flexible(js.body_i) ? js.interface_i : js.interface_j) = name;
        }
        js.interface_i = io::upper(js.interface_i);
        js.interface_j = io::upper(js.interface_j);
      }
      js.point = rd_.vec3(j, key, "point", Vec3::Zero());
      js.has_point2 = static_cast<bool>(j["point2"]);
      js.point2 = rd_.vec3(j, key, "point2", js.point);
      js.axis = rd_.vec3(j, key, "axis", Vec3::UnitZ());
      js.has_axis2 = static_cast<bool>(j["axis2"]);
      js.axis2 = rd_.vec3(j, key, "axis2", Vec3::UnitX());
      js.distance = rd_.number(j, key, "distance", -1.0);
      if (j["distance"] && !(js.distance >= 0 && std::isfinite(js.distance)))
        rd_.fail(j["distance"], key + ".distance", "must be finite and >= 0 (leave it out for the initial distance)");
      const bool driver = js.type == JointType::angle_driver || js.type == JointType::translation_driver;
      if (!driver && (j["value"] || j["table"] || j["harmonic"] || j["polynomial"]))
        rd_.fail(j, key, "value / table / harmonic / polynomial apply to angle-driver and translation-driver joints only");
      if (driver) js.motion = rd_.function(j, key, 0.0);
      add_joint(js, rd_.job_key(j, key));
    }
  }

  void forces() {
    if (!cfg_.has("forces")) return;
    const YAML::Node forces = cfg_.node("forces");
    if (!forces.IsSequence()) rd_.fail(forces, "forces", "must be a list of forces");
    for (std::size_t i = 0; i < forces.size(); ++i) {
      const YAML::Node f = forces[i];
      const std::string key = "forces[" + std::to_string(i) + "]";
      rd_.require_map(f, key);
      workflow::ForceEntry entry;
      entry.key = rd_.job_key(f, key);
      ForceSpec& fs = entry.spec;
      const std::string type = rd_.text(f, key, "type");
      const std::string who = "force " + key + rd_.at(f);
      if (type == "gravity") {
        rd_.keys(f, key, {"type", "g"});
        fs.type = ForceType::gravity;
        fs.direction = rd_.vec3(f, key, "g", Vec3(0, -9.81, 0));
      } else if (type == "torque" || type == "force") {
        rd_.keys(f, key, {"type", "body", "body2", "axis", "frame", "point", "interface", "value", "table", "harmonic",
                         "polynomial", "window"});
        fs.type = type == "torque" ? ForceType::torque : ForceType::force;
        fs.body = body_of(rd_.text(f, key, "body"), who);
        if (f["body2"]) {
          if (type == "force") rd_.fail(f["body2"], key + ".body2", "a force has no reaction body (use a spring or a torque)");
          fs.body2 = body_of(rd_.text(f, key, "body2"), who);
        }
        fs.direction = rd_.vec3(f, key, "axis", Vec3::Zero());
        if (fs.direction.norm() < 1e-12) rd_.fail(f, key, "'axis' is missing or zero");
        const std::string frame = rd_.text(f, key, "frame", "global");
        if (frame != "global" && frame != "body") rd_.fail(f["frame"], key + ".frame", "must be global or body");
        fs.body_frame = frame == "body";
        if (f["interface"]) { // the default point: the interface's reference point at t = 0 (the build's)
          if (!flexible(fs.body)) rd_.fail(f["interface"], key + ".interface", "applies to a force or torque on a flexible body");
          fs.interface = io::upper(rd_.text(f, key, "interface"));
          entry.interface_key = rd_.job_key(f["interface"], key + ".interface");
        }
        if (f["point"]) entry.point = rd_.vec3(f, key, "point", Vec3::Zero());
        fs.value = rd_.function(f, key, 1.0);
        if (f["window"]) { // on in [start, end], 0 outside (seed 003's V17 force released after 10 s)
          const auto w = rd_.fixed_list(f, key, "window", 2, "[start, end]", {0.0, 0.0});
          if (!(w[0] < w[1])) rd_.fail(f["window"], key + ".window", "needs start < end");
          fs.value = fs.value.windowed(w[0], w[1], key + ".window");
        }
      } else if (type == "rotational-damper") {
        rd_.keys(f, key, {"type", "body", "body2", "axis", "frame", "damping"});
        fs.type = ForceType::rotational_damper;
        fs.body = body_of(rd_.text(f, key, "body"), who);
        if (f["body2"]) fs.body2 = body_of(rd_.text(f, key, "body2"), who);
        fs.direction = rd_.vec3(f, key, "axis", Vec3::Zero());
        if (fs.direction.norm() < 1e-12) rd_.fail(f, key, "'axis' is missing or zero");
        const std::string frame = rd_.text(f, key, "frame", "global");
        if (frame != "global" && frame != "body") rd_.fail(f["frame"], key + ".frame", "must be global or body");
        fs.body_frame = frame == "body";
        if (!f["damping"]) rd_.fail(f, key, "'damping' is missing (N·m·s/rad)");
        fs.damping = rd_.number(f, key, "damping", 0.0);
        if (fs.damping < 0) rd_.fail(f["damping"], key + ".damping", "must be >= 0");
      } else if (type == "spring") {
        rd_.keys(f, key, {"type", "bodies", "point", "point2", "stiffness", "damping", "length"});
        fs.type = ForceType::spring;
        if (!f["bodies"] || !f["bodies"].IsSequence() || f["bodies"].size() != 2)
          rd_.fail(f, key, "'bodies' needs two body names");
        fs.body = body_of(f["bodies"][0].as<std::string>(), who);
        fs.body2 = body_of(f["bodies"][1].as<std::string>(), who);
        // Global at t = 0, the origin when left out; the build places a force at entry.point (else at
        // its body's position), so a spring's first end goes there too (it went to the first body's
        // position, the origin for the ground, whatever `point` said).
        entry.point = rd_.vec3(f, key, "point", Vec3::Zero());
        fs.point2 = rd_.vec3(f, key, "point2", Vec3::Zero());
        fs.stiffness = rd_.number(f, key, "stiffness", 0.0);
        fs.damping = rd_.number(f, key, "damping", 0.0);
        fs.length = rd_.number(f, key, "length", -1.0);
        if (fs.stiffness < 0 || fs.damping < 0) rd_.fail(f, key, "stiffness and damping must be >= 0");
      } else {
        rd_.fail(f["type"], key + ".type", "unknown force type '" + type + "' (torque, force, gravity, spring, rotational-damper)");
      }
      spec_.forces.push_back(std::move(entry));
    }
  }

  void solver() {
    SolverOptions& o = spec_.solver;
    if (cfg_.has("solver")) {
      const YAML::Node s = cfg_.node("solver");
      rd_.keys(s, "solver", {"type", "alpha", "rho_inf", "step", "start", "end", "tol", "max_iter", "adaptive", "rtol",
                            "atol", "min_step", "max_step", "output_step", "project", "quadratic_velocity", "matrix",
                            "project_velocities", "linear_algebra", "formulation", "drift_limit"});
      // newmark: seed 001's Newmark (β = 1/4, γ = 1/2), i.e. the HHT scheme with α = 0.
      const std::string type = rd_.text(s, "solver", "type", "hht");
      const bool newmark = type == "newmark";
      try {
        o.scheme = newmark ? mbs::Scheme::hht : parse_solver_scheme(type);
      } catch (const InputError& e) {
        rd_.fail(s["type"], "solver.type", std::string(e.what()) + " or newmark (hht with alpha 0)");
      }
      if (newmark && s["alpha"]) rd_.fail(s["alpha"], "solver.alpha", "newmark is hht with alpha 0; give type: hht to choose alpha");
      o.alpha = rd_.number(s, "solver", "alpha", newmark ? 0.0 : o.alpha);
      using S = SolverOptions;
      for (const auto& [k, field] : {std::pair{"rho_inf", &S::rho_inf}, {"step", &S::step}, {"start", &S::start}, {"end", &S::end},
                                     {"tol", &S::tol}, {"rtol", &S::rtol}, {"atol", &S::atol}, {"max_step", &S::max_step},
                                     {"output_step", &S::output_step}, {"drift_limit", &S::drift_limit}})
        o.*field = rd_.number(s, "solver", k, o.*field);
      for (const auto& [k, field] : {std::pair{"adaptive", &S::adaptive}, {"project", &S::project},
                                     {"project_velocities", &S::project_velocities}})
        o.*field = rd_.flag(s, "solver", k, o.*field);
      o.max_iter = static_cast<int>(rd_.number(s, "solver", "max_iter", o.max_iter));
      o.min_step = rd_.number(s, "solver", "min_step", std::min(o.min_step, o.step));
      const std::string matrix = rd_.text(s, "solver", "matrix", "blocks");
      if (matrix != "blocks" && matrix != "finite-difference")
        rd_.fail(s["matrix"], "solver.matrix", "must be blocks or finite-difference, got '" + matrix + "'");
      o.fd_matrix = matrix == "finite-difference";
      const std::string formulation = rd_.text(s, "solver", "formulation", "stabilized");
      if (formulation != "stabilized" && formulation != "index-3")
        rd_.fail(s["formulation"], "solver.formulation", "must be stabilized or index-3, got '" + formulation + "'");
      o.stabilized = formulation == "stabilized";
      try {
        o.linear_algebra = parse_linear_algebra(rd_.text(s, "solver", "linear_algebra", "auto"));
      } catch (const InputError& e) {
        rd_.fail(s["linear_algebra"], "solver.linear_algebra", e.what());
      }
      spec_.quadratic_velocity = rd_.flag(s, "solver", "quadratic_velocity", true);
    }
    try {
      o.validate();
    } catch (const InputError& e) { // mbs names the solver's fields (solver.step): the job's keys
      throw InputError(cfg_.source() + ": " + simulate_keys().message(e));
    }
  }

  void outputs() {
    if (!cfg_.has("outputs")) return;
    const YAML::Node outs = cfg_.node("outputs");
    if (!outs.IsSequence()) rd_.fail(outs, "outputs", "must be a list");
    std::set<std::string> names;
    for (std::size_t i = 0; i < outs.size(); ++i) {
      const YAML::Node n = outs[i];
      const std::string key = "outputs[" + std::to_string(i) + "]";
      rd_.keys(n, key, {"name", "quantity", "body", "joint", "point", "interface", "node", "set"});
      workflow::OutputEntry entry;
      entry.key = rd_.job_key(n, key);
      OutputSpec& os = entry.spec;
      os.name = rd_.text(n, key, "name");
      if (os.name.find('/') != std::string::npos) rd_.fail(n["name"], key + ".name", "must not contain '/'");
      if (!names.insert(os.name).second) rd_.fail(n, key, "output name '" + os.name + "' is used twice");
      const std::string quantity = rd_.text(n, key, "quantity");
      const auto q = parse_enum(mbs::kQuantityNames, quantity);
      if (!q) rd_.fail(n, key + ".quantity", "unknown quantity '" + quantity + "' (" + enum_choices(mbs::kQuantityNames, ", ", ", ") + ")");
      os.quantity = *q;
      const bool needs_body = os.quantity == Quantity::position || os.quantity == Quantity::velocity ||
                              os.quantity == Quantity::acceleration || os.quantity == Quantity::coordinates ||
                              os.quantity == Quantity::coordinate_rates || os.quantity == Quantity::angular_velocity;
      const bool needs_joint = os.quantity == Quantity::angle || os.quantity == Quantity::reaction;
      const bool stress = os.quantity == Quantity::stress || os.quantity == Quantity::von_mises;
      const bool needs_point = os.quantity == Quantity::position || os.quantity == Quantity::velocity ||
                               os.quantity == Quantity::acceleration;
      if (n["node"]) entry.node_key = rd_.job_key(n["node"], key + ".node");
      if (stress) {
        // Recovered stresses: a flexible body whose file has /reduced/stress_modes (the build checks
        // it), at a node (label of the body file's mesh) or, for von_mises, the largest over a node set.
        os.body = body_of(rd_.text(n, key, "body"), "output '" + os.name + "'" + rd_.at(n));
        if (!flexible(os.body)) rd_.fail(n, key, "stress outputs need a flexible body");
        if (n["point"] || n["interface"] || n["joint"]) rd_.fail(n, key, "stress outputs take 'node' or 'set', not 'point', 'interface' or 'joint'");
        if (static_cast<bool>(n["node"]) == static_cast<bool>(n["set"])) rd_.fail(n, key, "give one of 'node' (a node label) and 'set'");
        if (n["set"] && os.quantity == Quantity::stress)
          rd_.fail(n["set"], key + ".set", "a stress tensor is given at one node: use 'node', or von_mises for the largest over a set");
        if (n["node"]) {
          entry.node = static_cast<std::int64_t>(rd_.number(n, key, "node", 0.0));
        } else {
          entry.set = io::upper(rd_.text(n, key, "set"));
          entry.set_key = rd_.job_key(n["set"], key + ".set");
        }
      } else if (n["set"] || (n["node"] && !needs_point)) {
        rd_.fail(n, key, "'node' applies to position, velocity, acceleration, stress and von_mises outputs, 'set' to "
                         "von_mises");
      }
      if (needs_body) {
        os.body = body_of(rd_.text(n, key, "body"), "output '" + os.name + "'" + rd_.at(n));
        if (os.body == kGround) rd_.fail(n, key, "the ground does not move");
        if (n["point"]) entry.point = rd_.vec3(n, key, "point", Vec3::Zero());
        if (n["node"]) {
          // A node of a flexible body's mesh, deformed (the build reads its rows of /reduced/basis).
          if (n["point"] || n["interface"]) rd_.fail(n, key, "give 'node' or 'point' (with 'interface'), not both");
          if (!flexible(os.body)) rd_.fail(n["node"], key + ".node", "body '" + body_at(os.body).name + "' is not flexible");
          entry.node = static_cast<std::int64_t>(rd_.number(n, key, "node", 0.0));
        } else if (n["interface"]) {
          if (!flexible(os.body)) rd_.fail(n["interface"], key + ".interface", "body is not flexible");
          try {
            os.interface = io::upper(rd_.text(n, key, "interface"));
          } catch (const InputError& e) {
            rd_.fail(n["interface"], key + ".interface", e.what());
          }
          entry.interface_key = rd_.job_key(n["interface"], key + ".interface");
        }
        const std::string& bname = body_at(os.body).name;
        if (gcms(os.body) && needs_point && !n["node"] && !n["interface"])
          rd_.fail(n, key, "body '" + bname + "' is a GCMS body, whose frame does not move: give a 'node' or an 'interface' "
                           "(its reference point)");
        if (gcms(os.body) && (os.quantity == Quantity::coordinates || os.quantity == Quantity::coordinate_rates))
          rd_.fail(n, key, "body '" + bname + "' is a GCMS body: its frame is held (its coordinates q are /bodies/" + bname +
                               "/elastic of the result)");
        if (gcms(os.body) && os.quantity == Quantity::angular_velocity)
          rd_.fail(n, key, "body '" + bname + "' is a GCMS body: its frame does not turn (use node velocities or the "
                           "coordinates)");
      } else if (!stress && (n["body"] || n["point"] || n["interface"])) {
        rd_.fail(n, key, "'body' and 'point' apply to position, velocity, acceleration, coordinates, coordinate_rates, "
                         "angular_velocity");
      }
      if (needs_joint) {
        const std::string jn = rd_.text(n, key, "joint");
        const KnownJoint* joint = nullptr;
        for (const auto& kj : joint_names_)
          if (kj.name == jn) joint = &kj;
        if (!joint) rd_.fail(n, key, "joint '" + jn + "' does not exist");
        if (os.quantity == Quantity::angle) {
          const JointType t = joint->type;
          for (int jb : {joint->body_i, joint->body_j})
            if (gcms(jb)) rd_.fail(n, key, "joint '" + jn + "' is on the GCMS body '" + body_at(jb).name + "', which has no angle");
          if (t != JointType::revolute && t != JointType::cylindrical && t != JointType::angle_driver &&
              t != JointType::revolute_2d)
            rd_.fail(n, key, "an angle needs a revolute, revolute-2d, cylindrical or angle-driver joint ('" + jn + "' is " +
                                 mbs::joint_type_name(t) + ")");
        }
        entry.joint = jn;
      } else if (n["joint"]) {
        rd_.fail(n, key, "'joint' applies to angle and reaction outputs");
      }
      spec_.outputs.push_back(std::move(entry));
    }
  }

  const io::Config& cfg_;
  Reader rd_;
  workflow::SimulationSpec spec_;
  std::set<std::string> grounds_ = {"ground"};
  std::vector<KnownJoint> joint_names_;
};

} // namespace

workflow::SimulationSpec parse_simulation_job(const io::Config& cfg) { return Parser(cfg).parse(); }

std::string simulation_rom(const io::Config& cfg) {
  return cfg.has("rom") ? cfg.resolve_path(cfg.get<std::string>("rom")) : std::string();
}

} // namespace flexuq::app
