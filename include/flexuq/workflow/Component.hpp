// SPDX-License-Identifier: MIT
#pragma once
/// @file Component.hpp
/// @brief The component of a `modes` or `reduce` run, from external matrices or from a mesh already
/// read, with the run's log lines: the readers' warnings and "<headline> <source> on N rank(s)".

#include "flexuq/core/Log.hpp"
#include "flexuq/fe/Component.hpp"
#include "flexuq/fe/MatrixComponent.hpp"

#include <mpi.h>

#include <memory>
#include <string>

namespace flexuq::workflow {

/// From model.matrices (phase "read+assemble matrices"). @note Collective.
std::unique_ptr<fe::Component> build_component(MPI_Comm comm, const fe::MatrixModelSpec& spec,
                                               const fe::ComponentOptions& options, log::PhaseTimes& times,
                                               const std::string& headline);
/// From a mesh (phase "partition+assemble"). @note Collective.
std::unique_ptr<fe::Component> build_component(MPI_Comm comm, io::Mesh mesh, const fe::ComponentOptions& options,
                                               log::PhaseTimes& times, const std::string& headline);

} // namespace flexuq::workflow
