// SPDX-License-Identifier: MIT
#pragma once
// The thesis's bar for the POD-based Craig–Bampton tests (seed 000 §3, Table 7.1, T6): a
// pod::CbBar built with io::generate_beam and fe::Component. A test fixture, not library code: pod
// works on the dense operators only, so it does not depend on io or fe; tests that include this
// header link flexuq_pod and flexuq_fe.
//
// The bar: 0.15 m, 21 nodes (20 two-node Euler–Bernoulli frame elements), ρ = 7870, C = 166.7e9
// fixed, G log-normal (moment-matched, mean 76.9e9, std 1e9), E = 9CG/(3C+G); boundary = both end
// nodes (12 DOF), the middle (CoM) node fixed, so K_ii is 108 × 108. The section is not given in the
// thesis; we take A = 1e-4 m² (Table 7.1) and I₁₁ = I₂₂ = 4.5e-10 m⁴, J = 9e-10 m⁴, which reproduces
// the eigenvalue index pattern the thesis reports (distinct values at 1, 5, 9, 11, 13: bending ×4,
// bending ×4, torsion ×2, axial ×2, bending ×4; Tables 7.9–7.12), so "the first eight internal
// modes" are two complete degenerate quadruplets.
#include "flexuq/core/Error.hpp"
#include "flexuq/fe/Component.hpp"
#include "flexuq/io/Generators.hpp"
#include "flexuq/pod/PodCb.hpp"
#include "flexuq/pod/Snapshots.hpp"

#include <Eigen/Dense>
#include <mpi.h>
#include <petscmat.h>

#include <set>

namespace flexuq::test {

struct BarSpec {
  double length = 0.15;
  int elements = 20;
  double area = 1e-4, inertia = 4.5e-10, torsion_constant = 9e-10;
  double rho = 7870.0;
};

/// The whole of a small parallel matrix on every rank.
inline Eigen::MatrixXd dense_everywhere(Mat A) {
  MPI_Comm comm = MPI_COMM_NULL;
  FLEXUQ_PETSC(PetscObjectGetComm(reinterpret_cast<PetscObject>(A), &comm));
  PetscInt N = 0, Nc = 0, b = 0, e = 0;
  FLEXUQ_PETSC(MatGetSize(A, &N, &Nc));
  FLEXUQ_PETSC(MatGetOwnershipRange(A, &b, &e));
  Eigen::MatrixXd local = Eigen::MatrixXd::Zero(e - b, Nc);
  for (PetscInt i = b; i < e; ++i) {
    PetscInt nc = 0;
    const PetscInt* cols = nullptr;
    const PetscScalar* vals = nullptr;
    FLEXUQ_PETSC(MatGetRow(A, i, &nc, &cols, &vals));
    for (PetscInt k = 0; k < nc; ++k) local(i - b, cols[k]) = vals[k];
    FLEXUQ_PETSC(MatRestoreRow(A, i, &nc, &cols, &vals));
  }
  return pod::gather_rows(comm, local);
}

/// Dense operators of the bar with the middle node fixed, replicated on every rank: the affine terms
/// of fe::Component give K = E K_E + G K_G and M = ρ M₁. @note Collective (assembly on @p comm, then
/// every rank gathers the small dense matrices).
inline pod::CbBar build_cb_bar(MPI_Comm comm, const BarSpec& spec) {
  FLEXUQ_REQUIRE(spec.elements >= 2 && spec.elements % 2 == 0,
                 "POD-CB bar: the element count must be even (a middle node is fixed), got " << spec.elements);
  io::BeamSpec bs;
  bs.length = spec.length;
  bs.elements = spec.elements;
  bs.section.shape = "GENERAL";
  bs.section.dims = {spec.area, spec.inertia, 0.0, spec.inertia, spec.torsion_constant};
  io::Mesh mesh = io::generate_beam(bs);
  fe::ComponentOptions opt;
  opt.fixed_sets = {"MID"};
  io::Material mat;
  mat.name = "bar";
  mat.E = 2.0e11; // placeholder: only the parameter-free affine terms are used
  mat.nu = 0.3;
  mat.rho = 1.0;
  opt.default_material = mat;
  opt.keep_affine = true;
  fe::Component comp(comm, mesh, opt);
  FLEXUQ_REQUIRE(comp.stiffness_terms().size() == 2 && comp.mass_terms().size() == 1,
                 "POD-CB bar: expected one beam material group");
  pod::CbBar bar;
  bar.K_E = dense_everywhere(comp.stiffness_terms().term(0));
  bar.K_G = dense_everywhere(comp.stiffness_terms().term(1));
  bar.M = spec.rho * dense_everywhere(comp.mass_terms().term(0));
  const fe::DofMap& d = comp.dofs();
  std::set<int> bset;
  for (const char* end : {"END0", "END1"})
    for (int n : mesh.node_sets.at(end))
      for (int k = 0; k < d.dofs_per_node(); ++k) bset.insert(static_cast<int>(d.node_dof(n)) + k);
  bar.boundary.assign(bset.begin(), bset.end());
  for (int i = 0; i < static_cast<int>(d.global_size()); ++i)
    if (!bset.count(i)) bar.internal.push_back(i);
  return bar;
}

} // namespace flexuq::test
