// SPDX-License-Identifier: MIT
#include "flexuq/sg/StochasticCb.hpp"

#include "flexuq/cms/Reduce.hpp"
#include "flexuq/cms/ReducedBodyBuild.hpp"
#include "flexuq/cms/StochasticBodyModel.hpp"
#include "flexuq/core/Assert.hpp"
#include "flexuq/la/Blas.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/core/Log.hpp"
#include "flexuq/fe/ModesFile.hpp"
#include "flexuq/la/Projection.hpp"
#include "flexuq/uq/Pce.hpp"

#include <cmath>
#include <memory>
#include <sstream>

namespace flexuq::sg {

void canonical_mode_signs(const cms::WorkSpace& ws, const std::vector<PetscInt>& interior,
                          std::vector<std::vector<double>>& modes) {
  constexpr int kProbes = 4;
  const auto nl = interior.size();
  std::vector<std::vector<double>> w(kProbes, std::vector<double>(nl));
  for (int j = 0; j < kProbes; ++j) {
    VecH p = cms::probe_field(ws, j);
    PetscInt lo = 0, hi = 0;
    FLEXUQ_PETSC(VecGetOwnershipRange(p.get(), &lo, &hi));
    const PetscScalar* a = nullptr;
    FLEXUQ_PETSC(VecGetArrayRead(p.get(), &a));
    for (std::size_t i = 0; i < nl; ++i) w[static_cast<std::size_t>(j)][i] = a[interior[i] - lo];
    FLEXUQ_PETSC(VecRestoreArrayRead(p.get(), &a));
  }
  std::vector<double> d(modes.size() * kProbes, 0.0);
  for (std::size_t s = 0; s < modes.size(); ++s) {
    FLEXUQ_ASSERT(modes[s].size() >= nl, "canonical_mode_signs: mode " << s << " is shorter than the interior slice");
    for (int j = 0; j < kProbes; ++j)
      for (std::size_t i = 0; i < nl; ++i) d[s * kProbes + static_cast<std::size_t>(j)] += modes[s][i] * w[static_cast<std::size_t>(j)][i];
  }
  FLEXUQ_MPI(MPI_Allreduce(MPI_IN_PLACE, d.data(), static_cast<int>(d.size()), MPI_DOUBLE, MPI_SUM, ws.comm()));
  for (std::size_t s = 0; s < modes.size(); ++s) {
    double best = 0;
    for (int j = 0; j < kProbes; ++j)
      if (std::abs(d[s * kProbes + static_cast<std::size_t>(j)]) > std::abs(best)) best = d[s * kProbes + static_cast<std::size_t>(j)];
    if (best < 0)
      for (double& x : modes[s]) x = -x;
  }
}

namespace {

std::vector<Mat> raw(const std::vector<MatH>& v) {
  std::vector<Mat> r;
  for (const auto& m : v) r.push_back(m.get());
  return r;
}

/// The Galerkin coefficients of every column on this rank's interior slice, and the working space
/// to evaluate the basis at a germ point in.
class Evaluator {
public:
  Evaluator(cms::WorkSpace& ws, fe::Component& comp, const fe::MaterialParametrisation& par,
            const std::vector<uq::PolynomialFamily>& families, const uq::MultiIndexSet& basis, PetscInt n_local,
            std::vector<std::vector<double>> constraint, std::vector<std::vector<double>> modes,
            const Eigen::MatrixXd& eigenvalues)
      : ws_(ws), comp_(comp), par_(par), families_(families), basis_(basis), nl_(n_local),
        constraint_(std::move(constraint)), modes_(std::move(modes)), eigenvalues_(eigenvalues) {
    const PetscInt* idx = nullptr;
    PetscInt n = 0;
    FLEXUQ_PETSC(ISGetLocalSize(ws_.is_i(), &n));
    FLEXUQ_ASSERT(n == nl_, "interior slice and block layout differ");
    FLEXUQ_PETSC(ISGetIndices(ws_.is_i(), &idx));
    interior_.assign(idx, idx + n);
    FLEXUQ_PETSC(ISRestoreIndices(ws_.is_i(), &idx));
    canonical_mode_signs(ws_, interior_, modes_);
  }

  /// The Craig–Bampton basis at germ point @p xi with K̄, M̄ of K(θ), M(θ). @note Collective (group).
  cms::ReducedBasis at(const Eigen::RowVectorXd& xi, const std::vector<double>& theta) {
    par_.apply(comp_, theta);
    ws_.refresh_operators();
    const Eigen::MatrixXd psi = uq::Pce::design_matrix(families_, basis_, xi); // 1 × P
    cms::ReducedBasis rb;
    rb.method = cms::Method::craig_bampton;
    rb.mode_interface = cms::ModeInterface::fixed;
    rb.physical_boundary = true;
    const auto& bd = ws_.boundary();
    for (std::size_t j = 0; j < constraint_.size(); ++j) {
      rb.columns.push_back(column(constraint_[j], psi, bd[j].work));
      rb.labels.push_back(bd[j].label);
      rb.kinds.push_back(cms::ColumnKind::boundary_dof);
    }
    for (std::size_t s = 0; s < modes_.size(); ++s) {
      rb.columns.push_back(column(modes_[s], psi, -1));
      rb.labels.push_back("fixed-interface mode " + std::to_string(s + 1));
      rb.kinds.push_back(cms::ColumnKind::fixed_interface_mode);
      rb.mode_eigenvalues.push_back((psi * eigenvalues_.col(static_cast<Eigen::Index>(s)))(0, 0));
    }
    rb.scale.assign(rb.columns.size(), 1.0);
    auto km = la::project_pair(ws_.K(), ws_.M(), rb.columns);
    rb.K = std::move(km.first);
    rb.M = std::move(km.second);
    const Eigen::VectorXd d = rb.M.diagonal().cwiseMax(1e-300).cwiseSqrt().cwiseInverse();
    const Eigen::VectorXd ev = blas::syev_values(d.asDiagonal() * rb.M * d.asDiagonal());
    rb.basis_rcond = ev.minCoeff() / ev.maxCoeff();
    return rb;
  }

private:
  /// Σ_k Ψ_k(ξ) c^(k) on the interior, 1 at working index @p unit (−1: none).
  VecH column(const std::vector<double>& c, const Eigen::MatrixXd& psi, PetscInt unit) const {
    VecH v = ws_.new_vector();
    PetscInt lo = 0, hi = 0;
    FLEXUQ_PETSC(VecGetOwnershipRange(v.get(), &lo, &hi));
    PetscScalar* a = nullptr;
    FLEXUQ_PETSC(VecGetArray(v.get(), &a));
    const auto nl = static_cast<std::size_t>(nl_);
    for (std::size_t i = 0; i < nl; ++i) {
      double x = 0;
      for (Eigen::Index k = 0; k < psi.cols(); ++k) x += psi(0, k) * c[static_cast<std::size_t>(k) * nl + i];
      a[interior_[i] - lo] = x;
    }
    if (unit >= lo && unit < hi) a[unit - lo] = 1.0;
    FLEXUQ_PETSC(VecRestoreArray(v.get(), &a));
    return v;
  }

  cms::WorkSpace& ws_;
  fe::Component& comp_;
  const fe::MaterialParametrisation& par_;
  const std::vector<uq::PolynomialFamily>& families_;
  const uq::MultiIndexSet& basis_;
  PetscInt nl_;
  std::vector<std::vector<double>> constraint_, modes_; ///< [column][k · n_local + i]
  Eigen::MatrixXd eigenvalues_;
  std::vector<PetscInt> interior_;
};

/// Node outputs as one message: [ok, n_keys, (key length, key chars, n values, values)…, reason].
std::vector<double> pack(const GalerkinCbNode& n) {
  std::vector<double> m{n.ok ? 1.0 : 0.0, static_cast<double>(n.outputs.size())};
  for (const auto& [k, v] : n.outputs) {
    m.push_back(static_cast<double>(k.size()));
    for (char ch : k) m.push_back(static_cast<double>(static_cast<unsigned char>(ch)));
    m.push_back(static_cast<double>(v.size()));
    m.insert(m.end(), v.begin(), v.end());
  }
  for (char ch : n.reason) m.push_back(static_cast<double>(static_cast<unsigned char>(ch)));
  return m;
}

GalerkinCbNode unpack(const std::vector<double>& m) {
  GalerkinCbNode n;
  std::size_t p = 0;
  n.ok = m.at(p++) != 0.0;
  const auto keys = static_cast<std::size_t>(m.at(p++));
  for (std::size_t k = 0; k < keys; ++k) {
    const auto len = static_cast<std::size_t>(m.at(p++));
    std::string key;
    for (std::size_t c = 0; c < len; ++c) key.push_back(static_cast<char>(static_cast<int>(m.at(p++))));
    const auto nv = static_cast<std::size_t>(m.at(p++));
    n.outputs[key].assign(m.begin() + static_cast<std::ptrdiff_t>(p), m.begin() + static_cast<std::ptrdiff_t>(p + nv));
    p += nv;
  }
  for (; p < m.size(); ++p) n.reason.push_back(static_cast<char>(static_cast<int>(m[p])));
  return n;
}

} // namespace

GalerkinCbResult galerkin_cb(const StochasticLayout& layout, fe::Component& comp, const fe::MaterialParametrisation& par,
                             const uq::StochasticSpace& space, const Eigen::MatrixXd& germ,
                             const std::vector<std::vector<double>>& theta, const std::vector<double>& nominal_germ,
                             const std::vector<double>& nominal_theta, const GalerkinCbOptions& opt) {
  const MPI_Comm world = layout.world();
  FLEXUQ_REQUIRE(comp.stiffness_terms().size() > 0, "sg: the component keeps no affine terms (needed for galerkin)");
  FLEXUQ_REQUIRE(germ.rows() == static_cast<Eigen::Index>(theta.size()) && germ.cols() == space.dim(),
                 "sg: " << germ.rows() << " germ points for " << theta.size() << " parameter points");
  GalerkinCbResult res;
  log::Phase phase(world, "sg: stochastic Craig-Bampton body");

  // The working space at the means, and the expansion of K (and M) carried into it.
  par.apply(comp, nominal_theta);
  cms::WorkSpace ws(comp, opt.interfaces);
  FLEXUQ_REQUIRE_OPTION(ws.n_boundary() > 0, "interfaces", "{}: a Craig-Bampton body needs at least one interface");
  const auto map = parametrisation_map(par);
  check_memory_for(world, space.dim(), opt.expansion.order, opt.eigen, ws.K(), static_cast<int>(ws.n_boundary()));
  const auto coef = expand_coefficients(space, map, opt.expansion);
  res.projection = coef.used;
  res.operator_terms = coef.basis.size();
  // The Galerkin products run on the affine terms (regroup_by_terms); of the expansion only the mean
  // K^(0) (and M^(0)) is assembled, for the mean problem and the preconditioner.
  auto terms_working = [&](const fe::AffineOperator& terms) {
    std::vector<MatH> w;
    for (Mat A : terms.terms()) w.push_back(ws.to_working(A));
    return w;
  };
  // The mean K^(0) = Σ_t c_0t K_t from the working terms (fe::AffineOperator::evaluate on them: the
  // terms share one nonzero pattern, and so do their congruences) rather than one more congruence
  // of the assembled mean: every WorkSpace::to_working is a symbolic + numeric PtAP, ~10 % of the
  // set-up of the 5.5 k-DOF bench body (docs/performance.md). Equal to round-off (T is no permutation).
  auto mean_of = [](const std::vector<MatH>& terms, const Eigen::MatrixXd& coefficients) {
    std::vector<MatH> w(1);
    FLEXUQ_PETSC(MatDuplicate(terms.at(0).get(), MAT_DO_NOT_COPY_VALUES, w[0].out()));
    FLEXUQ_PETSC(MatZeroEntries(w[0].get()));
    for (std::size_t k = 0; k < terms.size(); ++k)
      if (const double c = coefficients(0, static_cast<Eigen::Index>(k)); c != 0.0)
        FLEXUQ_PETSC(MatAXPY(w[0].get(), c, terms[k].get(), SAME_NONZERO_PATTERN));
    FLEXUQ_PETSC(MatSetOption(w[0].get(), MAT_SYMMETRIC, PETSC_TRUE));
    return w;
  };
  const std::vector<MatH> Ktw = terms_working(comp.stiffness_terms());
  const std::vector<MatH> Kw = mean_of(Ktw, coef.stiffness);
  std::vector<MatH> Mw, Mtw;
  if (map.n_mass > 0) {
    Mtw = terms_working(comp.mass_terms());
    Mw = mean_of(Mtw, coef.mass);
  } else {
    Mw.emplace_back();
    FLEXUQ_PETSC(MatDuplicate(ws.M(), MAT_COPY_VALUES, Mw.back().out()));
  }
  std::vector<MatH> Kii, Kib, Mii, Mib, Ktii, Ktib, Mtii, Mtib;
  split_terms(raw(Kw), ws.is_i(), ws.is_b(), Kii, Kib);
  split_terms(raw(Mw), ws.is_i(), ws.is_b(), Mii, Mib);
  split_terms(raw(Ktw), ws.is_i(), ws.is_b(), Ktii, Ktib);
  if (!Mtw.empty()) split_terms(raw(Mtw), ws.is_i(), ws.is_b(), Mtii, Mtib);

  // Fixed-interface modes: the SG eigen solver on (K_ii(ξ), M_ii(ξ)).
  // The body's basis needs the span of every stochastic multiplet, smooth in ξ: the iteration's own
  // basis of it, not modes tracked node by node (EigenOptions::track_multiplets).
  EigenOptions eigen = opt.eigen;
  eigen.track_multiplets = false;
  EigenSolver solver(layout, space.families(), coef.basis, raw(Kii), raw(Mii), eigen);
  solver.set_terms(raw(Ktii), coef.stiffness, raw(Mtii), coef.mass);
  EigenResult er = [&] {
    try {
      return solver.solve();
    } catch (const InputError& e) { // the solver's message, then the option that made the operator
      throw OptionError("interfaces", "{} hold the body in a Craig-Bampton reduction")
          .wrapped(std::string(e.what()) + " (the interior operator: ", ")");
    }
  }();
  if (!er.converged)
    log::warn(world, FLEXUQ_MSG("sg: the Galerkin iteration of the fixed-interface modes did not converge in "
                                << er.iterations << " sweeps (sine " << er.change << ")"));

  // Constraint modes: (Σ Δ⊗K_ii^(a)) Ψ̄ = −(Σ Δ⊗K_ib^(a)) (e_0 ⊗ I_b), on the same solution basis.
  const int P = er.basis.size();
  auto tensor = std::make_shared<const TripleTensor>(
      regroup_by_terms(triple_tensor(space.families(), coef.basis, er.basis), coef.stiffness));
  const BlockSpace blocks(layout, P, Kii[0].get());
  ConstraintModeOptions constraint = opt.constraint;
  constraint.preconditioner = opt.eigen.preconditioner;
  const auto cm = solve_constraint_modes(blocks, tensor, raw(Ktii), raw(Ktib), constraint, Kii[0].get());
  res.constraint_pcg_iterations = cm.pcg_iterations;
  res.constraint_residual = cm.max_relative_residual;

  // Every block of this rank's spatial slice, per column (the group evaluates any node from them).
  auto gather = [&](const std::vector<VecH>& vs) {
    std::vector<std::vector<double>> all(vs.size());
    for (std::size_t j = 0; j < vs.size(); ++j) blocks.gather_all(vs[j].get(), all[j]);
    return all;
  };
  auto constraint_blocks = gather(cm.modes); // collective: one after the other on every rank
  auto mode_blocks = gather(er.modes);
  er.modes.clear(); // every rank now holds its slices; the world block vectors are not needed any more
  Evaluator ev(ws, comp, par, space.families(), er.basis, blocks.n_local(), std::move(constraint_blocks),
               std::move(mode_blocks), er.eigenvalues);

  const MPI_Comm group = layout.group();
  int grank = 0, wrank = 0;
  MPI_Comm_rank(group, &grank);
  MPI_Comm_rank(world, &wrank);
  std::unique_ptr<fe::NaturalLayout> natural;
  if (opt.basis) natural = std::make_unique<fe::NaturalLayout>(comp);

  // The body at the means (group 0, whose leader is world rank 0), with the full-model check-out.
  if (layout.group_index() == 0) {
    Eigen::RowVectorXd xi(static_cast<Eigen::Index>(nominal_germ.size()));
    for (std::size_t k = 0; k < nominal_germ.size(); ++k) xi(static_cast<Eigen::Index>(k)) = nominal_germ[k];
    cms::ReducedBasis rb = ev.at(xi, nominal_theta);
    cms::Reducer reducer(ws, opt.reducer);
    cms::ReduceResult red = cms::reduced_body_of(reducer, std::move(rb), opt.free_free);
    auto basis = natural ? cms::gather_basis(ws, *natural, red.basis.columns) : std::vector<double>{};
    if (wrank == 0) {
      res.nominal = std::move(red.body);
      res.nominal_basis = std::move(basis);
    }
  }

  // The nodes: node q on group q mod n_groups; the group leader sends each to world rank 0.
  const auto N = static_cast<std::size_t>(germ.rows());
  const int G = layout.n_groups(), g = layout.group_index(), rpg = layout.ranks_per_group();
  std::size_t mine = 0;
  for (std::size_t q = static_cast<std::size_t>(g); q < N; q += static_cast<std::size_t>(G)) ++mine;
  log::Progress progress(world, "sg: body at the Gauss nodes", static_cast<long long>(mine));
  std::map<std::size_t, GalerkinCbNode> local;
  std::size_t done = 0;
  for (std::size_t q = static_cast<std::size_t>(g); q < N; q += static_cast<std::size_t>(G)) {
    GalerkinCbNode node;
    try {
      const cms::ReducedBasis rb = ev.at(germ.row(static_cast<Eigen::Index>(q)), theta[q]);
      node.outputs =
          cms::point_outputs(ws, rb, cms::compute_invariants(ws, rb), natural.get(), opt.free_free, opt.free_free_key);
    } catch (const std::exception& e) { // an inadmissible θ or a lost rigid-body count: this node only
      node.ok = false;
      node.reason = e.what();
      node.outputs.clear();
    }
    if (grank == 0) local.emplace(q, std::move(node));
    progress.update(static_cast<long long>(++done));
  }
  if (wrank == 0) res.nodes.resize(N);
  for (std::size_t q = 0; q < N; ++q) {
    const int owner = static_cast<int>(q % static_cast<std::size_t>(G)) * rpg;
    if (owner == 0) {
      if (wrank == 0) res.nodes[q] = std::move(local.at(q));
    } else if (wrank == owner) {
      const auto m = pack(local.at(q));
      FLEXUQ_MPI(MPI_Send(m.data(), static_cast<int>(m.size()), MPI_DOUBLE, 0, 7300, world));
    } else if (wrank == 0) {
      MPI_Status st;
      FLEXUQ_MPI(MPI_Probe(owner, 7300, world, &st));
      int count = 0;
      FLEXUQ_MPI(MPI_Get_count(&st, MPI_DOUBLE, &count));
      std::vector<double> m(static_cast<std::size_t>(count));
      FLEXUQ_MPI(MPI_Recv(m.data(), count, MPI_DOUBLE, owner, 7300, world, MPI_STATUS_IGNORE));
      res.nodes[q] = unpack(m);
    }
  }
  FLEXUQ_MPI(MPI_Barrier(world));
  res.eigen = std::move(er); // after the last use of the nodes' evaluator (it refers to er.basis)
  return res;
}

} // namespace flexuq::sg
