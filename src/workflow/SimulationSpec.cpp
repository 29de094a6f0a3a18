// SPDX-License-Identifier: MIT
#include "flexuq/workflow/SimulationSpec.hpp"

#include "flexuq/cms/BodyFile.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/mbs/FlexibleBody.hpp"

#include <algorithm>
#include <memory>

namespace flexuq::workflow {

using mbs::Quantity;
using mbs::Vec3;

namespace {

/// The translation rows (3 × n) of node @p label of body file @p src in its /reduced/basis
/// ((n_nodes, dofs per node, n), docs/hdf5-schema.md), and the node's mesh-frame position in @p x
/// (from the mesh the source holds). Reads those rows only (a basis can be large). Throws InputError
/// naming the file.
mbs::Mat read_node_rows(const mbs::FlexibleSource& src, std::int64_t label, Eigen::Index n, Vec3& x) {
  const auto it = std::find(src.ids.begin(), src.ids.end(), label);
  if (it == src.ids.end()) throw InputError("node " + std::to_string(label) + " is not in the mesh of " + src.path);
  const auto i = static_cast<Eigen::Index>(it - src.ids.begin());
  x = src.coords.row(i).transpose();
  const cms::BodyFile f(MPI_COMM_SELF, src.path);
  if (!f.has_basis())
    throw InputError(src.path + " has no /reduced/basis: a body given by matrices has no nodes to follow");
  f.basis_shape(src.ids.size(), static_cast<std::uint64_t>(n), 3);
  const auto rows = f.read_basis_rows(static_cast<std::uint64_t>(i), 1); // dofs per node × n
  return Eigen::Map<const Eigen::Matrix<double, 3, Eigen::Dynamic, Eigen::RowMajor>>(rows.data(), 3, n);
}

/// The elastic data of a flexible body from its file, and the file read (job.sources).
std::shared_ptr<const mbs::FlexibleData> read_flexible(const BodySpec& bs,
                                                       std::shared_ptr<const mbs::FlexibleSource>& src) {
  const FlexibleBodySpec& fs = *bs.flexible;
  try {
    src = mbs::read_flexible_source(fs.file);
  } catch (const InputError& e) {
    fs.key.fail(e);
  }
  if (fs.options.gcms && src->nominal.method != "gcms")
    fs.type_key.fail_option(fs.file + " is a " + src->nominal.method + " body, not gcms (", "method", ": gcms)");
  if (!fs.at_parameters) {
    try {
      return src->data(fs.options);
    } catch (const InputError& e) {
      bs.key.fail(e);
    }
  }
  if (!src->stochastic) fs.parameters_key.fail(fs.file + " has no /stochastic_body (a deterministic body)");
  std::vector<double> theta = src->means();
  const auto& names = src->stochastic->names;
  for (const auto& p : fs.parameters) {
    const auto it = std::find(names.begin(), names.end(), p.name);
    if (it == names.end()) {
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      p.key.fail("'" + p.name + "' is not a parameter of the stochastic body (" + list + ")");
    }
    theta[static_cast<std::size_t>(it - names.begin())] = p.value;
  }
  try {
    return src->data(fs.options, &theta);
  } catch (const InputError& e) {
    fs.parameters_key.fail(e);
  }
}

/// Stress outputs: the body file's stress modes, and the node or node set of its mesh.
void stress_nodes(const OutputEntry& oe, const mbs::FlexibleData& fd, mbs::OutputSpec& os) {
  if (!fd.stress_modes)
    oe.key.fail_option(fd.source + " has no /reduced/stress_modes (reduce it with ", "stress_modes",
                       ": true; stochastic bodies carry none)");
  const cms::BodyFile f(MPI_COMM_SELF, fd.source);
  const auto ids = f.read_node_ids();
  if (oe.node) {
    const auto it = std::find(ids.begin(), ids.end(), *oe.node);
    if (it == ids.end()) oe.node_key.fail("node " + std::to_string(*oe.node) + " is not in the mesh of " + fd.source);
    os.nodes.push_back(it - ids.begin());
  } else {
    if (!f.has_node_set(oe.set)) oe.set_key.fail("node set '" + oe.set + "' is not in " + fd.source);
    os.nodes = f.read_node_set(oe.set);
    if (os.nodes.empty()) oe.set_key.fail("node set '" + oe.set + "' is empty");
  }
}

/// The output's maps on the built system: stress nodes, a mesh node's basis rows, an interface's map.
mbs::OutputSpec build_output(const OutputEntry& oe, const mbs::SimulationJob& job) {
  const mbs::System& sys = job.system;
  mbs::OutputSpec os = oe.spec;
  os.point = oe.point.value_or(Vec3::Zero());
  const bool stress = os.quantity == Quantity::stress || os.quantity == Quantity::von_mises;
  const auto flex = [&]() -> const mbs::FlexibleData& {
    FLEXUQ_REQUIRE(os.body != mbs::kGround && sys.bodies()[static_cast<std::size_t>(os.body)].flex,
                   "output '" << os.name << "': body " << os.body << " is not flexible");
    return *sys.bodies()[static_cast<std::size_t>(os.body)].flex;
  };
  if ((stress || oe.node) && sys.gs(os.body))
    (stress ? oe.key : oe.node_key)
        .fail("body '" + sys.bodies()[static_cast<std::size_t>(os.body)].name +
              "' is a gs body: its nodes move nonlinearly with its coordinates; give a point at an interface point");
  if (stress) {
    stress_nodes(oe, flex(), os);
  } else if (oe.node) {
    // A node of a flexible body's mesh, deformed: its mesh-frame position plus the translation
    // rows of /reduced/basis at that node (Φ_node ξ = Φ_node V η); rigid bodies have no mesh.
    const auto& body = sys.bodies()[static_cast<std::size_t>(os.body)];
    const auto& fd = flex();
    const auto& src = *job.sources.at(body.name); // every flexible body has one
    if (src.stochastic)
      oe.node_key.fail("body '" + body.name +
                       "' is stochastic: its basis changes with θ and its file holds the nominal "
                       "one; give a point on an interface instead");
    try {
      os.node_rows = read_node_rows(src, *oe.node, fd.V.rows(), os.point);
    } catch (const InputError& e) {
      oe.node_key.fail(e.what());
    }
    os.node = *oe.node;
    os.L = os.node_rows * fd.V;
  } else if (!os.interface.empty()) {
    try {
      // A GCMS body's interface point is its reference point (point_map refuses another): the default.
      if (sys.gcms(os.body) && !oe.point) os.point = flex().interface(os.interface, "output '" + os.name + "'").ref;
      os.L = sys.point_map(os.body, os.interface, os.point, "output '" + os.name + "'");
    } catch (const InputError& e) {
      oe.interface_key.fail(e.what());
    }
  }
  if (!oe.joint.empty()) {
    for (std::size_t j = 0; j < sys.joints().size(); ++j)
      if (sys.joints()[j].name == oe.joint) os.joint = static_cast<int>(j);
    FLEXUQ_REQUIRE(os.joint >= 0, "output '" << os.name << "': joint '" << oe.joint << "' is not in the system");
  }
  return os;
}

} // namespace

mbs::SimulationJob build_simulation(const SimulationSpec& spec) {
  mbs::SimulationJob job;
  mbs::System& sys = job.system;
  for (const auto& bs : spec.bodies) {
    mbs::RigidBody body = bs.body;
    if (bs.flexible) {
      std::shared_ptr<const mbs::FlexibleSource> src;
      body.flex = read_flexible(bs, src);
      job.flexible_files[body.name] = bs.flexible->file;
      job.sources[body.name] = src;
      job.flexible_options[body.name] = bs.flexible->options;
    }
    try {
      sys.add_body(body);
    } catch (const InputError& e) {
      bs.key.fail(e.what());
    }
  }
  for (const auto& je : spec.joints) {
    try {
      sys.add_joint(je.spec);
    } catch (const InputError& e) {
      je.key.fail(e.what());
    }
  }
  for (const auto& entry : spec.forces) {
    mbs::ForceSpec fs = entry.spec;
    const bool on_body = fs.body != mbs::kGround;
    Vec3 default_point = on_body ? sys.bodies()[static_cast<std::size_t>(fs.body)].position : Vec3::Zero();
    if (!fs.interface.empty()) {
      try { // default point: the interface's reference point at t = 0
        FLEXUQ_REQUIRE(on_body && sys.bodies()[static_cast<std::size_t>(fs.body)].flex,
                       "applies to a force or torque on a flexible body");
        const auto& body = sys.bodies()[static_cast<std::size_t>(fs.body)];
        default_point = body.position + mbs::rotation(body.orientation) *
                                            body.flex->interface(fs.interface, "force " + entry.key.where()).ref;
      } catch (const InputError& e) {
        entry.interface_key.fail(e.what());
      }
    }
    fs.point = entry.point.value_or(default_point);
    try {
      sys.add_force(fs);
    } catch (const InputError& e) {
      entry.key.fail(e.what());
    }
  }
  sys.set_quadratic_velocity(spec.quadratic_velocity);
  job.solver = spec.solver;
  for (const auto& oe : spec.outputs) job.outputs.push_back(build_output(oe, job));
  job.animation = spec.animation;
  job.snapshots = spec.snapshots;
  job.output_path = spec.output_path;
  return job;
}

} // namespace flexuq::workflow
