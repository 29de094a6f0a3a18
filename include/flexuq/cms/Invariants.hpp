// SPDX-License-Identifier: MIT
#pragma once
/// @file Invariants.hpp
/// @brief Inertia invariants of a reduced flexible body (Shabana's inertia shape integrals; body
/// frame = mesh frame, origin O) and rigid-body mass properties. Plain Eigen data: no PETSc, no MPI,
/// so multibody code can hold and evaluate them (cms/FloatingFrame.hpp) without the FE stack.

#include <Eigen/Dense>

#include <array>

namespace flexuq::cms {

/// Inertia invariants of u = x₀ + Φ ξ (Φ: the basis, n columns), integrals over the body with ρ.
struct Invariants {
  double mass = 0;                 ///< I1 = ∫ρ dV
  Eigen::Vector3d com = Eigen::Vector3d::Zero();            ///< I2 / m = ∫ρ x₀ dV / m
  Eigen::Matrix3d inertia_origin = Eigen::Matrix3d::Zero(); ///< J_O = ∫ρ (|x₀|² 1 − x₀x₀ᵀ) dV (+ nodal rotary inertia of beams)
  Eigen::Matrix3d inertia_com = Eigen::Matrix3d::Zero();    ///< J_C = J_O − m(|c|² 1 − c cᵀ)
  Eigen::MatrixXd S;               ///< I3 = ∫ρ Φ dV (3 × n): M_rf translational block
  Eigen::MatrixXd Sr;              ///< I4 = ∫ρ x̃₀ Φ dV (3 × n): M_rf rotational block at ξ = 0
  std::array<Eigen::MatrixXd, 9> Skl;  ///< I5 = ∫ρ Φ_kᵀ Φ_l dV (n × n), k,l = x,y,z, index 3k+l
  Eigen::MatrixXd Sbar;            ///< I6 = ∫ρ x₀_k Φ_l dV (9 × n), row 3k+l
  Eigen::Matrix3d Ikl = Eigen::Matrix3d::Zero(); ///< I7 = ∫ρ x₀_k x₀_l dV
  Eigen::MatrixXd Mff;             ///< ΦᵀMΦ
  bool lumped = false;             ///< beams: I5–I7 with lumped translational nodal masses
};

/// Mass properties from a 6×6 rigid-body mass matrix about O.
struct MassProperties {
  double mass = 0;
  Eigen::Vector3d com = Eigen::Vector3d::Zero();
  Eigen::Matrix3d inertia_com = Eigen::Matrix3d::Zero();
};
MassProperties mass_properties(const Eigen::Matrix<double, 6, 6>& Mrr);

} // namespace flexuq::cms
