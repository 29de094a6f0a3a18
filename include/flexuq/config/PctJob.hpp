// SPDX-License-Identifier: MIT
#pragma once
/// @file PctJob.hpp
/// @brief A `flexuq simulate` job with `uncertainty: {method: galerkin}` (docs/pct.md, docs/config.md)
/// as pct's typed job: the mechanism in planar coordinates (`planar:` bodies, joints, torques with
/// Adams steps, springs, gravity), the uncertain parameters and the data they move, the
/// generalized-α solver, the outputs and the result file.

#include "flexuq/config/Config.hpp"
#include "flexuq/pct/Job.hpp"

namespace flexuq::io {

/// Parse a PCT simulate job. @throws InputError naming the file, key and line.
pct::PctJob parse_pct_job(const Config& cfg);

} // namespace flexuq::io
