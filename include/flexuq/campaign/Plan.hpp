// SPDX-License-Identifier: MIT
#pragma once
/// @file Plan.hpp
/// @brief The samples of a campaign: the typed options a job gives (parsed from the job file in
/// `app`), their cross-option checks, and the plan generated from them — everything that defines
/// the samples and nothing that depends on ranks.

#include "flexuq/core/EnumNames.hpp"
#include "flexuq/uq/Distribution.hpp"
#include "flexuq/uq/FitOptions.hpp"
#include "flexuq/uq/Sampler.hpp"

#include <Eigen/Dense>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace flexuq::campaign {

struct ParameterSpec {
  std::string name;
  uq::Distribution dist = uq::Distribution::normal(0, 1);
  std::string set; ///< element set the parameter acts on ("" = all)
};

/// `method.type`: a drawn design, or a PCE on a quadrature (collocation) or fitted (pce).
enum class MethodType { monte_carlo, lhs, sobol, collocation, pce };
inline constexpr EnumNames<MethodType, 5> kMethodTypeNames{{{{MethodType::monte_carlo, "monte-carlo"},
                                                             {MethodType::lhs, "lhs"},
                                                             {MethodType::sobol, "sobol"},
                                                             {MethodType::collocation, "collocation"},
                                                             {MethodType::pce, "pce"}}}};
/// The drawn designs' names (uq::SamplingMethod).
inline constexpr EnumNames<uq::SamplingMethod, 3> kSamplingNames{{{{uq::SamplingMethod::MonteCarlo, "monte-carlo"},
                                                                    {uq::SamplingMethod::LatinHypercube, "lhs"},
                                                                    {uq::SamplingMethod::Sobol, "sobol"}}}};
/// The quadrature of a projection: Smolyak sparse grid or tensor Gauss rule.
enum class Grid { sparse, tensor };
inline constexpr EnumNames<Grid, 2> kGridNames{{{{Grid::sparse, "sparse"}, {Grid::tensor, "tensor"}}}};

/// `method:` — how the samples are chosen (unset optionals take the defaults documented in
/// docs/config.md, which depend on the other options).
struct MethodOptions {
  MethodType type = MethodType::monte_carlo;
  std::optional<int> samples;         ///< method.samples
  int order = -1;                     ///< method.pce.order; −1 = auto (LOO up to max_order)
  std::optional<int> max_order;       ///< default: order if given, else 3
  std::optional<uq::FitMethod> fit;   ///< method.pce.fit; default: projection for collocation, else regression
  uq::SamplingMethod sampling = uq::SamplingMethod::LatinHypercube; ///< design of a regression PCE
  Grid grid = Grid::sparse;           ///< quadrature of a projection
  std::optional<int> level;           ///< sparse grid level (default: max_order)
  std::optional<int> points;          ///< tensor Gauss points per dimension (default: max_order + 1)

  bool sampling_type() const {
    return type == MethodType::monte_carlo || type == MethodType::lhs || type == MethodType::sobol;
  }
  /// The design of a drawn plan: the type itself for a sampling method, else `sampling`.
  uq::SamplingMethod design() const {
    if (!sampling_type()) return sampling;
    return type == MethodType::monte_carlo ? uq::SamplingMethod::MonteCarlo
           : type == MethodType::lhs       ? uq::SamplingMethod::LatinHypercube
                                           : uq::SamplingMethod::Sobol;
  }
  uq::FitMethod resolved_fit() const {
    return fit.value_or(type == MethodType::collocation ? uq::FitMethod::projection : uq::FitMethod::regression);
  }
  int resolved_max_order() const { return max_order.value_or(order > 0 ? order : 3); }
  /// True when the samples are drawn (a sampling method, or a regression PCE); false when they
  /// are the nodes of a quadrature rule.
  bool draws_samples() const {
    return sampling_type() || (type == MethodType::pce && resolved_fit() == uq::FitMethod::regression);
  }
};

/// Everything of a job that defines a campaign's samples and where its results go.
struct CampaignOptions {
  std::string source = "<job>";       ///< job file, for messages
  std::vector<ParameterSpec> params;  ///< `parameters:`, in job order
  MethodOptions method;
  std::uint64_t seed = 42;            ///< campaign.seed
  int ranks_per_sample = 1;           ///< campaign.ranks_per_sample
  int checkpoint_every = 10;          ///< campaign.checkpoint_every
  /// campaign.checkpoint_seconds: and at least this long since the loop began or the last checkpoint
  double checkpoint_seconds = 60;
  std::string output = "campaign.h5"; ///< output
  /// Canonical text of the job's model and outputs sections: part of the fingerprint, so a resume
  /// with a changed model is refused.
  std::string model_description;
  /// Where the method's keys live in the job, for messages: "method." (campaigns; method.samples,
  /// method.pce.max_order) or "reduce.stochastic." (stochastic bodies).
  std::string method_keys = "method.";

  /// The cross-option checks (InputError naming the job and the key; OptionError naming the field of
  /// ranks_per_sample, checkpoint_every, checkpoint_seconds). make_plan runs them.
  void check() const;
};

/// The samples of a campaign: everything that defines them, and nothing that depends on ranks.
struct Plan {
  std::vector<ParameterSpec> params;
  std::string method = "monte-carlo"; ///< monte-carlo | lhs | sobol | collocation | pce
  /// The PCE fitted to the samples (fit: projection on a quadrature's nodes, else regression; order
  /// −1 = chosen by LOO up to max_order) and campaign.seed (the design's draws, the surrogate's points).
  uq::FitOptions pce;
  std::string sampling = "lhs";       ///< design of a regression PCE
  Eigen::MatrixXd germ;               ///< N × d
  Eigen::MatrixXd theta;              ///< N × d physical values
  std::vector<double> weights;        ///< quadrature weights (projection), else empty
  int ranks_per_sample = 1;
  int checkpoint_every = 10;
  double checkpoint_seconds = 60;
  std::string output = "campaign.h5";
  /// Where the results go when the caller owns the file (a stochastic reduce writes its body into
  /// it and renames it onto `output` itself); empty: onto `output`, each time under a temporary name
  /// renamed at once (io/OutputFile.hpp), and a run whose every sample failed ends in an InputError.
  /// Not part of the fingerprint. The journal is `<output>.journal`.
  std::string results_path;
  std::string fingerprint;            ///< hash of everything that defines the samples and the model
  std::size_t size() const { return static_cast<std::size_t>(germ.rows()); }
  /// Physical parameters of sample @p i.
  std::vector<double> sample(std::size_t i) const;
  /// Parameter means (the nominal point models prepare at).
  std::vector<double> nominal() const;
};

/// Check @p o and generate the samples. Not collective (deterministic: same plan on every rank).
Plan make_plan(const CampaignOptions& o);

} // namespace flexuq::campaign
