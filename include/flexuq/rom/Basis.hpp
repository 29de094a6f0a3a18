// SPDX-License-Identifier: MIT
#pragma once
/// @file Basis.hpp
/// @brief The offline step of seed 003's reduction of redundant multibody systems (digest
/// seed-003.md §2.12–2.15, docs/rom.md): snapshots of a full run → coordinate-type-sensitive POD →
/// V (n × r, orthonormal columns), the affine offset R0 = (I − VVᵀ) q0, and the constraint
/// reduction Γ (m × l) with l independent directions of the projected Jacobian C_q V.
///
/// * POD blocks: `type-sensitive` stacks the translational (r of every body), rotational (Euler
///   parameters p) and flexible (η) rows of all bodies into one snapshot matrix per type (seed
///   (4.10)–(4.14)), or per body and type with `per_body`; `combined` is the classical POD of all
///   coordinates in one matrix (the baseline that fails on the V8, seed Table 4.3); `sod` the smooth
///   orthogonal decomposition of all coordinates (seed §3.4.4, refused where Σ_Ẋ is singular). Snapshots are
///   velocities (default) or positions (the combined baseline's other variant); centring optional
///   (the seed does not centre: the velocity snapshots of a static coordinate are zero anyway).
///   Each block's SVD goes through the pod module (pod::compute_pod, its truncation rules): the
///   block X (n_b × h, h snapshots) is first compressed by a TSQR of Xᵀ = QR (la::tsqr), so the POD
///   of Rᵀ (n_b × n_b) has X's singular values and left vectors, without an h × h factorisation.
/// * V = Pᵀ blockdiag(Φ_1 … Φ_k) with the blocks' rows mapped back to the body-wise q: block
///   columns are disjoint in rows, so VᵀV = I holds to round-off (checked, ‖VᵀV − I‖ reported).
/// * Constraints: `svd` (seed §4.3.2, from [99]) stacks C_q(q_k) V over every snapshot k,
///   [C_q(q_1)V … C_q(q_h)V] = Φ D Ψᵀ, and keeps the l left vectors Γ = Φ_l above the truncation;
///   `is-needed` (Alg. 4.1 with its row typo fixed) keeps the unit rows j where row j of C_q V is
///   non-zero at some snapshot; `none` keeps every active row (Γ = I, the seed's unsolvable case).
///   The reduced model then has l ≤ r (else it is over-determined: an error naming the keys).
/// Serial (one rank): n is the number of coordinates of one mechanism (hundreds at most).

#include "flexuq/core/EnumNames.hpp"
#include "flexuq/mbs/System.hpp"
#include "flexuq/pod/Truncation.hpp"

#include <Eigen/Dense>

#include <string>
#include <vector>

namespace flexuq::rom {

using Vec = Eigen::VectorXd;
using Mat = Eigen::MatrixXd;

enum class PodKind { type_sensitive, combined, sod };
inline constexpr EnumNames<PodKind, 3> kPodKindNames{
    {{{PodKind::type_sensitive, "type-sensitive"}, {PodKind::combined, "combined"}, {PodKind::sod, "sod"}}}};
enum class SnapshotKind { velocity, position };
inline constexpr EnumNames<SnapshotKind, 2> kSnapshotKindNames{
    {{{SnapshotKind::velocity, "velocity"}, {SnapshotKind::position, "position"}}}};
enum class ConstraintMethod { svd, is_needed, none };
inline constexpr EnumNames<ConstraintMethod, 3> kConstraintMethodNames{
    {{{ConstraintMethod::svd, "svd"}, {ConstraintMethod::is_needed, "is-needed"}, {ConstraintMethod::none, "none"}}}};

/// Coordinate types (the result file's /snapshots/coordinate_type).
enum CoordinateType : int { translational = 0, rotational = 1, flexible = 2 };
const char* type_name(int type);

struct RomOptions {
  PodKind pod = PodKind::type_sensitive;
  SnapshotKind snapshots = SnapshotKind::velocity;
  bool per_body = false;
  bool centre = false;
  /// Per block: seed §4 keeps modes until σ²/Σσ² < 1e-16, i.e. σ/σ₁ ≲ 1e-8 (digest §5.2 item 1).
  pod::Truncation truncation = pod::Truncation::sigma_ratio(1e-8);
  /// Fixed ranks per type (−1: the truncation rule): the system-wide block of the type, or with
  /// per_body each body's block of it (seed 000 T18: r_f = 3 per bar); combined: rank[0].
  int rank[3] = {-1, -1, -1};
  ConstraintMethod constraints = ConstraintMethod::svd;
  pod::Truncation constraint_truncation = pod::Truncation::sigma_ratio(1e-8);
  /// svd: C_q V at the first snapshot only (`constraints.at: start`) instead of stacked over all (`all`).
  bool constraints_at_start = false;
  double is_needed_tol = 1e-10; ///< is-needed: |row j of C_q V| > tol · max over rows and snapshots
};

/// One training run: q and q̇ at its snapshot times (n × h each) and the times.
struct Training {
  Mat q, v;
  std::vector<double> t;
};

/// One POD block: its rows of q, its singular values and the rank kept.
struct PodBlock {
  std::string name;           ///< "translational", "rotational", "flexible", "<body>.<type>" or "combined"
  std::vector<int> rows;      ///< coordinates of q (body-wise order)
  Vec sigma;                  ///< every singular value, descending, not normalised
  int rank = 0;               ///< columns kept
  double energy_lost = 0.0;   ///< Σ_{k>rank} σ_k² / Σ σ_k²
  int first_column = 0;       ///< its first column in V
};

/// The reduced-order model's data (the `flexuq rom` result, docs/hdf5-schema.md "rom").
struct ReducedBasis {
  RomOptions options;
  Mat V;                           ///< n × r, orthonormal columns
  Vec q0, R0;                      ///< the training run's initial q, and (I − VVᵀ) q0
  Mat gamma;                       ///< m × l
  Vec constraint_sigma;            ///< singular values of the stacked C_q V (svd), else empty
  std::vector<int> needed;         ///< is-needed: 1 per active row kept (else empty)
  std::vector<std::string> rows;   ///< the active rows' labels (the system's rows after its redundancy check)
  std::vector<PodBlock> blocks;
  double orthonormality = 0.0;     ///< ‖VᵀV − I‖_max
  int snapshots = 0;               ///< snapshot columns used
  int n() const { return static_cast<int>(V.rows()); }
  int r() const { return static_cast<int>(V.cols()); }
  int l() const { return static_cast<int>(gamma.cols()); }
  int rank_of(int type) const; ///< columns of type @p type (type-sensitive), summed over bodies
};

/// POD blocks, V, R0 and Γ from the training runs on @p sys, whose active rows must be those the
/// runs' λ refer to (System::select_independent_rows at the first snapshot). @p runs[0].q.col(0) is q0.
/// @throws OptionError (fields `pod.*`, `constraints.*`) for an empty block set, l > r, or no snapshot.
ReducedBasis build_basis(const mbs::System& sys, const std::vector<Training>& runs, const RomOptions& o);

/// Seed 003 §3.4.4–3.4.5 (digest §2.11, V10): the smooth orthogonal decomposition of position
/// snapshots X and velocity snapshots Ẋ (n × h each, centred here as Chelidze requires): the
/// generalized eigenproblem (Σ_X − λ Σ_Ẋ) φ = 0, Σ_X = XXᵀ/h, Σ_Ẋ = ẊẊᵀ/h (n × n), by Eigen's real
/// QZ (the dense LAPACK-style ggev): λ = α/β, infinite where β ≈ 0, indeterminate where α ≈ β ≈ 0
/// (both below 1e-12 of ‖Σ_X‖, ‖Σ_Ẋ‖: LAPACK's NaN, or a ratio of round-off). The numerical
/// ranks are those of the centred X and Ẋ (σ/σ₁ > 1e-8, the POD's default cut). Only a regular
/// pencil with Σ_Ẋ of full rank defines smooth modes; multibody snapshots never give one (the seed's
/// cart–pendulum: both ranks 5 of 14), and `pod.method: sod` then refuses (build_basis).
struct SodReport {
  int n = 0, snapshots = 0;
  int rank_x = 0, rank_xdot = 0;
  Vec lambda;                      ///< α/β as computed, in QZ order (∞, NaN, negatives included)
  int indeterminate = 0, infinite = 0, negative = 0, positive = 0, zero = 0, complex = 0;
  Vec sigma;                       ///< √λ of the real positive λ, descending (the smooth orthogonal values)
  Mat modes;                       ///< their projective modes (columns of Φ^{-T}), n × sigma.size()
  std::string summary() const;     ///< "ranks …, λ: k infinite, …"
};
SodReport smooth_orthogonal_decomposition(const Mat& X, const Mat& Xdot);

/// Rank, largest and smallest singular value of Γᵀ C_q(q) V at (q, t): the invariant rank = l.
struct RankCheck {
  int rank = 0;
  double ratio = 0.0; ///< σ_min / σ_max (1 for l = 0)
};
RankCheck reduced_jacobian_rank(const mbs::System& sys, const ReducedBasis& b, const Vec& q, double t);

/// Write @p b to @p path (HDF5, MPI_COMM_SELF; docs/hdf5-schema.md "rom"), with @p sources (the
/// training files) and the offline wall time.
void write_basis(const std::string& path, const ReducedBasis& b, const std::vector<std::string>& sources,
                 double offline_seconds);
/// Read a `flexuq rom` result. @throws InputError naming the file and the missing dataset.
ReducedBasis read_basis(const std::string& path);

/// Read the snapshots a `flexuq simulate` run with `snapshots: true` wrote. @p active_rows gets its
/// /snapshots/rows. @throws InputError naming the file when it has no /snapshots.
Training read_training(const std::string& path, std::vector<std::string>* active_rows = nullptr);

} // namespace flexuq::rom
