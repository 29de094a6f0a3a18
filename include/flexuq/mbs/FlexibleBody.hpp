// SPDX-License-Identifier: MIT
#pragma once
/// @file FlexibleBody.hpp
/// @brief A flexible floating-frame body for the multibody System from a `flexuq reduce` result:
/// elastic coordinates, their stiffness and modal damping, inertia invariants and interfaces.
///
/// Elastic coordinates η: the free-free modes of the reduced pair (K̄, M̄) without the six rigid
/// ones, ξ = V η (`/reduced/floating_frame/V`, VᵀM̄V = 1). The basis Φ V is M-orthogonal to the
/// rigid modes (mean-axis frame), so M(η) of cms/FloatingFrame.hpp is regular; K_e = VᵀK̄V
/// (diagonal), D_e = diag(2 ζ √λ) for `damping: {ratio: ζ}`.
///
/// Interfaces (joints attach there): the reduced coordinates labelled `REF <SET> ux … rz` (RBE2 /
/// RBE3 reference nodes) or `<SET> node <id> ux …` (all-DOF node sets) are the physical interface
/// DOFs of a Craig–Bampton-type basis (the other columns vanish there), so the interface motion is
/// u = s·V_row η (s: column scale). A reference node's point is the one the reduction used
/// (`/reduced/interface_points`: `ref:` of reduce.interfaces, else the set's centroid, weighted for
/// RBE3); files without that dataset fall back to the plain centroid of `/mesh/node_sets/<SET>`.
/// A node set: the mean translation of
/// its nodes and their least-squares small rotation about the centroid (the nodal rotations of
/// beams when the set is one node or a line). A body whose columns are no physical interface DOFs
/// (a POD body) attaches at the node sets of its file's mesh in the same way, with the nodes'
/// motion taken from the basis rows (`/reduced/basis`): exact for an RBE2 set, which every
/// column moves rigidly.
///
/// A frame held at an interface (FlexibleOptions::frame_interface, `frame: {interface: SET}`): the
/// body frame moves with that interface — seed 000's own Craig–Bampton bars, whose CoM node is held.
/// The interface's six columns are dropped; the other columns of a fixed-interface Craig–Bampton
/// basis vanish there (constraint modes are zero at the other boundary DOFs, fixed-interface modes at
/// all of them), so the span is that of the seed's reduction with the node held. ξ = V η with V the
/// selection of the remaining columns times the normal modes of their pair (VᵀM̄V = 1, VᵀK̄V
/// diagonal and regular); the invariants of Φ V are not mean-axis (S, Sr ≠ 0), which
/// cms/FloatingFrame.hpp handles in general.

#include "flexuq/cms/ReducedBody.hpp"
#include "flexuq/cms/StochasticBody.hpp"
#include "flexuq/mbs/System.hpp"

#include <memory>
#include <string>

namespace flexuq::mbs {

struct FlexibleOptions {
  double damping_ratio = 0.0;   ///< modal damping ratio ζ of every elastic coordinate
  double stiffness_scale = 1.0; ///< K_e ← s K_e (a Young's-modulus factor: K̄ is linear in E)
  /// Empty: the mean-axis frame (free-free modes of the reduced pair). Else an interface of the body
  /// held by the frame (seed 000's Craig–Bampton variant with the CoM node held): its six columns are
  /// dropped, the other columns of a fixed-interface Craig–Bampton basis vanish there, and the
  /// elastic coordinates are the normal modes of the remaining pair (positive definite).
  std::string frame_interface;
  /// Seed 001's formulation (`type: gcms`): a `method: gcms` body moved by its own amplitudes (Eq. 58,
  /// FlexibleData::gcms). False: the floating frame of any body, GCMS bodies included (their
  /// free-free modes span the same displacements).
  bool gcms = false;
  /// Seed 002's generalised superelement (`type: gs`, mbs/GsBody.hpp): the global coordinates of the
  /// interface points and the internal ones, the frame at frame_interface (required).
  bool gs = false;
  /// The 3-D generalised superelement (`type: gs3d`, mbs/GsBody3d.hpp): the interface points' global
  /// displacements and Euler parameters and the internal coordinates, the frame at frame_interface.
  bool gs3d = false;
};

/// Rows of a body's basis at the nodes of node sets: per set name, per node its index in the
/// file's mesh and its rows (dofs per node × reduced columns, /reduced/basis).
using SetBasisRows = std::map<std::string, std::vector<std::pair<std::int64_t, Eigen::MatrixXd>>>;

/// Elastic data from a reduced body and its file's mesh (node coordinates, node sets, node ids).
/// Interfaces come from the physical interface columns (labels); a set of @p set_rows that is no
/// such interface becomes a node-set interface through the basis rows of its nodes: u_i = R_i V η
/// (a POD body, whose columns mix the boundary modes of many bodies, has no interface columns).
/// @throws InputError naming @p source when the body has no floating-frame coordinates (not a
/// free body) or no interface can be read.
/// A GCMS body (`/reduced` attribute method = gcms, seed 001): η = the amplitudes of the whole basis
/// (V = 1), K = K̂, FlexibleData::gcms from the labels and @p gcms_node (a node's mesh position and
/// its 3 × n translation rows of the basis); interfaces are node sets (set_rows: the mean
/// translation of their nodes is exact). Refuses modal damping and a held frame.
struct GcmsNode {
  Vec3 x = Vec3::Zero();
  Eigen::MatrixXd rows;
};
std::shared_ptr<FlexibleData> make_flexible_data(const cms::ReducedBody& body, const std::string& source,
                                                 const Eigen::MatrixXd& node_coords,
                                                 const std::vector<std::int64_t>& node_ids,
                                                 const std::map<std::string, std::vector<std::int64_t>>& node_sets,
                                                 const FlexibleOptions& o, const SetBasisRows* set_rows = nullptr,
                                                 const GcmsNode* gcms_node = nullptr);

/// A body file read once: the body at the means (`/reduced`), its mesh data for the interfaces and,
/// when the file has `/stochastic_body`, the stochastic body (cms::StochasticBody) to evaluate at θ.
struct FlexibleSource {
  std::string path;
  cms::ReducedBody nominal;
  Eigen::MatrixXd coords;
  std::vector<std::int64_t> ids;
  std::map<std::string, std::vector<std::int64_t>> sets;
  std::shared_ptr<const cms::StochasticBody> stochastic; ///< null for a deterministic file
  /// For a deterministic body without physical interface columns (a POD body from `flexuq
  /// body-at`): the basis rows at every node set of the file's mesh (make_flexible_data).
  SetBasisRows set_rows;
  /// `/reduced/stress_modes` of a deterministic file (nodes × 6 × columns), else null.
  std::shared_ptr<const std::vector<double>> stress_modes;
  /// A GCMS body file: its first node's position and basis rows (GcmsNode), for its layout.
  std::shared_ptr<const GcmsNode> gcms_node;
  /// The stochastic body's parameter means (its θ order); empty for a deterministic file.
  std::vector<double> means() const;
  /// Elastic data of the body at the means (@p theta null) or at @p theta (stochastic files only,
  /// the stochastic body's parameter order).
  std::shared_ptr<FlexibleData> data(const FlexibleOptions& o, const std::vector<double>* theta = nullptr) const;
};

/// Read @p path (a `flexuq reduce` result) on MPI_COMM_SELF.
/// @throws InputError naming the file when it is missing or not a reduced body.
std::shared_ptr<const FlexibleSource> read_flexible_source(const std::string& path);

/// Read @p path and build its elastic data at the means (read_flexible_source(path)->data(o)).
std::shared_ptr<FlexibleData> load_flexible_body(const std::string& path, const FlexibleOptions& o);

/// The same data with the stiffness scaled by @p factor (K̄ is linear in Young's modulus) and the
/// damping recomputed for the same ratio.
std::shared_ptr<FlexibleData> rescaled(const FlexibleData& d, double factor);

} // namespace flexuq::mbs
