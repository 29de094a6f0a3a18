// SPDX-License-Identifier: MIT
// Component-mode synthesis of a 2-D component (2 DOFs per node, 3 rigid-body motions): a steel strip
// in plane stress (quad8) with an all-DOF interface at x = 0.
//  - Craig–Bampton: the fixed-interface eigenvalues are the clamped strip's (fe::solve_modes on the
//    component with the interface fixed, 1e-8); the reduced pair has exactly 3 zero eigenvalues and
//    represents tx, ty, rz exactly (check-out residuals < 1e-9; tz, rx, ry are not motions: 0); the
//    invariants equal the closed forms of the rectangle: m = ρtLH, c = (L/2, H/2, 0),
//    J_C,zz = m(L² + H²)/12 (1e-10); the reduced free-free frequencies bound the full ones from above.
//  - the free- and residual-flexibility methods (Herting, Hintz, Craig–Chang, Rubin–Martinez,
//    MacNeal, Hurty): the same rigid-motion check-out and the Rayleigh–Ritz bound.
//  - rbe2/rbe3 interfaces (6-DOF reference nodes) are refused on a 2-D component.
#include "PlaneMesh.hpp"
#include "flexuq/cms/Reduce.hpp"
#include "flexuq/cms/WorkSpace.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/fe/Component.hpp"
#include "flexuq/fe/Modes.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

using namespace flexuq;

namespace {
constexpr double kL = 0.5, kH = 0.1, kT = 0.01;

io::Mesh strip() { return test::grid_mesh(io::ElementType::quad8, kL, kH, 20, 4, kT, false); }

std::vector<cms::InterfaceSpec> root(cms::InterfaceKind kind = cms::InterfaceKind::all_dofs) {
  return {{"ROOT", kind, std::nullopt, {}}};
}

cms::ReducerOptions reducer_options() {
  cms::ReducerOptions ro;
  ro.modes.count = 6;
  ro.modes.progress = false;
  return ro;
}

/// tx, ty, rz represented to 1e-9 (residual ‖Φξ − Φ_R‖_M / ‖Φ_R‖_M); tz, rx, ry vanish on the strip.
void expect_in_plane_rigid_motions(const cms::Checkout& c, const std::string& what) {
  ASSERT_EQ(c.rigid_residual.size(), 6) << what;
  for (int a : {0, 1, 5}) EXPECT_LT(c.rigid_residual(a), 1e-9) << what << ", rigid mode " << a;
  for (int a : {2, 3, 4}) EXPECT_EQ(c.rigid_residual(a), 0.0) << what << ", rigid mode " << a;
}
} // namespace

TEST(PlaneReduce, CraigBamptonOfAPlaneStrip) {
  const fe::Component comp(MPI_COMM_WORLD, strip(), {});
  const cms::WorkSpace ws(comp, root());
  EXPECT_EQ(ws.rigid_count(), 3);
  EXPECT_EQ(ws.n_boundary(), 18u); // 9 nodes at x = 0, ux and uy
  const auto r = cms::reduce(ws, reducer_options(), cms::BuildOptions{}, 6);
  // The fixed-interface modes are the clamped strip's.
  fe::ComponentOptions o;
  o.fixed_sets = {"ROOT"};
  const fe::Component clamped(MPI_COMM_WORLD, strip(), o);
  fe::ModeOptions mo;
  mo.count = 6;
  mo.constrained = true;
  mo.progress = false;
  const auto cl = fe::solve_modes(clamped.K(), clamped.M(), mo);
  ASSERT_GE(r.basis.mode_eigenvalues.size(), 6u);
  for (std::size_t k = 0; k < 6; ++k) EXPECT_NEAR(r.basis.mode_eigenvalues[k] / cl.eigenvalues.at(k), 1.0, 1e-8) << k;
  // The reduced pair: 3 rigid, the rest bounded from below by the full free-free frequencies.
  expect_in_plane_rigid_motions(r.checkout, "craig-bampton");
  ASSERT_GE(r.checkout.full_hz.size(), 3);
  ASSERT_GE(r.checkout.reduced_hz.size(), 3);
  EXPECT_EQ(r.checkout.reduced_hz.size(), static_cast<Eigen::Index>(r.basis.K.rows()) - 3);
  for (Eigen::Index k = 0; k < 3; ++k) EXPECT_GE(r.checkout.reduced_hz(k), r.checkout.full_hz(k) * (1 - 1e-9)) << k;
  EXPECT_NEAR(r.checkout.reduced_hz(0) / r.checkout.full_hz(0), 1.0, 0.01);
  // The invariants of the rectangle.
  const double m = test::kPlaneRho * kT * kL * kH;
  EXPECT_NEAR(r.invariants.mass / m, 1.0, 1e-10);
  EXPECT_NEAR(r.invariants.com(0), kL / 2, 1e-10 * kL);
  EXPECT_NEAR(r.invariants.com(1), kH / 2, 1e-10 * kL);
  EXPECT_NEAR(r.invariants.com(2), 0.0, 1e-14);
  EXPECT_NEAR(r.invariants.inertia_com(2, 2) / (m * (kL * kL + kH * kH) / 12), 1.0, 1e-10);
  EXPECT_NEAR(r.checkout.full.inertia_com(2, 2) / (m * (kL * kL + kH * kH) / 12), 1.0, 1e-10);
  if (comp.dofs().begin() == 0)
    std::printf("[PlaneReduce] craig-bampton: %zu columns, free-free f1 %.4f Hz reduced / %.4f Hz full\n",
                static_cast<std::size_t>(r.basis.K.rows()), r.checkout.reduced_hz(0), r.checkout.full_hz(0));
}

TEST(PlaneReduce, FreeAndResidualFlexibilityMethods) {
  const fe::Component comp(MPI_COMM_WORLD, strip(), {});
  const cms::WorkSpace ws(comp, root());
  for (cms::Method method : {cms::Method::herting, cms::Method::hintz_constraint, cms::Method::hintz_attachment,
                             cms::Method::craig_chang, cms::Method::rubin_martinez, cms::Method::macneal,
                             cms::Method::hurty}) {
    cms::BuildOptions b;
    b.method = method;
    const auto r = cms::reduce(ws, reducer_options(), b, 3);
    const std::string what = cms::method_name(method);
    expect_in_plane_rigid_motions(r.checkout, what);
    ASSERT_GE(r.checkout.full_hz.size(), 3) << what;
    if (method == cms::Method::macneal) continue; // no reduced free-free pair (residual inertia dropped)
    ASSERT_GE(r.checkout.reduced_hz.size(), 3) << what;
    for (Eigen::Index k = 0; k < 3; ++k) EXPECT_GE(r.checkout.reduced_hz(k), r.checkout.full_hz(k) * (1 - 1e-8)) << what << k;
    if (comp.dofs().begin() == 0)
      std::printf("[PlaneReduce] %s: %ld columns, free-free f1 %.6f Hz reduced / %.6f Hz full\n", what.c_str(),
                  static_cast<long>(r.basis.K.rows()), r.checkout.reduced_hz(0), r.checkout.full_hz(0));
  }
}

TEST(PlaneReduce, ReferenceNodeInterfacesAreRefused) {
  const fe::Component comp(MPI_COMM_WORLD, strip(), {});
  for (auto kind : {cms::InterfaceKind::rbe2, cms::InterfaceKind::rbe3}) {
    std::string msg;
    try {
      cms::WorkSpace ws(comp, root(kind));
    } catch (const InputError& e) {
      msg = e.what();
    }
    EXPECT_NE(msg.find("set ROOT"), std::string::npos) << msg;
    EXPECT_NE(msg.find("2-D component"), std::string::npos) << msg;
  }
}
