// SPDX-License-Identifier: MIT
#pragma once
/// @file Galerkin.hpp
/// @brief The stochastic Galerkin operator 𝒦 = Σ_a Δ^(a) ⊗ K^(a), [Δ^(a)]_{kb} = E[Ψ_a Ψ_b Ψ_k]
/// (seed 000 (6.29)–(6.32)), applied matrix-free on a two-level layout (Stokhos' MultiComm pattern):
///
/// - the world communicator is cut into groups of `ranks_per_group` consecutive ranks;
/// - the P_β stochastic blocks are spread over the groups (contiguous ranges, the first groups take
///   one more when P_β is not divisible);
/// - inside a group the spatial DOFs of each block are distributed like the group's K^(a)
///   (distributed AIJ matrices on the group communicator, all groups with the same layout).
///
/// A block vector is one PETSc Vec on the world communicator; rank r holds, for each block its
/// group owns, its own spatial slice: local size = n_owned_blocks × n_local. Applying 𝒦 gathers
/// the spatial slice of every block on each rank (one VecScatter, P_β × n_local doubles), then
/// y_k = Σ_a K^(a) (Σ_b c_abk x_b) for the owned k: P_α × n_owned sparse products per apply.

#include "flexuq/core/Comm.hpp"
#include "flexuq/core/EnumNames.hpp"
#include "flexuq/core/Handle.hpp"
#include "flexuq/uq/MultiIndexSet.hpp"
#include "flexuq/uq/PolynomialFamily.hpp"

#include <Eigen/Dense>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace flexuq::sg {

/// @brief World = groups × ranks per group; `across` joins the ranks with the same rank in their
/// group (one per group), for reductions over the stochastic dimension.
class StochasticLayout {
public:
  /// @note Collective. The world size must be a multiple of @p ranks_per_group.
  StochasticLayout(MPI_Comm world, int ranks_per_group);
  MPI_Comm world() const { return world_.get(); }
  MPI_Comm group() const { return group_.get(); }
  MPI_Comm across() const { return across_.get(); }
  int n_groups() const { return n_groups_; }
  int group_index() const { return group_index_; }
  int ranks_per_group() const { return rpg_; }

private:
  Comm world_, group_, across_;
  int n_groups_ = 1, group_index_ = 0, rpg_ = 1;
};

/// @brief Sparse triple-product tensor c_abk = E[Ψ_a Ψ_b Ψ_k] between an operator basis (a) and a
/// solution basis (b, k). Stored per row k: for each a, the list of (b, c_abk).
struct TripleTensor {
  int n_operator = 0, n_solution = 0;
  /// rows[k][a] = {(b, c_abk)}
  std::vector<std::vector<std::vector<std::pair<int, double>>>> rows;
  std::size_t nonzeros = 0;
  double value(int a, int b, int k) const;
};

/// Exact products of the univariate closed forms (uq::triple_product). The operator basis must be
/// contained in the degree range the families support. Not collective.
TripleTensor triple_tensor(const std::vector<uq::PolynomialFamily>& families, const uq::MultiIndexSet& operator_basis,
                           const uq::MultiIndexSet& solution_basis, double drop_tol = 1e-14);

/// The same operator Σ_a Δ^(a) ⊗ A^(a) regrouped by the affine terms behind the expansion,
/// A^(a) = Σ_t C(a, t) B_t: Σ_t D_t ⊗ B_t with D_t = Σ_a C(a, t) Δ^(a) (entries below 1e-15 of the
/// term's largest are dropped). A GalerkinOperator on the terms B_t and this tensor applies the
/// same operator with one sparse product per term and block instead of one per expansion term: K(θ)
/// has a few affine terms (one per material set and Lamé part), while P_α grows as C(d + p_α, d).
/// Not collective.
TripleTensor regroup_by_terms(const TripleTensor& tensor, const Eigen::MatrixXd& C);

/// Affine terms whose coefficient columns are proportional, C(:, j) = r C(:, i) to @p tol relative
/// (a modulus E with a fixed ν scales both Lamé parts of its set alike), merged into one term
/// B_i + r B_j with column C(:, i): Σ_t C(a, t) B_t is unchanged and the Galerkin operator does one
/// sparse product per merged term. The terms must share one nonzero pattern (fe::AffineOperator);
/// if their nonzero counts differ nothing is merged. @note Collective on the terms' communicator.
struct MergedTerms {
  std::vector<MatH> owned;  ///< the merged matrices (the others are the caller's)
  std::vector<Mat> terms;
  Eigen::MatrixXd coefficients;
};
MergedTerms merge_proportional_terms(const std::vector<Mat>& terms, const Eigen::MatrixXd& C, double tol = 1e-12);

/// @brief P_β blocks of a spatial layout (n_local rows here, N in all) on a StochasticLayout.
class BlockSpace {
public:
  /// @note Collective on the world communicator. Checks that every group has the same spatial
  /// layout (local sizes per group rank; a fingerprint of @p fingerprint_mat's diagonal); the error
  /// when they differ names @p partitioner_key.
  BlockSpace(const StochasticLayout& layout, int n_blocks, Mat fingerprint_mat,
             const std::string& partitioner_key = "partitioner");

  const StochasticLayout& layout() const { return *layout_; }
  int n_blocks() const { return n_blocks_; }
  int first_block() const { return first_; }   ///< first block owned by this rank's group
  int n_owned() const { return n_owned_; }
  int owner_group(int block) const;
  int first_block_of_group(int g) const { return first_of_group_.at(g); }
  PetscInt n_local() const { return n_local_; }
  PetscInt n_global() const { return N_; }

  VecH create_vec() const;                      ///< block vector (zeros), world communicator
  VecH create_spatial() const;                  ///< one spatial vector on the group communicator
  /// A spatial Vec header on the group communicator (no storage; use VecPlaceArray).
  VecH create_spatial_header() const;
  /// All blocks of this rank's spatial slice: out[b·n_local + i]. @note Collective (world).
  void gather_all(Vec x, std::vector<double>& out) const;
  /// gather_all of several block vectors in one exchange (one MPI_Allgatherv on the `across`
  /// communicator instead of one scatter per vector: fewer points where the groups wait for each
  /// other); @p out[s] as gather_all's. The same values (copies only). @note Collective (world).
  void gather_all_many(const std::vector<Vec>& xs, std::vector<std::vector<double>>& out) const;
  /// Copy the owned blocks from @p all (same layout as gather_all) into @p x. Not collective.
  void set_owned(const std::vector<double>& all, Vec x) const;

private:
  const StochasticLayout* layout_;
  int n_blocks_, first_ = 0, n_owned_ = 0;
  PetscInt n_local_ = 0, N_ = 0;
  std::vector<int> first_of_group_;
  ScatterH gather_;
  VecH all_;
  mutable std::vector<double> send_, recv_; // gather_all_many
};

/// @brief Σ_a Δ^(a) ⊗ A^(a) on a BlockSpace (A^(a) on the group communicator), as a MatShell.
class GalerkinOperator {
public:
  GalerkinOperator(const BlockSpace& space, std::shared_ptr<const TripleTensor> tensor, std::vector<Mat> terms);
  GalerkinOperator(const GalerkinOperator&) = delete;
  GalerkinOperator& operator=(const GalerkinOperator&) = delete;

  /// y = 𝒦 x. @note Collective (world).
  void apply(Vec x, Vec y) const;
  /// y_s = 𝒦 x_s for several block vectors at once: per term one sparse × dense product on all
  /// their owned blocks (m·n_owned columns) instead of one per vector. @note Collective (world).
  void apply_many(const std::vector<Vec>& x, const std::vector<Vec>& y) const;
  /// The shell (lives as long as this object). @note Collective on first call.
  Mat shell() const;
  /// Assemble the whole (P_β n) × (P_β n) matrix (small cases and tests only). @note Collective.
  MatH assemble() const;
  const std::vector<Mat>& terms() const { return terms_; }
  const TripleTensor& tensor() const { return *tensor_; }
  const BlockSpace& space() const { return *space_; }

private:
  static PetscErrorCode mult(Mat A, Vec x, Vec y);
  const BlockSpace* space_;
  std::shared_ptr<const TripleTensor> tensor_;
  std::vector<Mat> terms_;
  mutable MatH shell_;
  mutable std::vector<double> all_, z_;
  MatH Z_;                // dense multi-vector on z_ (group communicator)
  mutable MatH product_;  // K^(a) Z_, symbolic part shared by all terms
  // apply_many: the gathered blocks of every vector and the dense multi-vector of the last batch size
  mutable std::vector<std::vector<double>> all_many_;
  mutable std::vector<double> zm_;
  mutable MatH Zm_, productm_;
  mutable int batch_ = 0;
};

/// @brief Mean-based block preconditioner I ⊗ A0⁻¹ (Δ^(0) = I for an orthonormal basis) with one
/// sparse Cholesky factorisation of A0 (MUMPS) reused for every block and every solve.
class MeanPreconditioner {
public:
  /// Factorises @p A0 on the group communicator. Throws InputError if A0 is singular or
  /// indefinite (inertia of the factorisation: negative or zero pivots), naming @p what.
  /// @note Collective (world: the check is agreed on by all groups).
  MeanPreconditioner(const BlockSpace& space, Mat A0, const std::string& what, const std::string& prefix = "sg_mean_");
  /// z = (I ⊗ A0⁻¹) r. @note Collective on each group.
  void apply(Vec r, Vec z) const;
  /// z_s = (I ⊗ A0⁻¹) r_s for several block vectors in one multi-right-hand-side solve.
  /// @note Collective on each group.
  void apply_many(const std::vector<Vec>& r, const std::vector<Vec>& z) const;
  /// Install as a PCSHELL on @p pc.
  void install(PC pc) const;
  KSP ksp() const { return ksp_.get(); }
  /// Turn this into the Kronecker-product preconditioner G̃⁻¹ ⊗ A0⁻¹ (Ullmann 2010): after the
  /// multi-right-hand-side A0 solve of the owned blocks, the blocks are gathered and mixed by G̃⁻¹
  /// (P_β × P_β, symmetric positive definite; kronecker_block_factor). Throws Error naming @p what
  /// if G̃ is not positive definite. apply and apply_many become collective on the world.
  void set_block_factor(const Eigen::MatrixXd& G, const std::string& what = "the Kronecker factor");
  bool kronecker() const { return Ginv_.size() > 0; }

private:
  static PetscErrorCode pc_apply(PC pc, Vec r, Vec z);
  void mix_blocks(Vec z) const; // z_k ← Σ_b G̃⁻¹(k, b) z_b (owned k), collective (world)
  void mix_blocks_many(const std::vector<Vec>& z) const; // mix_blocks of each, one gather
  mutable std::vector<std::vector<double>> all_many_;   // mix_blocks_many: the gathered blocks
  const BlockSpace* space_;
  KspH ksp_;
  mutable std::vector<double> rbuf_, zbuf_; // apply_many: the owned blocks of all vectors, contiguous
  Eigen::MatrixXd Ginv_;                    // empty: the mean-based I ⊗ A0⁻¹
};

/// The preconditioner of the SG PCG solves: `mean` = I ⊗ K̄⁻¹, `kronecker` = G̃⁻¹ ⊗ K̄⁻¹ (Ullmann 2010).
enum class Preconditioner { Mean, Kronecker };
inline constexpr EnumNames<Preconditioner, 2> kPreconditionerNames{
    {{{Preconditioner::Mean, "mean"}, {Preconditioner::Kronecker, "kronecker"}}}};

/// ⟨A, B⟩_F = Σ_ij A_ij B_ij of two parallel matrices with the same row layout on @p comm: a local
/// sum over the owned rows (sorted column merge, any nonzero patterns) and one allreduce.
/// @note Collective on @p comm.
double frobenius_inner(MPI_Comm comm, Mat A, Mat B);
/// Ullmann's stochastic factor of the Kronecker preconditioner for the operator Σ_t D_t ⊗ B_t of
/// @p A (its tensor and terms): G̃ = Σ_t (⟨B_t, K̄⟩_F / ⟨K̄, K̄⟩_F) D_t with K̄ = @p mean, the
/// Frobenius-best approximation of 𝒦 by G ⊗ K̄. Identical for the expanded (K^(a), Δ^(a)) and the
/// affine-term (B_t, D_t) forms of the same operator. @note Collective on the terms' communicator.
Eigen::MatrixXd kronecker_block_factor(const GalerkinOperator& A, Mat mean);

/// @brief Independent PCG solves 𝒦 x_s = b_s (s = 1 … m) preconditioned by I ⊗ A0⁻¹, iterated in
/// lockstep: each iteration applies 𝒦 and the preconditioner to all unconverged systems at once
/// (GalerkinOperator::apply_many, MeanPreconditioner::apply_many) and reduces all their inner
/// products in one allreduce. Per system it is PETSc's KSPCG with the unpreconditioned norm and a
/// nonzero initial guess: stop when ‖b_s − 𝒦x_s‖₂ ≤ rtol ‖b_s‖₂, the same iterates to rounding.
struct BatchedPcgResult {
  std::vector<int> iterations; ///< per system
  int failed = -1;             ///< first system that failed (−1: none)
  std::string reason;          ///< why (indefinite operator or preconditioner, iteration limit)
};
/// @p x holds the initial guesses and receives the solutions. @note Collective (world).
/// @p on_iteration (if set) gets the number of converged systems after every iteration.
BatchedPcgResult batched_pcg(const GalerkinOperator& A, const MeanPreconditioner& pre, const std::vector<Vec>& b,
                             const std::vector<Vec>& x, double rtol, int max_it,
                             const std::function<void(int)>& on_iteration = {});

/// Per-rank memory estimate of a stochastic Galerkin eigen solve, in bytes, before anything is
/// allocated: the P_α expanded operators (nonzeros of one K on this rank), @p n_vectors block
/// vectors of P_β × n_local doubles, the gathered copies, the triple tensor, the dense Gram matrices.
double estimate_memory_bytes(long long P_alpha, long long P_beta, long long n_local, long long nnz_local,
                             long long n_vectors);
/// Memory this rank may use: MemAvailable (Linux /proc/meminfo) shared by the ranks on the node.
/// @note Collective.
double available_memory_bytes(MPI_Comm comm);

} // namespace flexuq::sg
