// SPDX-License-Identifier: MIT
#pragma once
/// @file GcmsDiagnostics.hpp
/// @brief Linear-dependence measures of seed-001 §2.5 on row-distributed tall matrices: singular
/// values by tall-skinny QR (la/Tsqr.hpp), condition numbers, rank deficiency from a sharp drop
/// ("gap") in σ, and the cosine-similarity matrix with CSV export.

#include "flexuq/cms/GcmsBasis.hpp"
#include "flexuq/la/Tsqr.hpp"

#include <Eigen/Dense>
#include <mpi.h>

#include <string>
#include <vector>

namespace flexuq::cms {

/// Number of "vanishing" singular values: the tail after the largest ratio σ_i/σ_{i+1} among the
/// positions where σ_{i+1} ≤ @p svd_tolerance · σ_1 and σ_i/σ_{i+1} ≥ @p gap_ratio (0 if none).
/// Exact zeros (σ ≤ n·ε·σ_1) always count. @p gap_at receives i+1 (the first vanishing index) or −1.
int gap_deficiency(const Eigen::VectorXd& sigma, double svd_tolerance, double gap_ratio, int* gap_at = nullptr);

/// Cosine-similarity matrix from a Gram matrix: G_ij / sqrt(G_ii G_jj); 0 where a norm vanishes
/// (no NaN for zero fields).
Eigen::MatrixXd cosine_from_gram(const Eigen::MatrixXd& gram);

/// Cosine-similarity matrix of all columns of Φ (3 n_fields square): cos = 0 between different
/// directions l, the field cosine for equal l (seed-001 §2.2 (c)). @note Collective.
Eigen::MatrixXd column_cosines(const GcmsBasis& basis);

/// Write column_cosines(basis) to @p path on rank 0 as CSV: a header row "label,<column labels>",
/// then one row per column "label,cos…" (signed cosines; the paper's heat maps show |cos|).
/// Throws Error on every rank if rank 0 cannot write the file. @note Collective.
void write_cosine_csv(const GcmsBasis& basis, const std::string& path);

/// Diagnostics of one state of the basis. Singular values are those of B and S; each singular value
/// of Φ (Φ_f) is the corresponding one of B (S) repeated three times, so the condition numbers agree.
struct GcmsStage {
  std::string name;
  int n_columns = 0;            ///< columns of Φ
  int n_flexible_columns = 0;   ///< columns of Φ_f
  Eigen::VectorXd sigma;        ///< σ(B), descending
  Eigen::VectorXd sigma_flexible; ///< σ(S), descending
  double cond_phi = 0, cond_phi_t = 0, cond_phi_r = 0, cond_phi_f = 0;
  int deficiency_phi = 0;       ///< vanishing σ of Φ (a multiple of 3)
  int deficiency_phi_f = 0;     ///< vanishing σ of Φ_f (a multiple of 3)
  /// σ(Φ), i.e. every σ(B) repeated three times (descending).
  std::vector<double> sigma_phi() const;
  std::string summary() const;
};

/// Compute the stage diagnostics (TSQR on B, on its Φ_t / Φ_r columns and on S). @note Collective.
GcmsStage diagnose(const GcmsBasis& basis, const std::string& name, double svd_tolerance, double gap_ratio);

/// cond(Ψ) of the generating modes as the 3n × n_m matrix (not Kronecker). @note Collective.
double mode_matrix_condition(const GcmsBasis& basis);

} // namespace flexuq::cms
