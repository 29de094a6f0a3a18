// SPDX-License-Identifier: MIT
#pragma once
// Helpers for CMS tests: the steel box they reduce, interface lists, a component + working space +
// Reducer fixture, and the dense spectrum of a reduced pair. Only tests that link flexuq_cms
// include it.
#include "FeTestUtil.hpp"

#include "flexuq/cms/Reduction.hpp"

#include <Eigen/Dense>

#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

namespace flexuq::test {

/// A free 0.3 × 0.1 × 0.05 m steel box (E = 2e11, ν = 0.3, ρ = 7800) of 8 × @p ny × 2 hex8 cells,
/// with the generator's face sets (XMIN, XMAX, …). Append "  fixed: [XMIN]\n" to clamp a face.
inline std::string steel_box_yaml(int ny = 2) {
  return "\nmodel:\n  generator: {type: box, size: [0.3, 0.1, 0.05], cells: [8, " + std::to_string(ny) +
         ", 2], order: 1}\n  material: {E: 2.0e11, nu: 0.3, rho: 7800}\n";
}

/// Interfaces on the node sets @p sets, all of kind @p k (reference point: the set's centroid;
/// uniform RBE3 weights).
inline std::vector<cms::InterfaceSpec> interfaces(std::initializer_list<const char*> sets,
                                                  cms::InterfaceKind k = cms::InterfaceKind::all_dofs) {
  std::vector<cms::InterfaceSpec> out;
  for (const char* s : sets) out.push_back({s, k, std::nullopt, {}});
  return out;
}

/// Eigenvalues of the dense symmetric pencil (K, M), ascending.
inline Eigen::VectorXd pencil_eigenvalues(const Eigen::MatrixXd& K, const Eigen::MatrixXd& M) {
  Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> es(K, M, Eigen::EigenvaluesOnly);
  return es.eigenvalues();
}

/// @brief A component, its working space for a list of interfaces and a Reducer asking for a count
/// of normal modes (and residual vectors at the given node sets). @note Collective.
struct CmsFixture {
  std::unique_ptr<fe::Component> comp;
  std::unique_ptr<cms::WorkSpace> ws;
  std::unique_ptr<cms::Reducer> red;
  CmsFixture(std::unique_ptr<fe::Component> c, const std::vector<cms::InterfaceSpec>& specs, int modes,
             std::vector<std::string> residual_loads = {})
      : comp(std::move(c)) {
    ws = std::make_unique<cms::WorkSpace>(*comp, specs);
    cms::ReducerOptions o;
    o.modes.count = modes;
    o.residual_loads = std::move(residual_loads);
    red = std::make_unique<cms::Reducer>(*ws, o);
  }
  /// Columns mapped back to the component's DOFs (through the RBE2/RBE3 congruence), in natural
  /// order, replicated. @note Collective.
  Eigen::MatrixXd physical_columns(const std::vector<VecH>& v) const {
    std::vector<VecH> phys;
    for (const auto& w : v) phys.push_back(ws->to_physical(w.get()));
    return natural_columns(*comp, phys);
  }
};

} // namespace flexuq::test
