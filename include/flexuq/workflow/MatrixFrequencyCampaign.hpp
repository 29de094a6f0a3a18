// SPDX-License-Identifier: MIT
#pragma once
/// @file MatrixFrequencyCampaign.hpp
/// @brief A campaign whose model is matrices exported by another FE code (`model.matrices`,
/// fe/MatrixComponent.hpp): each parameter is the coefficient of one stiffness or mass term, and
/// the model's outputs are the tracked frequencies (fe::FrequencyModel). app/MatrixModel.hpp maps a
/// job file to the spec.

#include "flexuq/core/Model.hpp"
#include "flexuq/fe/FrequencyModel.hpp"
#include "flexuq/fe/MatrixComponent.hpp"

#include <string>
#include <vector>

namespace flexuq::workflow {

/// The term a campaign parameter sets: model.stiffness[term] or model.mass[term].
struct MatrixTermTarget {
  bool stiffness = true;
  std::size_t term = 0;
};

struct MatrixFrequencySpec {
  fe::MatrixModelSpec model;
  fe::ComponentOptions component;
  std::vector<MatrixTermTarget> targets; ///< per campaign parameter, in order
  fe::FrequencyModelOptions options;     ///< options.parameters is not used
};

/// The factory of the frequency model of @p spec's matrices: per sample the coefficient of each
/// parameter's term is θ_p (the other terms keep their coefficients). Not collective; the factory
/// is collective on the group (it reads and assembles the matrices). A coefficient that is not
/// positive and finite throws InputError naming the term.
ModelFactory matrix_frequency_factory(const MatrixFrequencySpec& spec);

} // namespace flexuq::workflow
