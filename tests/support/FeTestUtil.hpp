// SPDX-License-Identifier: MIT
#pragma once
// Helpers for FE tests: components from YAML text, mode vectors gathered in natural order, and
// subspace comparison by principal angles (bases are never compared entry by entry). Lives in
// tests/support beside the MPI test main; tests that include it link flexuq_fe and flexuq_job (the
// app layer's `model:` parser, app/ComponentConfig.hpp).
#include "flexuq/core/Error.hpp"
#include "flexuq/app/ComponentConfig.hpp"
#include "flexuq/fe/Modes.hpp"
#include "flexuq/fe/ModesFile.hpp"
#include "flexuq/config/Config.hpp"

#include <Eigen/Dense>
#include <memory>

namespace flexuq::test {

inline std::unique_ptr<fe::Component> component_from_yaml(MPI_Comm comm, const std::string& yaml, bool keep_affine = false) {
  auto cfg = io::Config::from_string(yaml, "<test>");
  auto opts = app::component_options(cfg);
  opts.keep_affine = keep_affine;
  return std::make_unique<fe::Component>(comm, app::load_mesh(cfg), opts);
}

/// The first @p count frequencies (Hz) of a component with supports (a zero-energy mode is an error).
inline std::vector<double> constrained_frequencies(const fe::Component& c, int count) {
  fe::ModeOptions mo;
  mo.count = count;
  mo.constrained = true;
  mo.progress = false;
  return fe::solve_modes(c.K(), c.M(), mo).frequencies_hz();
}

/// An isotropic material record for tests.
inline io::Material material(const std::string& name, double E, double nu, double rho) {
  io::Material m;
  m.name = name;
  m.E = E;
  m.nu = nu;
  m.rho = rho;
  return m;
}

/// Columns = vectors in natural (input node × component) order, replicated on every rank.
inline Eigen::MatrixXd natural_columns(const fe::Component& c, const std::vector<VecH>& vs) {
  std::vector<Vec> raw;
  for (const auto& v : vs) raw.push_back(v.get());
  fe::NaturalLayout layout(c);
  const auto block = layout.gather(raw);
  const int nv = static_cast<int>(vs.size());
  const int local_rows = nv ? static_cast<int>(block.size()) / nv : 0;
  int size = 1;
  MPI_Comm_size(c.comm(), &size);
  std::vector<int> counts(size), displs(size);
  const int mine = static_cast<int>(block.size());
  MPI_Allgather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, c.comm());
  int total = 0;
  for (int r = 0; r < size; ++r) {
    displs[r] = total;
    total += counts[r];
  }
  std::vector<double> all(static_cast<std::size_t>(total));
  MPI_Allgatherv(block.data(), mine, MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE, c.comm());
  (void)local_rows;
  const int rows = nv ? total / nv : 0;
  Eigen::MatrixXd out(rows, nv);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < nv; ++j) out(i, j) = all[static_cast<std::size_t>(i) * nv + j];
  return out;
}

/// Cosines of the principal angles between span(A) and span(B) (ascending: the smallest first).
inline Eigen::VectorXd subspace_cosines(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B) {
  Eigen::HouseholderQR<Eigen::MatrixXd> qa(A), qb(B);
  const Eigen::MatrixXd Qa = qa.householderQ() * Eigen::MatrixXd::Identity(A.rows(), A.cols());
  const Eigen::MatrixXd Qb = qb.householderQ() * Eigen::MatrixXd::Identity(B.rows(), B.cols());
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(Qa.transpose() * Qb);
  Eigen::VectorXd s = svd.singularValues();
  std::sort(s.data(), s.data() + s.size());
  return s;
}

/// Modal assurance criterion of two vectors.
inline double mac(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  const double d = a.dot(b);
  return d * d / (a.squaredNorm() * b.squaredNorm());
}

} // namespace flexuq::test
