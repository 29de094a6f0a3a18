// SPDX-License-Identifier: MIT
#pragma once
/// @file MatrixComponent.hpp
/// @brief A component from matrices exported by another FE code (`model.matrices`, issue #9 item 4):
/// K(θ) = Σ_k θ_k K_k and M = Σ_k m_k M_k from MatrixMarket (+ DOF label file), Abaqus
/// `*MATRIX GENERATE` .mtx, PETSc binary or OP4 files (io/ExternalMatrices.hpp). The result is an
/// fe::Component without elements — its mesh holds the labelled nodes (coordinates if the label
/// file gives them) and the node sets — so `modes`, `reduce` and `campaign` run on it unchanged.
///
/// Distribution: every rank streams each file twice. Pass 1 builds the node graph (the union of the
/// sparsity of all terms, node by node: dofs_per_node² times smaller than the matrices), which
/// fe::DofMap partitions like a mesh's; pass 2 assembles into each term only the rows its rank
/// owns, on one common pattern (K and M terms share it, as for meshes). No rank holds a whole matrix
/// (OP4 excepted: io::read_op4 returns dense matrices).
///
/// Checks (InputError naming file and line): a matrix that is not symmetric (the entry, both
/// values, the line of the entry), sizes different from the label file, and everything
/// io::scan_matrix checks.

#include "flexuq/fe/Component.hpp"
#include "flexuq/io/ExternalMatrices.hpp"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace flexuq::fe {

/// One term θ_k A_k: its name (what `parameters.<p>.param` refers to), file and nominal coefficient.
struct MatrixTerm {
  std::string name;
  io::MatrixFile file;
  double coefficient = 1.0;
};

struct MatrixModelSpec {
  std::vector<MatrixTerm> stiffness, mass;
  std::string labels; ///< DOF label file; "" = from the Abaqus files (all terms must be abaqus)
  std::map<std::string, std::vector<long>> node_sets; ///< set name → node ids
  /// More sets, read by the job-file parser from the file `model.matrices.sets` names (YAML
  /// {NAME: [ids]}); a name in both maps takes these ids.
  std::map<std::string, std::vector<long>> extra_sets;
  std::string source;                                 ///< the job file, for messages about sets
};

/// Read the labels and every term, partition and assemble. Uses @p options.fixed_sets and
/// .partitioner (the material keys do not apply). @note Collective; every rank reads the files.
std::unique_ptr<Component> make_matrix_component(MPI_Comm comm, const MatrixModelSpec& spec,
                                                 const ComponentOptions& options);

/// Write @p A (an operator of @p c, e.g. c.K() or a term) as a symmetric MatrixMarket file whose
/// rows follow write_component_labels's order (free nodes in mesh order, components 1…dpn).
/// Gathers on rank 0, which writes: for tests and small models. @note Collective.
void write_component_matrix(const Component& c, Mat A, const std::string& path);
/// The label file (node id, component, coordinates) of write_component_matrix. @note Collective.
void write_component_labels(const Component& c, const std::string& path);
/// The node sets of @p c as YAML {NAME: [node ids]} (free nodes only), for model.matrices.sets.
/// @note Collective.
void write_component_sets(const Component& c, const std::string& path);
/// write_component_matrix of K and M and the two files above: <prefix>_K.mtx, <prefix>_M.mtx,
/// <prefix>_dofs.txt, <prefix>_sets.yaml (`modes.export_matrices`). @note Collective.
inline constexpr const char* kExportSuffixes[] = {"_K.mtx", "_M.mtx", "_dofs.txt", "_sets.yaml"};
void export_component(const Component& c, const std::string& prefix);

} // namespace flexuq::fe
