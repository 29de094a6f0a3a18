// SPDX-License-Identifier: MIT
#pragma once
/// @file Nff.hpp
/// @brief The nonlinear floating frame (seed 002, chapter 4): a frame attached to a material point,
/// the local DOFs q^{j,j} seen from it, and the local-to-global transformation of an element's
/// internal force and tangent (eqs 118-119, 135, 145).
///
/// The frame is found in closed form at position level (digest §4.1): F = I + sum u_i (x) grad N_i at
/// the frame point, R its rotation (2-D atan2 of the skew part, 3-D the polar factor), r = x_FF - R X_FF,
/// q_i = R^T (X_i + u_i - r) - X_i. Then Z = (Xi Phi_R)^-1 Xi, T = 1 - Phi_R Z with Phi_R from the
/// current local positions, and
///   Q^o = Rbar T^T Q^j,   K^o = Rbar (T^T K^j T - Z^T Fhat^T T - Fhat Z) Rbar^T.
/// An element's transformation acts on the union of its nodes and the frame's support nodes (for a
/// body frame, the nodes of the element that carries the frame point), so NFFb assembles element by
/// element like NFFe.

#include "flexuq/nl/Svk.hpp"

#include <Eigen/Dense>

#include <vector>

namespace flexuq::nl {

/// NFE: total Lagrangian in global DOFs. NFFb / NFFe: the same SVK model in a frame per body / per
/// element. LFE, LFFb, LFFe: the local model truncated to K_I (linear FE, superelement-like,
/// co-rotational-like).
enum class Formulation { nfe, nffb, nffe, lfe, lffb, lffe };

const char* formulation_name(Formulation f);
/// Frame at the body level (b), at the element (e), or none (NFE, LFE).
bool body_frame(Formulation f);
bool element_frame(Formulation f);
/// LFE, LFFb, LFFe: the local model is K_I only.
bool linear_local(Formulation f);

/// A frame pose and the data of its material point.
struct Frame {
  int dim = 0;
  Eigen::MatrixXd R;          ///< dim x dim rotation
  Eigen::VectorXd r;          ///< origin (global)
  std::vector<int> nodes;     ///< support: global ids of the nodes of the element carrying the point
  Eigen::MatrixXd X;          ///< their reference coordinates (n_f x dim)
  Eigen::VectorXd u;          ///< their global displacements (n_f dim)
  Eigen::MatrixXd Xi;         ///< the constraint rows Xi_FF (n_r x n_f dim): zero displacement and rotation
};

/// Rigid-body parameters per dimension: 1, 3, 6.
int rigid_count(int dim);

/// The closed-form frame at natural point @p xi of element @p el (global ids @p nodes), from the
/// element's global displacements @p u_el.
Frame make_frame(const SvkElement& el, const std::vector<int>& nodes, const Eigen::VectorXd& xi,
                 const Eigen::VectorXd& u_el);

/// Local DOFs q^{j,j} of nodes with reference coordinates @p X and global displacements @p u.
Eigen::VectorXd local_dofs(const Frame& f, const Eigen::MatrixXd& X, const Eigen::VectorXd& u);

/// Rigid-body modes (eq 67) at local positions @p x (n x dim): rows [1, -x~_i].
Eigen::MatrixXd rigid_modes(const Eigen::MatrixXd& x);

/// One element's contribution in global coordinates, on @p nodes (the element's, then the frame's others).
struct Contribution {
  std::vector<int> nodes;
  Eigen::VectorXd Q;
  Eigen::MatrixXd K;
  SvkResult local; ///< Q^j, K^j and (if asked) the terms, in the frame (NFE: global)
};

/// NFE / LFE (no frame): Q = Q(u), K = K_t(u) (or K_I u, K_I).
Contribution element_global(const SvkElement& el, const std::vector<int>& nodes, const Eigen::VectorXd& u_el,
                            bool linear, bool terms = false);
/// NFF / LFF: the element seen from frame @p f and transformed back (eqs 135, 145).
Contribution element_in_frame(const SvkElement& el, const std::vector<int>& nodes, const Eigen::VectorXd& u_el,
                              const Frame& f, bool linear, bool terms = false);

} // namespace flexuq::nl
