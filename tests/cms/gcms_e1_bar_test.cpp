// SPDX-License-Identifier: MIT
// Seed 001 B12: GCMS of the E1 bar of Zwölfer & Gerstmayr (Sect. 4, the "illustrative example"):
// a free-free steel beam, 60 mm square section, 900 mm long, hex20, steel assumed (E = 210 GPa,
// ν = 0.3, ρ = 7850: the paper gives none), its first two elastic modes (the bending pair B1).
// Digest §8.2 B12 and §5: the pair is repeated at about 388 Hz (hex20 387.7 Hz; Euler–Bernoulli
// 393.8 Hz above it); in a 45° basis of the pair the 4 in-plane fields are mutually |cos| ≥ 0.9999
// (all ∝ the bending deflection w(z)), so the cosine view keeps "9 of 18" generalized flexible
// columns (3 fields × 3 columns removed); the σ-rank deficiency of Φ_f is 3 (one field) on meshes
// with 2 or more elements across. Counts exact; both meshes (2 × 2 and 4 × 4 across, 30 along).
// Measured: f = 387.757 / 387.736 Hz, cond(Φ_f) 7.06e5 / 6.72e5, the same at 1 and 2 ranks.
#include "FeTestUtil.hpp"

#include "flexuq/cms/Gcms.hpp"
#include "flexuq/cms/GcmsBasis.hpp"
#include "flexuq/cms/GcmsDiagnostics.hpp"
#include "flexuq/io/Generators.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

using namespace flexuq;

namespace {

constexpr double kA = 0.06, kLen = 0.9, kE = 2.1e11, kNu = 0.3, kRho = 7850;

struct E1 {
  std::unique_ptr<fe::Component> c;
  fe::ModeSet modes;
};

E1 e1_bar(int across) {
  io::BoxSpec s;
  s.origin = {-kA / 2, -kA / 2, -kLen / 2}; // origin at the centroid
  s.size = {kA, kA, kLen};
  s.cells = {across, across, 30};
  s.order = 2;
  fe::ComponentOptions o;
  o.default_material = test::material("STEEL", kE, kNu, kRho);
  o.keep_affine = false;
  E1 b;
  b.c = std::make_unique<fe::Component>(MPI_COMM_WORLD, io::generate_box(s), o);
  fe::ModeOptions mo;
  mo.count = 2;
  mo.progress = false;
  b.modes = fe::solve_modes(b.c->K(), b.c->M(), mo);
  return b;
}

/// The pair rotated to 45° off the section's axes: ψ_x = cos θ φ1 + sin θ φ2 is the member whose
/// end face (z = L/2) has no net y-displacement (bending in x; the Poisson field ∝ xy sums to zero
/// over the symmetric face), and the result is (ψ_x ± ψ_y)/√2, i.e. the angles θ + 45° and θ + 135°.
/// (The eigensolver's basis of the pair is arbitrary: without this the "45° basis" is not one.)
std::vector<VecH> rotated_45(const E1& b) {
  const Eigen::MatrixXd V = test::natural_columns(*b.c, b.modes.vectors);
  const auto& X = b.c->mesh().coords;
  double s1 = 0, s2 = 0;
  for (std::size_t n = 0; n < X.size(); ++n)
    if (std::abs(X[n][2] - kLen / 2) < 1e-9) {
      s1 += V(static_cast<Eigen::Index>(3 * n + 1), 0);
      s2 += V(static_cast<Eigen::Index>(3 * n + 1), 1);
    }
  const double theta = std::atan2(-s1, s2);
  std::vector<VecH> out;
  for (double a : {theta + M_PI / 4, theta + 3 * M_PI / 4}) {
    VecH v;
    VecDuplicate(b.modes.vectors[0].get(), v.out());
    VecAXPBYPCZ(v.get(), std::cos(a), std::sin(a), 0.0, b.modes.vectors[0].get(), b.modes.vectors[1].get());
    out.push_back(std::move(v));
  }
  return out;
}

bool root() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r == 0;
}

} // namespace

TEST(GcmsE1Bar, B12RepeatedPairCosinesAndRankDeficiency) {
  // Euler–Bernoulli free-free B1: (βL)²/(2πL²) √(EI/(ρA)), βL = 4.730041.
  const double eb_free = 4.730041 * 4.730041 / (2 * M_PI * kLen * kLen) * std::sqrt(kE * kA * kA / 12 / kRho);
  EXPECT_NEAR(eb_free, 393.8, 0.1); // the digest's Euler–Bernoulli B1
  for (int across : {2, 4}) {
    SCOPED_TRACE(std::to_string(across) + " elements across");
    const E1 b = e1_bar(across);
    ASSERT_EQ(b.modes.eigenvalues.size(), 2u);
    const auto f = b.modes.frequencies_hz();
    EXPECT_EQ(b.modes.multiplicity[0], 2);
    EXPECT_NEAR(f[1] / f[0], 1.0, 1e-8);
    EXPECT_NEAR(f[0], 387.7, 0.01 * 387.7); // hex20 (digest), Timoshenko and 3-D effects below Euler–Bernoulli
    EXPECT_LT(f[0], eb_free);
    // σ-rank deficiency of Φ_f: 3 (one field), whatever the basis of the pair.
    cms::GcmsOptions o;
    const auto res = cms::build_gcms(MPI_COMM_WORLD, *b.c, rotated_45(b), o);
    EXPECT_EQ(res.stages.front().deficiency_phi_f, 3);
    // The 45° basis: the 4 in-plane fields (modes 1, 2; components x, y) mutually |cos| ≥ 0.9999
    // (measured 0.999957 on 2 × 2 and 0.999972 on 4 × 4 across, any rank count).
    const auto rot = rotated_45(b);
    std::vector<Vec> raw{rot[0].get(), rot[1].get()};
    const auto basis = cms::GcmsBasis::from_component(*b.c, raw, true);
    const Eigen::MatrixXd C = cms::cosine_from_gram(basis.field_gram()).cwiseAbs();
    const int fields[4] = {4, 5, 7, 8}; // field 4 + 3 (m − 1) + k of mode m, component k
    double worst = 1;
    for (int i = 0; i < 4; ++i)
      for (int j = i + 1; j < 4; ++j) worst = std::min(worst, C(fields[i], fields[j]));
    EXPECT_GE(worst, 0.9999);
    // The cosine view: 9 of the 18 generalized flexible columns removed (3 fields of 3 columns).
    cms::GcmsOptions oc;
    oc.strategy = cms::GcmsStrategy::cosine;
    oc.cosine_threshold = 0.993;
    oc.canonicalize = false; // keep the 45° basis
    const auto rc = cms::build_gcms(MPI_COMM_WORLD, *b.c, rotated_45(b), oc);
    EXPECT_EQ(rc.removed_columns("cosine"), 9);
    if (root())
      std::printf("[B12 E1 %dx%d] f %.3f %.3f Hz (EB %.1f), sigma deficiency %d, cond(Phi_f) %.3e, in-plane min |cos| %.6f, "
                  "cosine removed %d\n",
                  across, across, f[0], f[1], eb_free, res.stages.front().deficiency_phi_f, res.stages.front().cond_phi_f,
                  worst, rc.removed_columns("cosine"));
  }
}
