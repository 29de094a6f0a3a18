// SPDX-License-Identifier: MIT
#pragma once
// Test fixture shared by the cms body-file tests: a cms::ReducedBody with every field filled
// (values distinct, not physical) and field-by-field exact comparisons.
#include "flexuq/cms/ReducedBody.hpp"

#include <gtest/gtest.h>

#include <random>

namespace flexuq::test {

inline Eigen::MatrixXd random(Eigen::Index r, Eigen::Index c, std::mt19937& g) {
  std::normal_distribution<double> d;
  Eigen::MatrixXd A(r, c);
  for (Eigen::Index j = 0; j < c; ++j)
    for (Eigen::Index i = 0; i < r; ++i) A(i, j) = d(g);
  return A;
}

/// A body with every field filled (values need not be physical, only distinct).
inline cms::ReducedBody synthetic_body(bool floating) {
  std::mt19937 g(42);
  const Eigen::Index n = 5;
  cms::ReducedBody b;
  b.method = "craig-bampton";
  b.mode_interface = "fixed";
  b.K = random(n, n, g);
  b.M = random(n, n, g);
  b.dof_labels = {"A node 1 ux", "A node 1 uy", "fixed-interface mode 1", "fixed-interface mode 2", "residual vector"};
  b.column_kinds = {"boundary_dof", "boundary_dof", "fixed_interface_mode", "fixed_interface_mode", "residual_vector"};
  b.column_scale = random(n, 1, g);
  b.mode_eigenvalues = Eigen::Vector2d(1e4, 3e4);
  b.interface_labels = {"A node 1 ux", "A node 1 uy"};
  // Reference points only on the floating variant: the grounded one stands for older files.
  if (floating) b.interface_points = {{"PIN", {0.1, -0.2, 0.3}}, {"TIP", {1.5, 0.0, 2.5e-3}}};
  b.n_boundary = 2;
  b.physical_boundary = 1;
  b.dofs_per_node = 3;
  b.basis_rcond = 1.5e-7;
  b.diagnostics["gcms_stages"] = random(4, 8, g);
  b.diagnostics["gcms_cond_psi"] = random(1, 1, g);
  auto& inv = b.invariants;
  inv.mass = 11.7;
  inv.com = random(3, 1, g);
  inv.inertia_origin = random(3, 3, g);
  inv.inertia_com = random(3, 3, g);
  inv.S = random(3, n, g);
  inv.Sr = random(3, n, g);
  for (auto& S : inv.Skl) S = random(n, n, g);
  inv.Sbar = random(9, n, g);
  inv.Ikl = random(3, 3, g);
  inv.Mff = random(n, n, g);
  inv.lumped = true;
  auto& c = b.checkout;
  c.rigid_residual = random(6, 1, g);
  c.rigid_energy = random(6, 1, g);
  c.full = {3.0, random(3, 1, g), random(3, 3, g)};
  c.reduced = {2.5, random(3, 1, g), random(3, 3, g)};
  c.full_hz = random(4, 1, g);
  c.reduced_hz = random(3, 1, g);
  c.mode_columns = {2, 3};
  c.effective_mass = random(2, 6, g);
  c.effective_fraction = random(6, 1, g);
  if (floating) {
    c.frame_V = random(n, 2, g);
    c.frame_eigenvalues = Eigen::Vector2d(5.0, 7.0);
  }
  return b;
}

/// EXPECT_EQ(a.*f, b.*f) for every field f given (the failure names its position in the list).
template <class T, class... F> void expect_same_fields(const T& a, const T& b, F T::*... fields) {
  int k = 0;
  const auto one = [&](auto f) { EXPECT_EQ(a.*f, b.*f) << "field " << k++ << " of the list"; };
  (one(fields), ...);
}

inline void expect_same(const cms::Invariants& a, const cms::Invariants& b) {
  using I = cms::Invariants;
  expect_same_fields(a, b, &I::mass, &I::com, &I::inertia_origin, &I::inertia_com, &I::S, &I::Sr, &I::Sbar, &I::Ikl,
                     &I::Mff, &I::lumped);
  for (int k = 0; k < 9; ++k) EXPECT_EQ(a.Skl[static_cast<std::size_t>(k)], b.Skl[static_cast<std::size_t>(k)]) << k;
}

inline void expect_same(const cms::ReducedBody& a, const cms::ReducedBody& b) {
  using R = cms::ReducedBody;
  expect_same_fields(a, b, &R::method, &R::mode_interface, &R::K, &R::M, &R::dof_labels, &R::column_kinds,
                     &R::column_scale, &R::mode_eigenvalues, &R::interface_labels, &R::interface_points, &R::n_boundary,
                     &R::physical_boundary, &R::dofs_per_node, &R::basis_rcond);
  ASSERT_EQ(a.diagnostics.size(), b.diagnostics.size());
  for (const auto& [k, v] : a.diagnostics) EXPECT_EQ(v, b.diagnostics.at(k)) << k;
  expect_same(a.invariants, b.invariants);
  using C = cms::Checkout;
  using P = cms::MassProperties;
  expect_same_fields(a.checkout, b.checkout, &C::rigid_residual, &C::rigid_energy, &C::full_hz, &C::reduced_hz,
                     &C::effective_mass, &C::effective_fraction, &C::mode_columns, &C::frame_V, &C::frame_eigenvalues);
  for (const auto m : {&C::full, &C::reduced})
    expect_same_fields(a.checkout.*m, b.checkout.*m, &P::mass, &P::com, &P::inertia_com);
}

} // namespace flexuq::test
