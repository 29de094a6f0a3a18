// SPDX-License-Identifier: MIT
#pragma once
/// @file GsSplitBody.hpp
/// @brief The Ψ/Υ split of a reduction basis (seed 002 eqs 92–96, cms/Superelement.hpp) carried by the
/// body file (`/reduced/gs`, docs/hdf5-schema.md), so that a generalised superelement body (mbs/GsBody.hpp)
/// takes every basis the product builds: Hurty, Hintz AMM and CMM and Craig–Chang keep no physical
/// interface coordinates, and only the reduction knows the boundary rows Φ_b their split needs.
///  - attach_gs_split: at reduction, split_basis with the default Ψ̂ (default_psi_hat) into
///    ReducedBody::gs, or the reason it failed (a basis that cannot describe the interface coordinates
///    independently, or rigid motion);
///  - gs_split_body: the body in the split coordinates {q_IP; η} = S⁻¹ξ: K' = SᵀK̄S, M' = SᵀM̄S, the
///    invariants of Φ S (transform_invariants), the interface coordinates first with the interface labels
///    (physical: Ψ_IP = 1, Υ_IP = 0), then η with the labels of the columns Υ̂ came from, unscaled.

#include "flexuq/cms/ReducedBody.hpp"
#include "flexuq/cms/Reduction.hpp"

#include <string>

namespace flexuq::cms {

/// Split @p b (the basis @p body was made of, same Reducer) and store it in @p body.gs; when the split
/// fails, store the reason in body.gs.refused instead (no throw). @note Collective.
void attach_gs_split(Reducer& r, const ReducedBasis& b, ReducedBody& body);

/// Whether a GS body takes @p body through its split: a basis without physical interface coordinates
/// whose file says something of its split (the split, or why there is none).
bool uses_gs_split(const ReducedBody& body);

/// @p body in its split coordinates (see the file comment). Throws InputError naming @p source and
/// `/reduced/gs` when the file holds no split (with the reason the reduction gave).
ReducedBody gs_split_body(const ReducedBody& body, const std::string& source);

} // namespace flexuq::cms
