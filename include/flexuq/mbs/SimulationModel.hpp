// SPDX-License-Identifier: MIT
#pragma once
/// @file SimulationModel.hpp
/// @brief A multibody simulation as a campaign model (core/Model.hpp, issue #8 item 5): per sample,
/// the flexible bodies' stiffness is scaled by the sample's parameters and the job is simulated;
/// the outputs are named simulation outputs at given times (seed 000 T19: x_A(0.1 s)).
///
/// A body whose file holds /stochastic_body takes the campaign parameters of the same names: each
/// sample evaluates it at θ (cms::StochasticBody::at) and builds the system again around it.
/// The cheap route of the issue: K̄ of a reduced body is linear in Young's modulus at fixed ν and
/// fixed basis, so a parameter E scales K̄ exactly by E / E_ref (E_ref: the modulus the body file
/// was reduced with); M̄ and the invariants do not change. Parameters that change ν or ρ need a
/// re-reduction per sample: BodyProvider (app wires `model.reduce` jobs to it). Serial: every rank of a group runs the same simulation,
/// so use `campaign.ranks_per_sample: 1` and let the campaign spread samples over ranks.

#include "flexuq/core/Model.hpp"
#include "flexuq/mbs/Simulation.hpp"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace flexuq::mbs {

/// Parameter @p parameter (index into θ) scales the stiffness of @p bodies by θ / reference.
struct StiffnessParameter {
  std::size_t parameter = 0;
  double reference = 1.0;
  std::vector<std::string> bodies;
};

/// A flexible body made anew per sample by the caller (e.g. reduced again at θ by an FE model the
/// mbs module does not know): the body's name and its maker, θ in campaign order. The maker's
/// data replaces the job's body for that sample (stiffness factors still apply).
struct BodyProvider {
  std::string body;
  std::function<std::shared_ptr<const FlexibleData>(const std::vector<double>& theta)> make;
};

class SimulationModel final : public Model {
public:
  /// @p outputs: names of the job's outputs; @p times: where they are sampled (linear
  /// interpolation between recorded times). @throws InputError for unknown names, bodies that are
  /// not flexible, or times outside [start, end]; an OptionError naming the argument ("providers",
  /// "outputs", "times") where the caller's job key for it belongs.
  /// @p parameter_names: the campaign's parameter names; a flexible body read from a stochastic
  /// body file is evaluated per sample at the parameters of the same names (the others at their
  /// means), and the system is built again around it (its interfaces move with θ).
  SimulationModel(SimulationJob job, std::vector<StiffnessParameter> stiffness, std::vector<std::string> outputs,
                  std::vector<double> times, std::vector<std::string> parameter_names = {},
                  std::vector<BodyProvider> providers = {});
  /// Campaign parameters (indices) that some stochastic body of the job takes.
  std::vector<std::size_t> stochastic_parameters() const;
  std::map<std::string, std::size_t> output_sizes() const override;
  /// Each output: times × columns, row-major (time-major).
  Outputs evaluate(const std::vector<double>& theta) override;
  /// What integrates each sample's job (default run_simulation): a module after mbs sets another,
  /// e.g. the reduced-order run of a `rom:` job (workflow/SimulationCampaign.cpp).
  using Runner = std::function<SimulationResult(SimulationJob&)>;
  void set_runner(Runner runner) { runner_ = std::move(runner); }

private:
  SimulationJob job_;
  std::vector<StiffnessParameter> stiffness_;
  std::vector<std::size_t> outputs_; ///< indices into job_.outputs
  std::vector<double> times_;
  std::vector<std::shared_ptr<const FlexibleData>> nominal_; ///< per body (null for rigid)
  /// Stochastic bodies: body index, its source, and per stochastic-body parameter the campaign
  /// parameter index (or −1: its mean).
  struct Stochastic {
    int body;
    std::shared_ptr<const FlexibleSource> source;
    FlexibleOptions options;
    std::vector<long> campaign_index;
  };
  std::vector<Stochastic> stochastic_;
  std::vector<std::pair<int, BodyProvider>> providers_; ///< body index, maker
  Runner runner_; ///< empty: run_simulation
};

/// Linear interpolation of the n_t × k table @p data (row-major, at @p time) at @p t.
std::vector<double> sample_at(const std::vector<double>& time, const std::vector<double>& data, std::size_t k, double t);

} // namespace flexuq::mbs
