// SPDX-License-Identifier: MIT
// Multi-index sets: seed 000 Table 5.1 order and sizes (T3), tensor/hyperbolic/anisotropic sets.
#include "flexuq/core/Error.hpp"
#include "flexuq/uq/MultiIndexSet.hpp"

#include <gtest/gtest.h>

#include <cmath>

using namespace flexuq::uq;
using Index = MultiIndexSet::Index;

TEST(MultiIndexSet, Table51OrderT3) {
  const auto s = MultiIndexSet::total_degree(2, 3);
  const std::vector<Index> expected = {{0, 0}, {1, 0}, {0, 1}, {2, 0}, {1, 1}, {0, 2}, {3, 0}, {2, 1}, {1, 2}, {0, 3}};
  ASSERT_EQ(s.size(), 10);
  for (int k = 0; k < 10; ++k) EXPECT_EQ(s.at(k), expected[k]) << k;
  // Training size n = 2P (seed 000 (5.9) with M!·p!), LOO set n + 1.
  const long long P = MultiIndexSet::total_degree_size(2, 3);
  EXPECT_EQ(2 * P, 20);
  EXPECT_EQ(2 * P + 1, 21);
}

TEST(MultiIndexSet, SizesT3) {
  for (int p = 0; p <= 8; ++p) EXPECT_EQ(MultiIndexSet::total_degree(1, p).size(), p + 1);
  const int P2[] = {3, 6, 10, 15, 21, 28};
  for (int p = 1; p <= 6; ++p) EXPECT_EQ(MultiIndexSet::total_degree(2, p).size(), P2[p - 1]);
  // (M+p)!/(M! p!) against lgamma, and the seed 004 V2 counts P+1.
  for (int M = 1; M <= 6; ++M)
    for (int p = 0; p <= 6; ++p) {
      const double c = std::exp(std::lgamma(M + p + 1.0) - std::lgamma(M + 1.0) - std::lgamma(p + 1.0));
      EXPECT_EQ(MultiIndexSet::total_degree(M, p).size(), std::llround(c));
      EXPECT_EQ(MultiIndexSet::total_degree_size(M, p), std::llround(c));
    }
  EXPECT_EQ(MultiIndexSet::total_degree(2, 2).size() - 1, 5);
  EXPECT_EQ(MultiIndexSet::total_degree(2, 3).size() - 1, 9);
}

TEST(MultiIndexSet, GradedLexOrderIn3D) {
  const auto s = MultiIndexSet::total_degree(3, 2);
  const std::vector<Index> expected = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {2, 0, 0},
                                       {1, 1, 0}, {1, 0, 1}, {0, 2, 0}, {0, 1, 1}, {0, 0, 2}};
  ASSERT_EQ(s.size(), 10);
  for (int k = 0; k < 10; ++k) EXPECT_EQ(s.at(k), expected[k]);
  for (int k = 0; k < s.size(); ++k) EXPECT_EQ(s.find(s.at(k)), k);
  EXPECT_EQ(s.find({3, 0, 0}), -1);
}

TEST(MultiIndexSet, TensorHyperbolicAnisotropic) {
  const auto t = MultiIndexSet::tensor({2, 1, 3});
  EXPECT_EQ(t.size(), 3 * 2 * 4);
  EXPECT_EQ(t.max_degree(2), 3);
  EXPECT_EQ(t.max_total_degree(), 6);
  // q = 1 is the total-degree set.
  EXPECT_EQ(MultiIndexSet::hyperbolic(4, 5, 1.0).size(), MultiIndexSet::total_degree(4, 5).size());
  // q = 0.5, p = 4, M = 2: a + b ≤ 4 for one-variable terms, √a + √b ≤ 2 → only (1,1) mixed.
  const auto h = MultiIndexSet::hyperbolic(2, 4, 0.5);
  EXPECT_EQ(h.size(), 1 + 4 + 4 + 1);
  EXPECT_GE(h.find({1, 1}), 0);
  EXPECT_EQ(h.find({2, 1}), -1);
  // Anisotropic with weights (1, 2), p = 4: a + 2b ≤ 4 → b=0: 5, b=1: 3, b=2: 1.
  const auto a = MultiIndexSet::anisotropic({1.0, 2.0}, 4.0);
  EXPECT_EQ(a.size(), 9);
  EXPECT_EQ(a.max_degree(1), 2);
  // Every set is in graded lexicographic order and starts with the zero index.
  for (const auto* s : {&t, &h, &a}) {
    EXPECT_EQ(s->degree(0), 0);
    for (int k = 1; k < s->size(); ++k) EXPECT_TRUE(MultiIndexSet::graded_lex_less(s->at(k - 1), s->at(k)));
  }
  EXPECT_THROW(MultiIndexSet::from_indices(2, {{1, 0}, {1, 0}}), flexuq::InputError);
  EXPECT_THROW(MultiIndexSet::hyperbolic(2, 3, 1.5), flexuq::InputError);
}
