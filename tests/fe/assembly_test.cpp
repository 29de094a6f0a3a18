// SPDX-License-Identifier: MIT
// fe::Component's assembly (issue #38: the exact pattern set once, element matrices added straight into the
// local CSR arrays, rows owned elsewhere through PETSc's stash). References built here, on every rank,
// without PETSc: a dense K and M summed element by element from the element routines with the DOF map's
// numbering, springs and point masses by their formulas, and the pattern as the union of the element,
// spring and mass blocks (solids: their translations only). K and M must hold exactly that pattern, row
// by row, and those values to round-off, at 1, 2 and 3 ranks, direct and affine.
#include "flexuq/fe/Component.hpp"
#include "flexuq/fe/Element.hpp"
#include "FeTestUtil.hpp"
#include "MixedMeshUtil.hpp"

#include <gtest/gtest.h>
#include <petscmat.h>

#include <cmath>
#include <set>
#include <vector>

using namespace flexuq;

namespace {

/// A distorted hex8 block nx × ny × nz (unit cells, each node moved by a fixed pseudo-random 15 %), node
/// set X0 (the face x = 0), a spring between two nodes no element joins and a point mass.
io::Mesh spring_block(int nx, int ny, int nz) {
  io::Mesh m;
  m.source = "spring_block";
  auto id = [&](int i, int j, int k) { return (k * (ny + 1) + j) * (nx + 1) + i; };
  for (int k = 0; k <= nz; ++k)
    for (int j = 0; j <= ny; ++j)
      for (int i = 0; i <= nx; ++i) {
        const int n = id(i, j, k);
        const double s = 0.15 * std::sin(1.7 * n + 0.3), t = 0.15 * std::cos(2.3 * n), u = 0.15 * std::sin(0.9 * n + 1.1);
        m.coords.push_back({i + (i > 0 && i < nx ? s : 0.0), j + t, k + u});
        m.node_ids.push_back(100 + n);
        if (i == 0) m.node_sets["X0"].push_back(n);
      }
  long eid = 1;
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i)
        m.add_element(io::ElementType::hex8,
                      {id(i, j, k), id(i + 1, j, k), id(i + 1, j + 1, k), id(i, j + 1, k), id(i, j, k + 1),
                       id(i + 1, j, k + 1), id(i + 1, j + 1, k + 1), id(i, j + 1, k + 1)},
                      eid++);
  io::ScalarSpring sp;
  sp.id = 1;
  sp.node_a = id(nx, 0, 0);
  sp.comp_a = 2;
  sp.node_b = id(1, ny, nz); // far from node_a: only the spring couples them
  sp.comp_b = 3;
  sp.k = 3.0e9;
  m.springs.push_back(sp);
  io::PointMass pm;
  pm.id = 2;
  pm.node = id(nx, ny, nz);
  pm.m = 5.0;
  m.point_masses.push_back(pm);
  return m;
}

using Pattern = std::vector<std::set<PetscInt>>;

void add_block(Pattern& p, const std::vector<PetscInt>& idx) {
  for (PetscInt i : idx)
    if (i >= 0)
      for (PetscInt j : idx)
        if (j >= 0) p[static_cast<std::size_t>(i)].insert(j);
}

/// Global DOFs of element @p e, node by node (solids: translations only), −1 where eliminated.
std::vector<PetscInt> element_dofs(const fe::Component& c, std::size_t e) {
  const auto& m = c.mesh();
  const int w = io::is_solid(m.elem_type[e]) ? 3 : c.dofs().dofs_per_node();
  std::vector<PetscInt> idx;
  for (int a = 0; a < m.element_size(e); ++a)
    for (int k = 0; k < w; ++k) idx.push_back(c.dofs().dof(m.element(e)[a], k));
  return idx;
}

/// Every owned row of @p A holds exactly the columns of @p ref; with @p dense, the values to @p tol too.
void expect_rows(Mat A, const Pattern& ref, const Eigen::MatrixXd* dense, double tol, const char* what) {
  PetscInt lo = 0, hi = 0;
  MatGetOwnershipRange(A, &lo, &hi);
  int wrong_pattern = 0;
  double err = 0;
  for (PetscInt i = lo; i < hi; ++i) {
    PetscInt nc = 0;
    const PetscInt* cols = nullptr;
    const PetscScalar* vals = nullptr;
    MatGetRow(A, i, &nc, &cols, &vals);
    const std::set<PetscInt> got(cols, cols + nc);
    if (got != ref[static_cast<std::size_t>(i)]) ++wrong_pattern;
    if (dense)
      for (PetscInt k = 0; k < nc; ++k) err = std::max(err, std::abs(vals[k] - (*dense)(i, cols[k])));
    MatRestoreRow(A, i, &nc, &cols, &vals);
  }
  EXPECT_EQ(wrong_pattern, 0) << what << ": rows whose columns differ from the union of the blocks";
  if (dense) {
    EXPECT_LE(err, tol) << what;
  }
  MatInfo info{};
  MatGetInfo(A, MAT_GLOBAL_SUM, &info);
  std::size_t count = 0;
  for (const auto& r : ref) count += r.size();
  EXPECT_EQ(static_cast<std::size_t>(info.nz_used), count) << what;
}

} // namespace

TEST(Assembly, SolidBlockWithSpringAndMassEqualsADenseReference) {
  const io::Material steel = test::material("STEEL", 2.1e11, 0.3, 7850);
  const auto iso = fe::IsoMaterial::from_input(steel);
  for (bool affine : {false, true})
    for (bool partly : {false, true}) {
      fe::ComponentOptions o;
      o.default_material = steel;
      o.keep_affine = affine;
      if (partly)
        o.fixed_components.push_back({"X0", {1, 3}, "test"}); // single components: no block structure
      else
        o.fixed_sets = {"X0"};
      const fe::Component c(MPI_COMM_WORLD, spring_block(4, 3, 3), o);
      const auto& m = c.mesh();
      const auto& d = c.dofs();
      const auto n = static_cast<Eigen::Index>(d.global_size());
      Eigen::MatrixXd K = Eigen::MatrixXd::Zero(n, n), M = Eigen::MatrixXd::Zero(n, n);
      Pattern p(static_cast<std::size_t>(n));
      for (std::size_t e = 0; e < m.num_elements(); ++e) {
        std::vector<double> X;
        for (int a = 0; a < m.element_size(e); ++a)
          for (int k = 0; k < 3; ++k) X.push_back(m.coords[static_cast<std::size_t>(m.element(e)[a])][static_cast<std::size_t>(k)]);
        const auto t = fe::solid_terms(m.elem_type[e], X.data(), m.elem_ids[e]);
        const auto idx = element_dofs(c, e);
        add_block(p, idx);
        for (std::size_t i = 0; i < idx.size(); ++i)
          for (std::size_t j = 0; j < idx.size(); ++j)
            if (idx[i] >= 0 && idx[j] >= 0) {
              const auto a = static_cast<Eigen::Index>(i), b = static_cast<Eigen::Index>(j);
              K(idx[i], idx[j]) += iso.lambda() * t.K_lambda(a, b) + iso.mu() * t.K_mu(a, b);
              M(idx[i], idx[j]) += iso.rho * t.M1(a, b);
            }
      }
      const auto& sp = m.springs.front();
      const PetscInt ia = d.dof(sp.node_a, sp.comp_a - 1), ib = d.dof(sp.node_b, sp.comp_b - 1);
      std::vector<PetscInt> sidx;
      for (int k = 0; k < 3; ++k) sidx.push_back(d.dof(sp.node_a, k));
      for (int k = 0; k < 3; ++k) sidx.push_back(d.dof(sp.node_b, k));
      add_block(p, sidx); // the spring's block: both nodes' translations (zeros but the two DOFs)
      ASSERT_GE(ia, 0);
      ASSERT_GE(ib, 0);
      K(ia, ia) += sp.k;
      K(ib, ib) += sp.k;
      K(ia, ib) -= sp.k;
      K(ib, ia) -= sp.k;
      const auto& pm = m.point_masses.front();
      std::vector<PetscInt> midx;
      for (int k = 0; k < 3; ++k) {
        midx.push_back(d.dof(pm.node, k));
        M(midx.back(), midx.back()) += pm.m;
      }
      add_block(p, midx);
      const char* what = affine ? (partly ? "affine, single components" : "affine") : (partly ? "direct, single components" : "direct");
      expect_rows(c.K(), p, &K, 1e-13 * K.cwiseAbs().maxCoeff(), what);
      expect_rows(c.M(), p, &M, 1e-13 * M.cwiseAbs().maxCoeff(), what);
    }
}

TEST(Assembly, MixedMeshPatternIsTheUnionOfTheElementBlocks) {
  // Shells (6 DOFs per node) embedded in a hex8 block (translations only; the block-only nodes' rotations
  // eliminated): a row's columns are the translations of a solid neighbour and all of a shell neighbour.
  for (bool affine : {false, true}) {
    fe::ComponentOptions o;
    o.default_material = test::material("BLOCK", test::kE, test::kNu, test::kRho);
    o.keep_affine = affine;
    o.fixed_sets = {"ROOT"};
    const fe::Component c(MPI_COMM_WORLD, test::plate_on_block(4, 2, 1.0, 0.01, 0.05, true), o);
    ASSERT_EQ(c.dofs().dofs_per_node(), 6);
    Pattern p(static_cast<std::size_t>(c.dofs().global_size()));
    for (std::size_t e = 0; e < c.mesh().num_elements(); ++e) add_block(p, element_dofs(c, e));
    expect_rows(c.K(), p, nullptr, 0, affine ? "mixed K, affine" : "mixed K");
    expect_rows(c.M(), p, nullptr, 0, affine ? "mixed M, affine" : "mixed M");
  }
}
