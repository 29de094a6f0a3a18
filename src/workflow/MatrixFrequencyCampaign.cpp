// SPDX-License-Identifier: MIT
#include "flexuq/workflow/MatrixFrequencyCampaign.hpp"

#include "flexuq/core/Error.hpp"

#include <cmath>
#include <memory>

namespace flexuq::workflow {

ModelFactory matrix_frequency_factory(const MatrixFrequencySpec& spec) {
  const auto model = std::make_shared<const fe::MatrixModelSpec>(spec.model);
  std::vector<std::string> names; // the term each parameter sets
  for (const auto& t : spec.targets) {
    const auto& terms = t.stiffness ? model->stiffness : model->mass;
    FLEXUQ_REQUIRE(t.term < terms.size(),
                   "matrix model: no " << (t.stiffness ? "stiffness" : "mass") << " term " << t.term);
    names.push_back(terms[t.term].name);
  }
  const auto copts = spec.component;
  const auto targets = spec.targets;
  const auto options = spec.options;
  return [model, copts, targets, names, options](MPI_Comm comm) -> std::unique_ptr<Model> {
    auto comp = fe::make_matrix_component(comm, *model, copts);
    const auto k0 = comp->stiffness_theta(), m0 = comp->mass_theta();
    auto update = [k0, m0, targets, names](fe::Component& c, const std::vector<double>& theta) {
      FLEXUQ_REQUIRE(theta.size() == targets.size(),
                     "matrix model: " << theta.size() << " parameters for " << targets.size());
      auto k = k0, m = m0;
      for (std::size_t p = 0; p < theta.size(); ++p) {
        FLEXUQ_REQUIRE(std::isfinite(theta[p]) && theta[p] > 0,
                       "term '" << names[p] << "' coefficient " << theta[p] << " is not positive");
        (targets[p].stiffness ? k : m)[targets[p].term] = theta[p];
      }
      c.set_coefficients(k, m);
    };
    return std::make_unique<fe::FrequencyModel>(comm, std::move(comp), update, options);
  };
}

} // namespace flexuq::workflow
