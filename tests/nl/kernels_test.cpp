// SPDX-License-Identifier: MIT
// Seed 002 N1-N7 (digest §8.2): SVK total-Lagrangian kernels of bar2, quad4, quad8 and hex8 against a
// finite-difference tangent, exact identities of rigid motion, homogeneous-deformation resultants in
// closed form (P = F S on a face), and the floating-frame transformation against NFE.
#include "flexuq/nl/Nff.hpp"
#include "flexuq/nl/Svk.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace flexuq::nl;

namespace {

const SvkMaterial kSteel{200e9, 0.3, 0.01, 1e-4};

/// Reference node coordinates of a b x h (x d) element centred at the origin; @p distort moves the
/// nodes a little (isoparametric map).
Eigen::MatrixXd reference(ElementKind k, double distort = 0) {
  const int n = element_nodes(k), dim = element_dim(k);
  const Eigen::Vector3d half(0.05, 0.025, 0.005);
  Eigen::MatrixXd X(n, dim);
  std::mt19937 gen(7);
  std::uniform_real_distribution<double> U(-1, 1);
  for (int i = 0; i < n; ++i) {
    const Eigen::VectorXd a = node_natural(k, i);
    for (int p = 0; p < dim; ++p) X(i, p) = a[p] * half[p] + distort * half[p] * U(gen);
  }
  return X;
}

Eigen::MatrixXd rotation(int dim, double angle) {
  if (dim == 1) return Eigen::MatrixXd::Identity(1, 1);
  if (dim == 2) {
    Eigen::MatrixXd R(2, 2);
    R << std::cos(angle), -std::sin(angle), std::sin(angle), std::cos(angle);
    return R;
  }
  return Eigen::AngleAxisd(angle, Eigen::Vector3d(1, 2, 3).normalized()).toRotationMatrix();
}

/// u = R (Fd X + noise) + t - X (digest §9).
Eigen::VectorXd motion(const Eigen::MatrixXd& X, const Eigen::MatrixXd& R, const Eigen::MatrixXd& Fd, double noise,
                       unsigned seed = 3) {
  const int n = static_cast<int>(X.rows()), d = static_cast<int>(X.cols());
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> U(-1, 1);
  Eigen::VectorXd t(d);
  for (int p = 0; p < d; ++p) t[p] = 0.3 + 0.1 * p;
  Eigen::VectorXd u(n * d);
  for (int i = 0; i < n; ++i) {
    Eigen::VectorXd Xi = X.row(i).transpose(), e(d);
    for (int p = 0; p < d; ++p) e[p] = noise * 0.05 * U(gen);
    u.segment(i * d, d) = R * (Fd * Xi + e) + t - Xi;
  }
  return u;
}

Eigen::MatrixXd stretch_shear(int dim, double strain) {
  Eigen::MatrixXd F = Eigen::MatrixXd::Identity(dim, dim);
  for (int p = 0; p < dim; ++p) F(p, p) += strain * (1.0 + 0.3 * p);
  if (dim > 1) F(0, 1) += 0.7 * strain;
  if (dim > 2) F(1, 2) -= 0.4 * strain;
  return F;
}

double rel(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) { return (a - b).norm() / b.norm(); }

std::vector<int> iota_nodes(int n) {
  std::vector<int> v(n);
  for (int i = 0; i < n; ++i) v[i] = i;
  return v;
}

const ElementKind kKinds[] = {ElementKind::bar2, ElementKind::quad4, ElementKind::quad8, ElementKind::hex8};

} // namespace

// N3: K_t is the derivative of Q (central differences), on rectangles and distorted elements under a
// large rotation and ~15 % strain.
TEST(NlKernels, TangentMatchesFiniteDifferences) {
  for (ElementKind k : kKinds) {
    for (double distort : {0.0, 0.15}) {
      const SvkElement el(k, reference(k, distort), kSteel);
      const int d = el.dim();
      const Eigen::VectorXd u = motion(el.X(), rotation(d, 1.1), stretch_shear(d, 0.15), 1.0);
      const SvkResult r = el.evaluate(u);
      Eigen::MatrixXd Kfd(el.dofs(), el.dofs());
      const double h = 1e-7;
      for (int j = 0; j < el.dofs(); ++j) {
        Eigen::VectorXd up = u, um = u;
        up[j] += h;
        um[j] -= h;
        Kfd.col(j) = (el.evaluate(up).Q - el.evaluate(um).Q) / (2 * h);
      }
      const double e = rel(r.K, Kfd);
      EXPECT_LT(e, 1e-6) << element_kind_name(k) << " distort " << distort;
      EXPECT_LT(rel(r.K, r.K.transpose()), 1e-13) << element_kind_name(k); // N2: K_t symmetric
    }
  }
}

// N2: the term matrices: K_I, K_IV, K_V symmetric, K_III = K_II^T, the forces from the matrices
// (Q_I = K_I q, Q_II = K_II q / 2, Q_III = K_III q, Q_IV = K_IV q / 2) and Q, K_t their sums.
TEST(NlKernels, TermIdentities) {
  for (ElementKind k : kKinds) {
    const SvkElement el(k, reference(k, 0.1), kSteel);
    const int d = el.dim();
    const Eigen::VectorXd u = motion(el.X(), rotation(d, 0.7), stretch_shear(d, 0.2), 1.0);
    const SvkResult r = el.evaluate(u, true);
    const char* name = element_kind_name(k);
    EXPECT_LT(rel(r.K_I, r.K_I.transpose()), 1e-14) << name;
    EXPECT_LT(rel(r.K_IV, r.K_IV.transpose()), 1e-14) << name;
    EXPECT_LT(rel(r.K_V, r.K_V.transpose()), 1e-14) << name;
    EXPECT_LT(rel(r.K_III, r.K_II.transpose()), 1e-15) << name;
    EXPECT_LT(rel(r.K_I * u, r.Q_I), 1e-13) << name;
    EXPECT_LT(rel(0.5 * r.K_II * u, r.Q_II), 1e-13) << name;
    EXPECT_LT(rel(r.K_III * u, r.Q_III), 1e-13) << name;
    EXPECT_LT(rel(0.5 * r.K_IV * u, r.Q_IV), 1e-13) << name;
    EXPECT_LT(rel(r.Q_I + r.Q_II + r.Q_III + r.Q_IV, r.Q), 1e-13) << name;
    EXPECT_LT(rel(r.K_I + r.K_II + r.K_III + r.K_IV + r.K_V, r.K), 1e-13) << name;
    EXPECT_LT(rel(r.K_I, el.linear_stiffness()), 1e-15) << name;
  }
}

// N4: pure rigid motion (rotation 1.1 rad + translation): Q = 0, Q_I = -Q_II, Q_III = -Q_IV.
TEST(NlKernels, RigidMotionGivesNoForce) {
  for (ElementKind k : kKinds) {
    const SvkElement el(k, reference(k, 0.1), kSteel);
    const int d = el.dim();
    const Eigen::VectorXd u = motion(el.X(), rotation(d, 1.1), Eigen::MatrixXd::Identity(d, d), 0.0);
    const SvkResult r = el.evaluate(u, true);
    const double s = r.Q_I.norm();
    const char* name = element_kind_name(k);
    if (d == 1) { // a 1-D rigid motion is a translation: every term vanishes
      EXPECT_LT(r.Q.norm(), 1e-6) << name;
      continue;
    }
    EXPECT_GT(s, 1e6) << name; // the linear term alone is far from zero
    EXPECT_LT(r.Q.norm(), 1e-12 * s) << name;
    EXPECT_LT((r.Q_I + r.Q_II).norm(), 1e-12 * s) << name;
    EXPECT_LT((r.Q_III + r.Q_IV).norm(), 1e-12 * s) << name;
  }
}

// N5: a homogeneous stretch and shear (F constant) in 1-D, 2-D and 3-D: the nodal forces on the face
// X_1 = +b/2 add up to the first Piola-Kirchhoff traction P e_1 times the face's reference area, with
// P = F S and S = C E(F) in closed form; stretching along y instead of x gives the same traction
// rotated (plane stress 2-D, Lame 3-D).
TEST(NlKernels, HomogeneousDeformationResultants) {
  for (ElementKind k : kKinds) {
    const SvkElement el(k, reference(k), kSteel);
    const int d = el.dim(), n = el.nodes();
    for (int dir = 0; dir < d; ++dir) {
      Eigen::MatrixXd F = Eigen::MatrixXd::Identity(d, d);
      F(dir, dir) = 1.12;
      if (d > 1) F((dir + 1) % d, dir) = 0.08; // shear as well
      Eigen::VectorXd u(n * d);
      for (int i = 0; i < n; ++i) u.segment(i * d, d) = (F - Eigen::MatrixXd::Identity(d, d)) * el.X().row(i).transpose();
      const SvkResult r = el.evaluate(u);
      // Closed form: E = (F^T F - 1)/2, S = C : E, P = F S.
      const Eigen::MatrixXd Eg = 0.5 * (F.transpose() * F - Eigen::MatrixXd::Identity(d, d));
      Eigen::MatrixXd S(d, d);
      if (d == 1) {
        S(0, 0) = kSteel.E * Eg(0, 0);
      } else if (d == 2) {
        const double f = kSteel.E / (1 - kSteel.nu * kSteel.nu);
        S(0, 0) = f * (Eg(0, 0) + kSteel.nu * Eg(1, 1));
        S(1, 1) = f * (Eg(1, 1) + kSteel.nu * Eg(0, 0));
        S(0, 1) = S(1, 0) = f * (1 - kSteel.nu) * Eg(0, 1);
      } else {
        const double mu = kSteel.E / (2 * (1 + kSteel.nu)), lam = kSteel.nu * kSteel.E / ((1 + kSteel.nu) * (1 - 2 * kSteel.nu));
        S = 2 * mu * Eg + lam * Eg.trace() * Eigen::MatrixXd::Identity(3, 3);
      }
      const Eigen::MatrixXd P = F * S;
      const Eigen::Vector3d size(0.1, 0.05, 0.01);
      double face = d == 1 ? kSteel.area : d == 2 ? kSteel.thickness : 1.0;
      for (int p = 0; p < d; ++p)
        if (p != dir) face *= size[p];
      Eigen::VectorXd sum = Eigen::VectorXd::Zero(d);
      for (int i = 0; i < n; ++i)
        if (el.X()(i, dir) > 1e-12) sum += r.Q.segment(i * d, d);
      const Eigen::VectorXd expect = P.col(dir) * face;
      EXPECT_LT((sum - expect).norm(), 1e-12 * expect.norm()) << element_kind_name(k) << " direction " << dir;
      Eigen::VectorXd total = Eigen::VectorXd::Zero(d); // self-equilibrated
      for (int i = 0; i < n; ++i) total += r.Q.segment(i * d, d);
      EXPECT_LT(total.norm(), 1e-12 * expect.norm());
    }
  }
}

namespace {

/// Element frame at natural point xi (centre or a node), optionally mis-rotated by @p extra rad.
Frame frame_at(const SvkElement& el, const Eigen::VectorXd& xi, const Eigen::VectorXd& u, double extra) {
  Frame f = make_frame(el, iota_nodes(el.nodes()), xi, u);
  f.R = f.R * rotation(el.dim(), extra);
  return f;
}

} // namespace

// N1: with the full SVK local model, Q^o and K^o of the floating frame equal NFE's, with the frame at
// the element centre, at a node, and mis-rotated by 0.4 rad; the closed-form frame satisfies its
// constraint Xi q^{j,j} = 0; K^o is symmetric.
TEST(NlFrame, NffEqualsNfe) {
  for (ElementKind k : kKinds) {
    const SvkElement el(k, reference(k, 0.1), kSteel);
    const int d = el.dim();
    const auto nodes = iota_nodes(el.nodes());
    for (double strain : {0.0, 1e-3, 0.15}) {
      const Eigen::VectorXd u = motion(el.X(), rotation(d, 1.1), stretch_shear(d, strain), strain > 0 ? 1.0 : 0.0);
      const Contribution nfe = element_global(el, nodes, u, false);
      const double scale = std::max(el.linear_stiffness().norm() * u.norm(), 1.0);
      for (int where = 0; where < 2; ++where) {
        const Eigen::VectorXd xi = where == 0 ? Eigen::VectorXd::Zero(d) : node_natural(k, el.nodes() - 1);
        for (double extra : {0.0, 0.4}) {
          const Frame f = frame_at(el, xi, u, d == 1 ? 0.0 : extra);
          if (extra == 0.0) {
            const Eigen::VectorXd q = local_dofs(f, el.X(), u);
            EXPECT_LT((f.Xi * q).norm(), 1e-14 * std::max(1.0, u.norm())) << element_kind_name(k);
          }
          const Contribution nff = element_in_frame(el, nodes, u, f, false);
          ASSERT_EQ(nff.nodes, nodes);
          EXPECT_LT((nff.Q - nfe.Q).norm(), 1e-12 * scale)
              << element_kind_name(k) << " strain " << strain << " frame " << where << " extra " << extra;
          EXPECT_LT(rel(nff.K, nfe.K), 1e-12) << element_kind_name(k) << " strain " << strain << " frame " << where;
          EXPECT_LT(rel(nff.K, nff.K.transpose()), 1e-12) << element_kind_name(k);
        }
      }
    }
  }
}

// N1 for a body frame: the frame sits on another element (support nodes outside this one); the
// contribution on the union of nodes still equals NFE's on the element and vanishes on the others.
TEST(NlFrame, BodyFrameOnAnotherElement) {
  const ElementKind k = ElementKind::quad8;
  const SvkElement el(k, reference(k), kSteel);
  Eigen::MatrixXd X2 = reference(k);
  X2.col(0).array() += 0.1; // the neighbour to the right shares nodes 1, 2, 5 (as its 0, 3, 7)
  const SvkElement other(k, X2, kSteel);
  const std::vector<int> nodes{0, 1, 2, 3, 4, 5, 6, 7}, other_nodes{1, 8, 9, 2, 10, 11, 12, 5};
  const Eigen::MatrixXd R = rotation(2, 0.9), Fd = stretch_shear(2, 0.1);
  // A homogeneous motion, so that the shared nodes move alike in both elements.
  const Eigen::VectorXd u = motion(el.X(), R, Fd, 0.0), u2 = motion(other.X(), R, Fd, 0.0);
  const Frame f = make_frame(other, other_nodes, Eigen::Vector2d(0.3, -0.2), u2);
  const Contribution nfe = element_global(el, nodes, u, false), nff = element_in_frame(el, nodes, u, f, false);
  ASSERT_EQ(nff.nodes.size(), 13u);
  EXPECT_LT((nff.Q.head(16) - nfe.Q).norm(), 1e-12 * nfe.Q.norm());
  EXPECT_LT(nff.Q.tail(10).norm(), 1e-12 * nfe.Q.norm());
  EXPECT_LT((nff.K.topLeftCorner(16, 16) - nfe.K).norm(), 1e-12 * nfe.K.norm());
  EXPECT_LT(nff.K.rightCols(10).norm() + nff.K.bottomRows(10).norm(), 1e-11 * nfe.K.norm());
}

// N6: the linear floating frame (local model K_I) gives no force under a pure rigid motion; N7: with a
// large rotation and a strain eps its force differs from NFE's by O(eps) (digest: ~2e-4 at 1e-4),
// while the plain linear FE force K_I u^o is wrong by O(1).
TEST(NlFrame, LinearFloatingFrame) {
  for (ElementKind k : {ElementKind::quad4, ElementKind::quad8, ElementKind::hex8}) {
    const SvkElement el(k, reference(k, 0.1), kSteel);
    const int d = el.dim();
    const auto nodes = iota_nodes(el.nodes());
    const Eigen::VectorXd xi = Eigen::VectorXd::Zero(d);
    const Eigen::VectorXd rigid = motion(el.X(), rotation(d, 1.1), Eigen::MatrixXd::Identity(d, d), 0.0);
    const Contribution lff0 = element_in_frame(el, nodes, rigid, make_frame(el, nodes, xi, rigid), true);
    EXPECT_LT(lff0.Q.norm(), 1e-12 * el.linear_stiffness().norm() * rigid.norm()) << element_kind_name(k);
    double previous = 0;
    for (double eps : {1e-4, 1e-5}) {
      const Eigen::VectorXd u = motion(el.X(), rotation(d, 1.1), stretch_shear(d, eps), 0.0);
      const Contribution nfe = element_global(el, nodes, u, false);
      const Contribution lff = element_in_frame(el, nodes, u, make_frame(el, nodes, xi, u), true);
      const Contribution lfe = element_global(el, nodes, u, true);
      const double e = rel(lff.Q, nfe.Q);
      EXPECT_LT(e, 5 * eps) << element_kind_name(k) << " eps " << eps;
      EXPECT_GT(rel(lfe.Q, nfe.Q), 100.0) << element_kind_name(k);
      if (previous > 0) {
        EXPECT_NEAR(previous / e, 10.0, 1.0) << element_kind_name(k); // first order in eps
      }
      previous = e;
      std::printf("%s eps %.0e: |Q_LFF - Q_NFE|/|Q_NFE| = %.3e, LFE %.3e\n", element_kind_name(k), eps, e,
                  rel(lfe.Q, nfe.Q));
    }
  }
}
