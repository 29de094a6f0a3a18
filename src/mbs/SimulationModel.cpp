// SPDX-License-Identifier: MIT
#include "flexuq/mbs/SimulationModel.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/mbs/FlexibleBody.hpp"

#include <algorithm>
#include <cmath>

namespace flexuq::mbs {

SimulationModel::SimulationModel(SimulationJob job, std::vector<StiffnessParameter> stiffness,
                                 std::vector<std::string> outputs, std::vector<double> times,
                                 std::vector<std::string> parameter_names, std::vector<BodyProvider> providers)
    : job_(std::move(job)), stiffness_(std::move(stiffness)), times_(std::move(times)) {
  const System& sys = job_.system;
  for (const auto& b : sys.bodies()) nominal_.push_back(b.flex);
  for (auto& p : providers) {
    // Options are named by the constructor's arguments (OptionError): the caller knows their job keys.
    int b = -1;
    try {
      b = sys.body_index(p.body, "simulation model: {}");
    } catch (const InputError& e) {
      throw OptionError("providers", e.what());
    }
    FLEXUQ_REQUIRE_OPTION(b >= 0 && sys.bodies()[static_cast<std::size_t>(b)].flex, "providers",
                          "simulation model: {}." << p.body << ": the body is not flexible");
    // A body reduced again per sample has another basis at its interior nodes: a node output would
    // read the nominal file's rows. Interface points follow the new body's interfaces.
    for (const auto& os : job_.outputs)
      if (os.node >= 0 && os.body == b)
        throw OptionError("providers", FLEXUQ_MSG("simulation model: output '"
                                                  << os.name << "' is at node " << os.node << " of body '" << p.body
                                                  << "', which {} reduces again per sample: "
                                                     "give a point on an interface instead"));
    providers_.emplace_back(b, std::move(p));
  }
  for (const auto& [name, src] : job_.sources) {
    if (!src->stochastic) continue;
    Stochastic st{sys.body_index(name, "simulation model"), src, job_.flexible_options.at(name), {}};
    bool any = false;
    for (const auto& p : src->stochastic->names) {
      const auto it = std::find(parameter_names.begin(), parameter_names.end(), p);
      st.campaign_index.push_back(it == parameter_names.end() ? -1L : static_cast<long>(it - parameter_names.begin()));
      any = any || it != parameter_names.end();
    }
    if (any) stochastic_.push_back(std::move(st));
  }
  for (const auto& s : stiffness_)
    for (const auto& name : s.bodies) {
      const int b = sys.body_index(name, "simulation model: stiffness parameter");
      FLEXUQ_REQUIRE(b >= 0 && sys.bodies()[b].flex, "simulation model: body '" << name << "' is not flexible");
      FLEXUQ_REQUIRE(s.reference > 0 && std::isfinite(s.reference),
                     "simulation model: the reference value must be positive, got " << s.reference);
    }
  FLEXUQ_REQUIRE_OPTION(!outputs.empty(), "outputs", "simulation model: no outputs ({}: [names of the job's outputs])");
  FLEXUQ_REQUIRE_OPTION(!times_.empty(), "times", "simulation model: no times ({}: [t1, ...])");
  for (const auto& name : outputs) {
    std::size_t k = 0;
    while (k < job_.outputs.size() && job_.outputs[k].name != name) ++k;
    if (k == job_.outputs.size()) {
      std::string list;
      for (const auto& o : job_.outputs) list += (list.empty() ? "" : ", ") + o.name;
      throw InputError("simulation model: the simulate job has no output '" + name + "' (outputs: " + list + ")");
    }
    outputs_.push_back(k);
  }
  for (double t : times_)
    FLEXUQ_REQUIRE(t >= job_.solver.start && t <= job_.solver.end,
                   "simulation model: time " << t << " lies outside the simulation [" << job_.solver.start << ", "
                                             << job_.solver.end << "]");
  // Nothing after the last requested time is needed.
  job_.solver.end = *std::max_element(times_.begin(), times_.end());
  if (job_.solver.end <= job_.solver.start) job_.solver.end = job_.solver.start + job_.solver.step;
}

std::vector<std::size_t> SimulationModel::stochastic_parameters() const {
  std::vector<std::size_t> out;
  for (const auto& st : stochastic_)
    for (long k : st.campaign_index)
      if (k >= 0) out.push_back(static_cast<std::size_t>(k));
  return out;
}

std::map<std::string, std::size_t> SimulationModel::output_sizes() const {
  std::map<std::string, std::size_t> out;
  for (std::size_t k : outputs_) out[job_.outputs[k].name] = times_.size() * job_.outputs[k].columns().size();
  return out;
}

std::vector<double> sample_at(const std::vector<double>& time, const std::vector<double>& data, std::size_t k, double t) {
  FLEXUQ_REQUIRE(!time.empty() && data.size() == time.size() * k, "sample_at: table size mismatch");
  auto it = std::lower_bound(time.begin(), time.end(), t);
  std::size_t i1 = static_cast<std::size_t>(it - time.begin());
  if (i1 == time.size()) i1 = time.size() - 1;
  const std::size_t i0 = i1 == 0 ? 0 : i1 - 1;
  const double w = (i1 == i0 || time[i1] == time[i0]) ? 1.0 : std::clamp((t - time[i0]) / (time[i1] - time[i0]), 0.0, 1.0);
  std::vector<double> out(k);
  for (std::size_t c = 0; c < k; ++c) out[c] = (1 - w) * data[i0 * k + c] + w * data[i1 * k + c];
  return out;
}

Outputs SimulationModel::evaluate(const std::vector<double>& theta) {
  System& sys = job_.system;
  // Every sample starts from the nominal bodies: the result depends on θ only.
  std::vector<double> factor(nominal_.size(), 1.0);
  for (const auto& s : stiffness_) {
    FLEXUQ_REQUIRE(s.parameter < theta.size(), "simulation model: parameter index " << s.parameter << " out of range");
    const double f = theta[s.parameter] / s.reference;
    if (!(f > 0) || !std::isfinite(f))
      throw InputError(FLEXUQ_MSG("simulation model: stiffness factor " << f << " (parameter value " << theta[s.parameter]
                                                                         << ") must be positive"));
    for (const auto& name : s.bodies) factor[sys.body_index(name, "simulation model")] *= f;
  }
  if (stochastic_.empty() && providers_.empty()) {
    for (std::size_t b = 0; b < nominal_.size(); ++b)
      if (nominal_[b]) sys.replace_flexible(static_cast<int>(b), factor[b] == 1.0 ? nominal_[b] : rescaled(*nominal_[b], factor[b]));
  } else {
    // The stochastic and re-made bodies at this sample's θ, the system built again around them.
    std::vector<std::shared_ptr<const FlexibleData>> flex(nominal_.size());
    for (const auto& st : stochastic_) {
      std::vector<double> th = st.source->means();
      for (std::size_t k = 0; k < th.size(); ++k)
        if (st.campaign_index[k] >= 0) th[k] = theta.at(static_cast<std::size_t>(st.campaign_index[k]));
      flex[static_cast<std::size_t>(st.body)] = st.source->data(st.options, &th);
    }
    for (const auto& [b, p] : providers_) flex[static_cast<std::size_t>(b)] = p.make(theta);
    for (std::size_t b = 0; b < nominal_.size(); ++b) {
      if (!nominal_[b]) continue;
      const auto& d = flex[b] ? flex[b] : nominal_[b];
      flex[b] = factor[b] == 1.0 ? d : rescaled(*d, factor[b]);
    }
    rebuild_with(job_, flex); // from the joints and forces as given: nothing of the last sample remains
  }
  const SimulationResult r = runner_ ? runner_(job_) : run_simulation(job_);
  Outputs out;
  for (std::size_t k : outputs_) {
    const std::size_t cols = job_.outputs[k].columns().size();
    auto& v = out[job_.outputs[k].name];
    for (double t : times_) {
      const auto row = sample_at(r.time, r.outputs[k], cols, t);
      v.insert(v.end(), row.begin(), row.end());
    }
  }
  return out;
}

} // namespace flexuq::mbs
