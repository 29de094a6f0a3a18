// SPDX-License-Identifier: MIT
#include "flexuq/uq/AnalyticModels.hpp"

#include "flexuq/core/Error.hpp"

#include <cmath>
#include <limits>

namespace flexuq::uq {

namespace {

class AnalyticModel final : public Model {
public:
  AnalyticModel(std::string fn, std::size_t dim, double threshold) : fn_(std::move(fn)), threshold_(threshold) {
    if (fn_ == "ishigami") FLEXUQ_REQUIRE_OPTION(dim == 3, "function", "{} ishigami needs 3 parameters, got " << dim);
    if (fn_ == "oscillator")
      FLEXUQ_REQUIRE_OPTION(dim == 2, "function", "{} oscillator needs 2 parameters (k, m), got " << dim);
  }
  std::map<std::string, std::size_t> output_sizes() const override {
    if (fn_ == "oscillator") return {{"omega2", 1}, {"omega", 1}};
    return {{"y", 1}};
  }
  Outputs evaluate(const std::vector<double>& x) override {
    if (fn_ == "ishigami") {
      // Ishigami & Homma: a = 7, b = 0.1 on [−π, π]³.
      return {{"y", {std::sin(x[0]) + 7.0 * std::pow(std::sin(x[1]), 2) + 0.1 * std::pow(x[2], 4) * std::sin(x[0])}}};
    }
    if (fn_ == "oscillator") {
      FLEXUQ_REQUIRE(x[1] > 0, "oscillator: mass must be positive, got " << x[1]);
      const double w2 = x[0] / x[1];
      return {{"omega2", {w2}}, {"omega", {std::sqrt(w2)}}};
    }
    double y = 0;
    for (std::size_t i = 0; i < x.size(); ++i) y += (i + 1.0) * x[i] + 0.5 * x[i] * x[i];
    if (fn_ == "failing") {
      FLEXUQ_REQUIRE(x[0] <= threshold_, "failing model: x0 = " << x[0] << " exceeds " << threshold_);
      if (x[0] < -threshold_) y = std::numeric_limits<double>::quiet_NaN();
    }
    return {{"y", {y}}};
  }

private:
  std::string fn_;
  double threshold_;
};

} // namespace

bool is_analytic_model(const std::string& fn) {
  return fn == "ishigami" || fn == "oscillator" || fn == "polynomial" || fn == "failing";
}

std::unique_ptr<Model> make_analytic_model(const std::string& fn, std::size_t dim, double threshold) {
  FLEXUQ_REQUIRE_OPTION(is_analytic_model(fn), "function",
                        "unknown {} '" << fn << "' (ishigami, oscillator, polynomial, failing)");
  return std::make_unique<AnalyticModel>(fn, dim, threshold);
}

} // namespace flexuq::uq
