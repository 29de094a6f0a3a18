// SPDX-License-Identifier: MIT
#pragma once
/// @file DelayedModel.hpp
/// @brief A test knob (`model.delay_seconds`): every model of @p factory first sleeps @p seconds per
/// evaluation, so that kill-and-resume tests have time to stop a campaign mid-run.

#include "flexuq/core/Model.hpp"

namespace flexuq::campaign {

/// @p factory itself when @p seconds <= 0.
ModelFactory with_delay(ModelFactory factory, double seconds);

} // namespace flexuq::campaign
