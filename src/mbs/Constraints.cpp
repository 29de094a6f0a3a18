// SPDX-License-Identifier: MIT
// System's constraints: the joints' rows (ConstraintRows) followed by one Euler-parameter norm row
// pᵀp − 1 per body; Φ, C_q, Φ_t, γ on the active or all rows, the redundancy check, joint outputs.
#include "flexuq/mbs/System.hpp"

#include "flexuq/core/Error.hpp"

#include <Eigen/SparseCore>
#include <Eigen/SparseQR>

#include <algorithm>
#include <cmath>

namespace flexuq::mbs {

void System::reset_active() {
  active_.clear();
  for (int r = 0; r < rows_total(); ++r) active_.push_back(r);
  active_set_ = false;
}

int System::row_joint(int full_row) const {
  const int nr = rows_.size();
  return full_row < nr ? rows_.row(full_row).joint : -1 - (full_row - nr);
}

std::string System::row_label(int full_row) const {
  const int nr = rows_.size();
  return full_row < nr ? rows_.row(full_row).label : "body '" + bodies_[full_row - nr].name + "'.norm";
}

Vec System::phi_all(const Vec& q, double t) const {
  std::vector<ConstraintRows::VecState> s;
  rows_.vector_states(q, nullptr, off_, s);
  Vec out(rows_total());
  for (int r = 0; r < rows_.size(); ++r) out(r) = rows_.value(r, s, t);
  for (std::size_t b = 0; b < bodies_.size(); ++b)
    out(rows_.size() + static_cast<int>(b)) = euler(q, static_cast<int>(b)).squaredNorm() - 1.0;
  return out;
}

Mat System::jacobian_all(const Vec& q, double t) const {
  std::vector<ConstraintRows::VecState> s;
  rows_.vector_states(q, nullptr, off_, s);
  Mat cq = Mat::Zero(rows_total(), n());
  for (int r = 0; r < rows_.size(); ++r) rows_.add_gradient(r, s, q, t, 1.0, off_, cq.row(r));
  for (std::size_t b = 0; b < bodies_.size(); ++b)
    layout_[b].add_p(cq.row(rows_.size() + static_cast<int>(b)), Vec4(2.0 * euler(q, static_cast<int>(b))));
  return cq;
}

void System::constraint_residual(const Vec& q, double t, const Vec& lambda, Vec& cq_t_lambda, Vec& phi,
                                 const Vec* v, Vec* phi_dot) const {
  FLEXUQ_REQUIRE(lambda.size() == m(), "System::constraint_residual: " << lambda.size() << " multipliers for " << m()
                                                                        << " active rows");
  std::vector<ConstraintRows::VecState> s;
  rows_.vector_states(q, phi_dot ? v : nullptr, off_, s);
  Eigen::RowVectorXd acc = Eigen::RowVectorXd::Zero(n()); // Σ_k λ_k (row k of C_q): each row is linear in its coefficient
  phi.resize(m());
  if (phi_dot) phi_dot->resize(m());
  const int nr = rows_.size();
  for (int k = 0; k < m(); ++k) {
    const int r = active_[k];
    if (r >= nr) {
      const int b = r - nr;
      const Vec4 p = euler(q, b);
      phi(k) = p.squaredNorm() - 1.0;
      layout_[static_cast<std::size_t>(b)].add_p(acc, Vec4(2.0 * lambda(k) * p));
      if (phi_dot) (*phi_dot)(k) = 2.0 * p.dot(euler_rate(*v, b));
      continue;
    }
    phi(k) = rows_.value(r, s, t);
    rows_.add_gradient(r, s, q, t, lambda(k), off_, acc, phi_dot ? &(*phi_dot)(k) : nullptr);
  }
  cq_t_lambda = acc.transpose();
}

Vec System::phi(const Vec& q, double t) const {
  const Vec all = phi_all(q, t);
  Vec out(m());
  for (int k = 0; k < m(); ++k) out(k) = all(active_[k]);
  return out;
}

Mat System::jacobian(const Vec& q, double t) const {
  // The active rows only, written in place (the stabilised integrators take C_q every step; the
  // whole row set and a copy of its active rows cost the V8 drive a tenth of its run time).
  std::vector<ConstraintRows::VecState> s;
  rows_.vector_states(q, nullptr, off_, s);
  Mat out = Mat::Zero(m(), n());
  const int nr = rows_.size();
  for (int k = 0; k < m(); ++k) {
    const int r = active_[k];
    if (r >= nr) {
      const int b = r - nr;
      layout_[static_cast<std::size_t>(b)].add_p(out.row(k), Vec4(2.0 * euler(q, b)));
      continue;
    }
    rows_.add_gradient(r, s, q, t, 1.0, off_, out.row(k));
  }
  return out;
}

Vec System::phi_t(const Vec& q, double t) const {
  std::vector<ConstraintRows::VecState> s;
  rows_.vector_states(q, nullptr, off_, s);
  Vec out = Vec::Zero(m());
  const int nr = rows_.size();
  for (int k = 0; k < m(); ++k) {
    if (active_[k] >= nr) continue;
    out(k) = rows_.phi_t(active_[k], s, t);
  }
  return out;
}

Vec System::gamma(const Vec& q, const Vec& v, double t) const {
  std::vector<ConstraintRows::VecState> s;
  rows_.vector_states(q, &v, off_, s);
  Vec out(m());
  const int nr = rows_.size();
  for (int k = 0; k < m(); ++k) {
    if (active_[k] >= nr) {
      const int b = active_[k] - nr;
      out(k) = -2.0 * euler_rate(v, b).squaredNorm();
      continue;
    }
    out(k) = rows_.gamma(active_[k], s, t);
  }
  return out;
}

std::vector<std::string> System::select_independent_rows(const Vec& q, double t, double tol) {
  reset_active();
  const Eigen::SparseMatrix<double, Eigen::RowMajor> cq = jacobian_sparse(q, t, true);
  const int nr = rows_.size();
  std::vector<int> order;
  for (std::size_t b = 0; b < bodies_.size(); ++b) order.push_back(nr + static_cast<int>(b));
  for (int r = 0; r < nr; ++r) order.push_back(r);
  // A row is redundant when what is left of it after removing the span of the rows kept before it
  // is below tol·|row|: QR of the rows in this order without pivoting, with a rank tolerance. The
  // rows are scaled to unit length (tol is then an absolute threshold on what is left) and factored
  // as the columns of a sparse Householder QR in their natural order: Eigen's SparseQR sets a column
  // whose remaining norm is below the pivot threshold aside and goes on, which is this in-order test.
  // Each row touches one or two bodies; the dense Gram–Schmidt this replaces cost O(rows² ·
  // coordinates) (issue #40: 400 bodies took a minute to set up). Eigen's QR keeps its reflections'
  // patterns, which grow along a chain: about 2.3 (rows)² bytes (Integrator::initialise checks it).
  // The coordinates (the factorization's rows) are numbered in the order the columns take them as
  // pivots: the in-order test compares spans, the same for any order of the coordinates, but
  // Householder QR pivots its k-th column on row k, and with the coordinates in their own order a
  // joint row's reflection reached coordinates of far bodies, a fill that grew with the chain (1,600
  // bodies: a minute here). Each column takes its largest coordinate not taken before; the rest follow.
  const int nall = static_cast<int>(order.size());
  std::vector<Eigen::Triplet<double>> entries;
  std::vector<char> zero(static_cast<std::size_t>(nall), 0);
  std::vector<int> position(static_cast<std::size_t>(n()), -1);
  int next = 0;
  for (int c = 0; c < nall; ++c) {
    const int r = order[static_cast<std::size_t>(c)];
    double norm = 0, largest = 0;
    int pivot = -1;
    for (Eigen::SparseMatrix<double, Eigen::RowMajor>::InnerIterator it(cq, r); it; ++it) {
      norm += it.value() * it.value();
      if (position[static_cast<std::size_t>(it.col())] < 0 && std::abs(it.value()) > largest) {
        largest = std::abs(it.value());
        pivot = static_cast<int>(it.col());
      }
    }
    norm = std::sqrt(norm);
    if (norm == 0.0) {
      zero[static_cast<std::size_t>(c)] = 1; // an empty row: redundant (left out of the factorization)
      continue;
    }
    if (pivot >= 0) position[static_cast<std::size_t>(pivot)] = next++;
    for (Eigen::SparseMatrix<double, Eigen::RowMajor>::InnerIterator it(cq, r); it; ++it)
      entries.emplace_back(static_cast<int>(it.col()), c, it.value() / norm);
  }
  for (auto& p : position)
    if (p < 0) p = next++;
  for (auto& e : entries) e = Eigen::Triplet<double>(position[static_cast<std::size_t>(e.row())], e.col(), e.value());
  Eigen::SparseMatrix<double> rows_as_columns(n(), nall);
  rows_as_columns.setFromTriplets(entries.begin(), entries.end());
  rows_as_columns.makeCompressed();
  Eigen::SparseQR<Eigen::SparseMatrix<double>, Eigen::NaturalOrdering<int>> qr;
  qr.setPivotThreshold(tol);
  qr.compute(rows_as_columns);
  FLEXUQ_REQUIRE(qr.info() == Eigen::Success, "the constraint rows' rank test failed (sparse QR: " << qr.lastErrorMessage() << ")");
  std::vector<char> keep(static_cast<std::size_t>(rows_total()), 0);
  const auto& perm = qr.colsPermutation().indices();
  for (Eigen::Index k = 0; k < qr.rank(); ++k) {
    const int c = perm(k);
    if (!zero[static_cast<std::size_t>(c)]) keep[static_cast<std::size_t>(order[static_cast<std::size_t>(c)])] = 1;
  }
  std::vector<std::string> dropped;
  for (int c = 0; c < nall; ++c) {
    const int r = order[static_cast<std::size_t>(c)];
    if (!keep[static_cast<std::size_t>(r)]) dropped.push_back(row_label(r));
  }
  active_.clear();
  for (int r = 0; r < rows_total(); ++r)
    if (keep[static_cast<std::size_t>(r)]) active_.push_back(r);
  active_set_ = true;
  return dropped;
}

double System::joint_angle(const Vec& q, int j) const {
  const JointSpec& s = joints_[j];
  const Mat3 ai = rotation(euler(q, s.body_i)), aj = rotation(euler(q, s.body_j));
  const Vec3 fi = ai * frames_[j].ai[0], gi = ai * frames_[j].ai[1], fj = aj * frames_[j].aj[0];
  return std::atan2(gi.dot(fj), fi.dot(fj));
}

Eigen::Matrix<double, 6, 1> System::joint_reaction(const Vec& q, const Vec& lambda, int j, double t) const {
  return reactions_of(q, lambda, t, {j}).front();
}

std::vector<Eigen::Matrix<double, 6, 1>> System::joint_reactions(const Vec& q, const Vec& lambda, double t) const {
  return reactions_of(q, lambda, t, {});
}

std::vector<Eigen::Matrix<double, 6, 1>> System::reactions_of(const Vec& q, const Vec& lambda, double t,
                                                               const std::vector<int>& which) const {
  std::vector<ConstraintRows::VecState> s;
  rows_.vector_states(q, nullptr, off_, s);
  std::vector<int> active_index(static_cast<std::size_t>(rows_total()), -1);
  for (int k = 0; k < m(); ++k) active_index[static_cast<std::size_t>(active_[k])] = k;
  Eigen::RowVectorXd row = Eigen::RowVectorXd::Zero(n()); // one row of C_q at a time
  std::vector<int> joints = which;
  if (joints.empty())
    for (int j = 0; j < static_cast<int>(joints_.size()); ++j) joints.push_back(j);
  std::vector<Eigen::Matrix<double, 6, 1>> all;
  for (int j : joints) {
    Eigen::Matrix<double, 6, 1> out = Eigen::Matrix<double, 6, 1>::Zero();
    const int b = joints_[j].body_j;
    if (b == kGround) {
      all.push_back(out);
      continue;
    }
    const auto [first, count] = joint_rows_[j];
    Eigen::Matrix<double, 7, 1> qc = Eigen::Matrix<double, 7, 1>::Zero(); // −C_qᵀ λ on body j's [r, p]
    for (int r = first; r < first + count; ++r) {
      const int k = active_index[static_cast<std::size_t>(r)];
      if (k < 0) continue; // dropped as redundant: no multiplier
      rows_.add_gradient(r, s, q, t, 1.0, off_, row);
      qc -= layout_[static_cast<std::size_t>(b)].pose_part(row) * lambda(k);
      for (int c : {joints_[j].body_i, b}) // a joint row touches its two bodies only
        if (c != kGround) row.segment(off_[c], models_[static_cast<std::size_t>(c)]->n_coordinates()).setZero();
    }
    const Vec3 force = qc.head<3>();
    const Vec4 p = euler(q, b);
    const Vec3 torque_body = 0.5 * g_matrix(p) * qc.tail<4>(); // Q_p = 2 Gᵀ n' (+ a part along p)
    const Vec3 torque_origin = rotation(p) * torque_body;
    const Vec3 at = point_position(q, b, frames_[j].sj, frames_[j].Lsj);
    out.head<3>() = force;
    out.tail<3>() = torque_origin + (origin(q, b) - at).cross(force);
    all.push_back(out);
  }
  return all;
}

Vec System::phi_dot_all(const Vec& q, const Vec& v, double t) const {
  std::vector<ConstraintRows::VecState> s;
  rows_.vector_states(q, &v, off_, s);
  Vec out(rows_total());
  Eigen::RowVectorXd row = Eigen::RowVectorXd::Zero(n()); // add_gradient's target; scale 0 leaves it zero
  const int nr = rows_.size();
  for (int r = 0; r < nr; ++r) rows_.add_gradient(r, s, q, t, 0.0, off_, row, &out(r));
  for (std::size_t b = 0; b < bodies_.size(); ++b)
    out(nr + static_cast<int>(b)) = 2.0 * euler(q, static_cast<int>(b)).dot(euler_rate(v, static_cast<int>(b)));
  return out;
}

} // namespace flexuq::mbs
