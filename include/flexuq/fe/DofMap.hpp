// SPDX-License-Identifier: MIT
#pragma once
/// @file DofMap.hpp
/// @brief Partition of the nodes over the ranks (PETSc MatPartitioning, PT-Scotch by default) and the
/// global numbering of the free DOFs: each rank owns one contiguous block; fixed DOFs are
/// eliminated, not penalised: whole nodes, or single components of a node (FixedDofs).

#include "flexuq/core/Comm.hpp"
#include "flexuq/io/Mesh.hpp"

#include <petscsys.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace flexuq::fe {

/// Per-node fixed components: bit c of mask[n] set = component c (0-based: 0–2 translations, 3–5
/// rotations; 0–1 in 2-D) of node n is eliminated. Empty = nothing fixed. A mask holding every bit
/// below dofs_per_node fixes the whole node (the same numbering as the node-list constructors).
struct FixedDofs {
  std::vector<std::uint8_t> mask;
};

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
  /// The mesh form with single fixed components (@p fixed.mask empty or of size mesh.num_nodes()).
  /// A node's free components keep their order and are numbered consecutively. @note Collective.
  DofMap(MPI_Comm comm, const io::Mesh& mesh, int dofs_per_node, const FixedDofs& fixed,
         const std::string& partitioner = "");

  MPI_Comm comm() const { return comm_.get(); }
  int dofs_per_node() const { return dpn_; }
  PetscInt global_size() const { return n_global_; }
  PetscInt local_size() const { return end_ - begin_; }
  PetscInt begin() const { return begin_; }
  PetscInt end() const { return end_; }
  /// First global DOF of node @p n (internal index), or −1 if the whole node is fixed. node_dof(n)
  /// + c is component c only on a node with no single fixed component (partly_fixed(n) false):
  /// use dof(n, c) for any node.
  PetscInt node_dof(int n) const { return node_dof_[static_cast<std::size_t>(n)]; }
  /// True when every DOF of node @p n is fixed.
  bool is_fixed(int n) const { return node_dof_[static_cast<std::size_t>(n)] < 0; }
  /// Global DOF of component @p c (0-based) of node @p n, or −1 if that component is fixed.
  PetscInt dof(int n, int c) const {
    const PetscInt b = node_dof_[static_cast<std::size_t>(n)];
    if (b < 0) return -1;
    if (mask_.empty()) return b + c;
    const unsigned m = mask_[static_cast<std::size_t>(n)];
    if ((m >> c) & 1u) return -1;
    PetscInt k = 0; // free components before c
    for (int j = 0; j < c; ++j) k += ((m >> j) & 1u) ? 0 : 1;
    return b + k;
  }
  /// Fixed components of node @p n as a bit mask (bit c = component c); all dofs_per_node bits for a
  /// fixed node, 0 for a free one.
  unsigned fixed_mask(int n) const {
    if (node_dof_[static_cast<std::size_t>(n)] < 0) return (1u << dpn_) - 1u;
    return mask_.empty() ? 0u : mask_[static_cast<std::size_t>(n)];
  }
  /// True when some but not all components of node @p n are fixed.
  bool partly_fixed(int n) const { return !mask_.empty() && mask_[static_cast<std::size_t>(n)] != 0 && !is_fixed(n); }
  /// Number of free DOFs of node @p n.
  int free_dofs(int n) const;
  /// True when some node anywhere has single fixed components (the same on every rank).
  bool has_partly_fixed() const { return !mask_.empty(); }
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
  std::vector<PetscInt> build(int n, const NeighbourFn& neighbours, const FixedDofs& fixed,
                              const std::string& partitioner, const std::string& source);
  /// Node-list form → masks (whole nodes).
  FixedDofs whole_nodes(std::size_t n, const std::vector<int>& fixed_nodes) const;
  /// The mesh constructors' body.
  void init(const io::Mesh& mesh, const FixedDofs& fixed, const std::string& partitioner);
  Comm comm_;
  int dpn_;
  PetscInt n_global_ = 0, begin_ = 0, end_ = 0;
  std::vector<PetscInt> node_dof_;
  std::vector<std::uint8_t> mask_; ///< per node, single fixed components (empty: none anywhere)
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
