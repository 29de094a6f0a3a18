// SPDX-License-Identifier: MIT
#pragma once
/// @file ModesFile.hpp
/// @brief Distributed DOF vectors → node-ordered blocks in the input's node order, and the
/// `flexuq modes` result file (HDF5 + XDMF; docs/hdf5-schema.md).

#include "flexuq/core/Handle.hpp"
#include "flexuq/fe/Component.hpp"
#include "flexuq/fe/Modes.hpp"
#include "flexuq/io/Hdf5File.hpp"

#include <string>
#include <vector>

namespace flexuq::fe {

/// @brief Scatter from the solver's DOF numbering to the "natural" layout: node i of the input
/// (internal index order) × component, split over ranks in contiguous node blocks. Fixed DOFs are 0.
class NaturalLayout {
public:
  /// @note Collective.
  explicit NaturalLayout(const Component& c);
  std::uint64_t node_begin() const { return node_begin_; }
  std::uint64_t node_end() const { return node_end_; }
  /// Row-major block [local node][component][vector] for @p vs. @note Collective.
  std::vector<double> gather(const std::vector<Vec>& vs) const;

private:
  int dpn_;
  std::uint64_t node_begin_ = 0, node_end_ = 0;
  VecH natural_;
  ScatterH scatter_;
};

/// Write /modes (eigenvalues, frequencies_hz, vectors, residuals, multiplicity, rigid-body modes)
/// and /mesh to @p path, and an .xdmf beside it. @note Collective.
void write_modes_file(const std::string& path, const Component& c, const ModeSet& modes,
                      const std::vector<std::pair<std::string, double>>& phase_seconds);

/// Rows of @p vs projected onto a dense, replicated matrix V^T A W (small sizes). @note Collective.
std::vector<double> dense_projection(Mat A, const std::vector<Vec>& V, const std::vector<Vec>& W);

} // namespace flexuq::fe
