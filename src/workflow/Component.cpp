// SPDX-License-Identifier: MIT
#include "flexuq/workflow/Component.hpp"

#include "flexuq/core/Comm.hpp"

namespace flexuq::workflow {

namespace {

std::string on_ranks(MPI_Comm comm) { return " on " + std::to_string(Comm(comm).size()) + " rank(s)"; }

void log_warnings(MPI_Comm comm, const io::Mesh& mesh) {
  for (const auto& w : mesh.warnings) log::warn(comm, mesh.source + ": " + w);
}

} // namespace

std::unique_ptr<fe::Component> build_component(MPI_Comm comm, const fe::MatrixModelSpec& spec,
                                               const fe::ComponentOptions& options, log::PhaseTimes& times,
                                               const std::string& headline) {
  log::info(comm, headline + " matrices " + (spec.labels.empty() ? spec.stiffness.front().file.path : spec.labels) +
                      " (" + std::to_string(spec.stiffness.size()) + " stiffness, " + std::to_string(spec.mass.size()) +
                      " mass term(s))" + on_ranks(comm));
  std::unique_ptr<fe::Component> comp;
  {
    log::Phase p(comm, "read+assemble matrices", &times);
    comp = fe::make_matrix_component(comm, spec, options);
  }
  if (comp->is_external()) log_warnings(comm, comp->mesh());
  return comp;
}

std::unique_ptr<fe::Component> build_component(MPI_Comm comm, io::Mesh mesh, const fe::ComponentOptions& options,
                                               log::PhaseTimes& times, const std::string& headline) {
  log_warnings(comm, mesh);
  log::info(comm, headline + " " + mesh.source + on_ranks(comm));
  std::unique_ptr<fe::Component> comp;
  {
    log::Phase p(comm, "partition+assemble", &times);
    comp = std::make_unique<fe::Component>(comm, std::move(mesh), options);
  }
  if (comp->is_external()) log_warnings(comm, comp->mesh());
  return comp;
}

} // namespace flexuq::workflow
