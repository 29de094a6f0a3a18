// SPDX-License-Identifier: MIT
#pragma once
/// @file EigenSolver.hpp
/// @brief Stochastic Galerkin generalized eigen solver (seed 000 §2.13, docs/sg.md):
/// K(ξ) u(ξ) = λ(ξ) M(ξ) u(ξ) with u = Σ_β u^(β) Ψ_β, λ = Σ_γ λ^(γ) Ψ_γ (p_β = p_γ).
///
/// - inverse-subspace (default): all wanted modes (plus guard vectors) together; each sweep solves
///   𝒦 W_s = 𝓜 U_s by PCG with the mean-based preconditioner I ⊗ K^(0)⁻¹ (one MUMPS factorisation,
///   inexact: the PCG tolerance follows the subspace change), then orthonormalises the modes
///   against each other pointwise in ξ (Cholesky-QR of W(ξ_q)ᵀ M W(ξ_q) at Gauss nodes, projected
///   back: the stochastic Gram–Schmidt of Sousedík–Elman, which keeps the subspace from collapsing
///   and gives the normalisation (6.36), E[uᵀMu Ψ_k] = δ_k0, to quadrature accuracy). Convergence:
///   the sine of the largest principal angle per mean multiplet (a multiplet is a subspace).
/// - straight-forward: the whole symmetric pencil (𝒦, 𝓜) by SLEPc as a GHEP (never the
///   unsymmetrised Cholesky form); every physical eigenvalue appears P_β times (T14). The mode
///   PCE of mean mode s is the 𝓜-orthogonal projection of e_0 ⊗ φ̄_s onto the P_β·m big
///   eigenvectors of its multiplet, then normalised like the other method.
/// Eigenvalue coefficients: the Rayleigh-quotient projection (6.47),
/// λ^(k) = Σ_ij c_kij ⟨u^(i), v^(j)⟩ with v = 𝒦 u.

#include "flexuq/core/EnumNames.hpp"
#include "flexuq/sg/Expansion.hpp"
#include "flexuq/sg/Galerkin.hpp"
#include "flexuq/uq/Pce.hpp"

#include <Eigen/Dense>

#include <string>
#include <vector>

namespace flexuq::sg {

enum class Method { InverseSubspace, StraightForward };
enum class Normalization { Galerkin, Thesis };
/// The names of `<key>.solver` and `<key>.normalization` (method.galerkin), as the result file's
/// attributes write them.
inline constexpr EnumNames<Method, 2> kMethodNames{
    {{{Method::InverseSubspace, "inverse-subspace"}, {Method::StraightForward, "straight-forward"}}}};
inline constexpr EnumNames<Normalization, 2> kNormalizationNames{
    {{{Normalization::Galerkin, "galerkin"}, {Normalization::Thesis, "thesis"}}}};

struct EigenOptions {
  int order = 2;       ///< p_β = p_γ (method.galerkin.order)
  int n_modes = 10;    ///< wanted modes; a multiplet cut by the count is completed
  Method method = Method::InverseSubspace;
  /// Galerkin: (6.36) by pointwise normalisation at Gauss nodes. Thesis: seed 000's heuristic
  /// (every block to unit M-norm, then modified Gram–Schmidt across the blocks of a mode; blocks
  /// numerically parallel to earlier ones are zeroed), applied to the converged modes.
  Normalization normalization = Normalization::Galerkin;
  int guard = -1;        ///< extra subspace vectors (−1: n/2 + 2, completed to a multiplet)
  /// Pointwise Rayleigh–Ritz step after each orthonormalisation (inverse-subspace): every mode
  /// converges at the rate of the whole iterated set, so far fewer sweeps (docs/sg.md).
  bool ritz = true;
  /// Inverse-subspace: the modes of a stochastic multiplet (neighbouring modes that cross or veer
  /// over the inputs' range, iterated as one subspace) follow their identity: at the Gauss nodes,
  /// a Rayleigh–Ritz step on the multiplet's subspace, each Ritz vector assigned to the mean mode of
  /// largest MAC (like the campaign's mode tracking), and its Ritz value and vector projected on the
  /// basis (docs/sg.md). False keeps the smooth basis of the subspace that the iteration carries
  /// (its vectors are then no modes): what a reduced basis needs (the SG Craig–Bampton body).
  bool track_multiplets = true;
  /// Inverse-subspace checkpoint file (empty: none): the iterated vectors, the iteration's state
  /// and the preconditioner's name. With @p resume, a matching checkpoint (same job and rank
  /// layout) is continued, bit for bit with the same preconditioner; with the other one it is
  /// continued too (a logged notice names both; EigenResult::resumed_from_preconditioner), the
  /// result then agrees to the PCG tolerance. Otherwise the solve starts from the mean modes.
  std::string checkpoint;
  bool resume = false;
  /// Write the checkpoint after a sweep only when at least this many seconds passed since the
  /// sweeps began or the last checkpoint (campaign.checkpoint_seconds; 0: after every sweep). A
  /// sweep that ends the solve converged writes none (the results follow); one that stops at
  /// max_it unconverged always writes it (so --resume can go on).
  double checkpoint_seconds = 0;
  double tol = 1e-7;     ///< subspace sine per multiplet (inverse-subspace); values below 1e-7 act as 1e-7
  /// Stagnation (inverse-subspace): no new best sine (< 0.9 × the best) in 5 sweeps while the best
  /// is below this ends the iteration as converged (at the truncation level; eigenvalues ~ sine²).
  double stagnation_tol = 1e-5;
  int max_it = 200;
  /// Inverse-subspace PCG tolerance per sweep: 10⁻² × the last subspace sine, within these bounds.
  /// The early sweeps solve loosely (inexact inverse iteration keeps its rate with a tolerance tied
  /// to the outer residual); a cap of 1e-6 over-solved sweeps 1–3 (docs/performance.md, issue 38).
  double pcg_rtol_max = 1e-2, pcg_rtol_min = 1e-13;
  int pcg_max_it = 1000;
  /// PCG preconditioner (inverse-subspace, and the SG body's constraint modes): I ⊗ K̄⁻¹ or
  /// Ullmann's G̃⁻¹ ⊗ K̄⁻¹ (Galerkin.hpp, kronecker_block_factor; the default: ~20 % fewer PCG
  /// iterations and less CPU on both issue-38 benches, docs/performance.md).
  Preconditioner preconditioner = Preconditioner::Kronecker;
  double sf_tol = 1e-12; ///< SLEPc tolerance (straight-forward)
  bool assemble = false; ///< assemble 𝒦 and 𝓜 (straight-forward: MUMPS instead of PCG inside SLEPc)
  double memory_limit_bytes = 0; ///< per rank; 0: MemAvailable / ranks on the node
  std::string prefix = "sg_";
  std::string key = "method.galerkin"; ///< named in messages
  std::string partitioner_key = "partitioner"; ///< named when the groups' partitions differ ("model.partitioner")
  bool progress = true;
};

struct EigenResult {
  uq::MultiIndexSet basis;          ///< solution basis (total degree p_β)
  Eigen::MatrixXd eigenvalues;      ///< P_β × n: λ_s^(k) (orthonormal basis), rad²/s²
  std::vector<VecH> modes;          ///< n block vectors (world communicator, BlockSpace layout)
  /// Numbering-free block Gram, (n P_β)²: entry ((s,b),(t,c)) = u_s^(b)ᵀ M^(0) u_t^(c).
  Eigen::MatrixXd block_gram;
  std::vector<double> mean_eigenvalues; ///< of (K^(0), M^(0)), the n wanted
  std::vector<int> multiplicity;        ///< per mode: size of its mean multiplet
  /// Inverse-subspace, per mode: the stochastic multiplet it was iterated in (consecutive ids; modes
  /// that share one cross or veer over the inputs' range, docs/sg.md). Empty for straight-forward.
  std::vector<int> stochastic_multiplet;
  int iterations = 0;
  long long pcg_iterations = 0;
  double change = 0;       ///< last subspace sine
  bool converged = false;
  /// --resume continued a checkpoint written with another preconditioner: its name (else empty).
  std::string resumed_from_preconditioner;
  // straight-forward
  std::vector<double> galerkin_spectrum; ///< the big pencil's eigenvalues, ascending
  int block_multiplicity = 0;            ///< P_β: copies of each physical eigenvalue
  int complex_results = 0;               ///< eigenvalues with an imaginary part (T15: always 0)

  /// λ(ξ) as a Pce (one output per mode).
  uq::Pce eigenvalue_pce(const std::vector<uq::PolynomialFamily>& families) const;
};

/// @brief The solver on given expanded operators: K^(a) (P_α, on the group communicator) and
/// M^(a) (one matrix = deterministic M).
class EigenSolver {
public:
  EigenSolver(const StochasticLayout& layout, std::vector<uq::PolynomialFamily> families,
              uq::MultiIndexSet operator_basis, std::vector<Mat> K, std::vector<Mat> M, EigenOptions opt);
  /// The affine terms behind the expansion: K^(a) = Σ_t C_K(a, t) K_t (and M^(a) likewise; leave
  /// @p M_terms empty for a deterministic M). The Galerkin products then run on the terms
  /// (regroup_by_terms: the same operator, one sparse product per term instead of per K^(a)) when
  /// there are fewer terms than P_α, or when the constructor got only K^(0) (and M^(0)): those
  /// then serve the mean problem and the preconditioner only.
  void set_terms(std::vector<Mat> K_terms, Eigen::MatrixXd K_coefficients, std::vector<Mat> M_terms = {},
                 Eigen::MatrixXd M_coefficients = {});
  /// @note Collective on the layout's world communicator.
  EigenResult solve();

private:
  struct Impl;
  const StochasticLayout* layout_;
  std::vector<uq::PolynomialFamily> families_;
  uq::MultiIndexSet op_basis_;
  std::vector<Mat> K_, M_;
  std::vector<Mat> K_terms_, M_terms_;
  Eigen::MatrixXd K_coef_, M_coef_;
  EigenOptions opt_;
};

/// The eigenfrequencies f(ξ) = √λ(ξ)/(2π) (Hz) as a PCE on the basis of @p eigenvalues: the
/// Gauss projection of the square root of the eigenvalue PCE (a nonlinear map of an expansion, so
/// it is projected, not derived coefficient by coefficient). Tensor Gauss rule with p + 4 points
/// per input (fewer when that exceeds 10⁶ points, never fewer than p + 1). A negative λ at a node
/// (a truncation artefact of a wide input) counts as f = 0 and is reported in @p negative_nodes.
/// Not collective.
uq::Pce frequency_pce(const uq::Pce& eigenvalues, const uq::StochasticSpace& space, int* negative_nodes = nullptr);

/// Refuse (InputError naming the order, P_β and the estimate) when the estimated memory per rank
/// exceeds the limit; called before anything of the Galerkin system is allocated. @note Collective.
void check_memory(MPI_Comm world, int dim, int operator_order, const EigenOptions& opt, long long n_local,
                  long long nnz_local, int n_vectors);

/// Guard vectors of the inverse subspace iteration: EigenOptions::guard, or n_modes/2 + 2 when it is −1.
int guard_vectors(const EigenOptions& opt);
/// check_memory for a solve on operators with the layout and nonzeros of @p K (its local rows and
/// nonzeros on this rank), with the solver's own block vectors plus @p extra_vectors. @note Collective.
void check_memory_for(MPI_Comm world, int dim, int operator_order, const EigenOptions& opt, Mat K, int extra_vectors = 0);
/// Whole pipeline for one component: memory check → θ expansion → K^(a) (and M^(a)) → solve.
/// @p component lives on layout.group() and keeps its affine terms. @note Collective (world).
EigenResult solve_component(const StochasticLayout& layout, const fe::Component& component,
                            const uq::StochasticSpace& space, const AffineMap& map, const ExpansionOptions& expansion,
                            const EigenOptions& opt);

} // namespace flexuq::sg
