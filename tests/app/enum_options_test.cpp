// SPDX-License-Identifier: MIT
// The job file's names of library enums (issue #33 item 2): the libraries keep one name table per
// enum and parse no user string; app/EnumOptions parses, with the messages the libraries gave.
#include "../io/InputErrorOf.hpp"

#include "flexuq/app/EnumOptions.hpp"

#include <gtest/gtest.h>

using namespace flexuq;
using flexuq::test::input_error_of;

TEST(EnumOptions, EveryNameOfEveryTableParsesToItsValue) {
  EXPECT_EQ(app::parse_log_level("debug"), log::Level::debug);
  EXPECT_EQ(app::parse_log_level("warning"), log::Level::warn);
  EXPECT_EQ(app::parse_reduce_method("craig-bampton"), cms::Method::craig_bampton);
  EXPECT_EQ(app::parse_reduce_method("hintz-constraint"), cms::Method::hintz_constraint);
  EXPECT_EQ(app::parse_reduce_scaling("norm"), cms::Scaling::norm);
  EXPECT_EQ(app::parse_galerkin_solver("straight-forward", "k"), sg::Method::StraightForward);
  EXPECT_EQ(app::parse_galerkin_normalization("thesis", "k"), sg::Normalization::Thesis);
  EXPECT_EQ(app::parse_joint_type("point-on-line-2d"), mbs::JointType::point_on_line_2d);
  EXPECT_EQ(app::parse_joint_type("perpendicular"), mbs::JointType::dot1);
  EXPECT_EQ(app::parse_solver_scheme("generalized-alpha"), mbs::Scheme::generalized_alpha);
  EXPECT_EQ(app::parse_linear_algebra("auto"), mbs::LinearAlgebra::automatic);
  EXPECT_EQ(app::parse_matrix_format("MatrixMarket", "k.mtx"), io::MatrixFormat::matrix_market);
  EXPECT_EQ(app::parse_matrix_format("OP4", "k.op4"), io::MatrixFormat::op4);
  // Each table round-trips: the name of every value parses back to it.
  for (const auto& e : cms::kMethodNames.entries) EXPECT_EQ(app::parse_reduce_method(enum_name(cms::kMethodNames, e.value)), e.value);
  for (const auto& e : mbs::kJointTypeNames.entries) EXPECT_EQ(app::parse_joint_type(e.name), e.value);
  for (const auto& e : mbs::kSchemeNames.entries) EXPECT_EQ(app::parse_solver_scheme(mbs::scheme_name(e.value)), e.value);
}

// The messages, byte for byte as the libraries wrote them before (tests/app/*.cmake grep some).
TEST(EnumOptions, UnknownNamesGiveTheLibrariesMessages) {
  EXPECT_EQ(input_error_of([] { app::parse_log_level("loud"); }),
            "unknown log level 'loud' (expected error, warn, info or debug)");
  EXPECT_EQ(input_error_of([] { app::parse_reduce_method("craig-bamton"); }),
            "reduce.method: unknown method 'craig-bamton' (one of guyan, craig-bampton, hurty, herting, craig-chang, "
            "rubin-martinez, hintz-attachment, hintz-constraint, macneal, gcms)");
  EXPECT_EQ(input_error_of([] { app::parse_reduce_scaling("unit"); }),
            "reduce.scaling: unknown value 'unit' (none, max or norm)");
  EXPECT_EQ(input_error_of([] { app::parse_galerkin_solver("lanczos", "j.yaml: method.galerkin"); }),
            "j.yaml: method.galerkin.solver: unknown value 'lanczos' (inverse-subspace | straight-forward)");
  EXPECT_EQ(input_error_of([] { app::parse_galerkin_normalization("unit", "j.yaml: method.galerkin"); }),
            "j.yaml: method.galerkin.normalization: unknown value 'unit' (galerkin | thesis)");
  EXPECT_EQ(input_error_of([] { app::parse_joint_type("hinge"); }),
            "unknown joint type 'hinge' (revolute, spherical, prismatic, cylindrical, universal, fixed, planar, dot1, "
            "dot2, distance, point-on-line, angle-driver, translation-driver, revolute-2d, prismatic-2d, "
            "point-on-line-2d, perpendicular = dot1)");
  EXPECT_EQ(input_error_of([] { app::parse_solver_scheme("newmark-beta"); }),
            "unknown solver type 'newmark-beta' (hht, generalized-alpha, rk45, euler)");
  EXPECT_EQ(input_error_of([] { app::parse_linear_algebra("banded"); }), "must be auto, dense or sparse, got 'banded'");
  EXPECT_EQ(input_error_of([] { app::parse_matrix_format("Harwell", "k.rb"); }),
            "k.rb: unknown matrix format 'Harwell' (matrix-market, abaqus, petsc or op4)");
  // campaign::MethodOptions (the messages campaign::CampaignOptions::check gave; the grid's key is the
  // one the job used: method.pce.grid, reduce.stochastic.grid).
  EXPECT_EQ(input_error_of([] { app::parse_method_type("bootstrap"); }),
            "method.type 'bootstrap' is not one of monte-carlo, lhs, sobol, collocation, pce");
  EXPECT_EQ(input_error_of([] { app::parse_sampling("grid"); }), "sampling 'grid' is not one of monte-carlo, lhs, sobol");
  EXPECT_EQ(input_error_of([] { app::parse_grid("clenshaw", "reduce.stochastic.grid"); }),
            "reduce.stochastic.grid must be sparse or tensor, got 'clenshaw'");
  for (const auto& e : campaign::kMethodTypeNames.entries) EXPECT_EQ(app::parse_method_type(e.name), e.value);
  for (const auto& e : campaign::kSamplingNames.entries) EXPECT_EQ(app::parse_sampling(e.name), e.value);
  for (const auto& e : campaign::kGridNames.entries) EXPECT_EQ(app::parse_grid(e.name, "k"), e.value);
  // Names are exact (case and spelling) except the matrix formats.
  EXPECT_FALSE(input_error_of([] { app::parse_reduce_method("Guyan"); }).empty());
}
