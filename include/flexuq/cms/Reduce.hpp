// SPDX-License-Identifier: MIT
#pragma once
/// @file Reduce.hpp
/// @brief The one reduction facade (issue #33 item 4): the chain basis → check-out → invariants →
/// cms::ReducedBody that `flexuq reduce` (app/ReduceCommand.cpp), the points and the nominal body of
/// a stochastic body (cms/StochasticBodyModel.cpp) and the stochastic Galerkin body
/// (sg/StochasticCb.cpp) share. Three entry points, one per way a caller holds its Reducer:
///  - reduce(ws, ...): a deterministic reduction, the Reducer made and dropped here;
///  - reduce(r, ...): a point of a sweep, one Reducer kept and re-targeted per point by the caller
///    (Reducer::update_operators), so its analyses and solver set-up serve every point;
///  - reduced_body_of(r, basis, ...): a basis made another way (aligned to a reference, a Galerkin
///    evaluation) with the Reducer that checks it out.
/// The check-out comes before the invariants (the order of `flexuq reduce`'s timed phases); the two
/// are independent, so the numbers are those of either order.

#include "flexuq/cms/ReducedBody.hpp"
#include "flexuq/cms/Reduction.hpp"

namespace flexuq::cms {

/// A reduction and everything made of it.
struct ReduceResult {
  ReducedBasis basis;     ///< working-space columns and reduced matrices
  Checkout checkout;      ///< against the full model (free_free full-model modes)
  Invariants invariants;  ///< floating-frame invariants of the basis
  ReducedBody body;       ///< make_reduced_body(ws, basis, invariants, checkout)
};

/// The check-out of @p basis with @p r (@p free_free full-model free-free modes compared; 0: none),
/// its invariants and its body. With @p times, the check-out and the invariants are timed there as
/// phases "check-out" and "invariants" (nothing is timed or logged without). @note Collective.
ReduceResult reduced_body_of(Reducer& r, ReducedBasis basis, int free_free, log::PhaseTimes* times = nullptr);

/// @p r builds the basis of @p build, then reduced_body_of. @note Collective.
ReduceResult reduce(Reducer& r, const BuildOptions& build, int free_free, log::PhaseTimes* times = nullptr);

/// The whole chain on @p ws: a Reducer with @p reducer, the basis of @p build, its check-out,
/// invariants and body. With @p times, the Reducer's own phase times follow the check-out and the
/// invariants there. @note Collective.
ReduceResult reduce(const WorkSpace& ws, const ReducerOptions& reducer, const BuildOptions& build, int free_free,
                    log::PhaseTimes* times = nullptr);

} // namespace flexuq::cms
