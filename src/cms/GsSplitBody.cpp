// SPDX-License-Identifier: MIT
#include "flexuq/cms/GsSplitBody.hpp"

#include "flexuq/cms/FloatingFrame.hpp"
#include "flexuq/cms/Superelement.hpp"
#include "flexuq/core/Error.hpp"

#include <string>
#include <vector>

namespace flexuq::cms {

void attach_gs_split(Reducer& r, const ReducedBasis& b, ReducedBody& body) {
  body.gs = GsSplitData{};
  // The split's dense n_b × n_b work (SVD, LU) costs O(n_b³): 0.3 s at 300; a gs body moves by a few
  // 6-coordinate reference points, so large node interfaces are not split.
  constexpr std::size_t kMaxBoundary = 300;
  const std::size_t nb = r.space().n_boundary();
  if (nb > kMaxBoundary) {
    body.gs.refused = "not split: " + std::to_string(nb) + " boundary coordinates (more than " +
                      std::to_string(kMaxBoundary) + "; a gs body moves by RBE2/RBE3 reference points, 6 coordinates each)";
    return;
  }
  try {
    const GsSplit s = split_basis(r, b);
    GsSplitData& g = body.gs;
    g.S = s.S;
    g.psi_rcond = s.psi_rcond;
    g.rigid_residual = s.rigid_residual;
    std::vector<char> hat(b.labels.size(), 0);
    for (const Eigen::Index j : s.psi_hat) {
      g.psi_hat.push_back(static_cast<std::int64_t>(j));
      hat[static_cast<std::size_t>(j)] = 1;
    }
    g.labels = body.interface_labels;
    for (std::size_t j = 0; j < b.labels.size(); ++j)
      if (!hat[j]) g.labels.push_back(b.labels[j]);
  } catch (const InputError& e) { // the same dense data on every rank: every rank lands here alike
    body.gs = GsSplitData{};
    body.gs.refused = e.what();
  }
}

bool uses_gs_split(const ReducedBody& body) {
  return body.physical_boundary == 0 && (body.gs.present() || !body.gs.refused.empty());
}

ReducedBody gs_split_body(const ReducedBody& body, const std::string& source) {
  const GsSplitData& g = body.gs;
  if (!g.present())
    throw InputError(source + ": /reduced/gs: the basis (" + body.method +
                     ") keeps no physical interface coordinates and was not split into interface-point and internal "
                     "coordinates when it was reduced" +
                     (g.refused.empty() ? std::string(" (a file older than the split: reduce the body again)")
                                        : ": " + g.refused));
  const Eigen::Index n = body.n_columns(), nb = static_cast<Eigen::Index>(g.psi_hat.size());
  FLEXUQ_REQUIRE(g.S.rows() == n && g.S.cols() == n && static_cast<Eigen::Index>(g.labels.size()) == n &&
                     static_cast<Eigen::Index>(body.interface_labels.size()) == nb,
                 source << ": /reduced/gs does not fit the body's " << n << " columns and " << body.interface_labels.size()
                        << " interface coordinates");
  ReducedBody s;
  s.method = body.method;
  s.mode_interface = body.mode_interface;
  const Eigen::MatrixXd K = g.S.transpose() * body.K * g.S, M = g.S.transpose() * body.M * g.S;
  s.K = 0.5 * (K + K.transpose());
  s.M = 0.5 * (M + M.transpose());
  s.dof_labels = g.labels;
  std::vector<char> hat(static_cast<std::size_t>(n), 0);
  for (const auto j : g.psi_hat) hat[static_cast<std::size_t>(j)] = 1;
  s.column_kinds.assign(static_cast<std::size_t>(nb), "boundary_dof");
  for (Eigen::Index j = 0; j < n; ++j) {
    if (hat[static_cast<std::size_t>(j)]) continue;
    const std::string& k = body.column_kinds[static_cast<std::size_t>(j)];
    // Υ = Υ̂ − Ψ Υ̂_IP: vanishes at the interfaces, whatever the column was.
    s.column_kinds.push_back(k == "boundary_dof" || k == "constraint_mode" ? std::string("internal") : k);
  }
  s.column_scale = Eigen::VectorXd::Ones(n); // Φ S: the interface coordinates are physical, η as split
  s.mode_eigenvalues = body.mode_eigenvalues;
  s.interface_labels = body.interface_labels;
  s.interface_points = body.interface_points;
  s.n_boundary = body.n_boundary;
  s.physical_boundary = 1;
  s.dofs_per_node = body.dofs_per_node;
  s.basis_rcond = body.basis_rcond;
  s.invariants = transform_invariants(body.invariants, g.S);
  return s;
}

} // namespace flexuq::cms
