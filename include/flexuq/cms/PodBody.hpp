// SPDX-License-Identifier: MIT
#pragma once
/// @file PodBody.hpp
/// @brief A POD body (`reduce.stochastic.method: pod`, docs/stochastic-cb.md "POD bodies") as a
/// value: one basis V and the reduced affine terms K̄_t = VᵀK_tV, M̄_t = VᵀM_tV with the map θ →
/// coefficients c_t(θ) = c_t(θ̄) θ_p/θ̄_p (p = the parameter scaling term t, −1: constant). K̄(θ),
/// M̄(θ) are then the exact Galerkin projections of K(θ), M(θ) on V for every θ (no expansion).
/// Under `/stochastic_body/pod` (docs/hdf5-schema.md). No PETSc: Eigen only.

#include "flexuq/cms/Invariants.hpp"

#include <Eigen/Dense>
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace flexuq::io {
class H5File;
}

namespace flexuq::cms {

struct AffineReducedTerms {
  std::vector<Eigen::MatrixXd> terms;    ///< r × r each
  std::vector<double> coefficients;      ///< c_t(θ̄)
  std::vector<std::int64_t> parameter;   ///< p per term (−1: constant)
  /// Σ_t c_t(θ) terms_t. @p theta and @p nominal in parameter order.
  Eigen::MatrixXd at(const std::vector<double>& theta, const std::vector<double>& nominal) const;
  std::vector<double> coefficients_at(const std::vector<double>& theta, const std::vector<double>& nominal) const;
};

struct PodBody {
  std::vector<std::string> names; ///< parameter names
  std::vector<double> nominal;    ///< θ̄
  AffineReducedTerms K, M;
  Eigen::Index rank() const { return K.terms.empty() ? 0 : K.terms[0].rows(); }
  /// K̄(θ), M̄(θ). Throws InputError for a θ of the wrong size or a non-positive value.
  Eigen::MatrixXd K_at(const std::vector<double>& theta) const;
  Eigen::MatrixXd M_at(const std::vector<double>& theta) const;

  /// The floating-frame invariants of V by the same rule, I(θ) = Σ_t c_t(θ) I_t: they are linear in
  /// M(θ). Each term is the linear form of the invariants (flatten_invariants with the I2 slot holding
  /// the first moment m c and the J_C slot zero; J_C and c are recomputed at θ) as one column; one
  /// constant term and one per parameter that scales a mass term. Empty in files written before
  /// `/stochastic_body/pod/invariant_terms` existed.
  AffineReducedTerms I;
  bool lumped = false; ///< beams: I5–I7 from lumped masses
  bool has_invariants() const { return !I.terms.empty(); }
  Invariants invariants_at(const std::vector<double>& theta) const;
  /// The linear form described at I (a column), and back.
  static Eigen::VectorXd linear_invariants(const Invariants& inv);

  /// Write the terms, coefficients, parameter maps, names and θ̄ (rank 0 of the file's communicator
  /// writes replicated values). @note Collective on the file.
  void write(io::H5File& f) const;
  /// Read; InputError naming the file when it holds no POD body. @note Collective on the file.
  static PodBody read(const io::H5File& f);
};

} // namespace flexuq::cms
