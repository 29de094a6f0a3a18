// SPDX-License-Identifier: MIT
#include "flexuq/campaign/DelayedModel.hpp"

#include <chrono>
#include <thread>

namespace flexuq::campaign {

namespace {

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

} // namespace

ModelFactory with_delay(ModelFactory f, double seconds) {
  if (seconds <= 0) return f;
  return [f, seconds](MPI_Comm comm) -> std::unique_ptr<Model> { return std::make_unique<DelayedModel>(f(comm), seconds); };
}

} // namespace flexuq::campaign
