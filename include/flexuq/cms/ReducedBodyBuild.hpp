// SPDX-License-Identifier: MIT
#pragma once
/// @file ReducedBodyBuild.hpp
/// @brief Making a cms::ReducedBody from a reduction: the floating-frame invariants (Shabana's
/// inertia shape integrals, body frame = mesh frame, origin O) from the distributed basis, the
/// model check-out a Nastran user expects of a CB model, and the result file (`/reduced` with the
/// basis, `/mesh`, docs/hdf5-schema.md). Readers of a result need only cms/ReducedBody.hpp.

#include "flexuq/cms/ReducedBody.hpp"
#include "flexuq/cms/Reduction.hpp"

#include <Eigen/Dense>

#include <array>
#include <string>
#include <vector>

namespace flexuq::fe {
class NaturalLayout;
}

namespace flexuq::cms {

/// @note Collective. Solids: exact with the consistent mass (M = M_s ⊗ 1₃). Beams: I5–I7 from the
/// lumped translational masses (row sums), the rest exact.
Invariants compute_invariants(const WorkSpace& ws, const ReducedBasis& rb);
/// The same for columns given in the component's (physical) space with the component's current
/// M(θ), and @p Mff = ΦᵀMΦ (for bases that are not a Reducer's, e.g. POD bodies). @note Collective.
Invariants compute_invariants(const fe::Component& comp, const std::vector<VecH>& physical, const Eigen::MatrixXd& Mff);
/// The general path (one mass application per column and component, lifted into slot 0), used for
/// beams; for solids it gives the same numbers as compute_invariants and serves as its test oracle.
/// @note Collective.
Invariants compute_invariants_by_lifting(const WorkSpace& ws, const ReducedBasis& rb);

/// @param free_free number of full-model free-free elastic modes to compare (0: skip; costs one
/// factorization of the free component). @note Collective.
Checkout checkout(Reducer& r, const ReducedBasis& rb, int free_free);
std::string checkout_summary(const ReducedBasis& rb, const Checkout& c);
/// The check-out of a body known only by its reduced pair and invariants (no FE model: a POD body at
/// θ): rigid-mode residuals (expanded quadratic form, resolution ~1e-8), strain energies, full and
/// reduced mass properties, reduced free-free frequencies and floating-frame coordinates; no full-model
/// frequencies, no effective masses (the columns are not normal modes). Replicated, no MPI.
Checkout checkout_from_invariants(const Invariants& inv, const Eigen::MatrixXd& K, const Eigen::MatrixXd& M);

/// The value of a reduction: K̄, M̄, labels and kinds from @p rb, boundary labels from @p ws, the
/// invariants and the check-out (with its floating-frame coordinates). Replicated.
ReducedBody make_reduced_body(const WorkSpace& ws, const ReducedBasis& rb, const Invariants& inv, const Checkout& chk);

/// Write /reduced (ReducedBody::write of @p body, the value of @p rb, plus the basis in input node order),
/// /mesh and an .xdmf. @note Collective.
void write_reduced_file(const std::string& path, const WorkSpace& ws, const ReducedBasis& rb, const ReducedBody& body,
                        const std::vector<std::pair<std::string, double>>& phase_seconds);
/// The same with make_reduced_body(ws, rb, inv, chk) (no split, /reduced/gs). @note Collective.
void write_reduced_file(const std::string& path, const WorkSpace& ws, const ReducedBasis& rb, const Invariants& inv,
                        const Checkout& chk, const std::vector<std::pair<std::string, double>>& phase_seconds);
/// A partition-independent field in the working space, value sin(a·x + b·y + c·z + d) at every node
/// DOF (a, b, c, d differ per @p j and component; zero at RBE2/RBE3 reference DOFs): inner products
/// with it fix the sign and multiplet basis of modes the same way on any number of ranks. @note Collective.
VecH probe_field(const WorkSpace& ws, int j);
/// The working-space @p columns in input node order (nodes × dofs per node × columns, row-major),
/// complete on rank 0 of the space's communicator (empty elsewhere). @note Collective.
std::vector<double> gather_basis(const WorkSpace& ws, const fe::NaturalLayout& natural, const std::vector<VecH>& columns);
/// <prefix>_K.mtx and <prefix>_M.mtx (MatrixMarket, dense array, symmetric). Rank 0 writes.
void write_matrix_market(MPI_Comm comm, const std::string& prefix, const ReducedBasis& rb);

} // namespace flexuq::cms
