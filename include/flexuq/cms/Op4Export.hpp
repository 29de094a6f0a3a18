// SPDX-License-Identifier: MIT
#pragma once
/// @file Op4Export.hpp
/// @brief A reduced body as Nastran OUTPUT4 matrices (`reduce.op4`), for Nastran (DMIG/INPUTT4
/// superelement assembly) and pyYeti/pyNastran users (docs/nastran.md).
///
/// Matrices, all real double precision:
/// - KAA, MAA (n × n, form 6): the reduced stiffness and mass ΦᵀKΦ, ΦᵀMΦ. When the basis keeps the
///   physical boundary coordinates (Craig–Bampton and the other constraint-mode methods), rows and
///   columns are in Nastran's a-set order: the boundary DOFs sorted by grid id then component, then
///   the generalised (q-set) coordinates in flexuq's column order. Otherwise flexuq's column order.
///   Boundary DOFs of grids with a displacement system (Nastran CD, io::Mesh::node_frames) are in
///   that system, as Nastran reports them (KAA = TᵀK̄T, T = the per-grid rotations); PHI rows too.
/// - BDOF (n_b × 2): grid id and component (1..6) of each boundary row of KAA, in that order.
///   Node DOFs carry the node's label; the DOFs of an RBE2/RBE3 reference point carry the grid id
///   given in Op4ExportOptions::reference_grids (a deck's RBE2 GN / RBE3 REFGRID), else 0.
/// - PHI (n_phi × n), PHIDOF (n_phi × 2): the basis at the physical DOFs of the nodes of the
///   chosen node sets (sorted by node label, then component), columns as KAA — the output
///   transformation matrix that recovers those displacements from the reduced coordinates.
///   Written only when sets are chosen.

#include "flexuq/cms/Reduction.hpp"
#include "flexuq/io/Op4.hpp"

#include <array>
#include <map>
#include <string>
#include <vector>

namespace flexuq::cms {

struct Op4ExportOptions {
  io::Op4Format format = io::Op4Format::binary;
  std::vector<std::string> phi_sets;   ///< node sets for PHI (empty: no PHI)
  std::map<int, long> reference_grids; ///< interface index → grid id of its reference-point DOFs
};

/// Order of the reduced coordinates in the file: entry r is the flexuq column written as row r.
/// @p bdof receives (grid, component 1..6) of the first n_b entries.
std::vector<int> op4_order(const WorkSpace& ws, const ReducedBasis& rb, const std::map<int, long>& reference_grids,
                           std::vector<std::array<long, 2>>* bdof);

/// Write KAA, MAA, BDOF (and PHI, PHIDOF) to @p path; rank 0 writes. @note Collective.
/// Throws InputError for an unknown PHI set.
void write_reduced_op4(const std::string& path, const WorkSpace& ws, const ReducedBasis& rb,
                       const Op4ExportOptions& options);

} // namespace flexuq::cms
