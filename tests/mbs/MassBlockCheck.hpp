// SPDX-License-Identifier: MIT
#pragma once
/// @file MassBlockCheck.hpp
/// @brief BodyModel::constant_mass_block's promise checked at one state (body_model_test.cpp: rigid and
/// planar bodies; gs_body_test.cpp: the GS body).

#include "flexuq/mbs/Body.hpp"

#include <gtest/gtest.h>

#include <string>

namespace flexuq::mbs::test {

/// At @p q (the body's block at @p o): M_b(q) = blockdiag(C, N(q)) with C = constant_mass_block()
/// (k × k) exactly the leading block, the coupling blocks exactly zero and N(q) not zero.
inline void expect_constant_leading_block(const BodyModel& model, const Vec& q, int o, const std::string& what) {
  const Mat c = model.constant_mass_block();
  const int k = static_cast<int>(c.rows()), cnt = model.n_coordinates();
  ASSERT_EQ(c.cols(), k) << what;
  ASSERT_GT(k, 0) << what;
  Mat mm = Mat::Zero(q.size(), q.size());
  model.mass_into(q, o, 1.0, mm);
  const Mat block = mm.block(o, o, cnt, cnt);
  EXPECT_EQ(block.topLeftCorner(k, k), c) << what;
  EXPECT_EQ(block.topRightCorner(k, cnt - k).cwiseAbs().maxCoeff(), 0.0) << what;
  EXPECT_EQ(block.bottomLeftCorner(cnt - k, k).cwiseAbs().maxCoeff(), 0.0) << what;
  EXPECT_GT(block.bottomRightCorner(cnt - k, cnt - k).norm(), 0.0) << what << ": N(q) is the rest, not zero";
}

} // namespace flexuq::mbs::test
