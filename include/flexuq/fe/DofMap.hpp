// SPDX-License-Identifier: MIT
#pragma once
/// @file DofMap.hpp
/// @brief Partition of the nodes over the ranks (PETSc MatPartitioning, PT-Scotch by default) and the
/// global numbering of the free DOFs: each rank owns one contiguous block; fixed nodes are
/// eliminated (all their DOFs), not penalised.

#include "flexuq/core/Comm.hpp"
#include "flexuq/io/Mesh.hpp"

#include <petscsys.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace flexuq::fe {

class DofMap {
public:
  /// @param fixed_nodes internal node indices whose DOFs are all eliminated.
  /// @param partitioner MatPartitioning type ("ptscotch", "average", "current"…; "" = ptscotch),
  ///        overridable by -mat_partitioning_type.
  /// @note Collective on @p comm. The mesh must be identical on every rank.
  DofMap(MPI_Comm comm, const io::Mesh& mesh, int dofs_per_node, const std::vector<int>& fixed_nodes,
         const std::string& partitioner = "");
  /// The same for a component without elements (fe/MatrixComponent.hpp): the node graph is given
  /// in CSR form (@p offsets of size nodes + 1, @p neighbours without the node itself, symmetric),
  /// e.g. the sparsity of external matrices; local_elements() is empty. @p source names the input
  /// in messages. @note Collective; the graph must be identical on every rank.
  DofMap(MPI_Comm comm, const std::vector<std::int64_t>& offsets, const std::vector<int>& neighbours, int dofs_per_node,
         const std::vector<int>& fixed_nodes, const std::string& partitioner, const std::string& source);

  MPI_Comm comm() const { return comm_.get(); }
  int dofs_per_node() const { return dpn_; }
  PetscInt global_size() const { return n_global_; }
  PetscInt local_size() const { return end_ - begin_; }
  PetscInt begin() const { return begin_; }
  PetscInt end() const { return end_; }
  /// First global DOF of node @p n (internal index), or −1 if the node is fixed.
  PetscInt node_dof(int n) const { return node_dof_[static_cast<std::size_t>(n)]; }
  bool is_fixed(int n) const { return node_dof_[static_cast<std::size_t>(n)] < 0; }
  /// Rank owning node @p n.
  int node_owner(int n) const { return owner_[static_cast<std::size_t>(n)]; }
  /// Nodes owned here, in global numbering order.
  const std::vector<int>& owned_nodes() const { return owned_nodes_; }
  /// Elements this rank assembles (each element exactly once over all ranks).
  const std::vector<int>& local_elements() const { return local_elements_; }
  /// Per-row nonzero counts in the diagonal and off-diagonal blocks (exact).
  const std::vector<PetscInt>& d_nnz() const { return d_nnz_; }
  const std::vector<PetscInt>& o_nnz() const { return o_nnz_; }
  /// Edges of the free-node graph from a node owned here to a node owned elsewhere (each cut
  /// edge counts once on each side). Not collective.
  long long cut_edges() const { return cut_edges_; }
  /// Summary of the partition: DOFs per rank (min/max) and the edge cut. @note Collective.
  std::string balance_summary() const;

private:
  /// Neighbours of node v (excluding v) into out.
  using NeighbourFn = std::function<void(int v, std::vector<int>& out)>;
  /// Steps shared by both constructors: partition, numbering, preallocation; returns the new
  /// node numbering (for the element assignment of the mesh constructor).
  std::vector<PetscInt> build(int n, const NeighbourFn& neighbours, const std::vector<int>& fixed_nodes,
                              const std::string& partitioner, const std::string& source);
  Comm comm_;
  int dpn_;
  PetscInt n_global_ = 0, begin_ = 0, end_ = 0;
  std::vector<PetscInt> node_dof_;
  std::vector<int> owner_, owned_nodes_, local_elements_;
  std::vector<PetscInt> d_nnz_, o_nnz_;
  long long cut_edges_ = 0;
};

/// Node → element incidence in CSR form (every rank, whole mesh).
struct NodeElements {
  std::vector<PetscInt> offsets, elements;
  explicit NodeElements(const io::Mesh& mesh);
};

} // namespace flexuq::fe
