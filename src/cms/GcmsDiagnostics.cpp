// SPDX-License-Identifier: MIT
#include "flexuq/cms/GcmsDiagnostics.hpp"

#include "flexuq/core/Error.hpp"

#include <cmath>
#include <fstream>
#include <iomanip>
#include <limits>
#include <sstream>

namespace flexuq::cms {

int gap_deficiency(const Eigen::VectorXd& s, double svd_tolerance, double gap_ratio, int* gap_at) {
  const Eigen::Index n = s.size();
  if (gap_at) *gap_at = -1;
  if (n == 0) return 0;
  const double s1 = s(0);
  if (!(s1 > 0)) {
    if (gap_at) *gap_at = 0;
    return static_cast<int>(n);
  }
  const double floor = static_cast<double>(n) * std::numeric_limits<double>::epsilon() * s1;
  // The first sharp drop below the tolerance: everything after it vanishes.
  for (Eigen::Index i = 0; i + 1 < n; ++i) {
    const double a = s(i), b = s(i + 1);
    if (b > svd_tolerance * s1) continue;
    if (a <= floor) break; // only exact zeros from here on
    const double ratio = b > floor ? a / b : std::numeric_limits<double>::infinity();
    if (ratio >= gap_ratio) {
      if (gap_at) *gap_at = static_cast<int>(i + 1);
      return static_cast<int>(n - i - 1);
    }
  }
  // No sharp drop: count exact zeros only.
  int zeros = 0;
  for (Eigen::Index i = 0; i < n; ++i)
    if (s(i) <= floor) ++zeros;
  if (zeros && gap_at) *gap_at = static_cast<int>(n - zeros);
  return zeros;
}

Eigen::MatrixXd cosine_from_gram(const Eigen::MatrixXd& G) {
  const Eigen::Index n = G.rows();
  Eigen::MatrixXd C = Eigen::MatrixXd::Zero(n, n);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j) {
      const double d = std::sqrt(G(i, i) * G(j, j));
      C(i, j) = d > 0 ? G(i, j) / d : 0.0;
    }
  return C;
}

Eigen::MatrixXd column_cosines(const GcmsBasis& b) {
  const Eigen::MatrixXd C = cosine_from_gram(b.field_gram());
  const Eigen::Index nf = C.rows();
  Eigen::MatrixXd P = Eigen::MatrixXd::Zero(3 * nf, 3 * nf);
  for (Eigen::Index i = 0; i < nf; ++i)
    for (Eigen::Index j = 0; j < nf; ++j)
      for (int l = 0; l < 3; ++l) P(3 * i + l, 3 * j + l) = C(i, j);
  return P;
}

void write_cosine_csv(const GcmsBasis& b, const std::string& path) {
  const Eigen::MatrixXd C = column_cosines(b);
  const auto labels = b.column_labels();
  int rank = 0;
  FLEXUQ_MPI(MPI_Comm_rank(b.comm(), &rank));
  int ok = 1;
  if (rank == 0) {
    std::ofstream f(path);
    if (f) {
      f << "label";
      for (const auto& l : labels) f << ',' << l;
      f << '\n' << std::setprecision(12);
      for (Eigen::Index i = 0; i < C.rows(); ++i) {
        f << labels[static_cast<std::size_t>(i)];
        for (Eigen::Index j = 0; j < C.cols(); ++j) f << ',' << C(i, j);
        f << '\n';
      }
    }
    ok = f.good() ? 1 : 0;
  }
  FLEXUQ_MPI(MPI_Bcast(&ok, 1, MPI_INT, 0, b.comm()));
  if (!ok) throw Error("GCMS: cannot write the cosine-similarity CSV '" + path + "'");
}

std::vector<double> GcmsStage::sigma_phi() const {
  std::vector<double> out;
  for (Eigen::Index i = 0; i < sigma.size(); ++i)
    for (int l = 0; l < 3; ++l) out.push_back(sigma(i));
  return out;
}

std::string GcmsStage::summary() const {
  std::ostringstream os;
  os << std::setprecision(4) << name << ": " << n_columns << " columns (" << n_flexible_columns
     << " flexible); cond(Phi) = " << cond_phi << ", cond(Phi_t) = " << cond_phi_t << ", cond(Phi_r) = " << cond_phi_r
     << ", cond(Phi_f) = " << cond_phi_f << "; vanishing sigma: Phi " << deficiency_phi << ", Phi_f "
     << deficiency_phi_f;
  return os.str();
}

namespace {
Eigen::MatrixXd select_columns(const Eigen::MatrixXd& B, const std::vector<int>& idx) {
  Eigen::MatrixXd S(B.rows(), static_cast<Eigen::Index>(idx.size()));
  for (std::size_t i = 0; i < idx.size(); ++i) S.col(static_cast<Eigen::Index>(i)) = B.col(idx[i]);
  return S;
}
} // namespace

GcmsStage diagnose(const GcmsBasis& b, const std::string& name, double svd_tolerance, double gap_ratio) {
  GcmsStage st;
  st.name = name;
  st.n_columns = b.num_columns();
  st.n_flexible_columns = 3 * b.num_flexible_fields();
  std::vector<int> t, r, f;
  for (int j = 0; j < b.num_fields(); ++j) {
    switch (b.fields()[static_cast<std::size_t>(j)].kind) {
    case GcmsFieldKind::translation: t.push_back(j); break;
    case GcmsFieldKind::rotation: r.push_back(j); break;
    case GcmsFieldKind::flexible: f.push_back(j); break;
    }
  }
  const auto& B = b.local_fields();
  st.sigma = la::thin_svd(b.comm(), B).sigma;
  st.sigma_flexible = la::thin_svd(b.comm(), select_columns(B, f)).sigma;
  st.cond_phi = la::condition_number(st.sigma);
  st.cond_phi_t = la::condition_number(la::thin_svd(b.comm(), select_columns(B, t)).sigma);
  st.cond_phi_r = la::condition_number(la::thin_svd(b.comm(), select_columns(B, r)).sigma);
  st.cond_phi_f = la::condition_number(st.sigma_flexible);
  st.deficiency_phi = 3 * gap_deficiency(st.sigma, svd_tolerance, gap_ratio);
  st.deficiency_phi_f = 3 * gap_deficiency(st.sigma_flexible, svd_tolerance, gap_ratio);
  return st;
}

double mode_matrix_condition(const GcmsBasis& b) {
  const int nm = b.num_modes(), nl = b.num_local_nodes();
  Eigen::MatrixXd P(3 * nl, nm);
  for (int m = 0; m < nm; ++m)
    for (int r = 0; r < nl; ++r)
      for (int l = 0; l < 3; ++l) P(3 * r + l, m) = b.local_mode(m)(r, l);
  return la::condition_number(la::thin_svd(b.comm(), P).sigma);
}

} // namespace flexuq::cms
