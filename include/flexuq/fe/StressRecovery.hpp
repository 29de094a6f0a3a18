// SPDX-License-Identifier: MIT
#pragma once
/// @file StressRecovery.hpp
/// @brief Nodal stresses of displacement fields on solid and 2-D elements: the stress modes of a reduced
/// body (modal stress recovery), σ(t) = S ξ(t) at any node for the cost of a small product.
///
/// Per solid element and per element node a (its natural coordinates), the physical gradients of
/// the shape functions give ∇u = Σ_b u_b ⊗ ∇N_b(ξ_a), ε = sym ∇u and σ = λ tr(ε) I + 2μ ε with the
/// element's material; each node takes the mean over the solid elements that hold it (the usual
/// averaged nodal stress; exact for a linear displacement field, whatever the mesh — the patch test).
/// Beam elements carry no stress here: nodes of beams only get 0 and are counted as not covered.

#include "flexuq/io/Mesh.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace flexuq::fe {

class Component;

/// Voigt order of the six components: σxx, σyy, σzz, σxy, σyz, σzx.
inline constexpr const char* kStressComponents = "sxx,syy,szz,sxy,syz,szx";

/// Nodal stresses of @p m displacement fields @p u (nodes × dpn × m, row-major, columns fastest, the
/// mesh's node order; the first three components of each node are its translations) on the solid
/// elements of @p mesh, with Young's modulus @p E and Poisson's ratio @p nu per element. Returns
/// nodes × 6 × m in the same layout. @p covered (optional) gets per node whether a solid element
/// holds it. Throws InputError when the mesh has no solid element or dpn < 3, naming @p who.
/// A 2-D mesh (dpn 2, fe/Plane.hpp): its quad4/quad8/tri3/tri6 elements the same way from the
/// in-plane strain, with @p plane_strain per element (1: plane strain, σ_zz = λ(ε_xx + ε_yy); 0: plane
/// stress, σ_zz = 0); σ_yz = σ_zx = 0.
std::vector<double> nodal_stresses(const io::Mesh& mesh, const std::vector<double>& E, const std::vector<double>& nu,
                                   const double* u, int dpn, int m, const std::string& who,
                                   std::vector<char>* covered = nullptr, const std::vector<char>* plane_strain = nullptr);

/// The same with each element's (E, ν) from @p c's material groups (its nominal materials).
std::vector<double> nodal_stresses(const Component& c, const double* u, int dpn, int m);

// The von Mises equivalent of a Voigt stress: la::von_mises (la/Mechanics.hpp, shared with mbs).

} // namespace flexuq::fe
