// SPDX-License-Identifier: MIT
#pragma once
/// @file StochasticBox.hpp
/// @brief The stochastic-body workflow tests' component: the free steel box of BoxBody.hpp cut into
/// element sets LEFT (x < 0.15) and RIGHT, with E of LEFT and ρ of RIGHT uniform random; typed
/// StochasticBodyJob structs made in C++ (no job file), and the independent reference: the
/// deterministic Craig–Bampton chain of cms on the box built with the materials at θ.

#include "BoxBody.hpp"

#include "flexuq/campaign/Plan.hpp"
#include "flexuq/cms/ReducedBodyBuild.hpp"
#include "flexuq/workflow/StochasticBody.hpp"

#include <mpi.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace flexuq::test {

constexpr int kFreeFree = 4; ///< reduced free-free frequencies per point

/// box_mesh() with element sets LEFT and RIGHT (the halves along x).
inline io::Mesh two_set_box() {
  io::Mesh m = box_mesh();
  for (std::size_t e = 0; e < m.num_elements(); ++e) {
    double x = 0;
    for (int k = 0; k < m.element_size(e); ++k) x += m.coords[static_cast<std::size_t>(m.element(e)[k])][0];
    m.element_sets[x / m.element_size(e) < kBoxA / 2 ? "LEFT" : "RIGHT"].push_back(static_cast<int>(e));
  }
  return m;
}

/// Steel on both sets, E of LEFT = @p e_left, ρ of RIGHT = @p rho_right.
inline fe::ComponentOptions two_set_steel(double e_left, double rho_right) {
  fe::ComponentOptions o = steel();
  io::Material left = *o.default_material, right = *o.default_material;
  left.E = e_left;
  right.rho = rho_right;
  o.set_materials = {{"LEFT", left}, {"RIGHT", right}};
  return o;
}

/// θ = (E_left, rho_right): E_left ~ U(1.8e11, 2.2e11), rho_right ~ U(7600, 8000).
inline campaign::CampaignOptions two_set_parameters(const std::string& output) {
  campaign::CampaignOptions o;
  o.source = "<test>";
  o.params = {{"E_left", uq::Distribution::uniform(1.8e11, 2.2e11), "LEFT"},
              {"rho_right", uq::Distribution::uniform(7600, 8000), "RIGHT"}};
  o.seed = 7;
  o.output = output;
  o.method_keys = "reduce.stochastic.";
  return o;
}

/// Collocation: a tensor grid of order + 1 Gauss–Legendre points per input, projection of @p order.
inline campaign::CampaignOptions tensor_collocation(const std::string& output, int order) {
  auto o = two_set_parameters(output);
  o.method.type = campaign::MethodType::collocation;
  o.method.grid = campaign::Grid::tensor;
  o.method.order = order;
  return o;
}

/// Regression of @p order on a Latin hypercube of @p samples points (also method pod's design).
inline campaign::CampaignOptions regression_design(const std::string& output, int order, int samples) {
  auto o = two_set_parameters(output);
  o.method.type = campaign::MethodType::pce; // fitted by regression (the default fit of a PCE)
  o.method.order = order;
  o.method.samples = samples;
  return o;
}

/// A stochastic Craig–Bampton body of the box (RBE2 interfaces XMIN and XMAX, 4 fixed-interface
/// modes) for the plan of @p o.
inline workflow::StochasticBodyJob two_set_job(workflow::StochasticMethod method, const campaign::CampaignOptions& o) {
  workflow::StochasticBodyJob j;
  j.source = "<test>";
  j.method = method;
  j.plan = campaign::make_plan(o);
  j.body.interfaces = box_interfaces();
  j.body.reducer = box_reducer();
  j.body.free_free = kFreeFree;
  j.body.parameters = {{"E_left", fe::MaterialProperty::E, std::string("LEFT")},
                       {"rho_right", fe::MaterialProperty::rho, std::string("RIGHT")}};
  j.body.nominal = j.plan.nominal();
  j.component = two_set_steel(kSteelE, kSteelRho);
  j.mesh = std::make_shared<const io::Mesh>(two_set_box());
  return j;
}

/// The deterministic Craig–Bampton body of the box at θ = (E_left, rho_right): its check-out (the
/// reduced and the full model's free-free frequencies). @note Collective on MPI_COMM_WORLD.
inline cms::Checkout craig_bampton_at(const std::vector<double>& theta) {
  auto copts = two_set_steel(theta.at(0), theta.at(1));
  copts.keep_affine = false;
  fe::Component comp(MPI_COMM_WORLD, two_set_box(), copts);
  cms::WorkSpace ws(comp, box_interfaces());
  cms::Reducer reducer(ws, box_reducer());
  const cms::ReducedBasis rb = reducer.build(cms::BuildOptions{});
  return cms::checkout(reducer, rb, kFreeFree);
}

/// Remove @p out and its journal (a fresh run). @note Collective on MPI_COMM_WORLD.
inline void remove_body_file(const std::string& out) {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  if (r == 0) {
    std::filesystem::remove(out);
    std::filesystem::remove_all(out + ".journal");
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/// max_i |a_i − b_i| / |b_i| over the first @p n entries (both must have them).
inline double max_relative_difference(const Eigen::VectorXd& a, const Eigen::VectorXd& b, Eigen::Index n) {
  EXPECT_GE(a.size(), n);
  EXPECT_GE(b.size(), n);
  double d = 0;
  for (Eigen::Index i = 0; i < std::min({n, a.size(), b.size()}); ++i) d = std::max(d, std::abs(a(i) - b(i)) / std::abs(b(i)));
  return d;
}

} // namespace flexuq::test
