// SPDX-License-Identifier: MIT
#include "flexuq/fe/MatrixComponent.hpp"

#include "flexuq/core/Comm.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/core/Log.hpp"
#include "flexuq/io/Limits.hpp"

#include <petscmat.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

namespace flexuq::fe {

namespace {

/// Every term of the spec with its kind, in term order (stiffness first).
struct TermRef {
  const MatrixTerm* term;
  bool stiffness;
};
std::vector<TermRef> all_terms(const MatrixModelSpec& s) {
  std::vector<TermRef> t;
  for (const auto& x : s.stiffness) t.push_back({&x, true});
  for (const auto& x : s.mass) t.push_back({&x, false});
  return t;
}

std::string dof_name(const io::DofLabels& L, std::int64_t row) {
  const auto r = static_cast<std::size_t>(row);
  return "node " + std::to_string(L.node_ids[static_cast<std::size_t>(L.dof_node[r])]) + " component " +
         std::to_string(L.dof_comp[r] + 1);
}

/// Pass 1 over one file: node adjacency (appended to @p adj), and which triangles hold entries.
struct Pass1 {
  bool lower = false, upper = false;
  long first_upper_line = 0, first_lower_line = 0;
  io::MatrixHeader header;
};
Pass1 scan_pattern(const io::MatrixFile& f, const io::DofLabels& L, std::vector<std::vector<int>>& adj,
                   std::vector<std::size_t>& compacted) {
  Pass1 p;
  p.header = io::scan_matrix(f, L, [&](std::int64_t r, std::int64_t c, double, long where) {
    if (r > c && !p.lower) {
      p.lower = true;
      p.first_lower_line = where;
    }
    if (r < c && !p.upper) {
      p.upper = true;
      p.first_upper_line = where;
    }
    const int a = L.dof_node[static_cast<std::size_t>(r)], b = L.dof_node[static_cast<std::size_t>(c)];
    if (a == b) return;
    for (auto [u, v] : {std::pair{a, b}, std::pair{b, a}}) {
      auto& nb = adj[static_cast<std::size_t>(u)];
      if (!nb.empty() && nb.back() == v) continue;
      nb.push_back(v);
      // Keep each list near its distinct size: the entries of a node pair (dpn² of them) need
      // not be consecutive in the file.
      auto& mark = compacted[static_cast<std::size_t>(u)];
      if (nb.size() > 2 * mark + 16) {
        std::sort(nb.begin(), nb.end());
        nb.erase(std::unique(nb.begin(), nb.end()), nb.end());
        mark = nb.size();
      }
    }
  });
  return p;
}

/// The largest |A − Aᵀ| entry over the matrix and the largest |A| entry. @note Collective.
struct Asymmetry {
  double worst = 0, scale = 0;
  PetscInt row = -1, col = -1;
};
Asymmetry asymmetry(Mat A) {
  MatH T;
  FLEXUQ_PETSC(MatTranspose(A, MAT_INITIAL_MATRIX, T.out()));
  FLEXUQ_PETSC(MatAXPY(T.get(), -1.0, A, SUBSET_NONZERO_PATTERN));
  PetscInt b = 0, e = 0;
  FLEXUQ_PETSC(MatGetOwnershipRange(A, &b, &e));
  Asymmetry s;
  for (PetscInt i = b; i < e; ++i) {
    PetscInt nc = 0;
    const PetscInt* cols = nullptr;
    const PetscScalar* vals = nullptr;
    FLEXUQ_PETSC(MatGetRow(A, i, &nc, nullptr, &vals));
    for (PetscInt k = 0; k < nc; ++k) s.scale = std::max(s.scale, std::abs(PetscRealPart(vals[k])));
    FLEXUQ_PETSC(MatRestoreRow(A, i, &nc, nullptr, &vals));
    FLEXUQ_PETSC(MatGetRow(T.get(), i, &nc, &cols, &vals));
    for (PetscInt k = 0; k < nc; ++k)
      if (std::abs(PetscRealPart(vals[k])) > s.worst) {
        s.worst = std::abs(PetscRealPart(vals[k]));
        s.row = i;
        s.col = cols[k];
      }
    FLEXUQ_PETSC(MatRestoreRow(T.get(), i, &nc, &cols, &vals));
  }
  s.scale = allreduce_max(PetscObjectComm(reinterpret_cast<PetscObject>(A)), s.scale);
  // The rank with the worst entry broadcasts its position.
  struct {
    double v;
    int rank;
  } mine{s.worst, 0}, best{};
  MPI_Comm comm = PetscObjectComm(reinterpret_cast<PetscObject>(A));
  FLEXUQ_MPI(MPI_Comm_rank(comm, &mine.rank));
  FLEXUQ_MPI(MPI_Allreduce(&mine, &best, 1, MPI_DOUBLE_INT, MPI_MAXLOC, comm));
  PetscInt pos[2] = {s.row, s.col};
  FLEXUQ_MPI(MPI_Bcast(pos, 2, MPIU_INT, best.rank, comm));
  s.worst = best.v;
  s.row = pos[0];
  s.col = pos[1];
  return s;
}

PetscScalar entry(Mat A, PetscInt i, PetscInt j) {
  // Collective: the owner of row i reads it, everybody gets the value.
  PetscInt b = 0, e = 0;
  FLEXUQ_PETSC(MatGetOwnershipRange(A, &b, &e));
  double v = 0;
  if (i >= b && i < e) {
    PetscScalar x = 0;
    FLEXUQ_PETSC(MatGetValues(A, 1, &i, 1, &j, &x));
    v = PetscRealPart(x);
  }
  return allreduce_sum(PetscObjectComm(reinterpret_cast<PetscObject>(A)), v);
}

} // namespace

std::unique_ptr<Component> make_matrix_component(MPI_Comm comm, const MatrixModelSpec& spec,
                                                 const ComponentOptions& options) {
  // Options are named by their fields ("matrices.labels", OptionError): the caller names the job key.
  const auto require = [&](bool ok, const char* option, const std::string& message) {
    if (!ok) throw OptionError(option, message).wrapped(spec.source + ": ");
  };
  require(!spec.stiffness.empty(), "matrices", "{} needs at least one stiffness term");
  require(!spec.mass.empty(), "matrices", "{} needs at least one mass term");
  const auto terms = all_terms(spec);
  {
    std::set<std::string> names;
    for (const auto& t : terms)
      require(names.insert(t.term->name).second, "matrices", "{}: two terms are named '" + t.term->name + "'");
  }
  // --- DOF labels ---
  io::DofLabels L;
  if (spec.labels.empty()) {
    std::vector<std::string> paths;
    for (const auto& t : terms) {
      require(t.term->file.format == io::MatrixFormat::abaqus, "matrices.labels",
              FLEXUQ_MSG("{} is needed for " << enum_name(io::kMatrixFormatNames, t.term->file.format) << " files ("
                                             << t.term->file.path << ")"));
      paths.push_back(t.term->file.path);
    }
    L = io::abaqus_dof_labels(paths);
  } else {
    L = io::read_dof_labels(spec.labels);
  }
  const auto dpn = static_cast<std::size_t>(L.dofs_per_node);

  // --- the node-only mesh: nodes, coordinates, sets ---
  io::Mesh mesh;
  mesh.source = spec.labels.empty() ? L.source : spec.labels;
  mesh.node_ids = L.node_ids;
  mesh.coords = L.coords;
  if (!L.has_coordinates)
    mesh.warnings.push_back("no node coordinates in the label file: RBE2/RBE3 interfaces, GCMS and the "
                            "rigid-body checks of reduce need them (all coordinates are taken as 0)");
  {
    std::map<long, int> index;
    for (std::size_t v = 0; v < L.node_ids.size(); ++v) index.emplace(L.node_ids[v], static_cast<int>(v));
    auto sets = spec.node_sets;
    for (const auto& kv : spec.extra_sets) sets[kv.first] = kv.second;
    for (const auto& set_ids : sets) { // not a structured binding: FLEXUQ_REQUIRE captures the name
      const std::string& name = set_ids.first;
      const std::vector<long>& ids = set_ids.second;
      auto& set = mesh.node_sets[io::upper(name)];
      for (long id : ids) {
        const auto it = index.find(id);
        if (it == index.end()) // the message is made only on failure: sets may hold millions of ids
          require(false, "matrices.sets", FLEXUQ_MSG("{}." << name << ": node " << id << " is not in " << mesh.source));
        set.push_back(it->second);
      }
      std::sort(set.begin(), set.end());
      set.erase(std::unique(set.begin(), set.end()), set.end());
    }
  }

  // --- pass 1: node graph over all terms ---
  const std::size_t nn = L.node_ids.size();
  std::vector<char> mirror(terms.size());
  std::vector<std::int64_t> offsets(nn + 1, 0);
  std::vector<int> neighbours;
  {
    std::vector<std::vector<int>> adj(nn);
    std::vector<std::size_t> compacted(nn, 0);
    for (std::size_t k = 0; k < terms.size(); ++k) {
      const auto& f = terms[k].term->file;
      const Pass1 p = scan_pattern(f, L, adj, compacted);
      if (f.format == io::MatrixFormat::abaqus) {
        mirror[k] = !(p.lower && p.upper); // one triangle: Abaqus TYPE=SYMMETRIC storage
      } else {
        FLEXUQ_REQUIRE(!(p.header.symmetric && p.lower && p.upper),
                       f.path << ":" << std::max(p.first_lower_line, p.first_upper_line)
                              << ": the file is declared symmetric but stores entries on both sides of the diagonal");
        mirror[k] = p.header.symmetric;
      }
    }
    for (std::size_t v = 0; v < nn; ++v) {
      auto& nb = adj[v];
      std::sort(nb.begin(), nb.end());
      nb.erase(std::unique(nb.begin(), nb.end()), nb.end());
      offsets[v + 1] = offsets[v] + static_cast<std::int64_t>(nb.size());
    }
    neighbours.reserve(static_cast<std::size_t>(offsets[nn]));
    for (auto& nb : adj) {
      neighbours.insert(neighbours.end(), nb.begin(), nb.end());
      std::vector<int>().swap(nb);
    }
  }

  // --- fixed nodes, DOF map ---
  ExternalOperators ops;
  std::vector<int> fixed;
  if (!options.fixed_components.empty())
    throw InputError(options.fixed_components.front().key + ": supports of single components ({set, dofs}) are not "
                     "supported on a component given by matrices; fix whole node sets (model.fixed: [" +
                     options.fixed_components.front().set + "])");
  for (const auto& name : options.fixed_sets) {
    const auto& nodes = mesh.node_set(name);
    FLEXUQ_REQUIRE(!nodes.empty(), mesh.source << ": fixed node set '" << name << "' is empty");
    fixed.insert(fixed.end(), nodes.begin(), nodes.end());
    ops.fixed_sets.push_back(io::upper(name));
  }
  std::sort(fixed.begin(), fixed.end());
  fixed.erase(std::unique(fixed.begin(), fixed.end()), fixed.end());
  ops.n_fixed_nodes = fixed.size();
  ops.coordinates = L.has_coordinates;
  ops.dofs =
      std::make_unique<DofMap>(comm, offsets, neighbours, L.dofs_per_node, fixed, options.partitioner, mesh.source);
  const DofMap& d = *ops.dofs;
  {
    // The rows this rank will hold: the pattern, one matrix per term, K and M (AIJ: 8-byte value +
    // 4-byte column per nonzero). Checked on every rank, failed on all if one fails (io/Limits.hpp).
    double nz = 0;
    for (std::size_t r = 0; r < d.d_nnz().size(); ++r) nz += static_cast<double>(d.d_nnz()[r] + d.o_nnz()[r]);
    std::string err;
    try {
      io::limits::require_memory(nz * 12.0 * static_cast<double>(terms.size() + 3),
                                 mesh.source + " (" + std::to_string(terms.size()) +
                                     " matrix terms, this rank's rows)");
    } catch (const InputError& e) {
      err = e.what();
    }
    FLEXUQ_REQUIRE(!allreduce_or(comm, !err.empty()),
                   (err.empty() ? mesh.source + ": another rank has not enough memory for its rows" : err));
  }
  auto global = [&](std::int64_t row) -> PetscInt {
    const auto r = static_cast<std::size_t>(row);
    const PetscInt base = d.node_dof(L.dof_node[r]);
    return base < 0 ? -1 : base + L.dof_comp[r];
  };

  // --- the common pattern: a zero dpn × dpn block per coupled node pair (rows owned here) ---
  MatH pattern;
  FLEXUQ_PETSC(MatCreate(comm, pattern.out()));
  FLEXUQ_PETSC(MatSetSizes(pattern.get(), d.local_size(), d.local_size(), d.global_size(), d.global_size()));
  FLEXUQ_PETSC(MatSetType(pattern.get(), MATAIJ));
  FLEXUQ_PETSC(MatSetBlockSize(pattern.get(), d.dofs_per_node()));
  FLEXUQ_PETSC(MatSeqAIJSetPreallocation(pattern.get(), 0, d.d_nnz().data()));
  FLEXUQ_PETSC(MatMPIAIJSetPreallocation(pattern.get(), 0, d.d_nnz().data(), 0, d.o_nnz().data()));
  FLEXUQ_PETSC(MatSetOption(pattern.get(), MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
  FLEXUQ_PETSC(MatSetOption(pattern.get(), MAT_IGNORE_OFF_PROC_ENTRIES, PETSC_TRUE));
  {
    std::vector<PetscInt> rows(dpn), cols;
    std::vector<double> zeros;
    for (int v : d.owned_nodes()) {
      if (d.is_fixed(v)) continue;
      for (std::size_t c = 0; c < dpn; ++c) rows[c] = d.node_dof(v) + static_cast<PetscInt>(c);
      cols.clear();
      auto add_node = [&](int u) {
        if (d.is_fixed(u)) return;
        for (std::size_t c = 0; c < dpn; ++c) cols.push_back(d.node_dof(u) + static_cast<PetscInt>(c));
      };
      add_node(v);
      for (auto k = offsets[static_cast<std::size_t>(v)]; k < offsets[static_cast<std::size_t>(v) + 1]; ++k)
        add_node(neighbours[static_cast<std::size_t>(k)]);
      zeros.assign(rows.size() * cols.size(), 0.0);
      FLEXUQ_PETSC(MatSetValues(pattern.get(), static_cast<PetscInt>(rows.size()), rows.data(),
                                static_cast<PetscInt>(cols.size()), cols.data(), zeros.data(), INSERT_VALUES));
    }
  }
  FLEXUQ_PETSC(MatAssemblyBegin(pattern.get(), MAT_FINAL_ASSEMBLY));
  FLEXUQ_PETSC(MatAssemblyEnd(pattern.get(), MAT_FINAL_ASSEMBLY));

  // --- pass 2: each term, rows owned here only ---
  // The nominal diagonal Σ θ_k diag(A_k) of each kind (stiffness, mass): a negative entry cannot belong to a
  // positive semi-definite matrix and would otherwise surface as a MUMPS/SLEPc error code (issue #40).
  std::vector<double> nominal_diag[2];
  std::string kind_files[2];
  for (std::size_t k = 0; k < terms.size(); ++k) {
    const MatrixTerm& t = *terms[k].term;
    log::info(comm, "  reading " + std::string(terms[k].stiffness ? "stiffness" : "mass") + " term '" + t.name +
                        "' from " + t.file.path + " (" + enum_name(io::kMatrixFormatNames, t.file.format) + ")");
    MatH A;
    FLEXUQ_PETSC(MatDuplicate(pattern.get(), MAT_COPY_VALUES, A.out()));
    FLEXUQ_PETSC(MatSetOption(A.get(), MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE)); // one pattern for all terms
    const PetscInt b = d.begin(), e = d.end();
    io::scan_matrix(t.file, L, [&](std::int64_t r, std::int64_t c, double v, long) {
      const PetscInt gi = global(r), gj = global(c);
      if (gi < 0 || gj < 0) return; // a fixed DOF: eliminated
      if (gi >= b && gi < e) FLEXUQ_PETSC(MatSetValue(A.get(), gi, gj, v, ADD_VALUES));
      if (mirror[k] && gi != gj && gj >= b && gj < e) FLEXUQ_PETSC(MatSetValue(A.get(), gj, gi, v, ADD_VALUES));
    });
    FLEXUQ_PETSC(MatAssemblyBegin(A.get(), MAT_FINAL_ASSEMBLY));
    FLEXUQ_PETSC(MatAssemblyEnd(A.get(), MAT_FINAL_ASSEMBLY));
    if (!mirror[k]) {
      // Stored in full: the two triangles must agree (to round-off of a 17-digit export).
      const Asymmetry s = asymmetry(A.get());
      if (s.worst > 1e-10 * s.scale) {
        // Name the entry and its line: find the file row of the global DOFs, then the line.
        std::vector<std::int64_t> row_of(static_cast<std::size_t>(d.global_size()), -1);
        for (std::size_t r = 0; r < L.rows(); ++r)
          if (global(static_cast<std::int64_t>(r)) >= 0)
            row_of[static_cast<std::size_t>(global(static_cast<std::int64_t>(r)))] = static_cast<std::int64_t>(r);
        std::int64_t ri = row_of[static_cast<std::size_t>(s.row)], rj = row_of[static_cast<std::size_t>(s.col)];
        long line = 0;
        io::scan_matrix(t.file, L, [&](std::int64_t r, std::int64_t c, double, long where) {
          if (line == 0 && ((r == ri && c == rj) || (r == rj && c == ri))) line = where;
        });
        double aij = PetscRealPart(entry(A.get(), s.row, s.col)), aji = PetscRealPart(entry(A.get(), s.col, s.row));
        if (std::abs(aij) < std::abs(aji)) { // name the larger entry first (deterministic over ranks)
          std::swap(ri, rj);
          std::swap(aij, aji);
        }
        std::ostringstream os;
        os << t.file.path
           << (t.file.format == io::MatrixFormat::petsc || t.file.format == io::MatrixFormat::op4 ? ": entry " : ":")
           << line << ": the " << (terms[k].stiffness ? "stiffness" : "mass") << " term '" << t.name
           << "' is not symmetric: (" << dof_name(L, ri) << ", " << dof_name(L, rj) << ") = " << aij << " but ("
           << dof_name(L, rj) << ", " << dof_name(L, ri) << ") = " << aji
           << " (a file that stores one triangle must say so: 'symmetric' in a MatrixMarket banner)";
        throw InputError(os.str());
      }
    }
    {
      const int kind = terms[k].stiffness ? 0 : 1;
      VecH diag;
      FLEXUQ_PETSC(MatCreateVecs(A.get(), diag.out(), nullptr));
      FLEXUQ_PETSC(MatGetDiagonal(A.get(), diag.get()));
      const PetscScalar* dv = nullptr;
      FLEXUQ_PETSC(VecGetArrayRead(diag.get(), &dv));
      auto& nd = nominal_diag[kind];
      nd.resize(static_cast<std::size_t>(e - b), 0.0);
      for (PetscInt i = 0; i < e - b; ++i) nd[static_cast<std::size_t>(i)] += t.coefficient * PetscRealPart(dv[i]);
      FLEXUQ_PETSC(VecRestoreArrayRead(diag.get(), &dv));
      kind_files[kind] += (kind_files[kind].empty() ? "" : ", ") + t.file.path;
    }
    FLEXUQ_PETSC(MatSetOption(A.get(), MAT_SYMMETRIC, PETSC_TRUE));
    FLEXUQ_PETSC(MatSetOption(A.get(), MAT_SYMMETRY_ETERNAL, PETSC_TRUE));
    (terms[k].stiffness ? ops.stiffness : ops.mass).add_term(t.name, std::move(A));
    (terms[k].stiffness ? ops.stiffness_theta : ops.mass_theta).push_back(t.coefficient);
  }
  for (int kind = 0; kind < 2; ++kind) {
    const auto& nd = nominal_diag[kind];
    double scale = 0, worst = 0;
    PetscInt at_dof = -1;
    for (std::size_t i = 0; i < nd.size(); ++i) {
      scale = std::max(scale, std::abs(nd[i]));
      if (nd[i] < worst) {
        worst = nd[i];
        at_dof = d.begin() + static_cast<PetscInt>(i);
      }
    }
    scale = allreduce_max(comm, scale);
    const double global_worst = allreduce_min(comm, worst);
    if (!(global_worst < -1e-12 * scale)) continue;
    // The lowest global DOF holding the most negative entry names it (deterministic over ranks).
    const PetscInt dof = static_cast<PetscInt>(allreduce_min(
        comm, worst == global_worst && at_dof >= 0 ? static_cast<double>(at_dof) : std::numeric_limits<double>::max()));
    std::int64_t file_row = -1;
    for (std::size_t r = 0; r < L.rows() && file_row < 0; ++r)
      if (global(static_cast<std::int64_t>(r)) == dof) file_row = static_cast<std::int64_t>(r);
    std::ostringstream os;
    os << kind_files[kind] << ": the nominal " << (kind == 0 ? "stiffness" : "mass") << " matrix has a negative diagonal entry "
       << dof_name(L, file_row) << " = " << global_worst << " (a " << (kind == 0 ? "stiffness" : "mass")
       << " matrix is positive semi-definite: check the export's sign, units and term coefficients)";
    throw InputError(os.str());
  }
  return std::make_unique<Component>(std::move(mesh), std::move(ops));
}

namespace {
/// File row of every global DOF of @p c: free nodes in mesh order, components 0…dpn−1.
std::vector<std::int64_t> export_rows(const Component& c) {
  const auto& d = c.dofs();
  std::vector<std::int64_t> row(static_cast<std::size_t>(d.global_size()), -1);
  std::int64_t next = 0;
  for (std::size_t v = 0; v < c.mesh().num_nodes(); ++v) {
    const PetscInt base = d.node_dof(static_cast<int>(v));
    if (base < 0) continue;
    for (int k = 0; k < d.dofs_per_node(); ++k) row[static_cast<std::size_t>(base + k)] = next++;
  }
  return row;
}
} // namespace

void write_component_matrix(const Component& c, Mat A, const std::string& path) {
  const auto row = export_rows(c);
  std::vector<double> local; // (row, col, value) triples as doubles: exact for rows < 2^53
  PetscInt b = 0, e = 0;
  FLEXUQ_PETSC(MatGetOwnershipRange(A, &b, &e));
  for (PetscInt i = b; i < e; ++i) {
    PetscInt nc = 0;
    const PetscInt* cols = nullptr;
    const PetscScalar* vals = nullptr;
    FLEXUQ_PETSC(MatGetRow(A, i, &nc, &cols, &vals));
    for (PetscInt k = 0; k < nc; ++k) {
      const auto ri = row[static_cast<std::size_t>(i)], rj = row[static_cast<std::size_t>(cols[k])];
      if (ri < rj || PetscRealPart(vals[k]) == 0.0) continue; // lower triangle, structural zeros dropped
      local.insert(local.end(), {static_cast<double>(ri), static_cast<double>(rj), PetscRealPart(vals[k])});
    }
    FLEXUQ_PETSC(MatRestoreRow(A, i, &nc, &cols, &vals));
  }
  Comm comm(c.comm());
  const int mine = static_cast<int>(local.size());
  std::vector<int> counts(static_cast<std::size_t>(comm.size())), displs(counts.size());
  FLEXUQ_MPI(MPI_Gather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm.get()));
  int total = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    displs[r] = total;
    total += counts[r];
  }
  std::vector<double> all(comm.rank() == 0 ? static_cast<std::size_t>(total) : 0);
  FLEXUQ_MPI(
      MPI_Gatherv(local.data(), mine, MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE, 0, comm.get()));
  std::string err;
  if (comm.rank() == 0) {
    std::vector<io::Triplet> t;
    for (std::size_t k = 0; k + 2 < all.size(); k += 3)
      t.push_back({static_cast<std::int64_t>(all[k]), static_cast<std::int64_t>(all[k + 1]), all[k + 2]});
    std::sort(t.begin(), t.end(), [](const io::Triplet& x, const io::Triplet& y) {
      return x.col != y.col ? x.col < y.col : x.row < y.row;
    });
    try {
      io::write_matrix_market(path, c.dofs().global_size(), t, true, "flexuq: " + c.mesh().source);
    } catch (const Error& e) {
      err = e.what();
    }
  }
  FLEXUQ_REQUIRE(!allreduce_or(comm.get(), !err.empty()), (err.empty() ? "cannot write " + path : err));
}

namespace {
/// Run @p write on rank 0; every rank throws if it failed. @note Collective.
template <class F> void on_rank0(const Comm& comm, const std::string& path, F&& write) {
  std::string err;
  if (comm.rank() == 0) {
    try {
      write();
    } catch (const Error& e) {
      err = e.what();
    }
  }
  FLEXUQ_REQUIRE(!allreduce_or(comm.get(), !err.empty()), (err.empty() ? "cannot write " + path : err));
}
} // namespace

void write_component_sets(const Component& c, const std::string& path) {
  on_rank0(Comm(c.comm()), path, [&] {
    std::ofstream out(path);
    FLEXUQ_REQUIRE(out, "cannot write " << path);
    out << "# node sets of " << c.mesh().source << " (node ids), for model.matrices.sets\n";
    for (const auto& [name, nodes] : c.mesh().node_sets) {
      out << name << ": [";
      bool first = true;
      for (int v : nodes)
        if (!c.dofs().is_fixed(v)) {
          out << (first ? "" : ", ") << c.mesh().node_ids[static_cast<std::size_t>(v)];
          first = false;
        }
      out << "]\n";
    }
    FLEXUQ_REQUIRE(out.flush(), "error writing " << path);
  });
}

void export_component(const Component& c, const std::string& prefix) {
  write_component_matrix(c, c.K(), prefix + kExportSuffixes[0]);
  write_component_matrix(c, c.M(), prefix + kExportSuffixes[1]);
  write_component_labels(c, prefix + kExportSuffixes[2]);
  write_component_sets(c, prefix + kExportSuffixes[3]);
}

void write_component_labels(const Component& c, const std::string& path) {
  Comm comm(c.comm());
  std::string err;
  if (comm.rank() == 0) {
    io::DofLabels L;
    L.has_coordinates = true;
    for (std::size_t v = 0; v < c.mesh().num_nodes(); ++v) {
      if (c.dofs().is_fixed(static_cast<int>(v))) continue;
      const int idx = static_cast<int>(L.node_ids.size());
      L.node_ids.push_back(c.mesh().node_ids[v]);
      L.coords.push_back(c.mesh().coords[v]);
      for (int k = 0; k < c.dofs().dofs_per_node(); ++k) {
        L.dof_node.push_back(idx);
        L.dof_comp.push_back(k);
      }
    }
    try {
      io::write_dof_labels(path, L);
    } catch (const Error& e) {
      err = e.what();
    }
  }
  FLEXUQ_REQUIRE(!allreduce_or(comm.get(), !err.empty()), (err.empty() ? "cannot write " + path : err));
}

} // namespace flexuq::fe
