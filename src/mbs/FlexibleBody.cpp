// SPDX-License-Identifier: MIT
#include "flexuq/mbs/FlexibleBody.hpp"

#include "flexuq/cms/FloatingFrame.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/io/Hdf5File.hpp"
#include "flexuq/io/Mesh.hpp"

#include <cmath>
#include <filesystem>
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

/// Parse the boundary labels `REF <SET> <c>` and `<SET> node <id> <c>` of columns that are physical
/// interface DOFs (kinds boundary_dof / constraint_mode).
std::map<std::string, InterfaceColumns> interface_columns(const cms::ReducedBody& b) {
  std::map<std::string, InterfaceColumns> out;
  for (std::size_t j = 0; j < b.dof_labels.size(); ++j) {
    const auto& kind = b.column_kinds[j];
    if (kind != "boundary_dof" && kind != "constraint_mode") continue;
    std::istringstream is(b.dof_labels[j]);
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

} // namespace

std::shared_ptr<FlexibleData> make_flexible_data(const cms::ReducedBody& body, const std::string& source,
                                                 const Eigen::MatrixXd& coords, const std::vector<std::int64_t>& ids,
                                                 const std::map<std::string, std::vector<std::int64_t>>& sets,
                                                 const FlexibleOptions& o) {
  if (!body.has_floating_frame())
    throw InputError(source + ": the reduced body has no floating-frame coordinates (/reduced/floating_frame): a "
                              "flexible multibody body must be a free body (no fixed sets, no MacNeal residual "
                              "flexibility) whose reduced pair has exactly 6 rigid-body modes");
  FLEXUQ_REQUIRE(o.stiffness_scale > 0 && std::isfinite(o.stiffness_scale),
                 source << ": the stiffness scale must be positive, got " << o.stiffness_scale);
  FLEXUQ_REQUIRE(o.damping_ratio >= 0 && std::isfinite(o.damping_ratio),
                 source << ": damping.ratio must be >= 0, got " << o.damping_ratio);
  auto d = std::make_shared<FlexibleData>();
  d->source = source;
  const Eigen::MatrixXd& V = body.checkout.frame_V;
  d->invariants = body.frame_invariants();
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
  for (const auto& [name, ic] : interface_columns(body)) {
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
        FLEXUQ_REQUIRE(it != sets.end() && !it->second.empty(),
                       source << ": /mesh/node_sets/" << name << " (the nodes of reference node REF " << name
                              << ") is missing or empty");
        for (auto n : it->second) at.ref += coords.row(n).transpose();
        at.ref /= static_cast<double>(it->second.size());
      }
      for (int k = 0; k < 3; ++k) {
        at.translation.row(k) = row(ic.ref[k]);
        at.rotation.row(k) = row(ic.ref[3 + k]);
      }
    } else {
      // Node set: mean translation ū, least-squares rotation θ of u_i − ū ≈ θ × r_i about the
      // centroid, (Σ |r_i|²1 − r_i r_iᵀ) θ = Σ r_i × (u_i − ū); nodal rotations (beams) where
      // the set does not determine θ (one node, a line).
      const double nn = static_cast<double>(ic.nodes.size());
      for (const auto& [id, cols] : ic.nodes) at.ref += node_xyz(id) / nn;
      Mat mean_u = Mat::Zero(3, V.cols()), mean_r = Mat::Zero(3, V.cols());
      bool has_rot = true;
      for (const auto& [id, cols] : ic.nodes)
        for (int k = 0; k < 3; ++k) {
          mean_u.row(k) += row(cols[k]) / nn;
          mean_r.row(k) += row(cols[3 + k]) / nn;
          has_rot = has_rot && cols[3 + k] >= 0;
        }
      at.translation = mean_u;
      Mat3 a = Mat3::Zero();
      Mat rhs = Mat::Zero(3, V.cols());
      for (const auto& [id, cols] : ic.nodes) {
        const Vec3 r = node_xyz(id) - at.ref;
        a += r.squaredNorm() * Mat3::Identity() - r * r.transpose();
        Mat du(3, V.cols());
        for (int k = 0; k < 3; ++k) du.row(k) = row(cols[k]) - mean_u.row(k);
        rhs += skew(r) * du;
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
    }
    d->interfaces[name] = std::move(at);
  }
  return d;
}

std::shared_ptr<const FlexibleSource> read_flexible_source(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw InputError("flexible body file '" + path + "' does not exist (make it with flexuq reduce)");
  const io::H5File f(MPI_COMM_SELF, path, io::H5File::Mode::read);
  if (!f.exists("/reduced/K"))
    throw InputError(path + ": not a flexuq reduce result (no /reduced/K)");
  auto src = std::make_shared<FlexibleSource>();
  src->path = path;
  src->nominal = cms::ReducedBody::read(f);
  const cms::ReducedBody& body = src->nominal;
  FLEXUQ_REQUIRE(f.exists("/mesh/geometry") && f.exists("/mesh/node_ids"),
                 path << ": /mesh/geometry or /mesh/node_ids is missing");
  const auto g = f.read_all("/mesh/geometry");
  src->ids = f.read_all_int("/mesh/node_ids");
  FLEXUQ_REQUIRE(g.size() == 3 * src->ids.size(), path << ": /mesh/geometry does not match /mesh/node_ids");
  src->coords = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, 3, Eigen::RowMajor>>(
      g.data(), static_cast<Eigen::Index>(src->ids.size()), 3);
  for (const auto& label : body.dof_labels)
    if (label.rfind("REF ", 0) == 0) {
      std::istringstream is(label);
      std::string ref, name;
      is >> ref >> name;
      if (src->sets.count(name)) continue;
      const std::string d = "/mesh/node_sets/" + name;
      src->sets[name] = f.exists(d) ? f.read_all_int(d) : std::vector<std::int64_t>{};
    }
  if (f.exists("/stochastic_body"))
    src->stochastic = std::make_shared<const cms::StochasticBody>(cms::StochasticBody::read(f));
  return src;
}

std::vector<double> FlexibleSource::means() const {
  std::vector<double> m;
  if (stochastic)
    for (const auto& d : stochastic->dists) m.push_back(d.mean());
  return m;
}

std::shared_ptr<FlexibleData> FlexibleSource::data(const FlexibleOptions& o, const std::vector<double>* theta) const {
  if (!theta) return make_flexible_data(nominal, path, coords, ids, sets, o);
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
  for (Eigen::Index k = 0; k < out->K.rows(); ++k)
    out->D(k, k) = 2.0 * d.damping_ratio * std::sqrt(std::max(0.0, out->K(k, k)));
  return out;
}

} // namespace flexuq::mbs
