// SPDX-License-Identifier: MIT
#pragma once
/// @file Static.hpp
/// @brief The nonlinear static solver of seed 002 (section 5.3): a continuum body of bar2, quad4,
/// quad8 or hex8 elements (SVK, total Lagrangian) in one of the six formulations (NFE, NFFb, NFFe,
/// LFE, LFFb, LFFe), loaded in increments λ = k/steps of dead forces, follower forces and follower
/// couples and prescribed displacements, each increment solved by PETSc SNES (Newton with a line
/// search; an increment that fails is halved). Load stiffness of the follower loads is in the
/// Jacobian. docs/nff.md.

#include "flexuq/nl/Nff.hpp"
#include "flexuq/nl/Svk.hpp"

#include <Eigen/Dense>
#include <mpi.h>

#include <map>
#include <string>
#include <vector>

namespace flexuq::nl {

/// A replicated mesh of one element kind; node sets by name.
struct StaticMesh {
  ElementKind kind = ElementKind::quad8;
  Eigen::MatrixXd X;                        ///< reference coordinates, one row per node
  std::vector<std::vector<int>> elements;   ///< node ids per element (the kernels' node order)
  std::map<std::string, std::vector<int>> sets;
  int dim() const { return static_cast<int>(X.cols()); }
  int num_nodes() const { return static_cast<int>(X.rows()); }
};

/// A structured cantilever [0, L] x [-h/2, h/2] (x [-d/2, d/2]) of @p cells elements per direction
/// (1, 2 or 3 numbers by the kind's dimension). Node sets: `root` (x = 0), `tip` (x = L) and
/// `tip_mid` (the node of `tip` nearest the axis). Throws OptionError("cells") on a bad count.
StaticMesh cantilever_mesh(ElementKind kind, double length, double height, double depth, const std::vector<int>& cells);

/// The mesh of a file (io::read_mesh): one element kind among quad4, quad8 (2-D: z must be 0) and hex8,
/// in the kernels' node order (Abaqus's); node sets under their names in upper and in lower case.
/// Throws InputError naming the file for other or mixed kinds.
StaticMesh mesh_from_file(const std::string& path);

/// Prescribed displacement of a node set: the components flagged in @p components (x, y, z) follow
/// λ value + (R(λ rotation) - 1)(X - centre) (value and rotation zero: clamped). Rotations are 2-D.
struct StaticSupport {
  std::string set;
  std::vector<bool> components; ///< one flag per dimension
  Eigen::VectorXd value;        ///< one number per dimension
  double rotation = 0;          ///< rad at λ = 1, about @p centre (2-D)
  Eigen::VectorXd centre;       ///< empty: the set's centroid
};

enum class LoadKind { force, follower_force, follower_couple };

/// A load on a node set at λ = 1. force / follower_force: @p force is the total, shared equally by
/// the set's nodes; a follower turns with the material rotation at the set's node nearest its centroid
/// (2-D). follower_couple (2-D): the moment @p moment, as nodal forces M perp(c_i) / sum |c_i|^2 with c_i
/// the nodes' current offsets from their current centroid: no net force and a moment of exactly M,
/// turning with the loaded face however it deforms.
struct StaticLoad {
  LoadKind kind = LoadKind::force;
  std::string set;
  Eigen::VectorXd force;
  double moment = 0;
};

struct StaticOptions {
  Formulation formulation = Formulation::nfe;
  SvkMaterial material;
  int steps = 10;          ///< load increments reported (λ = k / steps)
  int max_cuts = 10;       ///< halvings of a failed increment before giving up
  double rtol = 1e-10;     ///< SNES relative residual tolerance
  double atol = -1;        ///< SNES absolute residual tolerance (N); negative: 1e-9 of the full load's residual
  int max_it = 50;         ///< Newton iterations per increment
  int frame_node = -1;     ///< NFFb/LFFb: the node carrying the body frame (-1: nearest the centroid)
  bool terms = false;      ///< record the average term magnitudes per step (N11)
  std::string prefix = "static_"; ///< PETSc options prefix of the SNES
};

/// Average magnitude over the elements of ||Q_I||..||Q_IV|| and ||K_I||..||K_V|| (Frobenius), in the
/// formulation's own coordinates (global for NFE, the frame's for NFF).
struct TermMagnitudes {
  double Q[4] = {0, 0, 0, 0};
  double K[5] = {0, 0, 0, 0, 0};
};

struct StaticStep {
  double lambda = 0;
  int newton_iterations = 0; ///< summed over the increment's sub-steps
  int cuts = 0;              ///< halvings this increment needed
  double residual = 0;       ///< final residual norm
  Eigen::VectorXd u;         ///< all displacements, node-major (every rank)
  TermMagnitudes terms;
};

struct StaticResult {
  std::vector<StaticStep> steps; ///< one per increment reached (λ = k / steps)
  bool completed = false;        ///< all increments converged
  std::string failure;           ///< why not
  int frame_node = -1;           ///< the body frame's node (NFFb, LFFb)
  double seconds = 0;            ///< wall time of the load path
  double atol = 0;               ///< the absolute residual tolerance used
};

/// Validate @p opt, @p supports and @p loads against @p mesh: OptionError naming the field
/// (formulation, steps, material.E, supports[i].set, loads[i].set, ...).
void validate(const StaticMesh& mesh, const std::vector<StaticSupport>& supports, const std::vector<StaticLoad>& loads,
              const StaticOptions& opt);

/// Run the load path. @note Collective on @p comm; results are replicated on every rank.
StaticResult solve_static(MPI_Comm comm, const StaticMesh& mesh, const std::vector<StaticSupport>& supports,
                          const std::vector<StaticLoad>& loads, const StaticOptions& opt);

/// The assembled residual F(u; λ) (internal minus external forces; u - λ value on supported DOFs) and
/// its Jacobian, dense and replicated: for tests of the assembly and the load stiffness on small models.
/// @note Collective.
void static_residual(MPI_Comm comm, const StaticMesh& mesh, const std::vector<StaticSupport>& supports,
                     const std::vector<StaticLoad>& loads, const StaticOptions& opt, double lambda,
                     const Eigen::VectorXd& u, Eigen::VectorXd& F, Eigen::MatrixXd& J);

/// Displacement of node @p node at step @p step.
Eigen::VectorXd node_displacement(const StaticMesh& mesh, const StaticStep& step, int node);

/// Write /static (docs/hdf5-schema.md) to the file @p path. @note Collective.
void write_static_file(MPI_Comm comm, const std::string& path, const StaticMesh& mesh, const StaticOptions& opt,
                       const StaticResult& result);

} // namespace flexuq::nl
