// SPDX-License-Identifier: MIT
#include "flexuq/fe/ModesFile.hpp"

#include <algorithm>

#include "flexuq/core/Error.hpp"
#include "flexuq/io/MeshOutput.hpp"

namespace flexuq::fe {

NaturalLayout::NaturalLayout(const Component& c) : dpn_(c.dofs().dofs_per_node()) {
  const DofMap& d = c.dofs();
  MPI_Comm comm = c.comm();
  int rank = 0, size = 1;
  FLEXUQ_MPI(MPI_Comm_rank(comm, &rank));
  FLEXUQ_MPI(MPI_Comm_size(comm, &size));
  const std::uint64_t n = c.mesh().num_nodes();
  node_begin_ = n * static_cast<std::uint64_t>(rank) / static_cast<std::uint64_t>(size);
  node_end_ = n * static_cast<std::uint64_t>(rank + 1) / static_cast<std::uint64_t>(size);
  FLEXUQ_PETSC(VecCreateMPI(comm, static_cast<PetscInt>((node_end_ - node_begin_) * dpn_),
                            static_cast<PetscInt>(n * dpn_), natural_.out()));
  std::vector<PetscInt> from, to;
  for (int v : d.owned_nodes()) {
    for (int k = 0; k < dpn_; ++k) { // fixed components stay zero in the natural layout
      if (d.dof(v, k) < 0) continue;
      from.push_back(d.dof(v, k));
      to.push_back(static_cast<PetscInt>(v) * dpn_ + k);
    }
  }
  IsH is_from, is_to;
  FLEXUQ_PETSC(ISCreateGeneral(comm, static_cast<PetscInt>(from.size()), from.data(), PETSC_COPY_VALUES, is_from.out()));
  FLEXUQ_PETSC(ISCreateGeneral(comm, static_cast<PetscInt>(to.size()), to.data(), PETSC_COPY_VALUES, is_to.out()));
  VecH x;
  FLEXUQ_PETSC(MatCreateVecs(c.K(), x.out(), nullptr));
  FLEXUQ_PETSC(VecScatterCreate(x.get(), is_from.get(), natural_.get(), is_to.get(), scatter_.out()));
}

std::vector<double> NaturalLayout::gather(const std::vector<Vec>& vs) const {
  const std::size_t nl = node_end_ - node_begin_, nv = vs.size();
  std::vector<double> out(nl * static_cast<std::size_t>(dpn_) * nv, 0.0);
  // Columns are scattered into natural order a block at a time and then transposed into the
  // row-major output block by block (writing one column at a stride of nv doubles misses the cache
  // on every entry once nv reaches the hundreds).
  const std::size_t rows = nl * static_cast<std::size_t>(dpn_), kBlock = 32;
  std::vector<double> tmp(rows * std::min(kBlock, nv));
  for (std::size_t j0 = 0; j0 < nv; j0 += kBlock) {
    const std::size_t b = std::min(kBlock, nv - j0);
    for (std::size_t jj = 0; jj < b; ++jj) {
      FLEXUQ_PETSC(VecZeroEntries(natural_.get()));
      FLEXUQ_PETSC(VecScatterBegin(scatter_.get(), vs[j0 + jj], natural_.get(), INSERT_VALUES, SCATTER_FORWARD));
      FLEXUQ_PETSC(VecScatterEnd(scatter_.get(), vs[j0 + jj], natural_.get(), INSERT_VALUES, SCATTER_FORWARD));
      const PetscScalar* a = nullptr;
      FLEXUQ_PETSC(VecGetArrayRead(natural_.get(), &a));
      std::copy(a, a + rows, tmp.begin() + static_cast<std::ptrdiff_t>(jj * rows));
      FLEXUQ_PETSC(VecRestoreArrayRead(natural_.get(), &a));
    }
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t jj = 0; jj < b; ++jj) out[i * nv + j0 + jj] = tmp[jj * rows + i];
  }
  return out;
}

std::vector<double> dense_projection(Mat A, const std::vector<Vec>& V, const std::vector<Vec>& W) {
  std::vector<double> out(V.size() * W.size());
  if (W.empty()) return out;
  VecH tmp;
  FLEXUQ_PETSC(VecDuplicate(W[0], tmp.out()));
  for (std::size_t j = 0; j < W.size(); ++j) {
    FLEXUQ_PETSC(MatMult(A, W[j], tmp.get()));
    for (std::size_t i = 0; i < V.size(); ++i) {
      PetscScalar d = 0;
      FLEXUQ_PETSC(VecDot(tmp.get(), V[i], &d));
      out[i * W.size() + j] = PetscRealPart(d);
    }
  }
  return out;
}

namespace {
std::vector<Vec> raw(const std::vector<VecH>& v) {
  std::vector<Vec> r;
  for (const auto& h : v) r.push_back(h.get());
  return r;
}
} // namespace

void write_modes_file(const std::string& path, const Component& c, const ModeSet& m,
                      const std::vector<std::pair<std::string, double>>& phase_seconds) {
  io::H5File f(c.comm(), path, io::H5File::Mode::create);
  io::write_mesh(f, c.mesh());
  const std::uint64_t nm = m.eigenvalues.size(), nr = m.rigid_eigenvalues.size();
  const std::uint64_t n = c.mesh().num_nodes(), dpn = static_cast<std::uint64_t>(c.dofs().dofs_per_node());
  f.write_replicated("/modes/eigenvalues", {nm}, m.eigenvalues.data());
  const auto fhz = m.frequencies_hz();
  f.write_replicated("/modes/frequencies_hz", {nm}, fhz.data());
  f.write_replicated("/modes/residuals", {nm}, m.residuals.data());
  std::vector<std::int64_t> mult(m.multiplicity.begin(), m.multiplicity.end());
  f.write_replicated("/modes/multiplicity", {nm}, mult.data());
  NaturalLayout layout(c);
  const auto block = layout.gather(raw(m.vectors));
  f.write_rows("/modes/vectors", {n, dpn, nm}, layout.node_begin(), layout.node_end() - layout.node_begin(),
               block.data());
  f.write_replicated("/modes/rigid_body_eigenvalues", {nr}, m.rigid_eigenvalues.data());
  const auto rblock = layout.gather(raw(m.rigid_vectors));
  f.write_rows("/modes/rigid_body_vectors", {n, dpn, nr}, layout.node_begin(), layout.node_end() - layout.node_begin(),
               rblock.data());
  f.write_attribute("/modes", "rigid_body_modes", static_cast<std::int64_t>(nr));
  f.write_attribute("/modes", "count", static_cast<std::int64_t>(nm));
  f.write_attribute("/modes", "shift", m.shift);
  f.write_attribute("/modes", "spectrum_scale", m.spectrum_scale);
  f.write_attribute("/modes", "iterations", static_cast<std::int64_t>(m.iterations));
  f.write_attribute("/modes", "dofs", static_cast<std::int64_t>(c.dofs().global_size()));
  f.write_attribute("/modes", "dofs_per_node", static_cast<std::int64_t>(dpn));
  f.write_attribute("/modes", "normalization", std::string("mass (phi^T M phi = 1)"));
  std::string fixed;
  for (const auto& s : c.fixed_sets()) fixed += (fixed.empty() ? "" : ",") + s;
  f.write_attribute("/modes", "fixed_sets", fixed);
  io::write_phase_times(f, phase_seconds);
  int rank = 0;
  FLEXUQ_MPI(MPI_Comm_rank(c.comm(), &rank));
  if (rank == 0) {
    io::XdmfNodeField fld{"/modes/vectors", static_cast<std::size_t>(dpn), static_cast<std::size_t>(nm), "mode_shape", fhz};
    io::write_xdmf_beside(path, c.mesh(), fld);
  }
}

} // namespace flexuq::fe
