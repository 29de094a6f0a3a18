// SPDX-License-Identifier: MIT
// System's matrices in sparse form for large mechanisms (issue #40): C_q row by row, the mass and
// stiffness blocks body by body, the springs' and dampers' rank-one terms on their two bodies. The
// entries are those of the dense jacobian(), mass_into() and add_stiffness_damping(), computed by the
// same code in the same order, without an m × n or n × n matrix; exact zeros are left out.
#include "flexuq/mbs/System.hpp"

#include <algorithm>

namespace flexuq::mbs {

namespace {
/// Append the non-zeros of the dense block @p b at (@p o, @p o).
void append_block(int o, const Mat& b, Triplets& out) {
  for (Eigen::Index j = 0; j < b.cols(); ++j)
    for (Eigen::Index i = 0; i < b.rows(); ++i)
      if (b(i, j) != 0.0) out.emplace_back(o + static_cast<int>(i), o + static_cast<int>(j), b(i, j));
}
} // namespace

SpMat System::jacobian_sparse(const Vec& q, double t, bool all) const {
  std::vector<ConstraintRows::VecState> s;
  rows_.vector_states(q, nullptr, off_, s);
  const int nr = rows_.size(), rows = all ? rows_total() : m();
  Triplets entries;
  entries.reserve(static_cast<std::size_t>(rows) * 14);
  Eigen::RowVectorXd row = Eigen::RowVectorXd::Zero(n()); // add_gradient's target, cleared after each row
  Vec probe = Vec::Zero(n());
  std::vector<int> touched;
  auto harvest = [&](int k, int b) { // row k's entries on body b's coordinates, then clear them
    const int o = off_[static_cast<std::size_t>(b)], nb = models_[static_cast<std::size_t>(b)]->n_coordinates();
    for (int j = o; j < o + nb; ++j)
      if (row(j) != 0.0) {
        entries.emplace_back(k, j, row(j));
        row(j) = 0.0;
      }
  };
  for (int k = 0; k < rows; ++k) {
    const int r = all ? k : active_[static_cast<std::size_t>(k)];
    if (r >= nr) {
      // The norm row |p|² − 1 of body b: 2 p · ∂p/∂q_j on the body's coordinates, ∂p/∂q_j read by
      // euler() at a unit vector (p is linear in them, whatever the body's frame layout).
      const int b = r - nr;
      const Vec4 p = euler(q, b);
      const int o = off_[static_cast<std::size_t>(b)], nb = models_[static_cast<std::size_t>(b)]->n_coordinates();
      for (int j = o; j < o + nb; ++j) {
        probe(j) = 1.0;
        const Vec4 dp = euler(probe, b);
        probe(j) = 0.0;
        for (int c = 0; c < 4; ++c)
          if (dp(c) != 0.0) row(j) += 2.0 * p(c) * dp(c);
      }
      harvest(k, b);
      continue;
    }
    rows_.add_gradient(r, s, q, t, 1.0, off_, row);
    touched.clear(); // the bodies of the row's vectors: add_gradient writes on their coordinates only
    for (const auto& term : rows_.row(r).terms)
      for (const int vec : {term.u, term.v})
        for (const auto& part : rows_.vector(vec).parts)
          if (part.body != kGround && std::find(touched.begin(), touched.end(), part.body) == touched.end())
            touched.push_back(part.body);
    for (const int b : touched) harvest(k, b);
  }
  SpMat cq(rows, n());
  cq.setFromTriplets(entries.begin(), entries.end());
  return cq;
}

void System::mass_triplets(const Vec& q, double scale, Triplets& out) const {
  // Each body type writes its diagonal block at its first coordinate; given its own coordinates at 0
  // it writes that block alone (BodyModel's calls read and write the body's block only).
  for (std::size_t b = 0; b < bodies_.size(); ++b) {
    const int o = off_[b], nb = models_[b]->n_coordinates();
    Mat block = Mat::Zero(nb, nb);
    models_[b]->mass_into(Vec(q.segment(o, nb)), 0, scale, block);
    append_block(o, block, out);
  }
}

void System::stiffness_damping_triplets(const Vec& q, double ck, double cd, Triplets& out) const {
  for (std::size_t b = 0; b < bodies_.size(); ++b) {
    const int o = off_[b], nb = models_[b]->n_coordinates();
    Mat block = Mat::Zero(nb, nb);
    models_[b]->add_stiffness_damping(Vec(q.segment(o, nb)), 0, ck, cd, block);
    append_block(o, block, out);
  }
  std::vector<std::pair<int, double>> g_nz;
  force_rank_ones(q, ck, cd, [&](double w, const Eigen::RowVectorXd& g, int b1, int b2) {
    g_nz.clear();
    for (const int b : {b1, b2}) {
      if (b == kGround || (b == b2 && b1 == b2)) continue;
      const int o = off_[static_cast<std::size_t>(b)], nb = models_[static_cast<std::size_t>(b)]->n_coordinates();
      for (int j = o; j < o + nb; ++j)
        if (g(j) != 0.0) g_nz.emplace_back(j, g(j));
    }
    for (const auto& [j, gj] : g_nz) // w gᵀg as the dense (w g_i) g_j
      for (const auto& [i, gi] : g_nz) out.emplace_back(i, j, (w * gi) * gj);
  });
}

} // namespace flexuq::mbs
