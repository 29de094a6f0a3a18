// SPDX-License-Identifier: MIT
#include "flexuq/app/ModelFactory.hpp"
#include "flexuq/app/SimulationModel.hpp"

#include "flexuq/app/MatrixModel.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/app/ComponentConfig.hpp"
#include "flexuq/fe/FrequencyModel.hpp"
#include "flexuq/uq/AnalyticModels.hpp"

#include <chrono>
#include <memory>
#include <thread>

namespace flexuq::app {

namespace {

/// Test knob: a model that first sleeps, so kill-and-resume tests have time to kill mid-run.
class DelayedModel final : public Model {
public:
  DelayedModel(std::unique_ptr<Model> inner, double seconds) : inner_(std::move(inner)), seconds_(seconds) {}
  std::map<std::string, std::size_t> output_sizes() const override { return inner_->output_sizes(); }
  std::map<std::string, std::vector<std::uint64_t>> field_dims() const override { return inner_->field_dims(); }
  std::map<std::string, const std::vector<double>*> column_scaled_fields() const override {
    return inner_->column_scaled_fields();
  }
  void write_field_support(const std::string& path, const std::string& field, const std::string& dataset) const override {
    inner_->write_field_support(path, field, dataset);
  }
  void prepare(const std::vector<double>& nominal) override { inner_->prepare(nominal); }
  Outputs evaluate(const std::vector<double>& theta) override {
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds_));
    return inner_->evaluate(theta);
  }

private:
  std::unique_ptr<Model> inner_;
  double seconds_;
};

ModelFactory analytic_factory(const io::Config& cfg, std::size_t dim) {
  const auto fn = cfg.get<std::string>("model.function");
  FLEXUQ_REQUIRE(uq::is_analytic_model(fn),
                 cfg.source() << ": unknown model.function '" << fn << "' (ishigami, oscillator, polynomial, failing)");
  const double threshold = cfg.get<double>("model.threshold", 1.0);
  return [fn, dim, threshold](MPI_Comm) { return uq::make_analytic_model(fn, dim, threshold); };
}

ModelFactory frequency_factory(const io::Config& cfg, const std::vector<campaign::ParameterSpec>& params) {
  fe::FrequencyModelOptions fo;
  fo.frequencies = cfg.get<int>("outputs.frequencies", 10);
  FLEXUQ_REQUIRE(fo.frequencies >= 1, cfg.source() << ": outputs.frequencies must be at least 1");
  fo.mode_shapes = cfg.get<bool>("outputs.mode_shapes", false);
  fo.tol = cfg.get<double>("modes.tol", 1e-10);
  if (has_matrix_model(cfg)) return matrix_frequency_factory(cfg, params, fo); // parameters scale terms
  fo.parameters = material_parameters(cfg, params);
  auto component = app::component_options(cfg);
  auto mesh = std::make_shared<const io::Mesh>(app::load_mesh(cfg));
  return [fo, component, mesh](MPI_Comm comm) {
    return std::make_unique<fe::FrequencyModel>(comm, *mesh, component, fo);
  };
}

} // namespace

std::vector<fe::MaterialParameter> material_parameters(const io::Config& cfg,
                                                       const std::vector<campaign::ParameterSpec>& params) {
  std::vector<fe::MaterialParameter> out;
  for (const auto& p : params) {
    const std::string key = "parameters." + p.name + ".param";
    fe::MaterialParameter mp;
    mp.name = p.name;
    mp.property = fe::material_property(cfg.has(key) ? cfg.get<std::string>(key) : p.name,
                                        cfg.source() + ": parameter '" + p.name + "'");
    if (!p.set.empty()) mp.element_set = p.set;
    out.push_back(mp);
  }
  return out;
}

ModelFactory make_model_factory(const io::Config& cfg, const std::vector<campaign::ParameterSpec>& params) {
  return with_delay(cfg, cfg.has("model.function")     ? analytic_factory(cfg, params.size())
                         : cfg.has("model.simulation") ? simulation_factory(cfg, params)
                                                       : frequency_factory(cfg, params));
}

ModelFactory with_delay(const io::Config& cfg, ModelFactory f) {
  const double delay = cfg.get<double>("model.delay_seconds", 0.0);
  if (delay <= 0) return f;
  return [f, delay](MPI_Comm comm) -> std::unique_ptr<Model> { return std::make_unique<DelayedModel>(f(comm), delay); };
}

} // namespace flexuq::app
