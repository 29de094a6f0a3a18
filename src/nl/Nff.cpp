// SPDX-License-Identifier: MIT
#include "flexuq/nl/Nff.hpp"

#include "flexuq/core/Assert.hpp"
#include "flexuq/core/Error.hpp"

#include <Eigen/SVD>

#include <algorithm>
#include <cmath>

namespace flexuq::nl {

namespace {

Eigen::Matrix3d skew(const Eigen::Vector3d& a) {
  Eigen::Matrix3d s;
  s << 0, -a[2], a[1], a[2], 0, -a[0], -a[1], a[0], 0;
  return s;
}

/// Rotation of the deformation gradient: 1-D 1, 2-D atan2 of the skew part (zero local rotation
/// at the point, eq 160), 3-D the polar factor.
Eigen::MatrixXd rotation_of(const Eigen::MatrixXd& F) {
  const int d = static_cast<int>(F.rows());
  if (d == 1) return Eigen::MatrixXd::Identity(1, 1);
  if (d == 2) {
    const double th = std::atan2(F(1, 0) - F(0, 1), F(0, 0) + F(1, 1));
    Eigen::MatrixXd R(2, 2);
    R << std::cos(th), -std::sin(th), std::sin(th), std::cos(th);
    return R;
  }
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(F, Eigen::ComputeFullU | Eigen::ComputeFullV);
  Eigen::MatrixXd U = svd.matrixU();
  const Eigen::MatrixXd V = svd.matrixV();
  if ((U * V.transpose()).determinant() < 0) U.col(d - 1) *= -1;
  return U * V.transpose();
}

/// Fhat (eq 140, 172-173): node blocks from the projected force Qhat.
Eigen::MatrixXd fhat(const Eigen::VectorXd& Qh, int d) {
  const int n = static_cast<int>(Qh.size()) / d, nr = rigid_count(d);
  Eigen::MatrixXd F = Eigen::MatrixXd::Zero(n * d, nr);
  for (int i = 0; i < n; ++i) {
    if (d == 2) {
      F(i * 2, 2) = Qh[i * 2 + 1];
      F(i * 2 + 1, 2) = -Qh[i * 2];
    } else if (d == 3) {
      F.block(i * 3, 3, 3, 3) = skew(Qh.segment<3>(i * 3));
    }
  }
  return F;
}

Eigen::MatrixXd block_rotation(const Eigen::MatrixXd& R, int n) {
  const int d = static_cast<int>(R.rows());
  Eigen::MatrixXd B = Eigen::MatrixXd::Zero(n * d, n * d);
  for (int i = 0; i < n; ++i) B.block(i * d, i * d, d, d) = R;
  return B;
}

} // namespace

const char* formulation_name(Formulation f) {
  switch (f) {
  case Formulation::nfe: return "nfe";
  case Formulation::nffb: return "nffb";
  case Formulation::nffe: return "nffe";
  case Formulation::lfe: return "lfe";
  case Formulation::lffb: return "lffb";
  case Formulation::lffe: return "lffe";
  }
  return "?";
}

bool body_frame(Formulation f) { return f == Formulation::nffb || f == Formulation::lffb; }
bool element_frame(Formulation f) { return f == Formulation::nffe || f == Formulation::lffe; }
bool linear_local(Formulation f) { return f == Formulation::lfe || f == Formulation::lffb || f == Formulation::lffe; }

int rigid_count(int dim) { return dim == 1 ? 1 : dim == 2 ? 3 : 6; }

Eigen::MatrixXd rigid_modes(const Eigen::MatrixXd& x) {
  const int n = static_cast<int>(x.rows()), d = static_cast<int>(x.cols()), nr = rigid_count(d);
  Eigen::MatrixXd P = Eigen::MatrixXd::Zero(n * d, nr);
  for (int i = 0; i < n; ++i) {
    P.block(i * d, 0, d, d).setIdentity();
    if (d == 2) {
      P(i * 2, 2) = -x(i, 1);
      P(i * 2 + 1, 2) = x(i, 0);
    } else if (d == 3) {
      P.block(i * 3, 3, 3, 3) = -skew(x.row(i).transpose());
    }
  }
  return P;
}

Frame make_frame(const SvkElement& el, const std::vector<int>& nodes, const Eigen::VectorXd& xi,
                 const Eigen::VectorXd& u_el) {
  const int d = el.dim(), n = el.nodes();
  const PointGradients pg = el.gradients_at(xi);
  Frame f;
  f.dim = d;
  f.nodes = nodes;
  f.X = el.X();
  f.u = u_el;
  Eigen::MatrixXd Fd = Eigen::MatrixXd::Identity(d, d);
  Eigen::VectorXd X_ff = el.X().transpose() * pg.N, x_ff = X_ff;
  for (int i = 0; i < n; ++i) {
    Fd += u_el.segment(i * d, d) * pg.G.row(i);
    x_ff += pg.N[i] * u_el.segment(i * d, d);
  }
  f.R = rotation_of(Fd);
  f.r = x_ff - f.R * X_ff;
  // Xi_FF (eqs 157, 160, 163): displacement rows N_i, rotation rows 1/2 curl.
  f.Xi = Eigen::MatrixXd::Zero(rigid_count(d), n * d);
  for (int i = 0; i < n; ++i) {
    f.Xi.block(0, i * d, d, d) = pg.N[i] * Eigen::MatrixXd::Identity(d, d);
    if (d == 2) {
      f.Xi(2, i * 2) = -0.5 * pg.G(i, 1);
      f.Xi(2, i * 2 + 1) = 0.5 * pg.G(i, 0);
    } else if (d == 3) {
      f.Xi.block(3, i * 3, 3, 3) = 0.5 * skew(pg.G.row(i).transpose());
    }
  }
  return f;
}

Eigen::VectorXd local_dofs(const Frame& f, const Eigen::MatrixXd& X, const Eigen::VectorXd& u) {
  const int n = static_cast<int>(X.rows()), d = f.dim;
  Eigen::VectorXd q(n * d);
  for (int i = 0; i < n; ++i) {
    const Eigen::VectorXd Xi = X.row(i).transpose();
    q.segment(i * d, d) = f.R.transpose() * (Xi + u.segment(i * d, d) - f.r) - Xi;
  }
  return q;
}

Contribution element_global(const SvkElement& el, const std::vector<int>& nodes, const Eigen::VectorXd& u_el,
                            bool linear, bool terms) {
  Contribution c;
  c.nodes = nodes;
  if (linear) {
    c.local.K = el.linear_stiffness();
    c.local.Q = c.local.K * u_el;
    if (terms) {
      c.local.has_terms = true;
      c.local.Q_I = c.local.Q;
    }
  } else {
    c.local = el.evaluate(u_el, terms);
  }
  c.Q = c.local.Q;
  c.K = c.local.K;
  return c;
}

Contribution element_in_frame(const SvkElement& el, const std::vector<int>& nodes, const Eigen::VectorXd& u_el,
                              const Frame& f, bool linear, bool terms) {
  const int d = el.dim(), ne = el.nodes(), nr = rigid_count(d);
  FLEXUQ_ASSERT(f.dim == d, "frame and element dimensions differ");
  // U = the element's nodes, then the frame's support nodes not among them.
  Contribution c;
  c.nodes = nodes;
  std::vector<int> support_pos; // position in U of each support node
  for (int s : f.nodes) {
    auto it = std::find(c.nodes.begin(), c.nodes.end(), s);
    if (it == c.nodes.end()) {
      support_pos.push_back(static_cast<int>(c.nodes.size()));
      c.nodes.push_back(s);
    } else {
      support_pos.push_back(static_cast<int>(it - c.nodes.begin()));
    }
  }
  const int nu = static_cast<int>(c.nodes.size());
  // Reference coordinates and displacements on U.
  Eigen::MatrixXd XU(nu, d);
  Eigen::VectorXd uU(nu * d);
  XU.topRows(ne) = el.X();
  uU.head(ne * d) = u_el;
  for (std::size_t k = 0; k < f.nodes.size(); ++k) {
    XU.row(support_pos[k]) = f.X.row(static_cast<Eigen::Index>(k));
    uU.segment(support_pos[k] * d, d) = f.u.segment(static_cast<Eigen::Index>(k) * d, d);
  }
  const Eigen::VectorXd qU = local_dofs(f, XU, uU);
  Eigen::MatrixXd xU = XU;
  for (int i = 0; i < nu; ++i) xU.row(i) += qU.segment(i * d, d).transpose();
  const Eigen::MatrixXd PhiU = rigid_modes(xU);
  // Z on U: Xi spread onto the support positions.
  Eigen::MatrixXd XiU = Eigen::MatrixXd::Zero(nr, nu * d);
  for (std::size_t k = 0; k < f.nodes.size(); ++k)
    XiU.middleCols(support_pos[k] * d, d) += f.Xi.middleCols(static_cast<Eigen::Index>(k) * d, d);
  const Eigen::MatrixXd ZU = (XiU * PhiU).partialPivLu().solve(XiU);
  const Eigen::MatrixXd TU = Eigen::MatrixXd::Identity(nu * d, nu * d) - PhiU * ZU;
  const Eigen::MatrixXd Te = TU.topRows(ne * d);
  // The local model on the element's own local DOFs.
  c.local = element_global(el, nodes, qU.head(ne * d), linear, terms).local;
  const Eigen::VectorXd Qh = Te.transpose() * c.local.Q;
  const Eigen::MatrixXd Fh = fhat(Qh, d);
  const Eigen::MatrixXd Rb = block_rotation(f.R, nu);
  c.Q = Rb * Qh;
  c.K = Rb * (Te.transpose() * c.local.K * Te - ZU.transpose() * Fh.transpose() * TU - Fh * ZU) * Rb.transpose();
  return c;
}

} // namespace flexuq::nl
