// SPDX-License-Identifier: MIT
#include "flexuq/fe/DofMap.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/core/Handle.hpp"
#include "flexuq/core/RootTask.hpp"
#include "flexuq/fe/AssemblyProfile.hpp"

#include <petscmat.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <sstream>

// Scotch keeps one random generator per process; reset it before each partition so the same
// mesh gets the same partition every time (reproducible DOF numbering within and across runs).
extern "C" void SCOTCH_randomReset(void);

namespace flexuq::fe {

using assembly_profile::Part;
using assembly_profile::Scope;

NodeElements::NodeElements(const io::Mesh& mesh) {
  const std::size_t n = mesh.num_nodes();
  offsets.assign(n + 1, 0);
  for (int v : mesh.elem_nodes) ++offsets[static_cast<std::size_t>(v) + 1];
  std::partial_sum(offsets.begin(), offsets.end(), offsets.begin());
  elements.resize(static_cast<std::size_t>(offsets.back()));
  std::vector<PetscInt> fill(offsets.begin(), offsets.end() - 1);
  for (std::size_t e = 0; e < mesh.num_elements(); ++e)
    for (int k = 0; k < mesh.element_size(e); ++k) elements[fill[mesh.element(e)[k]]++] = static_cast<PetscInt>(e);
}

namespace {

/// Neighbour nodes (sharing an element) of node v, excluding v itself, into @p out using a marker.
void neighbours(const io::Mesh& mesh, const NodeElements& ne, int v, std::vector<int>& mark, int stamp,
                std::vector<int>& out) {
  out.clear();
  for (PetscInt k = ne.offsets[v]; k < ne.offsets[v + 1]; ++k) {
    const auto e = static_cast<std::size_t>(ne.elements[k]);
    for (int j = 0; j < mesh.element_size(e); ++j) {
      const int u = mesh.element(e)[j];
      if (u != v && mark[u] != stamp) {
        mark[u] = stamp;
        out.push_back(u);
      }
    }
  }
}

} // namespace

DofMap::DofMap(MPI_Comm comm, const io::Mesh& mesh, int dpn, const std::vector<int>& fixed_nodes,
               const std::string& partitioner)
    : comm_(comm), dpn_(dpn) {
  init(mesh, whole_nodes(mesh.num_nodes(), fixed_nodes), partitioner);
}

DofMap::DofMap(MPI_Comm comm, const io::Mesh& mesh, int dpn, const FixedDofs& fixed, const std::string& partitioner)
    : comm_(comm), dpn_(dpn) {
  init(mesh, fixed, partitioner);
}

FixedDofs DofMap::whole_nodes(std::size_t n, const std::vector<int>& fixed_nodes) const {
  FixedDofs f;
  if (fixed_nodes.empty()) return f;
  f.mask.assign(n, 0);
  for (int v : fixed_nodes) f.mask.at(static_cast<std::size_t>(v)) = static_cast<std::uint8_t>((1u << dpn_) - 1u);
  return f;
}

int DofMap::free_dofs(int n) const {
  const unsigned m = fixed_mask(n);
  int k = 0;
  for (int c = 0; c < dpn_; ++c) k += ((m >> c) & 1u) ? 0 : 1;
  return k;
}

void DofMap::init(const io::Mesh& mesh, const FixedDofs& fixed, const std::string& partitioner) {
  const int n = static_cast<int>(mesh.num_nodes());
  std::optional<Scope> graph_scope(Part::node_graph);
  const NodeElements ne(mesh);
  std::vector<int> mark(static_cast<std::size_t>(n), -1);
  int stamp = 0;
  // Two-node springs couple their nodes like an element does (partition and preallocation).
  std::map<int, std::vector<int>> partners;
  for (const auto* list : {&mesh.springs, &mesh.scalar_masses}) // and scalar masses (CMASS1/CMASS2)
    for (const auto& sp : *list)
      if (sp.node_b >= 0 && sp.node_b != sp.node_a) {
        partners[sp.node_a].push_back(sp.node_b);
        partners[sp.node_b].push_back(sp.node_a);
      }
  graph_scope.reset();
  const auto new_number = build(
      n,
      [&](int v, std::vector<int>& out) {
        const int s = stamp++;
        neighbours(mesh, ne, v, mark, s, out);
        if (partners.empty()) return;
        const auto it = partners.find(v);
        if (it == partners.end()) return;
        for (int u : it->second)
          if (mark[u] != s) {
            mark[u] = s;
            out.push_back(u);
          }
      },
      fixed, partitioner, mesh.source);

  // Elements: assembled by the owner of their lowest-numbered node.
  const Scope timed(Part::element_owner);
  const int rank = comm_.rank();
  for (std::size_t e = 0; e < mesh.num_elements(); ++e) {
    const int* en = mesh.element(e);
    int best = en[0];
    for (int k = 1; k < mesh.element_size(e); ++k)
      if (new_number[en[k]] < new_number[best]) best = en[k];
    if (owner_[best] == rank) local_elements_.push_back(static_cast<int>(e));
  }
}

DofMap::DofMap(MPI_Comm comm, const std::vector<std::int64_t>& offsets, const std::vector<int>& nbrs, int dpn,
               const std::vector<int>& fixed_nodes, const std::string& partitioner, const std::string& source)
    : comm_(comm), dpn_(dpn) {
  FLEXUQ_REQUIRE(!offsets.empty(), source << ": no nodes");
  build(
      static_cast<int>(offsets.size() - 1),
      [&](int v, std::vector<int>& out) {
        out.assign(nbrs.begin() + offsets[static_cast<std::size_t>(v)], nbrs.begin() + offsets[static_cast<std::size_t>(v) + 1]);
      },
      whole_nodes(offsets.size() - 1, fixed_nodes), partitioner, source);
}

std::vector<PetscInt> DofMap::build(int n, const NeighbourFn& neighbours_of, const FixedDofs& fixed_dofs,
                                    const std::string& partitioner, const std::string& source) {
  const int size = comm_.size(), rank = comm_.rank();
  std::vector<int> nb;
  // 1. Partition the node graph.
  std::optional<Scope> step(std::in_place, Part::partition);
  owner_.assign(static_cast<std::size_t>(n), 0);
  std::vector<PetscInt> new_number(static_cast<std::size_t>(n));
  std::iota(new_number.begin(), new_number.end(), 0);
  if (size > 1) {
    // Graph partitioners (PT-Scotch, ParMETIS…) running on several processes are not reproducible:
    // their parallel matching depends on message arrival order, so the same mesh got a different
    // partition - hence a different DOF order and MUMPS pivot sequence, results differing in the
    // last bits - from one run to the next (2-rank crank modes: 1e-10 Hz). The whole graph is on
    // every rank anyway, so rank 0 partitions it alone into `size` parts and broadcasts the result:
    // the same mesh and rank count now always give the same numbering. Distribution-based types
    // ("average", "current", "square") are deterministic and keep the parallel call.
    std::string type = partitioner.empty() ? std::string(MATPARTITIONINGPTSCOTCH) : partitioner;
    {
      char opt[64] = {0};
      PetscBool set = PETSC_FALSE;
      FLEXUQ_PETSC(PetscOptionsGetString(nullptr, nullptr, "-mat_partitioning_type", opt, sizeof opt, &set));
      if (set) type = opt;
    }
    const bool sequential = type == MATPARTITIONINGPTSCOTCH || type == MATPARTITIONINGPARMETIS ||
                            type == MATPARTITIONINGCHACO || type == MATPARTITIONINGPARTY;
    // Rows of the adjacency this rank proposes: all on rank 0 (sequential), else [r n / p, (r+1) n / p).
    const PetscInt lo = sequential ? 0 : static_cast<PetscInt>(static_cast<long long>(n) * rank / size);
    const PetscInt hi = sequential ? n : static_cast<PetscInt>(static_cast<long long>(n) * (rank + 1) / size);
    std::vector<PetscInt> all_num, all_part;
    const auto partition = [&] {
      std::vector<PetscInt> cols;
      std::vector<PetscInt> rowptr{0};
      for (PetscInt v = lo; v < hi; ++v) {
        neighbours_of(static_cast<int>(v), nb);
        std::sort(nb.begin(), nb.end());
        cols.insert(cols.end(), nb.begin(), nb.end());
        rowptr.push_back(static_cast<PetscInt>(cols.size()));
      }
      PetscInt *ia = nullptr, *ja = nullptr;
      FLEXUQ_PETSC(PetscMalloc1(rowptr.size(), &ia));
      FLEXUQ_PETSC(PetscMalloc1(std::max<std::size_t>(cols.size(), 1), &ja));
      std::copy(rowptr.begin(), rowptr.end(), ia);
      std::copy(cols.begin(), cols.end(), ja);
      const MPI_Comm pcomm = sequential ? PETSC_COMM_SELF : comm_.get();
      MatH adj;
      FLEXUQ_PETSC(MatCreateMPIAdj(pcomm, hi - lo, n, ia, ja, nullptr, adj.out())); // takes ia, ja
      PartitioningH part;
      FLEXUQ_PETSC(MatPartitioningCreate(pcomm, part.out()));
      FLEXUQ_PETSC(MatPartitioningSetAdjacency(part.get(), adj.get()));
      FLEXUQ_PETSC(MatPartitioningSetType(part.get(), type.c_str()));
      FLEXUQ_PETSC(MatPartitioningSetNParts(part.get(), size));
      FLEXUQ_PETSC(MatPartitioningSetFromOptions(part.get()));
      SCOTCH_randomReset();
      IsH is_part, is_num, is_all_num, is_all_part;
      FLEXUQ_PETSC(MatPartitioningApply(part.get(), is_part.out()));
      FLEXUQ_PETSC(ISPartitioningToNumbering(is_part.get(), is_num.out()));
      if (sequential) {
        FLEXUQ_PETSC(ISDuplicate(is_num.get(), is_all_num.out()));
        FLEXUQ_PETSC(ISDuplicate(is_part.get(), is_all_part.out()));
      } else {
        FLEXUQ_PETSC(ISAllGather(is_num.get(), is_all_num.out()));
        FLEXUQ_PETSC(ISAllGather(is_part.get(), is_all_part.out()));
      }
      const PetscInt *num = nullptr, *prt = nullptr;
      FLEXUQ_PETSC(ISGetIndices(is_all_num.get(), &num));
      FLEXUQ_PETSC(ISGetIndices(is_all_part.get(), &prt));
      all_num.assign(num, num + n);
      all_part.assign(prt, prt + n);
      FLEXUQ_PETSC(ISRestoreIndices(is_all_num.get(), &num));
      FLEXUQ_PETSC(ISRestoreIndices(is_all_part.get(), &prt));
    };
    if (!sequential) {
      partition();
    } else {
      on_root(comm_.get(), partition); // a failure on rank 0 is raised on every rank, no hang
      all_num.resize(static_cast<std::size_t>(n));
      all_part.resize(static_cast<std::size_t>(n));
      FLEXUQ_MPI(MPI_Bcast(all_num.data(), n, MPIU_INT, 0, comm_.get()));
      FLEXUQ_MPI(MPI_Bcast(all_part.data(), n, MPIU_INT, 0, comm_.get()));
    }
    for (int v = 0; v < n; ++v) {
      new_number[static_cast<std::size_t>(v)] = all_num[static_cast<std::size_t>(v)];
      owner_[static_cast<std::size_t>(v)] = static_cast<int>(all_part[static_cast<std::size_t>(v)]);
    }
  }

  // 2. Number free DOFs: nodes in new order; each rank's nodes are contiguous in that order.
  step.reset();
  step.emplace(Part::numbering);
  std::vector<int> order(static_cast<std::size_t>(n));
  for (int v = 0; v < n; ++v) order[static_cast<std::size_t>(new_number[static_cast<std::size_t>(v)])] = v;
  // fixed[v]: the whole node; mask_[v]: single components (kept only when some node has them, so
  // the whole-node form numbers exactly as before). count[v]: the node's free DOFs.
  const unsigned all = (1u << dpn_) - 1u;
  std::vector<char> fixed(static_cast<std::size_t>(n), 0);
  std::vector<int> count(static_cast<std::size_t>(n), dpn_);
  FLEXUQ_REQUIRE(fixed_dofs.mask.empty() || fixed_dofs.mask.size() == static_cast<std::size_t>(n),
                 source << ": fixed DOF masks for " << fixed_dofs.mask.size() << " nodes, the mesh has " << n);
  mask_.clear();
  for (std::size_t v = 0; v < fixed_dofs.mask.size(); ++v) {
    const unsigned m = fixed_dofs.mask[v];
    FLEXUQ_REQUIRE((m & ~all) == 0, source << ": a fixed component above " << dpn_ << " (nodes have " << dpn_ << " DOFs)");
    if (m == all) {
      fixed[v] = 1;
      count[v] = 0;
    } else if (m != 0) {
      if (mask_.empty()) mask_.assign(static_cast<std::size_t>(n), 0);
      mask_[v] = static_cast<std::uint8_t>(m);
      for (int c = 0; c < dpn_; ++c) count[v] -= static_cast<int>((m >> c) & 1u);
    }
  }
  node_dof_.assign(static_cast<std::size_t>(n), -1);
  PetscInt next = 0;
  for (int v : order) {
    if (owner_[v] == rank) owned_nodes_.push_back(v);
    if (!fixed[v]) {
      node_dof_[v] = next;
      next += count[v];
    }
  }
  n_global_ = next;
  // Owned range: first and one-past-last free DOF among owned nodes (contiguous by construction).
  begin_ = 0;
  end_ = 0;
  {
    PetscInt local = 0;
    for (int v : owned_nodes_) local += count[v];
    PetscInt before = 0;
    FLEXUQ_MPI(MPI_Exscan(&local, &before, 1, MPIU_INT, MPI_SUM, comm_.get()));
    if (rank == 0) before = 0;
    begin_ = before;
    end_ = before + local;
  }
  FLEXUQ_REQUIRE(n_global_ > 0, source << ": every node is fixed; nothing is left to solve for");

  // 3. Exact preallocation from the node graph (free neighbours only).
  step.reset();
  step.emplace(Part::preallocation);
  d_nnz_.reserve(static_cast<std::size_t>(end_ - begin_));
  o_nnz_.reserve(static_cast<std::size_t>(end_ - begin_));
  long long cut = 0;
  for (int v : owned_nodes_) {
    if (fixed[v]) continue;
    neighbours_of(v, nb);
    PetscInt d = count[v], o = 0; // itself
    for (int u : nb) {
      if (fixed[u]) continue;
      if (owner_[u] == rank)
        d += count[u];
      else {
        o += count[u];
        ++cut;
      }
    }
    for (int c = 0; c < count[v]; ++c) {
      d_nnz_.push_back(d);
      o_nnz_.push_back(o);
    }
  }
  cut_edges_ = cut;
  return new_number;
}

std::string DofMap::balance_summary() const {
  const double local = static_cast<double>(local_size());
  const double mn = allreduce_min(comm_.get(), local), mx = allreduce_max(comm_.get(), local);
  const long long cut = allreduce_sum(comm_.get(), cut_edges_) / 2;
  std::ostringstream os;
  os << "DOFs per rank min " << static_cast<long long>(mn) << " / max " << static_cast<long long>(mx)
     << " (imbalance " << (mn > 0 ? mx / mn : 0.0) << "), node-graph edges cut " << cut;
  return os.str();
}

} // namespace flexuq::fe
