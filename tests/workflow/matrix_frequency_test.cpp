// SPDX-License-Identifier: MIT
// workflow::matrix_frequency_factory without the CLI: a fixed-free chain of point masses given as
// MatrixMarket files (springs k, 4k, 9k along x, y, z), the parameters scaling its stiffness and
// mass terms, against the chain's closed-form frequencies.
#include "SpringChain.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/workflow/MatrixFrequencyCampaign.hpp"

#include <gtest/gtest.h>

#include <vector>

using namespace flexuq;
using test::chain_hz;
using test::write_chain;

TEST(MatrixFrequencyCampaign, ParametersScaleTheTermsOfTheChain) {
  const std::string dir = write_chain();
  workflow::MatrixFrequencySpec spec;
  spec.model = test::chain_model(dir);
  spec.component.fixed_sets = {"FIX"};
  spec.targets = {{true, 0}, {false, 0}}; // θ0 → K's coefficient, θ1 → M's
  spec.options.frequencies = 6;
  auto model = workflow::matrix_frequency_factory(spec)(MPI_COMM_WORLD);
  model->prepare({1.0, 1.0});
  for (const std::vector<double>& theta : {std::vector<double>{1.0, 1.0}, {4.0, 1.0}, {2.0, 0.5}}) {
    const auto f = model->evaluate(theta).at("frequencies");
    const auto want = chain_hz(theta[0], theta[1], 6);
    ASSERT_EQ(f.size(), want.size());
    for (std::size_t k = 0; k < f.size(); ++k)
      EXPECT_NEAR(f[k], want[k], 1e-8 * want[k]) << "θ = (" << theta[0] << ", " << theta[1] << "), mode " << k;
  }
  EXPECT_THROW(model->evaluate({-1.0, 1.0}), InputError); // a coefficient must be positive
}
