// SPDX-License-Identifier: MIT
#include "flexuq/cms/FloatingFrame.hpp"

#include "flexuq/la/Blas.hpp"
#include "flexuq/core/Error.hpp"

namespace flexuq::cms {

namespace {

using Eigen::Index;
using Eigen::Matrix3d;
using Eigen::MatrixXd;
using Eigen::Vector3d;
using Eigen::VectorXd;

Matrix3d tilde(const Vector3d& a) {
  Matrix3d t;
  t << 0, -a(2), a(1), a(2), 0, -a(0), -a(1), a(0), 0;
  return t;
}

/// I5_kl = ∫ρ Φ_kᵀΦ_l (n × n).
const MatrixXd& S5(const Invariants& inv, int k, int l) { return inv.Skl[static_cast<std::size_t>(3 * k + l)]; }
/// out += c S x for small dense n × n S (plain loops: Eigen's general kernels cost more than the
/// flops at n ~ 10, and these run several times per Newton iteration of a simulation).
void add_product(double c, const MatrixXd& S, const VectorXd& x, VectorXd& out) {
  const Index n = S.rows();
  const double* s = S.data();
  for (Index j = 0; j < n; ++j) {
    const double xj = c * x[j];
    for (Index i = 0; i < n; ++i) out[i] += s[i + j * n] * xj;
  }
}

/// I6_kl = ∫ρ x₀_k Φ_l: row 3k+l of I6 as a column (a view: the contractions below run per Newton iteration of a simulation).
auto S6(const Invariants& inv, int k, int l) { return inv.Sbar.row(3 * k + l).transpose(); }

void check(const Invariants& inv, const VectorXd& xi, const char* what) {
  const Index n = inv.Mff.rows();
  FLEXUQ_REQUIRE(inv.S.cols() == n && inv.Sr.cols() == n && inv.Sbar.rows() == 9 && inv.Sbar.cols() == n,
                 "cms::" << what << ": inconsistent invariants (n = " << n << ")");
  FLEXUQ_REQUIRE(xi.size() == n, "cms::" << what << ": " << xi.size() << " modal coordinates for " << n << " columns");
}

/// s = ∫ρ x dV = m c + Sξ.
Vector3d first_moment(const Invariants& inv, const VectorXd& xi) { return inv.mass * inv.com + inv.S * xi; }

} // namespace

FrameContractions contract(const Invariants& inv, const VectorXd& xi) {
  FrameContractions c;
  contract(inv, xi, c);
  return c;
}

void contract(const Invariants& inv, const VectorXd& xi, FrameContractions& c) {
  check(inv, xi, "contract");
  const Index n = xi.size();
  c.xi = xi; // the assignments below reuse c's storage when the sizes match
  for (std::size_t q = 0; q < 9; ++q) {
    c.Y[q].setZero(n);
    add_product(1.0, inv.Skl[q], xi, c.Y[q]);
  }
  c.s = first_moment(inv, xi);
  // I′ = I7 + Σ (I6_kl·ξ + I6_lk·ξ + ξᵀ I5_kl ξ), then J = J_O + (tr ΔI 1 − ΔI): keeps the beams'
  // nodal rotary inertia, which I7 does not hold.
  Matrix3d dI;
  for (int k = 0; k < 3; ++k)
    for (int l = 0; l < 3; ++l) dI(k, l) = S6(inv, k, l).dot(xi) + S6(inv, l, k).dot(xi) + xi.dot(c.Y[3 * k + l]);
  dI = 0.5 * (dI + dI.transpose()); // symmetric up to the rounding of the stored invariants
  c.I = inv.Ikl + dI;
  const Matrix3d J = inv.inertia_origin + dI.trace() * Matrix3d::Identity() - dI;
  c.J = 0.5 * (J + J.transpose());
  // (x × Φ)_a = ε_akl x_k Φ_l; the x₀ part is Sr (I4), the Φξ part ε_akl ξᵀ I5_kl, and
  // ξᵀ I5_kl = (I5_lk ξ)ᵀ = Y_lkᵀ since I5_lk = I5_klᵀ.
  c.C = inv.Sr;
  for (int a = 0; a < 3; ++a) {
    const int k = (a + 1) % 3, l = (a + 2) % 3;
    c.C.row(a) += (c.Y[3 * l + k] - c.Y[3 * k + l]).transpose();
  }
}

Matrix3d second_moment(const Invariants& inv, const VectorXd& xi) { return contract(inv, xi).I; }

Matrix3d inertia_tensor(const Invariants& inv, const VectorXd& xi) { return contract(inv, xi).J; }

MatrixXd rotation_coupling(const Invariants& inv, const VectorXd& xi) { return contract(inv, xi).C; }

MatrixXd generalized_mass(const Invariants& inv, const FrameContractions& c) {
  const Index n = c.xi.size();
  MatrixXd M = MatrixXd::Zero(kFrameDofs + n, kFrameDofs + n);
  const Matrix3d st = tilde(c.s);
  M.block<3, 3>(0, 0) = inv.mass * Matrix3d::Identity();
  M.block<3, 3>(0, 3) = -st;
  M.block<3, 3>(3, 0) = st;
  M.block<3, 3>(3, 3) = c.J;
  M.block(0, kFrameDofs, 3, n) = inv.S;
  M.block(3, kFrameDofs, 3, n) = c.C;
  M.block(kFrameDofs, 0, n, kFrameDofs) = M.block(0, kFrameDofs, kFrameDofs, n).transpose();
  M.block(kFrameDofs, kFrameDofs, n, n) = 0.5 * (inv.Mff + inv.Mff.transpose()); // exact symmetry
  return M;
}

MatrixXd generalized_mass(const Invariants& inv, const VectorXd& xi) { return generalized_mass(inv, contract(inv, xi)); }

VectorXd generalized_mass_times(const Invariants& inv, const FrameContractions& c, const VectorXd& a) {
  const Index n = c.xi.size();
  FLEXUQ_REQUIRE(a.size() == kFrameDofs + n,
                 "cms::generalized_mass_times: a has " << a.size() << " entries, expected 6 + " << n);
  const Vector3d a0 = a.head<3>(), al = a.segment<3>(3);
  const VectorXd ae = a.tail(n);
  VectorXd out(kFrameDofs + n);
  out.head<3>() = inv.mass * a0 - c.s.cross(al) + inv.S * ae;
  out.segment<3>(3) = c.s.cross(a0) + c.J * al + c.C * ae;
  VectorXd e = inv.S.transpose() * a0 + c.C.transpose() * al;
  add_product(0.5, inv.Mff, ae, e); // ½(Mff + Mffᵀ) ξ̈, as generalized_mass
  const double* m = inv.Mff.data();
  for (Index i = 0; i < n; ++i) {
    double sum = 0;
    for (Index j = 0; j < n; ++j) sum += m[j + i * n] * ae[j];
    e[i] += 0.5 * sum;
  }
  out.tail(n) = e;
  return out;
}

VectorXd quadratic_velocity(const Invariants& inv, const FrameContractions& c, const VectorXd& xi_dot,
                            const Vector3d& omega) {
  const Index n = c.xi.size();
  FLEXUQ_REQUIRE(xi_dot.size() == n, "cms::quadratic_velocity: ξ̇ has " << xi_dot.size() << " entries, ξ " << n);
  const Matrix3d w = tilde(omega), ww = w * w;
  VectorXd Q(kFrameDofs + n);
  // Translation: −∫ρ (ω̃ω̃x + 2ω̃Φξ̇) = −(ω̃ω̃ s + 2ω̃ Sξ̇).
  Q.head<3>() = -(ww * c.s + 2 * w * (inv.S * xi_dot));
  // Rotation: −∫ρ x̃ω̃ω̃x = −ω̃Jω; −2∫ρ x̃ω̃(Φξ̇) = −2(tr P 1 − P)ω with P = ∫ρ (Φξ̇) xᵀ,
  // P_kl = I6_lk·ξ̇ + ξ̇ᵀ I5_kl ξ = I6_lk·ξ̇ + ξ̇·Y_kl.
  Matrix3d P;
  for (int k = 0; k < 3; ++k)
    for (int l = 0; l < 3; ++l) P(k, l) = S6(inv, l, k).dot(xi_dot) + xi_dot.dot(c.Y[3 * k + l]);
  Q.segment<3>(3) = -(w * (c.J * omega)) - 2 * (P.trace() * omega - P * omega);
  // Elastic: −Σ_kl ∫ρ Φ_kᵀ [(ω̃ω̃)_kl x_l + 2 ω̃_kl Φ_l ξ̇] = −Σ_kl [(ω̃ω̃)_kl (I6_lk + Y_kl) + 2 ω̃_kl I5_kl ξ̇].
  VectorXd f = VectorXd::Zero(n);
  for (int k = 0; k < 3; ++k)
    for (int l = 0; l < 3; ++l) {
      f += ww(k, l) * (S6(inv, l, k) + c.Y[3 * k + l]);
      if (k != l) add_product(2 * w(k, l), S5(inv, k, l), xi_dot, f); // w = ω~ has a zero diagonal
    }
  Q.tail(n) = -f;
  return Q;
}

VectorXd quadratic_velocity(const Invariants& inv, const VectorXd& xi, const VectorXd& xi_dot, const Vector3d& omega) {
  return quadratic_velocity(inv, contract(inv, xi), xi_dot, omega);
}

VectorXd gravity_force(const Invariants& inv, const VectorXd& xi, const Vector3d& g_body) {
  check(inv, xi, "gravity_force");
  VectorXd Q(kFrameDofs + xi.size());
  Q.head<3>() = inv.mass * g_body;
  Q.segment<3>(3) = first_moment(inv, xi).cross(g_body);
  Q.tail(xi.size()) = inv.S.transpose() * g_body;
  return Q;
}

double kinetic_energy(const Invariants& inv, const VectorXd& xi, const VectorXd& v) {
  FLEXUQ_REQUIRE(v.size() == kFrameDofs + xi.size(),
                 "cms::kinetic_energy: v has " << v.size() << " entries, expected 6 + " << xi.size());
  return 0.5 * v.dot(generalized_mass(inv, xi) * v);
}

ElasticCoordinates elastic_coordinates(const MatrixXd& K, const MatrixXd& M, double rigid_tol) {
  FLEXUQ_REQUIRE(K.rows() == K.cols() && M.rows() == K.rows() && K.rows() > 0,
                 "cms::elastic_coordinates: K and M must be square and of one size");
  // Symmetric scaling by diag(M̄)^(-1/2) first: the columns mix metres, radians and modal units.
  const Eigen::VectorXd d = M.diagonal().cwiseAbs().cwiseMax(1e-300).cwiseSqrt().cwiseInverse();
  const MatrixXd Ks = d.asDiagonal() * (0.5 * (K + K.transpose())) * d.asDiagonal();
  const MatrixXd Ms = d.asDiagonal() * (0.5 * (M + M.transpose())) * d.asDiagonal();
  Eigen::VectorXd lam;
  MatrixXd vecs;
  FLEXUQ_REQUIRE(blas::sygv(Ks, Ms, lam, &vecs), "cms::elastic_coordinates: the reduced mass matrix is not positive "
                                                 "definite (dependent basis columns?)");
  const double top = std::max(std::abs(lam(lam.size() - 1)), 1e-300);
  int rigid = 0;
  while (rigid < lam.size() && lam(rigid) < rigid_tol * top) ++rigid;
  FLEXUQ_REQUIRE(rigid == 0 || rigid == 6, "cms::elastic_coordinates: the reduced model has "
                                               << rigid << " zero eigenvalues (below " << rigid_tol
                                               << " of the largest); expected 6 (free body) or 0");
  ElasticCoordinates e;
  e.rigid = rigid;
  const Eigen::Index ne = lam.size() - rigid;
  e.V = d.asDiagonal() * vecs.rightCols(ne); // VᵀM̄V = 1
  e.eigenvalues = lam.tail(ne);
  // Deterministic signs: the largest-magnitude entry of each column positive.
  for (Eigen::Index j = 0; j < ne; ++j) {
    Eigen::Index i = 0;
    e.V.col(j).cwiseAbs().maxCoeff(&i);
    if (e.V(i, j) < 0) e.V.col(j) *= -1;
  }
  return e;
}

Invariants transform_invariants(const Invariants& inv, const MatrixXd& V) {
  FLEXUQ_REQUIRE(V.rows() == inv.Mff.rows(), "cms::transform_invariants: V has " << V.rows() << " rows for "
                                                                                 << inv.Mff.rows() << " basis columns");
  Invariants out = inv;
  out.S = inv.S * V;
  out.Sr = inv.Sr * V;
  out.Sbar = inv.Sbar * V;
  for (std::size_t q = 0; q < 9; ++q) out.Skl[q] = blas::congruence(V, inv.Skl[q]);
  out.Mff = blas::congruence(V, inv.Mff);
  return out;
}

} // namespace flexuq::cms
