// SPDX-License-Identifier: MIT
#include "flexuq/nl/Svk.hpp"

#include "flexuq/core/Error.hpp"

#include <array>
#include <cmath>

namespace flexuq::nl {

namespace {

/// Voigt index pairs (p, q) per dimension (engineering shears).
const std::vector<std::array<int, 2>>& voigt_pairs(int dim) {
  static const std::vector<std::array<int, 2>> d1{{0, 0}};
  static const std::vector<std::array<int, 2>> d2{{0, 0}, {1, 1}, {0, 1}};
  static const std::vector<std::array<int, 2>> d3{{0, 0}, {1, 1}, {2, 2}, {1, 2}, {2, 0}, {0, 1}};
  return dim == 1 ? d1 : dim == 2 ? d2 : d3;
}

/// Gauss-Legendre points and weights on [-1, 1].
void gauss_1d(int n, std::vector<double>& x, std::vector<double>& w) {
  if (n == 2) {
    const double a = 1.0 / std::sqrt(3.0);
    x = {-a, a};
    w = {1.0, 1.0};
  } else {
    const double a = std::sqrt(0.6);
    x = {-a, 0.0, a};
    w = {5.0 / 9.0, 8.0 / 9.0, 5.0 / 9.0};
  }
}

} // namespace

const char* element_kind_name(ElementKind k) {
  switch (k) {
  case ElementKind::bar2: return "bar2";
  case ElementKind::quad4: return "quad4";
  case ElementKind::quad8: return "quad8";
  case ElementKind::hex8: return "hex8";
  }
  return "?";
}

int element_dim(ElementKind k) { return k == ElementKind::bar2 ? 1 : k == ElementKind::hex8 ? 3 : 2; }

int element_nodes(ElementKind k) {
  switch (k) {
  case ElementKind::bar2: return 2;
  case ElementKind::quad4: return 4;
  default: return 8;
  }
}

Eigen::VectorXd node_natural(ElementKind k, int i) {
  static const double q8[8][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}, {0, -1}, {1, 0}, {0, 1}, {-1, 0}};
  static const double h8[8][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                                  {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};
  switch (k) {
  case ElementKind::bar2: return Eigen::VectorXd::Constant(1, i == 0 ? -1.0 : 1.0);
  case ElementKind::quad4:
  case ElementKind::quad8: return Eigen::Vector2d(q8[i][0], q8[i][1]);
  case ElementKind::hex8: return Eigen::Vector3d(h8[i][0], h8[i][1], h8[i][2]);
  }
  return {};
}

void shape_functions(ElementKind k, const Eigen::VectorXd& xi, Eigen::VectorXd& N, Eigen::MatrixXd& dN) {
  const int n = element_nodes(k), d = element_dim(k);
  N.resize(n);
  dN.resize(n, d);
  if (k == ElementKind::bar2) {
    N << 0.5 * (1 - xi[0]), 0.5 * (1 + xi[0]);
    dN << -0.5, 0.5;
  } else if (k == ElementKind::quad4 || k == ElementKind::hex8) {
    for (int i = 0; i < n; ++i) {
      const Eigen::VectorXd a = node_natural(k, i);
      double prod = 1;
      for (int p = 0; p < d; ++p) prod *= 0.5 * (1 + a[p] * xi[p]);
      N[i] = prod;
      for (int p = 0; p < d; ++p) {
        double g = 0.5 * a[p];
        for (int r = 0; r < d; ++r)
          if (r != p) g *= 0.5 * (1 + a[r] * xi[r]);
        dN(i, p) = g;
      }
    }
  } else { // quad8 serendipity (Appendix E)
    const double x = xi[0], y = xi[1];
    for (int i = 0; i < 4; ++i) {
      const double a = node_natural(k, i)[0], b = node_natural(k, i)[1];
      N[i] = 0.25 * (1 + a * x) * (1 + b * y) * (a * x + b * y - 1);
      dN(i, 0) = 0.25 * a * (1 + b * y) * (2 * a * x + b * y);
      dN(i, 1) = 0.25 * b * (1 + a * x) * (a * x + 2 * b * y);
    }
    N[4] = 0.5 * (1 - x * x) * (1 - y);
    dN(4, 0) = -x * (1 - y);
    dN(4, 1) = -0.5 * (1 - x * x);
    N[5] = 0.5 * (1 + x) * (1 - y * y);
    dN(5, 0) = 0.5 * (1 - y * y);
    dN(5, 1) = -(1 + x) * y;
    N[6] = 0.5 * (1 - x * x) * (1 + y);
    dN(6, 0) = -x * (1 + y);
    dN(6, 1) = 0.5 * (1 - x * x);
    N[7] = 0.5 * (1 - x) * (1 - y * y);
    dN(7, 0) = -0.5 * (1 - y * y);
    dN(7, 1) = -(1 - x) * y;
  }
}

Eigen::MatrixXd elasticity_matrix(int dim, const SvkMaterial& m) {
  if (dim == 1) return Eigen::MatrixXd::Constant(1, 1, m.E);
  if (dim == 2) {
    Eigen::MatrixXd C(3, 3);
    const double f = m.E / (1 - m.nu * m.nu);
    C << f, f * m.nu, 0, f * m.nu, f, 0, 0, 0, f * (1 - m.nu) / 2;
    return C;
  }
  const double mu = m.E / (2 * (1 + m.nu)), lambda = m.nu * m.E / ((1 + m.nu) * (1 - 2 * m.nu));
  Eigen::MatrixXd C = Eigen::MatrixXd::Zero(6, 6);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) C(i, j) = lambda;
    C(i, i) = 2 * mu + lambda;
    C(i + 3, i + 3) = mu;
  }
  return C;
}

SvkElement::SvkElement(ElementKind kind, const Eigen::MatrixXd& X, const SvkMaterial& mat)
    : kind_(kind), dim_(element_dim(kind)), X_(X), C_(elasticity_matrix(dim_, mat)) {
  FLEXUQ_REQUIRE(X.rows() == element_nodes(kind) && X.cols() == dim_,
                 element_kind_name(kind) << " element needs " << element_nodes(kind) << " nodes in " << dim_
                                         << "-D, got " << X.rows() << " x " << X.cols());
  FLEXUQ_REQUIRE(mat.E > 0 && mat.nu > -1 && mat.nu < 0.5, "SVK material needs E > 0 and -1 < nu < 0.5 (E = "
                                                               << mat.E << ", nu = " << mat.nu << ")");
  const double scale = dim_ == 1 ? mat.area : dim_ == 2 ? mat.thickness : 1.0;
  FLEXUQ_REQUIRE(scale > 0, "SVK element: the " << (dim_ == 1 ? "area" : "thickness") << " must be positive");
  std::vector<double> x1, w1;
  gauss_1d(kind == ElementKind::quad8 ? 3 : 2, x1, w1);
  const int g = static_cast<int>(x1.size());
  const int total = dim_ == 1 ? g : dim_ == 2 ? g * g : g * g * g;
  Eigen::VectorXd N, xi(dim_);
  Eigen::MatrixXd dN;
  for (int t = 0; t < total; ++t) {
    int rest = t;
    double w = 1;
    for (int p = 0; p < dim_; ++p) {
      xi[p] = x1[rest % g];
      w *= w1[rest % g];
      rest /= g;
    }
    shape_functions(kind, xi, N, dN);
    const Eigen::MatrixXd J = X_.transpose() * dN; // dX/dxi
    const double det = J.determinant();
    FLEXUQ_REQUIRE(det > 0, element_kind_name(kind) << " element is degenerate or inverted (det J = " << det << ")");
    G_.push_back(dN * J.inverse());
    w_.push_back(w * det * scale);
  }
  K_I_ = evaluate(Eigen::VectorXd::Zero(dofs())).K;
}

PointGradients SvkElement::gradients_at(const Eigen::VectorXd& xi) const {
  PointGradients pg;
  Eigen::MatrixXd dN;
  shape_functions(kind_, xi, pg.N, dN);
  const Eigen::MatrixXd J = X_.transpose() * dN;
  pg.G = dN * J.inverse();
  return pg;
}

SvkResult SvkElement::evaluate(const Eigen::VectorXd& q, bool terms) const {
  const int n = nodes(), d = dim_, nd = dofs();
  const auto& pairs = voigt_pairs(d);
  const int nv = static_cast<int>(pairs.size());
  SvkResult r;
  r.Q = Eigen::VectorXd::Zero(nd);
  r.K = Eigen::MatrixXd::Zero(nd, nd);
  r.has_terms = terms;
  if (terms) {
    r.Q_I = r.Q_II = r.Q_III = r.Q_IV = Eigen::VectorXd::Zero(nd);
    r.K_I = r.K_II = r.K_IV = r.K_V = Eigen::MatrixXd::Zero(nd, nd);
  }
  Eigen::MatrixXd B(nv, nd), A(nv, nd), S(d, d);
  for (std::size_t gp = 0; gp < G_.size(); ++gp) {
    const Eigen::MatrixXd& G = G_[gp];
    const double w = w_[gp];
    Eigen::MatrixXd H = Eigen::MatrixXd::Zero(d, d); // H(m, p) = du_m / dX_p
    for (int i = 0; i < n; ++i)
      for (int m = 0; m < d; ++m) H.row(m) += q[i * d + m] * G.row(i);
    B.setZero();
    A.setZero();
    for (int a = 0; a < nv; ++a) {
      const int p = pairs[a][0], s = pairs[a][1];
      for (int i = 0; i < n; ++i) {
        if (p == s) {
          B(a, i * d + p) = G(i, p);
          for (int m = 0; m < d; ++m) A(a, i * d + m) = H(m, p) * G(i, p);
        } else {
          B(a, i * d + p) += G(i, s);
          B(a, i * d + s) += G(i, p);
          for (int m = 0; m < d; ++m) A(a, i * d + m) = H(m, p) * G(i, s) + H(m, s) * G(i, p);
        }
      }
    }
    const Eigen::VectorXd Bq = B * q, Aq = A * q;
    const Eigen::VectorXd Sv = C_ * (Bq + 0.5 * Aq);
    const Eigen::MatrixXd BA = B + A;
    r.Q.noalias() += w * BA.transpose() * Sv;
    r.K.noalias() += w * BA.transpose() * C_ * BA;
    for (int a = 0; a < nv; ++a) {
      S(pairs[a][0], pairs[a][1]) = Sv[a];
      S(pairs[a][1], pairs[a][0]) = Sv[a];
    }
    const Eigen::MatrixXd GSG = w * G * S * G.transpose(); // K_V blocks: (G_i^T S G_j) x identity
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        for (int m = 0; m < d; ++m) r.K(i * d + m, j * d + m) += GSG(i, j);
    if (terms) {
      const Eigen::VectorXd CBq = C_ * Bq, CAq = C_ * Aq;
      r.Q_I.noalias() += w * B.transpose() * CBq;
      r.Q_II.noalias() += 0.5 * w * B.transpose() * CAq;
      r.Q_III.noalias() += w * A.transpose() * CBq;
      r.Q_IV.noalias() += 0.5 * w * A.transpose() * CAq;
      r.K_I.noalias() += w * B.transpose() * C_ * B;
      r.K_II.noalias() += w * B.transpose() * C_ * A;
      r.K_IV.noalias() += w * A.transpose() * C_ * A;
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
          for (int m = 0; m < d; ++m) r.K_V(i * d + m, j * d + m) += GSG(i, j);
    }
  }
  if (terms) r.K_III = r.K_II.transpose();
  return r;
}

} // namespace flexuq::nl
