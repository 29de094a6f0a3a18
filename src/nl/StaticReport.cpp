// SPDX-License-Identifier: MIT
// The load-path report of `flexuq static` (moved from app/StaticCommand for issue #33's app bound).
#include "flexuq/nl/StaticReport.hpp"

#include "flexuq/nl/Nff.hpp"
#include "flexuq/nl/Svk.hpp"

#include <iomanip>
#include <sstream>

namespace flexuq::nl {

std::string static_report(const StaticMesh& mesh, const StaticOptions& opt, const StaticResult& res, int node,
                          const std::string& set, const std::string& output) {
  std::ostringstream os;
  os << "  " << formulation_name(opt.formulation) << ", " << mesh.elements.size() << " "
     << element_kind_name(mesh.kind) << " elements, " << mesh.num_nodes() * mesh.dim() << " DOFs"
     << (res.frame_node >= 0 ? ", body frame at node " + std::to_string(res.frame_node) : std::string()) << "\n";
  os << "   step    lambda   Newton  halvings   displacement of node " << node << " (" << set << ")\n";
  for (std::size_t k = 0; k < res.steps.size(); ++k) {
    const auto& s = res.steps[k];
    os << "  " << std::setw(5) << k + 1 << "  " << std::setw(8) << std::fixed << std::setprecision(4) << s.lambda << "  "
       << std::setw(6) << s.newton_iterations << "  " << std::setw(8) << s.cuts << " " << std::scientific
       << std::setprecision(6);
    for (double v : node_displacement(mesh, s, node)) os << std::setw(15) << v;
    os << "\n";
  }
  os << std::fixed << std::setprecision(3) << "  load path: " << res.seconds << " s; results: " << output;
  return os.str();
}

} // namespace flexuq::nl
