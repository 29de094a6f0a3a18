// SPDX-License-Identifier: MIT
#include "flexuq/cms/GcmsBasis.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/fe/Component.hpp"

#include <algorithm>
#include <cmath>

namespace flexuq::cms {

namespace {
const char kAxis[3] = {'x', 'y', 'z'};

void allreduce_inplace(MPI_Comm comm, double* data, int n) {
  if (n > 0) FLEXUQ_MPI(MPI_Allreduce(MPI_IN_PLACE, data, n, MPI_DOUBLE, MPI_SUM, comm));
}
} // namespace

std::string GcmsField::label() const {
  switch (kind) {
  case GcmsFieldKind::translation: return "t";
  case GcmsFieldKind::rotation: return std::string("r_") + kAxis[k];
  case GcmsFieldKind::flexible: break;
  }
  return "f" + std::to_string(mode) + "_" + kAxis[k];
}

std::string column_label(const GcmsField& f, int l) {
  const std::string base = f.label();
  return f.kind == GcmsFieldKind::translation ? base + "_" + kAxis[l] : base + kAxis[l];
}

GcmsBasis::GcmsBasis(MPI_Comm comm) : comm_(comm) {}

GcmsBasis::GcmsBasis(MPI_Comm comm, const Eigen::MatrixXd& coords, const std::vector<Eigen::MatrixXd>& modes,
                     const std::optional<std::array<double, 3>>& origin)
    : comm_(comm) {
  FLEXUQ_REQUIRE(coords.cols() == 3, "GCMS basis: coordinates need 3 columns, got " << coords.cols());
  for (std::size_t m = 0; m < modes.size(); ++m)
    FLEXUQ_REQUIRE(modes[m].rows() == coords.rows() && modes[m].cols() == 3,
                   "GCMS basis: mode " << m + 1 << " is " << modes[m].rows() << " x " << modes[m].cols()
                                       << ", expected " << coords.rows() << " x 3 (local nodes x components)");
  const int nl = static_cast<int>(coords.rows());
  X_ = coords;
  modes_ = modes;
  row_offset_.resize(static_cast<std::size_t>(nl));
  for (int r = 0; r < nl; ++r) row_offset_[static_cast<std::size_t>(r)] = 3 * r;
  local_size_ = 3 * nl;
  PetscInt begin = 0;
  FLEXUQ_MPI(MPI_Exscan(&local_size_, &begin, 1, MPIU_INT, MPI_SUM, comm_.get()));
  if (comm_.rank() == 0) begin = 0;
  row_begin_ = begin;
  FLEXUQ_MPI(MPI_Allreduce(&local_size_, &global_size_, 1, MPIU_INT, MPI_SUM, comm_.get()));
  n_global_ = global_size_ / 3;
  // Body-frame origin: given, or the nodal centroid.
  if (origin) {
    origin_ = *origin;
  } else {
    double s[3] = {0, 0, 0};
    for (int k = 0; k < 3; ++k) s[k] = nl ? X_.col(k).sum() : 0.0;
    allreduce_inplace(comm_.get(), s, 3);
    for (int k = 0; k < 3; ++k) origin_[k] = n_global_ ? s[k] / static_cast<double>(n_global_) : 0.0;
  }
  for (int k = 0; k < 3; ++k) X_.col(k).array() -= origin_[k];
  build_fields();
}

GcmsBasis GcmsBasis::from_component(const fe::Component& c, const std::vector<Vec>& modes, bool unit_norm,
                                    const std::optional<std::array<double, 3>>& origin) {
  FLEXUQ_REQUIRE(c.dofs().dofs_per_node() == 3,
                 "GCMS needs a solid component (3 DOF per node); " << c.mesh().source << " has "
                                                                   << c.dofs().dofs_per_node() << " DOF per node");
  FLEXUQ_REQUIRE_OPTION(!c.has_fixed_nodes(), "component.fixed_sets",
                        "GCMS is built from free-free modes, but the component has fixed node sets; remove them "
                        "({}) for method gcms");
  const auto& owned = c.dofs().owned_nodes();
  const int nl = static_cast<int>(owned.size());
  const PetscInt begin = c.dofs().begin();
  Eigen::MatrixXd X(nl, 3);
  std::vector<PetscInt> offset(static_cast<std::size_t>(nl));
  for (int r = 0; r < nl; ++r) {
    const int v = owned[static_cast<std::size_t>(r)];
    for (int k = 0; k < 3; ++k) X(r, k) = c.mesh().coords[static_cast<std::size_t>(v)][static_cast<std::size_t>(k)];
    offset[static_cast<std::size_t>(r)] = c.dofs().node_dof(v) - begin;
  }
  std::vector<Eigen::MatrixXd> psi;
  for (std::size_t m = 0; m < modes.size(); ++m) {
    PetscInt n_local = 0;
    FLEXUQ_PETSC(VecGetLocalSize(modes[m], &n_local));
    FLEXUQ_REQUIRE(n_local == c.dofs().local_size(),
                   "GCMS: mode " << m + 1 << " has " << n_local << " local entries, the component's layout "
                                 << c.dofs().local_size());
    PetscReal norm = 1;
    if (unit_norm) FLEXUQ_PETSC(VecNorm(modes[m], NORM_2, &norm));
    FLEXUQ_REQUIRE(norm > 0, "GCMS: mode " << m + 1 << " is the zero vector");
    const PetscScalar* a = nullptr;
    FLEXUQ_PETSC(VecGetArrayRead(modes[m], &a));
    Eigen::MatrixXd P(nl, 3);
    for (int r = 0; r < nl; ++r)
      for (int k = 0; k < 3; ++k) P(r, k) = PetscRealPart(a[offset[static_cast<std::size_t>(r)] + k]) / norm;
    FLEXUQ_PETSC(VecRestoreArrayRead(modes[m], &a));
    psi.push_back(std::move(P));
  }
  GcmsBasis b(c.comm(), X, psi, origin);
  b.row_offset_ = std::move(offset);
  b.local_size_ = c.dofs().local_size();
  b.global_size_ = c.dofs().global_size();
  b.row_begin_ = begin;
  return b;
}

void GcmsBasis::build_fields() {
  const int nl = static_cast<int>(X_.rows()), nm = static_cast<int>(modes_.size());
  B_.resize(nl, 4 + 3 * nm);
  fields_.clear();
  B_.col(0).setOnes();
  fields_.push_back({GcmsFieldKind::translation, 0, 0});
  for (int k = 0; k < 3; ++k) {
    B_.col(1 + k) = X_.col(k);
    fields_.push_back({GcmsFieldKind::rotation, k, 0});
  }
  for (int m = 0; m < nm; ++m)
    for (int k = 0; k < 3; ++k) {
      B_.col(4 + 3 * m + k) = modes_[static_cast<std::size_t>(m)].col(k);
      fields_.push_back({GcmsFieldKind::flexible, k, m + 1});
    }
}

int GcmsBasis::num_flexible_fields() const {
  return static_cast<int>(std::count_if(fields_.begin(), fields_.end(),
                                        [](const GcmsField& f) { return f.kind == GcmsFieldKind::flexible; }));
}

std::vector<int> GcmsBasis::flexible_fields() const {
  std::vector<int> idx;
  for (int j = 0; j < num_fields(); ++j)
    if (fields_[static_cast<std::size_t>(j)].kind == GcmsFieldKind::flexible) idx.push_back(j);
  return idx;
}

std::vector<std::string> GcmsBasis::column_labels() const {
  std::vector<std::string> out;
  for (const auto& f : fields_)
    for (int l = 0; l < 3; ++l) out.push_back(column_label(f, l));
  return out;
}

Eigen::MatrixXd GcmsBasis::local_flexible() const {
  const auto idx = flexible_fields();
  Eigen::MatrixXd S(B_.rows(), static_cast<Eigen::Index>(idx.size()));
  for (std::size_t i = 0; i < idx.size(); ++i) S.col(static_cast<Eigen::Index>(i)) = B_.col(idx[i]);
  return S;
}

Eigen::VectorXd GcmsBasis::apply(const Eigen::VectorXd& q) const {
  FLEXUQ_REQUIRE(q.size() == num_columns(), "GCMS apply: q has " << q.size() << " entries, Φ has " << num_columns()
                                                                 << " columns");
  // q(3j + l) = Q(l, j);  (Φ q)(3r + l) = Σ_j B(r, j) Q(l, j).
  const Eigen::Map<const Eigen::MatrixXd> Q(q.data(), 3, num_fields());
  const Eigen::MatrixXd Y = B_ * Q.transpose(); // n_local × 3
  Eigen::VectorXd y(3 * B_.rows());
  for (Eigen::Index r = 0; r < B_.rows(); ++r)
    for (int l = 0; l < 3; ++l) y(3 * r + l) = Y(r, l);
  return y;
}

Eigen::VectorXd GcmsBasis::apply_transpose(const Eigen::VectorXd& y_local) const {
  FLEXUQ_REQUIRE(y_local.size() == 3 * B_.rows(),
                 "GCMS apply_transpose: y has " << y_local.size() << " local entries, expected " << 3 * B_.rows());
  Eigen::MatrixXd Y(B_.rows(), 3);
  for (Eigen::Index r = 0; r < B_.rows(); ++r)
    for (int l = 0; l < 3; ++l) Y(r, l) = y_local(3 * r + l);
  Eigen::MatrixXd P = B_.transpose() * Y; // fields × 3
  allreduce_inplace(comm(), P.data(), static_cast<int>(P.size()));
  Eigen::VectorXd q(num_columns());
  for (int j = 0; j < num_fields(); ++j)
    for (int l = 0; l < 3; ++l) q(3 * j + l) = P(j, l);
  return q;
}

Eigen::MatrixXd GcmsBasis::field_gram() const {
  Eigen::MatrixXd G = B_.transpose() * B_;
  allreduce_inplace(comm(), G.data(), static_cast<int>(G.size()));
  return G;
}

Eigen::VectorXd GcmsBasis::field_norms() const {
  Eigen::VectorXd s = B_.colwise().squaredNorm().transpose();
  allreduce_inplace(comm(), s.data(), static_cast<int>(s.size()));
  return s.cwiseSqrt();
}

Eigen::MatrixXd GcmsBasis::local_matrix() const {
  Eigen::MatrixXd P = Eigen::MatrixXd::Zero(3 * B_.rows(), num_columns());
  for (Eigen::Index r = 0; r < B_.rows(); ++r)
    for (int j = 0; j < num_fields(); ++j)
      for (int l = 0; l < 3; ++l) P(3 * r + l, 3 * j + l) = B_(r, j);
  return P;
}

MatH GcmsBasis::materialize() const {
  MatH A;
  FLEXUQ_PETSC(MatCreateDense(comm(), local_size_, PETSC_DECIDE, global_size_, num_columns(), nullptr, A.out()));
  PetscScalar* a = nullptr;
  PetscInt lda = 0;
  FLEXUQ_PETSC(MatDenseGetLDA(A.get(), &lda));
  FLEXUQ_PETSC(MatDenseGetArray(A.get(), &a));
  for (PetscInt i = 0; i < lda * num_columns(); ++i) a[i] = 0;
  for (Eigen::Index r = 0; r < B_.rows(); ++r)
    for (int j = 0; j < num_fields(); ++j)
      for (int l = 0; l < 3; ++l)
        a[static_cast<PetscInt>(3 * j + l) * lda + row_offset_[static_cast<std::size_t>(r)] + l] = B_(r, j);
  FLEXUQ_PETSC(MatDenseRestoreArray(A.get(), &a));
  FLEXUQ_PETSC(MatAssemblyBegin(A.get(), MAT_FINAL_ASSEMBLY));
  FLEXUQ_PETSC(MatAssemblyEnd(A.get(), MAT_FINAL_ASSEMBLY));
  return A;
}

VecH GcmsBasis::apply_vec(const Eigen::VectorXd& q) const {
  const Eigen::VectorXd y = apply(q);
  VecH v;
  FLEXUQ_PETSC(VecCreateMPI(comm(), local_size_, global_size_, v.out()));
  FLEXUQ_PETSC(VecZeroEntries(v.get()));
  PetscScalar* a = nullptr;
  FLEXUQ_PETSC(VecGetArray(v.get(), &a));
  for (Eigen::Index r = 0; r < B_.rows(); ++r)
    for (int l = 0; l < 3; ++l) a[row_offset_[static_cast<std::size_t>(r)] + l] = y(3 * r + l);
  FLEXUQ_PETSC(VecRestoreArray(v.get(), &a));
  return v;
}

VecH GcmsBasis::column(int c) const {
  FLEXUQ_REQUIRE(c >= 0 && c < num_columns(), "GCMS column " << c << " out of range [0, " << num_columns() << ")");
  Eigen::VectorXd q = Eigen::VectorXd::Zero(num_columns());
  q(c) = 1;
  return apply_vec(q);
}

void GcmsBasis::remove_fields(std::vector<int> idx) {
  std::sort(idx.begin(), idx.end());
  idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
  for (int j : idx) {
    FLEXUQ_REQUIRE(j >= 0 && j < num_fields(), "GCMS: field " << j << " out of range");
    FLEXUQ_REQUIRE(fields_[static_cast<std::size_t>(j)].kind == GcmsFieldKind::flexible,
                   "GCMS: only flexible fields may be removed (seed-001 §2.6), not "
                       << fields_[static_cast<std::size_t>(j)].label());
  }
  std::vector<int> keep;
  for (int j = 0; j < num_fields(); ++j)
    if (!std::binary_search(idx.begin(), idx.end(), j)) keep.push_back(j);
  Eigen::MatrixXd B(B_.rows(), static_cast<Eigen::Index>(keep.size()));
  std::vector<GcmsField> f;
  for (std::size_t i = 0; i < keep.size(); ++i) {
    B.col(static_cast<Eigen::Index>(i)) = B_.col(keep[i]);
    f.push_back(fields_[static_cast<std::size_t>(keep[i])]);
  }
  B_ = std::move(B);
  fields_ = std::move(f);
}

void GcmsBasis::scale_field(int j, double s) {
  FLEXUQ_REQUIRE(j >= 0 && j < num_fields(), "GCMS: field " << j << " out of range");
  FLEXUQ_REQUIRE(fields_[static_cast<std::size_t>(j)].kind != GcmsFieldKind::rotation,
                 "GCMS: rotation fields must not be scaled (seed-001 §2.6)");
  FLEXUQ_REQUIRE(std::isfinite(s) && s != 0, "GCMS: scale factor " << s << " for " << fields_[j].label());
  B_.col(j) *= s;
  fields_[static_cast<std::size_t>(j)].scale *= s;
}

void GcmsBasis::set_field_values(int j, const Eigen::VectorXd& v, bool orthogonalized) {
  FLEXUQ_REQUIRE(j >= 0 && j < num_fields(), "GCMS: field " << j << " out of range");
  FLEXUQ_REQUIRE(fields_[static_cast<std::size_t>(j)].kind == GcmsFieldKind::flexible,
                 "GCMS: only flexible fields may be altered (seed-001 §2.6)");
  FLEXUQ_REQUIRE(v.size() == B_.rows(), "GCMS: field values have " << v.size() << " rows, expected " << B_.rows());
  B_.col(j) = v;
  fields_[static_cast<std::size_t>(j)].orthogonalized = orthogonalized;
}

void GcmsBasis::rotate_modes(const std::vector<int>& idx, const Eigen::MatrixXd& R) {
  const auto d = static_cast<Eigen::Index>(idx.size());
  FLEXUQ_REQUIRE(R.rows() == d && R.cols() == d, "GCMS rotate_modes: R is " << R.rows() << " x " << R.cols()
                                                                           << " for " << d << " modes");
  for (int m : idx) FLEXUQ_REQUIRE(m >= 0 && m < num_modes(), "GCMS rotate_modes: mode " << m << " out of range");
  for (const auto& f : fields_)
    if (f.kind == GcmsFieldKind::flexible && f.orthogonalized &&
        std::find(idx.begin(), idx.end(), f.mode - 1) != idx.end())
      throw InputError("GCMS rotate_modes: field " + f.label() + " was already orthogonalised");
  std::vector<Eigen::MatrixXd> rotated(idx.size(), Eigen::MatrixXd::Zero(X_.rows(), 3));
  for (Eigen::Index i = 0; i < d; ++i)
    for (Eigen::Index j = 0; j < d; ++j)
      rotated[static_cast<std::size_t>(i)] += R(j, i) * modes_[static_cast<std::size_t>(idx[static_cast<std::size_t>(j)])];
  for (std::size_t i = 0; i < idx.size(); ++i) modes_[static_cast<std::size_t>(idx[i])] = std::move(rotated[i]);
  for (int j = 0; j < num_fields(); ++j) {
    const auto& f = fields_[static_cast<std::size_t>(j)];
    if (f.kind == GcmsFieldKind::flexible && std::find(idx.begin(), idx.end(), f.mode - 1) != idx.end())
      B_.col(j) = f.scale * modes_[static_cast<std::size_t>(f.mode - 1)].col(f.k);
  }
}

std::array<double, 9> proper_rotation_coordinates(const std::array<double, 9>& q_r) {
  // Columns d_k of (Q_r + I)ᵀ = A: d_k = q_r[3k..3k+2] + e_k.
  Eigen::Matrix3d D;
  for (int k = 0; k < 3; ++k)
    for (int l = 0; l < 3; ++l) D(l, k) = q_r[static_cast<std::size_t>(3 * k + l)] + (k == l ? 1.0 : 0.0);
  Eigen::Matrix3d Q;
  for (int k = 0; k < 3; ++k) {
    Eigen::Vector3d v = D.col(k);
    for (int pass = 0; pass < 2; ++pass)
      for (int i = 0; i < k; ++i) v -= Q.col(i).dot(v) * Q.col(i);
    const double n = v.norm();
    if (!(n > 0)) throw InputError("proper_rotation_coordinates: Q_r + I is singular");
    Q.col(k) = v / n;
  }
  std::array<double, 9> out{};
  for (int k = 0; k < 3; ++k)
    for (int l = 0; l < 3; ++l) out[static_cast<std::size_t>(3 * k + l)] = Q(l, k) - (k == l ? 1.0 : 0.0);
  return out;
}

} // namespace flexuq::cms
