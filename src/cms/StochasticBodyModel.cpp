// SPDX-License-Identifier: MIT
#include "flexuq/cms/StochasticBodyModel.hpp"

#include "flexuq/cms/FloatingFrame.hpp"
#include "flexuq/cms/Reduce.hpp"
#include "flexuq/cms/ReducedBodyBuild.hpp"
#include "flexuq/cms/StochasticBody.hpp"
#include "flexuq/core/Assert.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/fe/BlockOps.hpp"
#include "flexuq/fe/ModeTracking.hpp"
#include "flexuq/fe/ModesFile.hpp"
#include "flexuq/la/Clusters.hpp"

#include <cmath>
#include <sstream>

namespace flexuq::cms {

namespace {

bool is_mode(ColumnKind k) {
  return k == ColumnKind::fixed_interface_mode || k == ColumnKind::free_interface_mode ||
         k == ColumnKind::mixed_interface_mode;
}

std::vector<double> row_major(const Eigen::MatrixXd& A) {
  std::vector<double> v(static_cast<std::size_t>(A.size()));
  for (Eigen::Index i = 0; i < A.rows(); ++i)
    for (Eigen::Index j = 0; j < A.cols(); ++j) v[static_cast<std::size_t>(i * A.cols() + j)] = A(i, j);
  return v;
}

} // namespace

void validate_stochastic(const StochasticReduceOptions& o, const std::string& source) {
  // Options named by their fields (OptionError): the caller names the job keys.
  const auto require = [&](bool ok, const char* option, const std::string& message) {
    if (!ok) throw OptionError(option, message).wrapped(source + ": ");
  };
  require(o.build.method != Method::gcms, "method",
          "{}: gcms cannot be expanded by {stochastic} (its psi-field columns change in number and meaning with "
          "the parameters); use a constraint-mode method (craig-bampton, herting, hurty, ...)");
  require(o.build.scaling == Scaling::none, "scaling",
          "{} must be none with {stochastic} (per-point column scales would mix into the expansion of the reduced "
          "matrices)");
  require(!o.reducer.modes.band_hz, "modes.band",
          "{} cannot be used with {stochastic} (the number of modes would change from point to point); give "
          "{modes.count}");
  require(o.min_mac > 0 && o.min_mac <= 1, "stochastic.min_mac", FLEXUQ_MSG("{} must be in (0, 1], got " << o.min_mac));
  require(o.free_free >= 0, "checkout.free_free", "{} must be >= 0");
}

struct StochasticBodyModel::Point {
  ReducedBasis rb;         ///< aligned with the reference (reference column order)
  Invariants inv;
  double min_mac = 1.0;
  Eigen::VectorXd free_free_hz;
  /// Exact scaling: D's diagonal (the basis is Φ0 D; 1 on boundary/constraint columns, 1/√b on modes).
  std::vector<double> column_scale;
};

StochasticBodyModel::StochasticBodyModel(MPI_Comm comm, io::Mesh mesh, fe::ComponentOptions component,
                                         StochasticReduceOptions options)
    : comm_(comm), opt_(std::move(options)) {
  component.keep_affine = true;
  comp_ = std::make_unique<fe::Component>(comm_.get(), std::move(mesh), component);
  params_ = std::make_unique<fe::MaterialParametrisation>(*comp_, opt_.parameters);
  scaled_ = opt_.exact_scaling && params_->scales_uniformly() &&
            (opt_.build.method == Method::craig_bampton || opt_.build.method == Method::guyan) &&
            !opt_.build.residual_vectors;
  if (scaled_) {
    // The reference's K and M, then no more affine terms: every point is the reference scaled.
    params_->apply(*comp_, opt_.nominal);
    comp_->release_affine();
  } else {
    // Terms that stay proportional are kept as one (e.g. lambda and mu of a group whose nu no
    // parameter sets, the groups of an E given to the whole component): fewer matrices held.
    const auto sets = params_->proportional_terms();
    const auto c0 = params_->coefficients(opt_.nominal); // weights inside the parameters' family
    comp_->merge_affine_terms(sets.stiffness, sets.mass, c0.stiffness, c0.mass);
  }
  ws_ = std::make_unique<WorkSpace>(*comp_, opt_.interfaces);
  if (opt_.basis) layout_ = std::make_unique<fe::NaturalLayout>(*comp_);
  opt_.reducer.modes.progress = false;
  Point ref = reduce_at(opt_.nominal, true);
  n_inv_ = invariants_size(static_cast<Eigen::Index>(n_columns()));
  if (scaled_) {
    for (auto k : ref_kinds_)
      FLEXUQ_REQUIRE(k == ColumnKind::boundary_dof || k == ColumnKind::constraint_mode || k == ColumnKind::fixed_interface_mode,
                     "exact scaling: a " << enum_name(kColumnKindNames, k) << " column has no closed-form scaling");
    ref.rb.columns.clear();
    ref_point_ = std::make_unique<Point>(std::move(ref));
    reducer_.reset(); // no point factorizes or solves: free the factorization and the eigensolver
  }
}

StochasticBodyModel::Point StochasticBodyModel::scaled_point(const std::vector<double>& theta) const {
  FLEXUQ_ASSERT(scaled_ && ref_point_, "scaled_point without exact scaling");
  const auto [a, b] = params_->scale_factors(theta, opt_.nominal);
  const ReducedBasis& r = ref_point_->rb;
  const auto n = static_cast<Eigen::Index>(n_columns());
  Eigen::VectorXd d = Eigen::VectorXd::Ones(n);
  for (std::size_t j : ref_mode_cols_) d(static_cast<Eigen::Index>(j)) = 1.0 / std::sqrt(b);
  const auto D = d.asDiagonal();
  Point p;
  p.rb.method = r.method;
  p.rb.mode_interface = r.mode_interface;
  p.rb.fixed_interfaces = r.fixed_interfaces;
  p.rb.labels = r.labels;
  p.rb.kinds = r.kinds;
  p.rb.scale = r.scale;
  p.rb.physical_boundary = r.physical_boundary;
  p.rb.basis_rcond = r.basis_rcond; // diag-scaled M̄: unchanged by a column scaling
  p.rb.diagnostics = r.diagnostics;
  p.rb.K = a * (D * r.K * D);
  p.rb.M = b * (D * r.M * D);
  for (double l : r.mode_eigenvalues) p.rb.mode_eigenvalues.push_back(a / b * l);
  p.inv = scale_invariants(ref_point_->inv, b, d);
  p.column_scale.assign(d.data(), d.data() + d.size());
  p.min_mac = 1.0;
  return p;
}

StochasticBodyModel::~StochasticBodyModel() = default;

std::map<std::string, std::size_t> StochasticBodyModel::output_sizes() const {
  const std::size_t n = n_columns(), m = ref_mode_cols_.size();
  std::map<std::string, std::size_t> s{{"K", n * n},
                                       {"M", n * n},
                                       {"mode_eigenvalues", m},
                                       {"mode_frequencies", m},
                                       {"free_free_frequencies", static_cast<std::size_t>(opt_.free_free)},
                                       {"invariants", n_inv_},
                                       {"alignment_min_mac", 1}};
  if (m == 0) {
    s.erase("mode_eigenvalues");
    s.erase("mode_frequencies");
  }
  if (opt_.free_free == 0) s.erase("free_free_frequencies");
  if (opt_.basis)
    s["basis"] = comp_->mesh().num_nodes() * static_cast<std::size_t>(comp_->dofs().dofs_per_node()) * n;
  return s;
}

std::map<std::string, std::vector<std::uint64_t>> StochasticBodyModel::field_dims() const {
  const auto n = static_cast<std::uint64_t>(n_columns());
  std::map<std::string, std::vector<std::uint64_t>> d{{"K", {n, n}}, {"M", {n, n}}, {"invariants", {n_inv_}}};
  if (opt_.basis)
    d["basis"] = {comp_->mesh().num_nodes(), static_cast<std::uint64_t>(comp_->dofs().dofs_per_node()), n};
  return d;
}

std::map<std::string, const std::vector<double>*> StochasticBodyModel::column_scaled_fields() const {
  if (scaled_ && opt_.basis) return {{"basis", &nominal_basis_}};
  return {};
}

VecH StochasticBodyModel::probe_field(int j) const { return cms::probe_field(*ws_, j); }

StochasticBodyModel::Point StochasticBodyModel::reduce_at(const std::vector<double>& theta, bool reference) {
  FLEXUQ_ASSERT(!scaled_ || reference, "exact scaling reduces the reference only");
  if (!scaled_) params_->apply(*comp_, theta); // exact scaling: applied before the terms were released
  ws_->refresh_operators();
  // One Reducer per group, re-targeted per point: the K_ii analysis, the submatrix structures and
  // the eigensolver set-up are kept; the numeric factorization and the solves are redone.
  if (reducer_)
    reducer_->update_operators();
  else
    reducer_ = std::make_unique<Reducer>(*ws_, opt_.reducer);
  Reducer& r = *reducer_;
  // The reference's fixed-interface modes seed every later point's recycled solve (reduce.modes.recycle):
  // always the reference's, never the previous point's, so a point stays a function of θ alone.
  if (reference && !scaled_) r.record_mode_reference();
  ReducedBasis rb = r.build(opt_.build);
  Point p;
  const std::size_t n = rb.n_columns();
  std::vector<std::size_t> mode_cols, other_cols;
  for (std::size_t j = 0; j < n; ++j) (is_mode(rb.kinds[j]) ? mode_cols : other_cols).push_back(j);
  FLEXUQ_ASSERT(mode_cols.size() == rb.mode_eigenvalues.size(), "mode columns and mode eigenvalues differ in number");
  const auto ns = static_cast<Eigen::Index>(mode_cols.size());
  // T: point columns → reference columns; lambda: the eigenvalues of the mapped mode columns.
  Eigen::MatrixXd T;
  std::vector<double> lambda;
  if (reference) {
    ref_mode_cols_ = mode_cols;
    ref_other_cols_ = other_cols;
    ref_labels_ = rb.labels;
    ref_kinds_ = rb.kinds;
    ref_cluster_ = la::cluster_ids(rb.mode_eigenvalues, opt_.reducer.modes.cluster_tol);
    // The reference in a canonical form that does not depend on the partition: an eigensolver's sign
    // (largest entry positive) and its basis of a multiplet change with round-off on symmetric parts.
    // Per multiplet J: G = Φ_Jᵀ M W_J with fixed probe fields W (probe_field), G = Q R; Φ_J Q has
    // (Φ_J Q)ᵀ M W_J = R upper triangular, signs chosen so that diag(R) > 0.
    T = Eigen::MatrixXd::Identity(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(n));
    lambda.assign(rb.mode_eigenvalues.size(), 0.0);
    std::vector<VecH> probes;
    VecH w = ws_->new_vector();
    Eigen::Index j = 0;
    while (j < ns) {
      Eigen::Index k = j;
      while (k < ns && ref_cluster_[static_cast<std::size_t>(k)] == ref_cluster_[static_cast<std::size_t>(j)]) ++k;
      const Eigen::Index m = k - j;
      while (static_cast<Eigen::Index>(probes.size()) < m) probes.push_back(probe_field(static_cast<int>(probes.size())));
      Eigen::MatrixXd G(m, m);
      for (Eigen::Index b = 0; b < m; ++b) {
        FLEXUQ_PETSC(MatMult(ws_->M(), probes[static_cast<std::size_t>(b)].get(), w.get()));
        for (Eigen::Index a = 0; a < m; ++a) {
          PetscScalar v = 0;
          FLEXUQ_PETSC(VecDot(w.get(), rb.columns[mode_cols[static_cast<std::size_t>(j + a)]].get(), &v));
          G(a, b) = PetscRealPart(v);
        }
      }
      Eigen::HouseholderQR<Eigen::MatrixXd> qr(G);
      Eigen::MatrixXd Q = qr.householderQ();
      const Eigen::MatrixXd R = Q.transpose() * G;
      for (Eigen::Index c = 0; c < m; ++c)
        if (R(c, c) < 0) Q.col(c) *= -1.0;
      for (Eigen::Index a = 0; a < m; ++a)
        for (Eigen::Index c = 0; c < m; ++c) {
          const auto ra = static_cast<Eigen::Index>(mode_cols[static_cast<std::size_t>(j + a)]);
          const auto rc = static_cast<Eigen::Index>(mode_cols[static_cast<std::size_t>(j + c)]);
          T(ra, rc) = Q(a, c);
          lambda[static_cast<std::size_t>(j + c)] += Q(a, c) * Q(a, c) * rb.mode_eigenvalues[static_cast<std::size_t>(j + a)];
        }
      j = k;
    }
  } else {
    FLEXUQ_REQUIRE(other_cols.size() == ref_other_cols_.size(),
                   "the reduction at this point has " << other_cols.size() << " non-mode columns, the reference "
                                                      << ref_other_cols_.size());
    T = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(n_columns()));
    for (std::size_t i = 0; i < other_cols.size(); ++i)
      T(static_cast<Eigen::Index>(other_cols[i]), static_cast<Eigen::Index>(ref_other_cols_[i])) = 1.0;
    lambda.assign(ref_eigenvalues_.size(), 0.0);
    p.min_mac = align_modes(rb, mode_cols, T, lambda);
  }
  // Φ' = Φ T (a non-mode column is taken over, a mode column is a combination of its multiplet).
  ReducedBasis a;
  a.method = rb.method;
  a.mode_interface = rb.mode_interface;
  a.fixed_interfaces = rb.fixed_interfaces;
  a.labels = ref_labels_;
  a.kinds = ref_kinds_;
  a.scale.assign(n_columns(), 1.0);
  a.mode_eigenvalues = lambda;
  a.K = T.transpose() * rb.K * T;
  a.M = T.transpose() * rb.M * T;
  a.physical_boundary = rb.physical_boundary;
  a.basis_rcond = rb.basis_rcond;
  a.diagnostics = rb.diagnostics;
  for (Eigen::Index c = 0; c < T.cols(); ++c) {
    VecH v;
    FLEXUQ_PETSC(VecDuplicate(rb.columns[0].get(), v.out()));
    FLEXUQ_PETSC(VecZeroEntries(v.get()));
    for (std::size_t s = 0; s < n; ++s) {
      const double t = T(static_cast<Eigen::Index>(s), c);
      if (t != 0.0) FLEXUQ_PETSC(VecAXPY(v.get(), t, rb.columns[s].get()));
    }
    a.columns.push_back(std::move(v));
  }
  if (!reference) {
    p.inv = compute_invariants(*ws_, a);
    p.rb = std::move(a);
    return p;
  }
  // The reference: the nominal body, with the full-model check-out.
  ReduceResult red = reduced_body_of(r, std::move(a), opt_.free_free);
  // The full free-free check-out is the reference's alone (points check out from their reduced
  // pair): unless the basis itself uses the free-interface modes, their solver (a factorization of
  // the whole K besides K_ii's, and its Krylov basis) would be held through every point for nothing.
  if (!r.build_uses_free_modes()) r.release_free_modes();
  ref_eigenvalues_ = red.basis.mode_eigenvalues;
  ref_modes_.clear();
  if (!scaled_) // what the alignment of later points needs
    for (std::size_t j : ref_mode_cols_) {
      VecH v;
      FLEXUQ_PETSC(VecDuplicate(red.basis.columns[j].get(), v.out()));
      FLEXUQ_PETSC(VecCopy(red.basis.columns[j].get(), v.get()));
      ref_modes_.push_back(std::move(v));
    }
  nominal_ = std::move(red.body);
  if (opt_.basis) nominal_basis_ = gather_basis(*ws_, *layout_, red.basis.columns);
  p.inv = std::move(red.invariants);
  p.rb = std::move(red.basis);
  return p;
}

double StochasticBodyModel::align_modes(const ReducedBasis& rb, const std::vector<std::size_t>& mode_cols,
                                        Eigen::MatrixXd& T, std::vector<double>& lambda) const {
  // C(j, k) = φ_refᵀ M φ_k / (‖φ_ref⁽ʲ⁾‖_M ‖φ_k‖_M) with the point's own mass matrix M = M(θ) (the
  // working one): the cosine in the point's mass inner product, so C² is the MAC. No copy of the
  // reference mass matrix is kept for it (one matrix of the component's pattern less per rank).
  const auto nr = static_cast<Eigen::Index>(ref_mode_cols_.size()), ns = static_cast<Eigen::Index>(mode_cols.size());
  if (nr == 0) return 1.0;
  FLEXUQ_REQUIRE(ns > 0, "the reduction at this point has no normal modes, the reference " << nr);
  // X = [Φ_ref | Φ_point] (local rows), Y = M X in one block product (M streamed once, not one
  // MatMult per column: 40 per point at nr = ns = 20), then the Gram entries in two reductions.
  PetscInt nloc = 0;
  FLEXUQ_PETSC(VecGetLocalSize(ref_modes_[0].get(), &nloc));
  fe::block::Block X(nloc, nr + ns);
  auto take = [&](Vec v, Eigen::Index c) {
    const PetscScalar* a = nullptr;
    FLEXUQ_PETSC(VecGetArrayRead(v, &a));
    for (PetscInt i = 0; i < nloc; ++i) X(i, c) = PetscRealPart(a[i]);
    FLEXUQ_PETSC(VecRestoreArrayRead(v, &a));
  };
  for (Eigen::Index j = 0; j < nr; ++j) take(ref_modes_[static_cast<std::size_t>(j)].get(), j);
  for (Eigen::Index k = 0; k < ns; ++k) take(rb.columns[mode_cols[static_cast<std::size_t>(k)]].get(), nr + k);
  fe::block::Operator Mop(ws_->M());
  const fe::block::Block Y = Mop.apply(X);
  MPI_Comm comm = PetscObjectComm(reinterpret_cast<PetscObject>(ws_->M()));
  const Eigen::VectorXd n2 = fe::block::inner_diagonal(comm, X, Y); // ‖·‖²_M of every column
  Eigen::MatrixXd C = fe::block::inner(comm, X.leftCols(nr), Y.rightCols(ns));
  for (Eigen::Index j = 0; j < nr; ++j)
    for (Eigen::Index k = 0; k < ns; ++k) C(j, k) /= std::sqrt(n2(j)) * std::sqrt(n2(nr + k));
  const auto tr = fe::track_modes(C, ref_cluster_, rb.mode_eigenvalues);
  for (Eigen::Index j = 0; j < nr; ++j) {
    const auto ju = static_cast<std::size_t>(j);
    if (tr.assignment[ju] < 0 || tr.mac[ju] < opt_.min_mac) {
      std::ostringstream os;
      os << "alignment with the body at the parameter means: reference mode " << j + 1 << " ("
         << std::sqrt(std::max(0.0, ref_eigenvalues_[ju])) / (2 * M_PI) << " Hz) lost, captured share (MAC) "
         << tr.mac[ju] << " < " << opt_.key_of("stochastic.min_mac") << " = " << opt_.min_mac << " (more modes, "
         << opt_.key_of("modes.count") << ", or a narrower parameter range)";
      throw Error(os.str());
    }
  }
  // Per multiplet J: R = procrustes(C_JS) maps the chosen point modes S onto the reference ones.
  Eigen::Index j = 0;
  while (j < nr) {
    Eigen::Index k = j;
    while (k < nr && ref_cluster_[static_cast<std::size_t>(k)] == ref_cluster_[static_cast<std::size_t>(j)]) ++k;
    std::vector<int> S;
    for (Eigen::Index r = j; r < k; ++r) S.push_back(tr.assignment[static_cast<std::size_t>(r)]);
    Eigen::MatrixXd Cjs(k - j, static_cast<Eigen::Index>(S.size()));
    for (Eigen::Index r = j; r < k; ++r)
      for (std::size_t c = 0; c < S.size(); ++c) Cjs(r - j, static_cast<Eigen::Index>(c)) = C(r, S[c]);
    const Eigen::MatrixXd R = fe::procrustes_rotation(Cjs); // |S| × |J|
    for (Eigen::Index r = j; r < k; ++r)
      for (std::size_t c = 0; c < S.size(); ++c) {
        const double t = R(static_cast<Eigen::Index>(c), r - j);
        T(static_cast<Eigen::Index>(mode_cols[static_cast<std::size_t>(S[c])]),
          static_cast<Eigen::Index>(ref_mode_cols_[static_cast<std::size_t>(r)])) = t;
        lambda[static_cast<std::size_t>(r)] += t * t * rb.mode_eigenvalues[static_cast<std::size_t>(S[c])];
      }
    j = k;
  }
  return tr.min_mac;
}

Outputs point_outputs(const WorkSpace& ws, const ReducedBasis& rb, const Invariants& inv,
                      const fe::NaturalLayout* natural, int free_free, const std::string& free_free_key) {
  Outputs out;
  out["K"] = row_major(rb.K);
  out["M"] = row_major(rb.M);
  if (!rb.mode_eigenvalues.empty()) {
    out["mode_eigenvalues"] = rb.mode_eigenvalues;
    auto& f = out["mode_frequencies"];
    for (double l : rb.mode_eigenvalues) f.push_back(std::sqrt(std::max(0.0, l)) / (2 * M_PI));
  }
  if (free_free > 0) {
    const auto e = elastic_coordinates(rb.K, rb.M);
    FLEXUQ_REQUIRE(e.rigid == 6 && e.eigenvalues.size() >= free_free,
                   "the reduced body at this point has " << e.rigid << " rigid-body modes and " << e.eigenvalues.size()
                                                         << " elastic ones (" << free_free_key << " = " << free_free
                                                         << ")");
    auto& f = out["free_free_frequencies"];
    for (int i = 0; i < free_free; ++i) f.push_back(std::sqrt(std::max(0.0, e.eigenvalues(i))) / (2 * M_PI));
  }
  out["invariants"] = flatten_invariants(inv);
  if (natural) out["basis"] = gather_basis(ws, *natural, rb.columns);
  return out;
}

ReducedBody StochasticBodyModel::body_at(const std::vector<double>& theta) {
  if (scaled_) {
    // The reference scaled (aligned, which is as good a body as any); the check-out from the
    // invariants, as for a body evaluated from a stochastic file.
    const Point p = scaled_point(theta);
    return make_reduced_body(*ws_, p.rb, p.inv, checkout_from_invariants(p.inv, p.rb.K, p.rb.M));
  }
  // The same per-point path as reduce_at (kept analysis and solver set-up, θ alone decides the
  // result), without the alignment: a body to use, not to expand.
  params_->apply(*comp_, theta);
  ws_->refresh_operators();
  reducer_->update_operators();
  return reduce(*reducer_, opt_.build, 0).body;
}

Outputs StochasticBodyModel::evaluate(const std::vector<double>& theta) {
  if (scaled_) {
    const Point p = scaled_point(theta);
    Outputs out = point_outputs(*ws_, p.rb, p.inv, nullptr, opt_.free_free, opt_.key_of("checkout.free_free"));
    out["alignment_min_mac"] = {p.min_mac};
    if (opt_.basis) {
      // The basis is Φ0 D: journaled as D's diagonal (column_scaled_fields), 1 on boundary and
      // constraint columns, 1/√b on modes; expand_column_scaled rebuilds it from the reference's.
      out[column_scale_output("basis")] = p.column_scale; // the factors scaled_point computed
    }
    return out;
  }
  Point p = reduce_at(theta, false);
  Outputs out = point_outputs(*ws_, p.rb, p.inv, opt_.basis ? layout_.get() : nullptr, opt_.free_free,
                              opt_.key_of("checkout.free_free"));
  out["alignment_min_mac"] = {p.min_mac};
  return out;
}

} // namespace flexuq::cms
