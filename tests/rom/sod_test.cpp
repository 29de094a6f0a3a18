// SPDX-License-Identifier: MIT
// rom::smooth_orthogonal_decomposition (seed 003 §3.4.4, digest §2.11) on data with a closed form:
// x(t) = A s(t), s_i(t) = a_i sin(ω_i t) with ω_i = 2π k_i / T sampled at t_j = jT/N (N > 2 max k_i):
// the samples of sin and cos at distinct harmonics are exactly orthogonal with zero mean, so
// Σ_s = diag(a_i²/2), Σ_ṡ = diag(a_i² ω_i²/2), and for any invertible mixing A the pencil
// (A Σ_s Aᵀ, A Σ_ṡ Aᵀ) has λ_i = 1/ω_i² (σ_i = 1/ω_i) and projective modes ∥ A e_i (the columns of
// Φ^{-T}, Φ = A^{-T}). Then a singular case: a constant combination of the coordinates (a
// constraint) makes Σ_Ẋ singular, the ranks drop by one, and the report counts non-positive or
// non-finite λ.
#include "flexuq/rom/Basis.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>


namespace {

using flexuq::rom::Mat;
constexpr double kPi = 3.14159265358979323846;
using flexuq::rom::Vec;

struct Data {
  Mat X, Xd;
};

Data mixed_sines(const Mat& A, const Vec& amp, const Eigen::VectorXi& k, int N, double T) {
  const Eigen::Index n = A.rows();
  Mat S(n, N), Sd(n, N);
  for (int j = 0; j < N; ++j) {
    const double t = T * j / N;
    for (Eigen::Index i = 0; i < n; ++i) {
      const double w = 2 * kPi * k(i) / T;
      S(i, j) = amp(i) * std::sin(w * t);
      Sd(i, j) = amp(i) * w * std::cos(w * t);
    }
  }
  return {A * S, A * Sd};
}

TEST(Sod, RegularPencilHasTheClosedForm) {
  const double T = 2.0;
  const Eigen::VectorXi k = (Eigen::VectorXi(4) << 1, 3, 2, 7).finished();
  const Vec amp = (Vec(4) << 1.0, 0.2, 0.5, 0.05).finished();
  Mat A(4, 4);
  A << 1.0, 0.3, -0.2, 0.1, 0.0, 1.2, 0.4, -0.3, 0.5, 0.0, 0.9, 0.2, -0.1, 0.2, 0.3, 1.1;
  const auto d = mixed_sines(A, amp, k, 64, T);
  const auto rep = flexuq::rom::smooth_orthogonal_decomposition(d.X, d.Xd);
  EXPECT_EQ(rep.rank_x, 4);
  EXPECT_EQ(rep.rank_xdot, 4);
  EXPECT_EQ(rep.positive, 4);
  EXPECT_EQ(rep.indeterminate + rep.infinite + rep.negative + rep.zero + rep.complex, 0);
  // Smoothest first: k = 1, 2, 3, 7 → σ = T / (2π k).
  const int order[4] = {0, 2, 1, 3};
  ASSERT_EQ(rep.sigma.size(), 4);
  ASSERT_EQ(rep.modes.cols(), 4);
  for (int c = 0; c < 4; ++c) {
    const int i = order[c];
    EXPECT_NEAR(rep.sigma(c), T / (2 * kPi * k(i)), 1e-12 * rep.sigma(0)) << c;
    // The projective mode is parallel to A's column i: |cos angle| = 1.
    const Vec a = A.col(i).normalized(), m = rep.modes.col(c).normalized();
    EXPECT_NEAR(std::abs(a.dot(m)), 1.0, 1e-12) << c;
  }
  // The QZ's λ = α/β agree with 1/ω² as a set.
  Vec lam = rep.lambda;
  std::sort(lam.data(), lam.data() + lam.size());
  for (int c = 0; c < 4; ++c) EXPECT_NEAR(lam(3 - c), rep.sigma(c) * rep.sigma(c), 1e-10 * lam(3));
}

TEST(Sod, ConstrainedCoordinatesMakeThePencilSingular) {
  // Five coordinates whose last is a fixed combination of two others plus a constant (a holonomic
  // constraint): Σ_X and Σ_Ẋ both have rank 4 of 5, and no λ is a finite positive number for the
  // direction they share.
  const double T = 2.0;
  const Eigen::VectorXi k = (Eigen::VectorXi(4) << 1, 3, 2, 7).finished();
  const Vec amp = (Vec(4) << 1.0, 0.2, 0.5, 0.05).finished();
  Mat A(5, 4);
  A << 1.0, 0.3, -0.2, 0.1, 0.0, 1.2, 0.4, -0.3, 0.5, 0.0, 0.9, 0.2, -0.1, 0.2, 0.3, 1.1, 0, 0, 0, 0;
  A.row(4) = 2.0 * A.row(0) - A.row(1);
  auto d = mixed_sines(A, amp, k, 64, T);
  d.X.row(4).array() += 3.0;
  const auto rep = flexuq::rom::smooth_orthogonal_decomposition(d.X, d.Xd);
  EXPECT_EQ(rep.n, 5);
  EXPECT_EQ(rep.rank_x, 4);
  EXPECT_EQ(rep.rank_xdot, 4);
  EXPECT_GE(rep.indeterminate + rep.infinite + rep.negative + rep.zero + rep.complex, 1) << rep.summary();
  EXPECT_EQ(rep.sigma.size(), 0); // no modes for a singular Σ_Ẋ
  EXPECT_NE(rep.summary().find("rank of Σ_Ẋ 4 of 5"), std::string::npos) << rep.summary();
}

} // namespace
