// SPDX-License-Identifier: MIT
#pragma once
/// @file Svk.hpp
/// @brief Saint Venant-Kirchhoff total-Lagrangian element kernels for the nonlinear static solver
/// (seed 002, chapter 4): bar2 (1-D), quad4 and quad8 (plane stress, thickness t) and hex8, with
/// translational DOFs only, node-major (u_1x, u_1y, u_2x, ...).
///
/// Green-Lagrange strain in Voigt form L_a = (B_a + 1/2 q^T D_a) q (engineering shears, order
/// 11, 22, 33, 23, 31, 12; 2-D: 11, 22, 12), second Piola-Kirchhoff stress S = E L. With A(q) the
/// matrix whose row a is (D_a q)^T, the internal force splits into the seed's terms
///   Q_I = K_I q, Q_II = 1/2 K_II q, Q_III = K_III q, Q_IV = 1/2 K_IV q,
///   K_I = int B^T E B, K_II = int B^T E A, K_III = K_II^T, K_IV = int A^T E A, K_V = int S_a D_a,
/// and the tangent is K_t = K_I + K_II + K_III + K_IV + K_V (eqs 127-133 of the thesis). Rectangles or
/// distorted elements alike: isoparametric map, Gauss 2 (bar2), 2x2 (quad4), 3x3 (quad8), 2x2x2 (hex8).

#include <Eigen/Dense>

#include <string>
#include <vector>

namespace flexuq::nl {

enum class ElementKind { bar2, quad4, quad8, hex8 };

/// "bar2", "quad4", "quad8", "hex8".
const char* element_kind_name(ElementKind k);
/// Spatial dimension (1, 2, 3) and node count of @p k.
int element_dim(ElementKind k);
int element_nodes(ElementKind k);
/// Natural coordinates of node @p i (in [-1, 1]^dim); quad8: corners counter-clockwise, then the
/// mid-sides bottom, right, top, left; hex8: the z = -1 face counter-clockwise, then z = +1.
Eigen::VectorXd node_natural(ElementKind k, int i);
/// Shape functions N (n) and their natural derivatives dN (n x dim) at @p xi.
void shape_functions(ElementKind k, const Eigen::VectorXd& xi, Eigen::VectorXd& N, Eigen::MatrixXd& dN);

/// Isotropic SVK material; @p thickness multiplies the 2-D integrals (plane stress), @p area the 1-D ones.
struct SvkMaterial {
  double E = 0;
  double nu = 0;
  double thickness = 1;
  double area = 1;
};

/// Voigt elasticity matrix: 1-D E; 2-D plane stress (eq 174); 3-D Lame form (eqs 175-176).
Eigen::MatrixXd elasticity_matrix(int dim, const SvkMaterial& m);

/// The shape-function gradients at a point: N (n), G = dN/dX (n x dim) in reference coordinates.
struct PointGradients {
  Eigen::VectorXd N;
  Eigen::MatrixXd G;
};

/// Internal force and tangent of one element; the terms only when asked for.
struct SvkResult {
  Eigen::VectorXd Q;
  Eigen::MatrixXd K;
  bool has_terms = false;
  Eigen::VectorXd Q_I, Q_II, Q_III, Q_IV;
  Eigen::MatrixXd K_I, K_II, K_III, K_IV, K_V;
};

/// One element's reference geometry with its quadrature data (gradients and weights times the
/// thickness or area), computed once.
class SvkElement {
public:
  /// @p X: the reference node coordinates, one row per node (n x dim). Throws InputError on a
  /// degenerate or inverted element (non-positive Jacobian at a Gauss point).
  SvkElement(ElementKind kind, const Eigen::MatrixXd& X, const SvkMaterial& mat);

  ElementKind kind() const { return kind_; }
  int dim() const { return dim_; }
  int nodes() const { return static_cast<int>(X_.rows()); }
  int dofs() const { return dim_ * nodes(); }
  const Eigen::MatrixXd& X() const { return X_; }

  /// Q and K_t at displacements @p q (element DOFs); with @p terms also Q_I..Q_IV and K_I..K_V.
  SvkResult evaluate(const Eigen::VectorXd& q, bool terms = false) const;
  /// The constant linear stiffness K_I (small-strain elasticity).
  const Eigen::MatrixXd& linear_stiffness() const { return K_I_; }
  /// N and dN/dX at natural coordinates @p xi.
  PointGradients gradients_at(const Eigen::VectorXd& xi) const;

private:
  ElementKind kind_;
  int dim_;
  Eigen::MatrixXd X_;
  Eigen::MatrixXd C_;
  std::vector<Eigen::MatrixXd> G_; ///< dN/dX per Gauss point
  std::vector<double> w_;          ///< weight x det J x thickness (or area)
  Eigen::MatrixXd K_I_;
};

} // namespace flexuq::nl
