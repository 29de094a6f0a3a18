// SPDX-License-Identifier: MIT
#include "flexuq/mbs/FlexibleBody.hpp"

#include "flexuq/cms/BodyFile.hpp"
#include "flexuq/cms/FloatingFrame.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/io/InputFile.hpp"
#include "flexuq/io/Mesh.hpp"
#include "flexuq/mbs/GsBody.hpp"
#include "flexuq/mbs/GsBody3d.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

namespace flexuq::mbs {

namespace {

/// One interface's boundary coordinates: per component (ux … rz) the reduced column, per node.
struct InterfaceColumns {
  bool reference = false;                            ///< REF <SET> (RBE2/RBE3) or a node set
  std::map<std::int64_t, std::array<int, 6>> nodes;  ///< node id → column per component (−1: none)
  std::array<int, 6> ref{{-1, -1, -1, -1, -1, -1}};
};

int component(const std::string& c) {
  static const char* names[6] = {"ux", "uy", "uz", "rx", "ry", "rz"};
  for (int k = 0; k < 6; ++k)
    if (c == names[k]) return k;
  return -1;
}

/// Parse the boundary labels `REF <SET> <c>` and `<SET> node <id> <c>` of @p labels (index = column),
/// skipping those @p keep refuses.
template <class Keep>
std::map<std::string, InterfaceColumns> parse_interface_labels(const std::vector<std::string>& labels, Keep keep) {
  std::map<std::string, InterfaceColumns> out;
  for (std::size_t j = 0; j < labels.size(); ++j) {
    if (!keep(j)) continue;
    std::istringstream is(labels[j]);
    std::vector<std::string> w;
    for (std::string t; is >> t;) w.push_back(t);
    if (w.size() == 3 && w[0] == "REF" && component(w[2]) >= 0) {
      auto& ic = out[w[1]];
      ic.reference = true;
      ic.ref[component(w[2])] = static_cast<int>(j);
    } else if (w.size() == 4 && w[1] == "node" && component(w[3]) >= 0) {
      auto& ic = out[w[0]];
      auto [it, fresh] = ic.nodes.try_emplace(std::stoll(w[2]));
      if (fresh) it->second.fill(-1);
      it->second[component(w[3])] = static_cast<int>(j);
    }
  }
  return out;
}

/// The columns that are physical interface DOFs (kinds boundary_dof / constraint_mode), by interface.
std::map<std::string, InterfaceColumns> interface_columns(const cms::ReducedBody& b) {
  return parse_interface_labels(b.dof_labels, [&](std::size_t j) {
    return b.column_kinds[j] == "boundary_dof" || b.column_kinds[j] == "constraint_mode";
  });
}

/// Interfaces whose boundary coordinates (/reduced/interface_labels) are not all columns of the
/// basis (@p columns, from interface_columns): Hurty's statically determinate boundary DOFs are
/// rigid-body amplitudes, not columns. Their motion is taken from the basis rows of their nodes
/// instead (make_flexible_data's set_rows).
std::set<std::string> incomplete_interfaces(const cms::ReducedBody& b, const std::map<std::string, InterfaceColumns>& columns) {
  auto count = [](const InterfaceColumns& ic) {
    int k = 0;
    for (int c : ic.ref) k += c >= 0;
    for (const auto& [id, cols] : ic.nodes)
      for (int c : cols) k += c >= 0;
    return k;
  };
  std::set<std::string> out;
  for (const auto& [name, ic] : parse_interface_labels(b.interface_labels, [](std::size_t) { return true; })) {
    const auto it = columns.find(name);
    if (it == columns.end() || count(it->second) < count(ic)) out.insert(name);
  }
  return out;
}

/// One node of a set: position and its translation (and rotation) rows in elastic coordinates.
struct NodeMotion {
  Vec3 x;
  Mat u, r; ///< 3 × n_e
  bool has_rot = false;
};

/// A node set's attachment: the mean translation ū of its nodes and their least-squares small
/// rotation θ of u_i − ū ≈ θ × r_i about the centroid, (Σ |r_i|²1 − r_i r_iᵀ) θ = Σ r_i × (u_i − ū);
/// nodal rotations (beams) where the set does not determine θ (one node, a line).
Attachment node_set_attachment(const std::vector<NodeMotion>& nodes) {
  Attachment at;
  const Eigen::Index ne = nodes.front().u.cols();
  at.translation = Mat::Zero(3, ne);
  at.rotation = Mat::Zero(3, ne);
  const double nn = static_cast<double>(nodes.size());
  Mat mean_r = Mat::Zero(3, ne);
  bool has_rot = true;
  for (const auto& n : nodes) {
    at.ref += n.x / nn;
    at.translation += n.u / nn;
    mean_r += n.r / nn;
    has_rot = has_rot && n.has_rot;
  }
  Mat3 a = Mat3::Zero();
  Mat rhs = Mat::Zero(3, ne);
  for (const auto& n : nodes) {
    const Vec3 r = n.x - at.ref;
    a += r.squaredNorm() * Mat3::Identity() - r * r.transpose();
    rhs += skew(r) * (n.u - at.translation);
  }
  Eigen::SelfAdjointEigenSolver<Mat3> es(a);
  const double scale = std::max(es.eigenvalues().maxCoeff(), 1e-300);
  if (es.eigenvalues().minCoeff() > 1e-8 * scale) at.rotation = a.ldlt().solve(rhs);
  else if (has_rot) at.rotation = mean_r;
  else if (es.eigenvalues().maxCoeff() > 0) { // a line of translational nodes: no spin about it
    Mat3 pinv = Mat3::Zero();
    for (int k = 0; k < 3; ++k)
      if (es.eigenvalues()(k) > 1e-8 * scale)
        pinv += es.eigenvectors().col(k) * es.eigenvectors().col(k).transpose() / es.eigenvalues()(k);
    at.rotation = pinv * rhs;
  }
  return at;
}

/// Elastic coordinates of a frame held at interface @p held (FlexibleOptions::frame_interface):
/// V = P W, P the selection of every column but the interface's six, W the normal modes of
/// (PᵀK̄P, PᵀM̄P) with WᵀPᵀM̄PW = 1. Refuses a basis whose other columns need not vanish at the
/// interface (anything but constraint modes, boundary DOFs and fixed-interface modes).
Mat held_frame_coordinates(const cms::ReducedBody& b, const std::string& source,
                           const std::map<std::string, InterfaceColumns>& columns, const std::string& held) {
  const auto it = columns.find(held);
  if (it == columns.end()) // the reduce option that makes interfaces, named by the caller (OptionError)
    throw OptionError("interfaces", "{}").wrapped(source + ": frame.interface " + held +
                                                  " is not an interface of the body (its columns are 'REF <SET> ux' … or "
                                                  "'<SET> node <id> ux' …); list it under ");
  std::vector<int> drop;
  for (int c : it->second.ref)
    if (c >= 0) drop.push_back(c);
  for (const auto& [id, cols] : it->second.nodes)
    for (int c : cols)
      if (c >= 0) drop.push_back(c);
  FLEXUQ_REQUIRE(drop.size() == 6, source << ": frame.interface " << held << " has " << drop.size()
                                          << " boundary columns; the frame holds one node or reference node (6)");
  const Eigen::Index n = b.K.rows();
  std::vector<Eigen::Index> keep;
  for (Eigen::Index j = 0; j < n; ++j) {
    if (std::find(drop.begin(), drop.end(), static_cast<int>(j)) != drop.end()) continue;
    const auto& k = b.column_kinds[static_cast<std::size_t>(j)];
    FLEXUQ_REQUIRE(k == "boundary_dof" || k == "constraint_mode" || k == "fixed_interface_mode",
                   source << ": frame.interface needs a fixed-interface Craig-Bampton basis (column " << j << ", '"
                          << b.dof_labels[static_cast<std::size_t>(j)] << "', kind " << k
                          << ", need not vanish at " << held << ")");
    keep.push_back(j);
  }
  FLEXUQ_REQUIRE(!keep.empty(), source << ": frame.interface " << held << " leaves no elastic coordinate");
  const auto m = static_cast<Eigen::Index>(keep.size());
  Mat P = Mat::Zero(n, m);
  for (Eigen::Index q = 0; q < m; ++q) P(keep[static_cast<std::size_t>(q)], q) = 1.0;
  // The normal modes of the remaining pair: cms::elastic_coordinates (diag(M̄) scaling, deterministic
  // signs), which must find no zero-energy mode once the interface is held.
  cms::ElasticCoordinates e;
  try {
    e = cms::elastic_coordinates(P.transpose() * b.K * P, P.transpose() * b.M * P);
  } catch (const Error& err) {
    throw InputError(source + ": with " + held + " held the body is not held: " + err.what());
  }
  FLEXUQ_REQUIRE(e.rigid == 0, source << ": with " << held << " held the body still has " << e.rigid
                                      << " zero-energy modes: the interface does not hold the body");
  return P * e.V;
}

} // namespace

std::shared_ptr<FlexibleData> make_flexible_data(const cms::ReducedBody& body, const std::string& source,
                                                 const Eigen::MatrixXd& coords, const std::vector<std::int64_t>& ids,
                                                 const std::map<std::string, std::vector<std::int64_t>>& sets,
                                                 const FlexibleOptions& o, const SetBasisRows* set_rows,
                                                 const GcmsNode* gcms_node) {
  const bool gcms = o.gcms;
  if (gcms) {
    if (body.method != "gcms")
      throw OptionError("method", "{}").wrapped(source + ": a " + body.method + " body is not a GCMS body (",
                                                ": gcms); move it as type: flexible");
    FLEXUQ_REQUIRE(o.frame_interface.empty(), source << ": a GCMS body has no frame to hold at an interface (its frame is "
                                                         "the global frame; the rotation is in its coordinates)");
    FLEXUQ_REQUIRE(o.damping_ratio == 0.0, source << ": modal damping needs modal coordinates; a GCMS body's coordinates are "
                                                      "the amplitudes of its fields (seed 001 has no damping)");
    FLEXUQ_REQUIRE(gcms_node && gcms_node->rows.rows() == 3,
                   source << ": the GCMS body's layout needs /reduced/basis (its rows at a node)");
  }
  if (!gcms && !body.has_floating_frame() && o.frame_interface.empty())
    throw InputError(source + ": the reduced body has no floating-frame coordinates (/reduced/floating_frame): a "
                              "flexible multibody body must be a free body (no fixed sets, no MacNeal residual "
                              "flexibility) whose reduced pair has exactly 6 rigid-body modes");
  FLEXUQ_REQUIRE(o.stiffness_scale > 0 && std::isfinite(o.stiffness_scale),
                 source << ": the stiffness scale must be positive, got " << o.stiffness_scale);
  FLEXUQ_REQUIRE(o.damping_ratio >= 0 && std::isfinite(o.damping_ratio),
                 source << ": damping.ratio must be >= 0, got " << o.damping_ratio);
  auto d = std::make_shared<FlexibleData>();
  d->source = source;
  const auto columns = interface_columns(body);
  const Eigen::MatrixXd V = gcms ? Eigen::MatrixXd(Eigen::MatrixXd::Identity(body.K.rows(), body.K.rows()))
                             : o.frame_interface.empty() ? body.checkout.frame_V
                                                         : held_frame_coordinates(body, source, columns, o.frame_interface);
  d->invariants = gcms ? body.invariants
                  : o.frame_interface.empty() ? body.frame_invariants()
                                              : cms::transform_invariants(body.invariants, V);
  if (gcms) {
    auto g = std::make_shared<GcmsData>(gcms_layout(body.dof_labels, body.K, gcms_node->rows, gcms_node->x, source));
    g->K *= o.stiffness_scale;
    d->gcms = std::move(g);
  }
  d->V = V;
  Eigen::MatrixXd ke = V.transpose() * body.K * V;
  d->K = 0.5 * (ke + ke.transpose());
  d->K *= o.stiffness_scale;
  d->damping_ratio = o.damping_ratio;
  d->D = Eigen::MatrixXd::Zero(V.cols(), V.cols());
  for (Eigen::Index k = 0; k < V.cols(); ++k) d->D(k, k) = 2.0 * o.damping_ratio * std::sqrt(std::max(0.0, d->K(k, k)));

  std::map<std::int64_t, Eigen::Index> index_of;
  for (std::size_t k = 0; k < ids.size(); ++k) index_of[ids[k]] = static_cast<Eigen::Index>(k);
  auto node_xyz = [&](std::int64_t id) -> Vec3 {
    const auto it = index_of.find(id);
    FLEXUQ_REQUIRE(it != index_of.end() && it->second < coords.rows(),
                   source << ": interface node " << id << " is not in /mesh/node_ids");
    return coords.row(it->second).transpose();
  };
  // Row (1 × n_e) of the physical interface DOF in column j: s_j V(j, :).
  auto row = [&](int j) -> Eigen::RowVectorXd {
    if (j < 0) return Eigen::RowVectorXd::Zero(V.cols());
    return body.column_scale(j) * V.row(j);
  };
  const auto incomplete = incomplete_interfaces(body, columns);
  for (const auto& [name, ic] : columns) {
    if (incomplete.count(name)) continue; // from the basis rows of its nodes (set_rows), below
    Attachment at;
    at.translation = Mat::Zero(3, V.cols());
    at.rotation = Mat::Zero(3, V.cols());
    if (ic.reference) {
      // The point the reduction attached REF <name> to (reduce.interfaces[].ref, or the RBE3
      // weighted centroid); files written before /reduced/interface_points: the set's centroid.
      if (const auto pt = body.interface_points.find(name); pt != body.interface_points.end()) {
        at.ref = Vec3(pt->second[0], pt->second[1], pt->second[2]);
      } else {
        const auto it = sets.find(name);
        const std::string& set = name; // a plain reference: clang cannot capture a structured binding in FLEXUQ_MSG's lambda
        FLEXUQ_REQUIRE(it != sets.end() && !it->second.empty(),
                       source << ": /mesh/node_sets/" << set << " (the nodes of reference node REF " << set
                              << ") is missing or empty");
        for (auto n : it->second) at.ref += coords.row(n).transpose();
        at.ref /= static_cast<double>(it->second.size());
      }
      for (int k = 0; k < 3; ++k) {
        at.translation.row(k) = row(ic.ref[k]);
        at.rotation.row(k) = row(ic.ref[3 + k]);
      }
    } else {
      std::vector<NodeMotion> nodes;
      for (const auto& [id, cols] : ic.nodes) {
        NodeMotion nm{node_xyz(id), Mat(3, V.cols()), Mat(3, V.cols()), true};
        for (int k = 0; k < 3; ++k) {
          nm.u.row(k) = row(cols[k]);
          nm.r.row(k) = row(cols[3 + k]);
          nm.has_rot = nm.has_rot && cols[3 + k] >= 0;
        }
        nodes.push_back(std::move(nm));
      }
      at = node_set_attachment(nodes);
    }
    d->interfaces[name] = std::move(at);
  }
  if (set_rows)
    for (const auto& [name, rows] : *set_rows) {
      if (d->interfaces.count(name) || rows.empty()) continue;
      std::vector<NodeMotion> nodes;
      const std::string& set = name; // a plain reference: clang cannot capture a structured binding in FLEXUQ_MSG's lambda
      for (const auto& [index, R] : rows) {
        FLEXUQ_REQUIRE(index >= 0 && index < coords.rows() && R.cols() == V.rows() && R.rows() >= 3,
                       source << ": the basis rows of node set " << set << " do not match the body");
        NodeMotion nm{coords.row(index).transpose(), R.topRows(3) * V, Mat::Zero(3, V.cols()), R.rows() >= 6};
        if (nm.has_rot) nm.r = R.middleRows(3, 3) * V;
        nodes.push_back(std::move(nm));
      }
      d->interfaces[name] = node_set_attachment(nodes);
    }
  return d;
}

std::shared_ptr<const FlexibleSource> read_flexible_source(const std::string& path) {
  // The checked open of every input (io/InputFile.hpp): a FIFO or a device is named as such, not
  // reported missing; only a missing file gets the hint of how to make one.
  const io::InputCheck check = io::inspect_input(path);
  if (check.problem == io::InputProblem::missing)
    throw InputError("flexible body file '" + io::shorten(path, 200) + "' does not exist (make it with flexuq reduce)");
  io::require_input(path, "flexible body file");
  const cms::BodyFile f(MPI_COMM_SELF, path);
  if (!f.has_reduced())
    throw InputError(path + ": not a flexuq reduce result (no /reduced/K)");
  auto src = std::make_shared<FlexibleSource>();
  src->path = path;
  src->nominal = f.read_reduced();
  const cms::ReducedBody& body = src->nominal;
  auto nodes = f.read_mesh_nodes();
  src->ids = std::move(nodes.ids);
  src->coords = std::move(nodes.coords);
  for (const auto& label : body.dof_labels)
    if (label.rfind("REF ", 0) == 0) {
      std::istringstream is(label);
      std::string ref, name;
      is >> ref >> name;
      if (src->sets.count(name)) continue;
      src->sets[name] = f.has_node_set(name) ? f.read_node_set(name) : std::vector<std::int64_t>{};
    }
  if (f.is_stochastic())
    src->stochastic = std::make_shared<const cms::StochasticBody>(f.read_stochastic());
  const auto n = static_cast<std::uint64_t>(body.K.rows());
  if (!src->stochastic && f.has_stress_modes())
    src->stress_modes = std::make_shared<const std::vector<double>>(f.read_stress_modes(src->ids.size(), n));
  // A deterministic body without physical interface columns (a POD body): its node sets become
  // interfaces through the basis rows of their nodes. So do the interfaces whose boundary
  // coordinates are not all columns (Hurty): an RBE2 set's nodes move rigidly with its reference
  // node, whose motion their least-squares fit recovers exactly (RBE3: the unweighted fit).
  bool has_interface_columns = false;
  for (const auto& k : body.column_kinds) has_interface_columns = has_interface_columns || k == "boundary_dof" || k == "constraint_mode";
  const auto incomplete = incomplete_interfaces(body, interface_columns(body));
  if ((!has_interface_columns || !incomplete.empty()) && !src->stochastic && f.has_basis()) {
    const auto shape = f.basis_shape(src->ids.size(), n);
    const auto basis = f.read_basis();
    const auto dpn = static_cast<Eigen::Index>(shape[1]), nc = static_cast<Eigen::Index>(shape[2]);
    if (body.method == "gcms" && shape[0] > 0 && shape[1] >= 3) {
      auto gn = std::make_shared<GcmsNode>();
      gn->x = src->coords.row(0).transpose();
      gn->rows = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(basis.data(), dpn, nc).topRows(3);
      src->gcms_node = std::move(gn);
    }
    for (const auto& name : f.node_set_names()) {
      if (has_interface_columns && !incomplete.count(name)) continue;
      auto& rows = src->set_rows[name];
      for (const auto i : f.read_node_set(name, shape[0]))
        rows.emplace_back(i, Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
                                 basis.data() + static_cast<std::size_t>(i) * static_cast<std::size_t>(dpn * nc), dpn, nc));
    }
  }
  return src;
}

std::vector<double> FlexibleSource::means() const {
  std::vector<double> m;
  if (stochastic)
    for (const auto& d : stochastic->dists) m.push_back(d.mean());
  return m;
}

std::shared_ptr<FlexibleData> FlexibleSource::data(const FlexibleOptions& o, const std::vector<double>* theta) const {
  if (o.gs || o.gs3d) { // seed 002's GS body (mbs/GsBody.hpp, GsBody3d.hpp): deterministic, undamped, frame at an interface point
    FLEXUQ_REQUIRE(!theta && !stochastic, path << ": a gs body is deterministic (no /stochastic_body, no parameters)");
    FLEXUQ_REQUIRE(o.damping_ratio == 0.0, path << ": a gs body takes no modal damping (its coordinates are not modal)");
    FLEXUQ_REQUIRE(!o.frame_interface.empty(), path << ": a gs body needs frame: {interface: <SET>}, the interface "
                                                       "point that carries its floating frame");
    auto gs = make_gs_data(nominal, o.frame_interface, path, o.stiffness_scale);
    return o.gs3d ? gs3d_flexible_data(std::move(gs), path) : gs_flexible_data(std::move(gs), path);
  }
  if (!theta) {
    auto d = make_flexible_data(nominal, path, coords, ids, sets, o, &set_rows, gcms_node.get());
    d->stress_modes = stress_modes;
    d->stress_scale = o.stiffness_scale;
    return d;
  }
  FLEXUQ_REQUIRE(stochastic, path << ": no /stochastic_body to evaluate at parameters");
  FLEXUQ_REQUIRE(theta->size() == stochastic->dim(),
                 path << ": " << theta->size() << " parameters for a stochastic body of " << stochastic->dim());
  return make_flexible_data(stochastic->at(*theta), path, coords, ids, sets, o);
}

std::shared_ptr<FlexibleData> load_flexible_body(const std::string& path, const FlexibleOptions& o) {
  return read_flexible_source(path)->data(o);
}

std::shared_ptr<FlexibleData> rescaled(const FlexibleData& d, double factor) {
  FLEXUQ_REQUIRE(factor > 0 && std::isfinite(factor), d.source << ": the stiffness factor must be positive, got " << factor);
  auto out = std::make_shared<FlexibleData>(d);
  out->K *= factor;
  for (auto* gs : {&out->gs, &out->gs3d}) // a GS body's stiffness is in its GsData
    if (*gs) {
      auto g = std::make_shared<GsData>(**gs);
      g->K *= factor;
      *gs = std::move(g);
    }
  if (d.gcms) { // the co-rotated K̂ is what a GCMS body's force uses
    auto g = std::make_shared<GcmsData>(*d.gcms);
    g->K *= factor;
    out->gcms = std::move(g);
  }
  out->stress_scale *= factor;
  for (Eigen::Index k = 0; k < out->K.rows(); ++k)
    out->D(k, k) = 2.0 * d.damping_ratio * std::sqrt(std::max(0.0, out->K(k, k)));
  return out;
}

} // namespace flexuq::mbs
