// SPDX-License-Identifier: MIT
#pragma once
/// @file MbsTestUtil.hpp
/// @brief Shared by the mbs tests: run a System to the end recording every output state, and HHT
/// options with a tight Newton tolerance.

#include "flexuq/mbs/Integrator.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace flexuq::mbs::test {

struct Run {
  std::vector<State> states;
  std::vector<double> work; ///< non-conservative work up to each state
  RunStats stats;
  std::vector<std::string> dropped; ///< redundant rows found at t = 0
};

inline Run simulate(System& sys, const SolverOptions& o) {
  Integrator integ(sys, o);
  State s;
  Run r;
  r.dropped = integ.initialise(s);
  r.stats = integ.run(s, [&](const State& st, double w) {
    r.states.push_back(st);
    r.work.push_back(w);
  });
  return r;
}

inline SolverOptions hht(double h, double end, double alpha = -0.05) {
  SolverOptions o;
  o.scheme = Scheme::hht;
  o.alpha = alpha;
  o.step = h;
  o.min_step = std::min(1e-12, h);
  o.end = end;
  o.tol = 1e-12;
  return o;
}

} // namespace flexuq::mbs::test
