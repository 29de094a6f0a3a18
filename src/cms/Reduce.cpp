// SPDX-License-Identifier: MIT
#include "flexuq/cms/Reduce.hpp"

#include "flexuq/cms/GsSplitBody.hpp"
#include "flexuq/cms/ReducedBodyBuild.hpp"

#include <optional>
#include <utility>

namespace flexuq::cms {

ReduceResult reduced_body_of(Reducer& r, ReducedBasis basis, int free_free, log::PhaseTimes* times) {
  const WorkSpace& ws = r.space();
  ReduceResult res;
  res.basis = std::move(basis);
  {
    std::optional<log::Phase> p;
    if (times) p.emplace(ws.comm(), "check-out", times);
    res.checkout = checkout(r, res.basis, free_free);
  }
  {
    std::optional<log::Phase> p;
    if (times) p.emplace(ws.comm(), "invariants", times);
    res.invariants = compute_invariants(ws, res.basis);
  }
  res.body = make_reduced_body(ws, res.basis, res.invariants, res.checkout);
  attach_gs_split(r, res.basis, res.body); // /reduced/gs: the generalised superelement's coordinates
  return res;
}

ReduceResult reduce(Reducer& r, const BuildOptions& build, int free_free, log::PhaseTimes* times) {
  return reduced_body_of(r, r.build(build), free_free, times);
}

ReduceResult reduce(const WorkSpace& ws, const ReducerOptions& reducer, const BuildOptions& build, int free_free,
                    log::PhaseTimes* times) {
  Reducer r(ws, reducer);
  ReduceResult res = reduce(r, build, free_free, times);
  if (times) {
    const auto& rt = r.times();
    for (std::size_t k = 0; k < rt.entries().size(); ++k)
      times->add(rt.entries()[k].first, rt.entries()[k].second, rt.memory()[k].first, rt.memory()[k].second);
  }
  return res;
}

} // namespace flexuq::cms
