// SPDX-License-Identifier: MIT
#pragma once
/// @file StaticReport.hpp
/// @brief The load path of a static solve as the text `flexuq static` logs (docs/nff.md): the
/// formulation, elements, DOFs and body frame, then per step λ, Newton iterations, halvings and the
/// displacement of one node, and the wall time and result file.

#include "flexuq/nl/Static.hpp"

#include <string>

namespace flexuq::nl {

/// The report of @p res on @p mesh solved with @p opt: node @p node (the first of set @p set) per
/// step; the last line names @p output.
std::string static_report(const StaticMesh& mesh, const StaticOptions& opt, const StaticResult& res, int node,
                          const std::string& set, const std::string& output);

} // namespace flexuq::nl
