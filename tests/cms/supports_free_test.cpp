// SPDX-License-Identifier: MIT
// Free-interface CMS methods on single-component supports (issue #37 item 3).
//  1. Symmetry: a free steel bar 0.4 × 0.04 × 0.03 m (20 × 2 × 2 hex8) with all-dofs interfaces at both
//     ends, and its half 0.2 m (10 × 2 × 2) with the plane x = 0.2 held by u_x = 0 (XSYMM on solid
//     nodes) and the interface XMIN. Both keep the normal modes of one band [0, 12 kHz]. Every basis
//     the method builds for the full bar is closed under the mirror x → 0.4 − x, so its reduced
//     pencil splits into a symmetric and an antisymmetric part, and the symmetric part is the half's
//     reduced pencil: every eigenvalue of the half's reduced pair is one of the full bar's (1e-7).
//     The half's pencil has exactly 3 zero eigenvalues (t_y, t_z, r_x: the rigid motions with u_x = 0
//     on a plane x = const), its rigid columns are named after them, and its lowest 4 elastic
//     eigenvalues are the half's FE modes (the full bar's symmetric modes, tests/app/
//     supports_cli_test.sh): 1e-9 for the free-interface methods, which keep them (in the band);
//     within 15 % for Hurty, whose fixed-interface modes do not. Methods: craig-chang, macneal,
//     herting, hintz-constraint, hintz-attachment, rubin-martinez, hurty.
//  2. A strip 0.4 × 0.04 × 0.02 m (12 × 2 × 2 hex8) on single-component supports leaving k = 3, 2, 1, 0
//     rigid motions (derived by hand: u_z = 0 on both end faces leaves t_x, t_y, r_z; u_x = 0 on
//     y = 0 then leaves t_y, r_z; u_x = 0 on x = 0 instead leaves t_y; adding u_y = 0 on y = 0 none),
//     interface YMAX: WorkSpace::motion_count() = k, each motion Φ_R z is in the null
//     space of K (‖KΦ_R z‖ ≤ 1e-10 ‖K‖‖Φ_R z‖), and the reduced pencil of Craig–Chang, Herting and
//     MacNeal has exactly k zero eigenvalues; 2 free-interface modes kept: elastic 1-2 = the FE modes
//     (1e-9), 3-4 (residual flexibility) within 10 % and above them (Ritz bound; not MacNeal).
//  3. The same on beams (6 DOFs per node: the plane's rows hold rotations): a free 0.4 m steel beam
//     (20 elements, RECT 0.02 × 0.01) with interfaces at both ends, and its 0.2 m half with END1 on
//     XSYMM (dofs [1, 5, 6]) and the interface END0, by craig-chang, macneal and herting.
//  4. 1 rank = 2 ranks (1e-9; tests 1-3 run on each rank alone); gcms on supports is refused naming
//     the method.
#include "CmsTestUtil.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/fe/Modes.hpp"

#include <Eigen/Eigenvalues>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace flexuq;

namespace {

const cms::Method kMethods[] = {cms::Method::craig_chang,      cms::Method::macneal,        cms::Method::herting,
                                cms::Method::hintz_constraint, cms::Method::hintz_attachment, cms::Method::rubin_martinez,
                                cms::Method::hurty};

std::string bar_yaml(double length, int cells, const std::string& fixed) {
  return "\nmodel:\n  generator: {type: box, size: [" + std::to_string(length) + ", 0.04, 0.03], cells: [" +
         std::to_string(cells) + ", 2, 2], order: 1}\n  material: {E: 2.1e11, nu: 0.3, rho: 7850}\n" +
         (fixed.empty() ? std::string() : "  fixed: " + fixed + "\n");
}

std::string strip_yaml(const std::string& fixed) {
  return "\nmodel:\n  generator: {type: box, size: [0.4, 0.04, 0.02], cells: [12, 2, 2], order: 1}\n"
         "  material: {E: 2.1e11, nu: 0.3, rho: 7850}\n  fixed: " +
         fixed + "\n";
}

/// Eigenvalues of the pencil (K, M), ascending, of the diagonally scaled pair (d_j = M_jj^(-1/2)).
/// MacNeal's M̄ is singular by design (residual inertia dropped): @p sigma > 0 then scales by
/// d_j = (|M_jj| + |K_jj| / sigma)^(-1/2) and the massless directions U0 (eigenvectors of the scaled
/// M below 1e-10 of the largest) are condensed statically, K_c = K_11 − K_10 K_00⁻¹ K_01.
std::vector<double> pencil(const Eigen::MatrixXd& K, const Eigen::MatrixXd& M, double sigma = 0) {
  const Eigen::Index n = K.rows();
  Eigen::VectorXd d(n);
  for (Eigen::Index j = 0; j < n; ++j)
    d(j) = 1.0 / std::sqrt(sigma > 0 ? std::abs(M(j, j)) + std::abs(K(j, j)) / sigma : M(j, j));
  const Eigen::MatrixXd Ks = d.asDiagonal() * (0.5 * (K + K.transpose())) * d.asDiagonal();
  const Eigen::MatrixXd Ms = d.asDiagonal() * (0.5 * (M + M.transpose())) * d.asDiagonal();
  Eigen::VectorXd lam;
  if (sigma > 0) {
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> em(Ms);
    Eigen::Index nn = 0;
    while (nn < n && em.eigenvalues()(nn) <= 1e-10 * em.eigenvalues()(n - 1)) ++nn;
    const Eigen::MatrixXd U0 = em.eigenvectors().leftCols(nn), U1 = em.eigenvectors().rightCols(n - nn);
    Eigen::MatrixXd Kc = U1.transpose() * Ks * U1;
    if (nn > 0) Kc -= (U1.transpose() * Ks * U0) * (U0.transpose() * Ks * U0).ldlt().solve(U0.transpose() * Ks * U1);
    const Eigen::MatrixXd Mc = em.eigenvalues().tail(n - nn).asDiagonal();
    lam = Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd>(0.5 * (Kc + Kc.transpose()), Mc, Eigen::EigenvaluesOnly)
              .eigenvalues();
  } else {
    lam = Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd>(Ks, Ms, Eigen::EigenvaluesOnly).eigenvalues();
  }
  return std::vector<double>(lam.data(), lam.data() + lam.size());
}

struct Reduced {
  std::vector<double> lam;   ///< finite eigenvalues of the reduced pencil
  std::vector<std::string> rigid_labels;
  int motions = -1;
};

/// Reduce the component of @p yaml with the interfaces @p sets by method @p m, keeping a band or a
/// count of normal modes; @p sigma: an eigenvalue scale for MacNeal's singular M̄ (see pencil).
Reduced reduce(MPI_Comm comm, const std::string& yaml, std::initializer_list<const char*> sets, cms::Method m,
               std::optional<std::pair<double, double>> band, int count, double sigma) {
  auto comp = test::component_from_yaml(comm, yaml);
  cms::WorkSpace ws(*comp, test::interfaces(sets));
  cms::ReducerOptions o;
  o.modes.count = count;
  o.modes.band_hz = band;
  o.modes.progress = false;
  cms::Reducer red(ws, o);
  cms::BuildOptions b;
  b.method = m;
  const auto rb = red.build(b);
  Reduced r;
  r.lam = pencil(rb.K, rb.M, m == cms::Method::macneal ? sigma : 0.0);
  for (std::size_t j = 0; j < rb.kinds.size(); ++j)
    if (rb.kinds[j] == cms::ColumnKind::rigid_body || rb.kinds[j] == cms::ColumnKind::inertia_relief)
      r.rigid_labels.push_back(rb.labels[j]);
  r.motions = ws.motion_count();
  return r;
}

int zeros(const std::vector<double>& lam, double ref) {
  return static_cast<int>(std::count_if(lam.begin(), lam.end(), [&](double l) { return std::abs(l) < 1e-8 * ref; }));
}

/// The elastic eigenvalues of a component's own K, M (no interface), zero-energy ones skipped.
std::vector<double> fe_modes(MPI_Comm comm, const std::string& yaml, int count) {
  auto comp = test::component_from_yaml(comm, yaml);
  fe::ModeOptions o;
  o.count = count;
  o.progress = false;
  return fe::solve_modes(comp->K(), comp->M(), o).eigenvalues;
}

/// The largest relative distance of a nonzero eigenvalue of @p half (|λ| ≥ 1e-8 @p ref) to the
/// nearest one of @p full; @p elastic counts them.
double max_distance(const std::vector<double>& half, const std::vector<double>& full, double ref, int& elastic) {
  double worst = 0;
  elastic = 0;
  for (double l : half) {
    if (std::abs(l) < 1e-8 * ref) continue;
    ++elastic;
    double best = std::numeric_limits<double>::infinity();
    for (double f : full) best = std::min(best, std::abs(f / l - 1));
    worst = std::max(worst, best);
  }
  return worst;
}

const std::pair<double, double> kBand{0.0, 12000.0};
/// Tests 1 to 3 run on each rank alone (a 2-rank run of them measured 10 s on the loaded CI
/// machine); the 2-rank path is test 4's.
const MPI_Comm kComm = MPI_COMM_SELF;
const std::string kHalfSupports = "[{set: XMAX, dofs: [1]}]";

int rank_of(MPI_Comm c) {
  int r = 0;
  MPI_Comm_rank(c, &r);
  return r;
}

} // namespace

TEST(CmsSupportsFree, HalfModelWithASymmetryPlaneIsTheFullModelsSymmetricPart) {
  const auto exact = fe_modes(kComm, bar_yaml(0.2, 10, kHalfSupports), 4);
  ASSERT_EQ(exact.size(), 4u);
  for (cms::Method m : kMethods) {
    SCOPED_TRACE(cms::method_name(m));
    const auto full = reduce(kComm, bar_yaml(0.4, 20, ""), {"XMIN", "XMAX"}, m, kBand, 0, exact[0]);
    const auto half = reduce(kComm, bar_yaml(0.2, 10, kHalfSupports), {"XMIN"}, m, kBand, 0, exact[0]);
    EXPECT_EQ(full.motions, 6);
    EXPECT_EQ(half.motions, 3);
    EXPECT_EQ(zeros(full.lam, exact[0]), 6);
    EXPECT_EQ(zeros(half.lam, exact[0]), 3);
    // The rigid columns: the motions with u_x = 0 on x = 0.2 (t_y, t_z, r_x about the origin).
    if (m != cms::Method::hintz_constraint) {
      ASSERT_EQ(half.rigid_labels.size(), 3u);
      for (const char* n : {"ty", "tz", "rx"})
        EXPECT_TRUE(std::any_of(half.rigid_labels.begin(), half.rigid_labels.end(),
                                [&](const std::string& l) { return l.size() > 2 && l.substr(l.size() - 2) == n; }))
            << n;
    }
    int elastic = 0;
    const double worst = max_distance(half.lam, full.lam, exact[0], elastic);
    EXPECT_LT(worst, 1e-7);
    // MacNeal's pencil has finite eigenvalues for the rigid and modal columns only (M̄ drops the
    // residual inertia): the 6 symmetric modes in the band; the others have one per column.
    EXPECT_GE(elastic, m == cms::Method::macneal ? 6 : 30);
    // The lowest elastic eigenvalues against the half's FE modes.
    std::vector<double> el;
    for (double l : half.lam)
      if (std::abs(l) >= 1e-8 * exact[0]) el.push_back(l);
    double acc = 0;
    for (std::size_t i = 0; i < exact.size(); ++i) {
      acc = std::max(acc, std::abs(el[i] / exact[i] - 1));
    }
    // The free-interface methods keep these modes (the band holds them): reproduced to round-off;
    // Hurty keeps fixed-interface modes: 1.5e-3 … 9.9e-2 measured for the lowest 4.
    EXPECT_LT(acc, m == cms::Method::hurty ? 0.15 : 1e-9);
    if (rank_of(MPI_COMM_WORLD) == 0)
      std::printf("[CmsSupportsFree] %-16s half %zu eigenvalues (%d elastic) among the full bar's: max rel. distance "
                  "%.2e; lowest 4 vs FE modes: max rel. error %.2e\n",
                  cms::method_name(m), half.lam.size(), elastic, worst, acc);
  }
}

TEST(CmsSupportsFree, StripOnSupportsLeavingKRigidMotions) {
  struct Case {
    const char* fixed;
    int k;
  };
  const Case cases[] = {
      {"[{set: XMIN, dofs: [3]}, {set: XMAX, dofs: [3]}]", 3},
      {"[{set: XMIN, dofs: [3]}, {set: XMAX, dofs: [3]}, {set: YMIN, dofs: [1]}]", 2},
      {"[{set: XMIN, dofs: [1, 3]}, {set: XMAX, dofs: [3]}]", 1},
      {"[{set: XMIN, dofs: [1, 3]}, {set: XMAX, dofs: [3]}, {set: YMIN, dofs: [2]}]", 0},
  };
  for (const auto& cs : cases) {
    SCOPED_TRACE(cs.fixed);
    const std::string yaml = strip_yaml(cs.fixed);
    {
      auto comp = test::component_from_yaml(kComm, yaml);
      cms::WorkSpace ws(*comp, test::interfaces({"XMAX"}));
      ASSERT_TRUE(ws.supported());
      ASSERT_EQ(ws.motion_count(), cs.k);
      // Each motion is a zero-energy mode of the supported component.
      const auto R = ws.rigid_modes();
      PetscReal knorm = 0;
      FLEXUQ_PETSC(MatNorm(ws.K(), NORM_INFINITY, &knorm));
      for (int j = 0; j < cs.k; ++j) {
        VecH v = ws.new_vector(), kv = ws.new_vector();
        for (int a = 0; a < 6; ++a) FLEXUQ_PETSC(VecAXPY(v.get(), ws.motions()(a, j), R[static_cast<std::size_t>(a)].get()));
        FLEXUQ_PETSC(MatMult(ws.K(), v.get(), kv.get()));
        PetscReal nv = 0, nkv = 0;
        FLEXUQ_PETSC(VecNorm(v.get(), NORM_INFINITY, &nv));
        FLEXUQ_PETSC(VecNorm(kv.get(), NORM_INFINITY, &nkv));
        EXPECT_LT(nkv, 1e-10 * knorm * nv) << "motion " << j;
      }
    }
    const auto exact = fe_modes(kComm, yaml, 4);
    ASSERT_EQ(exact.size(), 4u);
    for (cms::Method m : {cms::Method::craig_chang, cms::Method::herting, cms::Method::macneal}) {
      SCOPED_TRACE(cms::method_name(m));
      const auto r = reduce(kComm, yaml, {"YMAX"}, m, std::nullopt, 2, exact[0]);
      EXPECT_EQ(r.motions, cs.k);
      EXPECT_EQ(zeros(r.lam, exact[0]), cs.k);
      std::vector<double> el;
      for (double l : r.lam)
        if (std::abs(l) >= 1e-8 * exact[0]) el.push_back(l);
      // Modes 1-2 are kept (exact); 3-4 come from the residual flexibility of the interface (MacNeal's
      // pencil has finite eigenvalues for the rigid and kept modal columns only).
      const std::size_t nc = m == cms::Method::macneal ? 2 : 4;
      ASSERT_GE(el.size(), nc);
      double kept = 0, err = 0;
      for (std::size_t i = 0; i < nc; ++i) {
        if (m != cms::Method::macneal) EXPECT_GT(el[i], exact[i] * (1 - 1e-9)) << i; // Ritz bound
        (i < 2 ? kept : err) = std::max(i < 2 ? kept : err, std::abs(el[i] / exact[i] - 1));
      }
      EXPECT_LT(kept, 1e-9);
      EXPECT_LT(err, 0.1); // measured 1.5e-2 (k = 3) … 5.6e-2 (k = 0) with interface YMAX
      if (rank_of(MPI_COMM_WORLD) == 0)
        std::printf("[CmsSupportsFree] strip k = %d %-12s %d zero eigenvalues; elastic 1-2 (kept) vs FE %.1e, 3-4 %.2e\n",
                    cs.k, cms::method_name(m), zeros(r.lam, exact[0]), kept, err);
    }
  }
}

TEST(CmsSupportsFree, HalfBeamWithXsymm) {
  auto beam = [](double L, int n, const std::string& fixed) {
    return "model:\n  generator: {type: beam, length: " + std::to_string(L) + ", elements: " + std::to_string(n) +
           ", section: {shape: RECT, dims: [0.02, 0.01]}}\n  material: {E: 2.0e11, nu: 0.3, rho: 7800}\n" +
           (fixed.empty() ? std::string() : "  fixed: " + fixed + "\n");
  };
  const std::string half_yaml = beam(0.2, 10, "[{set: END1, dofs: [1, 5, 6]}]");
  const auto exact = fe_modes(kComm, half_yaml, 1);
  ASSERT_EQ(exact.size(), 1u);
  for (cms::Method m : {cms::Method::craig_chang, cms::Method::macneal, cms::Method::herting}) {
    SCOPED_TRACE(cms::method_name(m));
    const auto full = reduce(kComm, beam(0.4, 20, ""), {"END0", "END1"}, m, kBand, 0, exact[0]);
    const auto half = reduce(kComm, half_yaml, {"END0"}, m, kBand, 0, exact[0]);
    EXPECT_EQ(half.motions, 3);
    EXPECT_EQ(zeros(full.lam, exact[0]), 6);
    EXPECT_EQ(zeros(half.lam, exact[0]), 3);
    int elastic = 0;
    const double worst = max_distance(half.lam, full.lam, exact[0], elastic);
    EXPECT_LT(worst, 1e-7);
    EXPECT_GE(elastic, 4);
    if (rank_of(MPI_COMM_WORLD) == 0)
      std::printf("[CmsSupportsFree] beam %-12s half %zu eigenvalues (%d elastic) among the full beam's: max rel. "
                  "distance %.2e\n",
                  cms::method_name(m), half.lam.size(), elastic, worst);
  }
}

TEST(CmsSupportsFree, OneRankEqualsTwoRanks) {
  for (cms::Method m : {cms::Method::craig_chang, cms::Method::herting, cms::Method::macneal}) {
    SCOPED_TRACE(cms::method_name(m));
    const auto two = reduce(MPI_COMM_WORLD, bar_yaml(0.2, 10, kHalfSupports), {"XMIN"}, m, kBand, 0, 1e7);
    const auto one = reduce(MPI_COMM_SELF, bar_yaml(0.2, 10, kHalfSupports), {"XMIN"}, m, kBand, 0, 1e7);
    ASSERT_EQ(one.lam.size(), two.lam.size());
    for (std::size_t i = 0; i < one.lam.size(); ++i) {
      if (std::abs(two.lam[i]) < 1e-6 * two.lam.back()) continue; // the zero eigenvalues: round-off
      EXPECT_NEAR(one.lam[i] / two.lam[i], 1.0, 1e-9) << i;
    }
  }
}

TEST(CmsSupportsFree, GcmsOnSupportsIsRefused) {
  auto comp = test::component_from_yaml(MPI_COMM_WORLD, bar_yaml(0.2, 10, kHalfSupports));
  cms::WorkSpace ws(*comp, test::interfaces({"XMIN"}));
  cms::ReducerOptions o;
  o.modes.count = 4;
  o.modes.progress = false;
  cms::Reducer red(ws, o);
  cms::BuildOptions b;
  b.method = cms::Method::gcms;
  try {
    red.build(b);
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("gcms is not implemented on single-component supports"), std::string::npos) << w;
  }
}
