// SPDX-License-Identifier: MIT
#pragma once
/// @file ConstraintModes.hpp
/// @brief Stochastic Galerkin constraint modes of a component with random stiffness (issue #7,
/// the `reduce.stochastic.method: galerkin` path): the PCE Ψ(ξ) = Σ_k Ψ^(k) Ψ_k(ξ) of the static
/// interior response to unit boundary displacements, K_ii(ξ) Ψ(ξ) = −K_ib(ξ), projected on the
/// basis:
///
///     (Σ_a Δ^(a) ⊗ K_ii^(a)) Ψ̄ = −(Σ_a Δ^(a) ⊗ K_ib^(a)) (e_0 ⊗ I_b),
///
/// where the boundary displacement is deterministic (block 0 only), so block k of column j's
/// right-hand side is −Σ_a c_a0k K_ib^(a) e_j = −K_ib^(k) e_j (orthonormal basis). Each column is
/// one PCG solve on the matrix-free Galerkin operator with the mean-based preconditioner
/// I ⊗ K_ii^(0)⁻¹ (one MUMPS factorisation for every column and block; Galerkin.hpp).

#include "flexuq/sg/Galerkin.hpp"

#include <memory>
#include <string>
#include <vector>

namespace flexuq::sg {

struct ConstraintModeOptions {
  double rtol = 1e-10;   ///< PCG relative residual (unpreconditioned norm)
  int max_it = 1000;
  Preconditioner preconditioner = Preconditioner::Mean; ///< I ⊗ K_ii^(0)⁻¹ or G̃⁻¹ ⊗ K_ii^(0)⁻¹
  std::string prefix = "sg_cm_"; ///< PETSc options prefix: sg_cm_mean_ for the mean factorisation
};

struct ConstraintModeResult {
  /// One block vector per boundary DOF j (BlockSpace layout over the interior DOFs): the blocks are
  /// the coefficients Ψ_j^(k) of column j.
  std::vector<VecH> modes;
  long long pcg_iterations = 0;
  double max_relative_residual = 0; ///< ‖b − 𝒦x‖/‖b‖ over the columns, recomputed after each solve
};

/// K_ii = A(I, I) and K_ib = A(I, B) of every operator term (MatCreateSubMatrix; @p interior and
/// @p boundary are parallel index sets on the terms' communicator). @note Collective.
void split_terms(const std::vector<Mat>& terms, IS interior, IS boundary, std::vector<MatH>& Kii, std::vector<MatH>& Kib);

/// Solve for the SG constraint modes. @p Kii, @p Kib: the P_α operator terms on the group
/// communicator (same operator basis as @p tensor's a); @p space: P_β blocks over the interior
/// layout (BlockSpace built from Kii[0]). Throws InputError if K_ii^(0) is singular or indefinite,
/// Error if a PCG solve fails. The terms may also be the affine terms with a regrouped tensor
/// (regroup_by_terms); then @p mean must be K_ii^(0) (default: Kii[0], the expansion's first term).
/// @note Collective (world).
ConstraintModeResult solve_constraint_modes(const BlockSpace& space, std::shared_ptr<const TripleTensor> tensor,
                                            const std::vector<Mat>& Kii, const std::vector<Mat>& Kib,
                                            const ConstraintModeOptions& opt = {}, Mat mean = nullptr);

} // namespace flexuq::sg
