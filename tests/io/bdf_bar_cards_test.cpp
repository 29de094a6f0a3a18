// SPDX-License-Identifier: MIT
// Nastran CBAR/CBEAM offsets (WA/WB) and pin flags (PA/PB), and the nonstructural mass (NSM) of
// PBAR/PBARL/PBEAM/PROD/CONROD (issue 37 item 4), against references built here:
// - offsets: the element equals the plain beam between the offset points joined to its grids by
//   rigid links (u_end = u + θ × w, written here with cross products), entry by entry; an offset
//   portal frame through fe::Component and SLEPc equals a dense model with explicit rigid links
//   (and differs from the portal without offsets);
// - pin flags: the propped cantilever's end stiffnesses 3EI/L³ and 3EI/L of one element, and the
//   clamped–pinned Euler–Bernoulli frequencies (λ from tan λ = tanh λ, solved here) of a beam
//   clamped at both grids and pinned at one element end (PB = 56, or PA = 456 with the torsion
//   clamped–free);
// - NSM: the rigid-body mass (ρA + NSM) L at the midpoint of the offset points, and frequencies
//   scaled by √(ρA/(ρA + NSM)) exactly.
#include "ScratchFile.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/fe/Component.hpp"
#include "flexuq/fe/Element.hpp"
#include "flexuq/fe/Modes.hpp"
#include "flexuq/io/BdfReader.hpp"

#include <Eigen/Dense>
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <fstream>
#include <sstream>

using namespace flexuq;

namespace {

std::string write_deck(const std::string& name, const std::string& text) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string p = test::scratch_file("bdf", std::to_string(size) + "_" + name);
  std::ofstream(p) << text;
  return p;
}

void expect_error(const std::string& path, std::initializer_list<std::string> parts) {
  try {
    (void)io::read_bdf(path);
    ADD_FAILURE() << path << ": no error";
  } catch (const InputError& e) {
    for (const auto& p : parts) EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << "'" << p << "' not in: " << e.what();
  }
}

/// The 12×6... map from a grid pair's DOFs (u, θ at each) to the beam ends' DOFs when end x sits at
/// grid + w_x and is joined rigidly: u_end = u + θ × w, θ_end = θ (columns built by cross products).
Eigen::MatrixXd rigid_links(const Eigen::Vector3d& wa, const Eigen::Vector3d& wb) {
  Eigen::MatrixXd W = Eigen::MatrixXd::Identity(12, 12);
  for (int end = 0; end < 2; ++end)
    for (int k = 0; k < 3; ++k) W.block(6 * end, 6 * end + 3 + k, 3, 1) = Eigen::Vector3d::Unit(k).cross(end ? wb : wa);
  return W;
}

Eigen::Vector3d vec(const std::array<double, 3>& a) { return {a[0], a[1], a[2]}; }

/// Rigid-body modes of two nodes at @p a, @p b (translations, then rotations ω: u = ω × x).
Eigen::MatrixXd rigid_modes(const Eigen::Vector3d& a, const Eigen::Vector3d& b) {
  Eigen::MatrixXd R = Eigen::MatrixXd::Zero(12, 6);
  for (int n = 0; n < 2; ++n)
    for (int k = 0; k < 3; ++k) {
      R(6 * n + k, k) = 1;
      R(6 * n + 3 + k, 3 + k) = 1;
      R.block(6 * n, 3 + k, 3, 1) = Eigen::Vector3d::Unit(k).cross(n ? b : a);
    }
  return R;
}

/// Sorted frequencies² of the fixed-free problem of @p deck (first @p n).
std::vector<double> eigenvalues(const std::string& deck, const std::vector<std::string>& fixed, int n) {
  fe::ComponentOptions o;
  o.fixed_sets = fixed;
  fe::Component comp(MPI_COMM_WORLD, io::read_bdf(deck), o);
  fe::ModeOptions mo;
  mo.count = n;
  mo.constrained = true;
  mo.progress = false;
  return fe::solve_modes(comp.K(), comp.M(), mo).eigenvalues;
}

const double kE = 2.1e11, kNu = 0.3, kRho = 7850;

} // namespace

// ---- offsets ---------------------------------------------------------------------------------------

// One skew CBAR with offsets at both ends, WB given in grid 2's displacement system (a CORD2R
// rotated 45° about z): K_E, K_G and M equal Wᵀ X W of the same section between the offset points
// without offsets; K annihilates the grids' rigid motions; the mass sits at the offset points.
TEST(BdfBarOffsets, OneElementIsThePlainBeamBetweenTheOffsetPointsOnRigidLinks) {
  const Eigen::Vector3d a(0.1, -0.2, 0.3), b(0.5, 0.1, 0.1), wa(0.01, 0.02, -0.03), wb_cd(0.02, -0.01, 0.015);
  const Eigen::Vector3d ex = Eigen::Vector3d(1, 1, 0).normalized(), ez(0, 0, 1), ey = ez.cross(ex);
  const Eigen::Vector3d wb = wb_cd.x() * ex + wb_cd.y() * ey + wb_cd.z() * ez;
  for (const char* coup : {"", "PARAM,COUPMASS,1\n"})
    for (bool beam : {false, true}) {
      SCOPED_TRACE(std::string(beam ? "CBEAM" : "CBAR") + (*coup ? " coupled" : " lumped"));
      std::ostringstream os;
      os << coup << "CORD2R,1,,0.,0.,0.,0.,0.,1.\n,1.,1.,0.\n"
         << "GRID,1,,0.1,-0.2,0.3\nGRID,2,,0.5,0.1,0.1,1\n"
         << (beam ? "CBEAM" : "CBAR") << ",5,7,1,2,0.3,1.,0.2\n,,,0.01,0.02,-0.03,0.02,-0.01,0.015\n"
         << (beam ? "PBEAM,7,1,3.E-3,2.E-6,5.E-7,0.,1.1E-6,0.4\n" : "PBAR,7,1,3.E-3,2.E-6,5.E-7,1.1E-6,0.4\n")
         << "MAT1,1,7.E10,,0.33,2700.\n";
      const io::Mesh m = io::read_bdf(write_deck("offset_one.bdf", os.str()));
      ASSERT_EQ(m.sections.size(), 1u);
      const io::BeamSection& s = m.sections[0].beam_section;
      EXPECT_LT((vec(s.offset_a) - wa).norm(), 1e-15);
      EXPECT_LT((vec(s.offset_b) - wb).norm(), 1e-15);
      EXPECT_DOUBLE_EQ(s.nsm, 0.4);
      const auto t = fe::beam_terms(m.coords[0], m.coords[1], s, 5);
      io::BeamSection plain = s;
      plain.offset_a = plain.offset_b = {0, 0, 0};
      const Eigen::Vector3d pa = a + wa, pb = b + wb;
      const auto r = fe::beam_terms({pa.x(), pa.y(), pa.z()}, {pb.x(), pb.y(), pb.z()}, plain, 5);
      const Eigen::MatrixXd W = rigid_links(wa, wb);
      auto check = [&](const fe::ElemMat& got, const fe::ElemMat& ref, const char* what) {
        const Eigen::MatrixXd want = W.transpose() * Eigen::MatrixXd(ref) * W;
        EXPECT_LT((Eigen::MatrixXd(got) - want).cwiseAbs().maxCoeff(), 1e-12 * want.cwiseAbs().maxCoeff()) << what;
      };
      check(t.K_E, r.K_E, "K_E");
      check(t.K_G, r.K_G, "K_G");
      check(t.M1, r.M1, "M1");
      check(t.M_nsm, r.M_nsm, "M_nsm");
      // Rigid motions of the grids strain nothing.
      const Eigen::MatrixXd R = rigid_modes(a, b);
      const Eigen::MatrixXd K = Eigen::MatrixXd(t.K_E) + Eigen::MatrixXd(t.K_G);
      EXPECT_LT((K * R).cwiseAbs().maxCoeff(), 1e-9 * K.cwiseAbs().maxCoeff());
      // Rigid-body mass: ρAL + NSM·L, first moment at the midpoint of the offset points.
      const double L = (pb - pa).norm(), mass = 2700 * 3e-3 * L + 0.4 * L;
      const Eigen::MatrixXd Mrb = R.transpose() * (2700 * Eigen::MatrixXd(t.M1) + s.nsm * Eigen::MatrixXd(t.M_nsm)) * R;
      const Eigen::Vector3d c = 0.5 * (pa + pb);
      Eigen::Matrix3d S; // first moments: translation k times rotation j = m (e_j × c)_k
      for (int j = 0; j < 3; ++j) S.col(j) = mass * Eigen::Vector3d::Unit(j).cross(c);
      EXPECT_LT((Mrb.topLeftCorner(3, 3) - mass * Eigen::Matrix3d::Identity()).norm(), 1e-13 * mass);
      EXPECT_LT((Mrb.topRightCorner(3, 3) - S).norm(), 1e-13 * mass) << Mrb.topRightCorner(3, 3);
    }
}

namespace {

// Portal: columns x = 0 and x = kW from z = 0 (clamped) to z = kH, 4 elements each; a girder at the
// column tops, 4 elements, pulled in by kD (half the column depth) and down by kC at both ends.
const int kNe = 4;
const double kW = 2.0, kH = 3.0, kD = 0.15, kC = 0.1;
const double kAc = 6e-3, kI1c = 3e-5, kI2c = 1e-5, kJc = 2e-6; // columns
const double kAg = 4e-3, kI1g = 2e-5, kI2g = 6e-6, kJg = 1e-6; // girder

struct PortalNode {
  Eigen::Vector3d x;
};

std::string portal_deck(bool offsets) {
  std::ostringstream os;
  os.precision(17);
  os << "PARAM,COUPMASS,1\n";
  int id = 1;
  for (double x0 : {0.0, kW})
    for (int i = 0; i <= kNe; ++i) os << "GRID," << id++ << ",," << x0 << ",0.," << kH * i / kNe << "\n";
  // Girder grids: between the offset points when offset, else between the column tops.
  const double g0 = offsets ? kD : 0.0, g1 = offsets ? kW - kD : kW, zg = offsets ? kH - kC : kH;
  for (int i = 1; i < kNe; ++i) os << "GRID," << id++ << ",," << g0 + (g1 - g0) * i / kNe << ",0.," << zg << "\n";
  int eid = 1;
  for (int c = 0; c < 2; ++c)
    for (int i = 0; i < kNe; ++i) os << "CBEAM," << eid++ << ",1," << 5 * c + i + 1 << "," << 5 * c + i + 2 << ",1.,0.,0.\n";
  const int top[2] = {5, 10};
  for (int i = 0; i < kNe; ++i) {
    const int ga = i == 0 ? top[0] : 10 + i, gb = i == kNe - 1 ? top[1] : 11 + i;
    os << "CBEAM," << eid++ << ",2," << ga << "," << gb << ",0.,0.,1.\n";
    if (offsets && i == 0) os << ",,," << kD << ",0.," << -kC << "\n";
    if (offsets && i == kNe - 1) os << ",,,0.,0.,0.," << -kD << ",0.," << -kC << "\n";
  }
  os << "PBEAM,1,1," << kAc << "," << kI1c << "," << kI2c << ",0.," << kJc << "\n";
  os << "PBEAM,2,1," << kAg << "," << kI1g << "," << kI2g << ",0.," << kJg << "\n";
  os << "MAT1,1," << kE << ",," << kNu << "," << kRho << "\nSPC1,1,123456,1,6\n";
  return os.str();
}

/// The offset portal's eigenvalues from a dense model written here: plain beams (no offsets)
/// between the offset points, the girder's end points tied to the column tops by rigid links.
Eigen::VectorXd portal_reference() {
  // Nodes: columns 0..9 (as the deck's grids 1..10), girder interior 10..12; the girder's end
  // points are no nodes of their own: the rigid links express them through nodes 4 and 9.
  std::vector<Eigen::Vector3d> x;
  for (double x0 : {0.0, kW})
    for (int i = 0; i <= kNe; ++i) x.emplace_back(x0, 0, kH * i / kNe);
  for (int i = 1; i < kNe; ++i) x.emplace_back(kD + (kW - 2 * kD) * i / kNe, 0, kH - kC);
  const int n = 6 * static_cast<int>(x.size());
  Eigen::MatrixXd K = Eigen::MatrixXd::Zero(n, n), M = K;
  const double G = kE / (2 * (1 + kNu));
  auto add = [&](int na, int nb, const Eigen::Vector3d& pa, const Eigen::Vector3d& pb, double A, double I1, double I2,
                 double J, const std::array<double, 3>& v, const Eigen::Vector3d& wa, const Eigen::Vector3d& wb) {
    io::BeamSection s;
    s.shape = "GENERAL";
    s.dims = {A, I2, 0.0, I1, J};
    s.n1 = v;
    s.compute_properties(io::SourceLocation{});
    const auto t = fe::beam_terms({pa.x(), pa.y(), pa.z()}, {pb.x(), pb.y(), pb.z()}, s, 0);
    const Eigen::MatrixXd W = rigid_links(wa, wb);
    const Eigen::MatrixXd ke = W.transpose() * (kE * Eigen::MatrixXd(t.K_E) + G * Eigen::MatrixXd(t.K_G)) * W;
    const Eigen::MatrixXd me = W.transpose() * (kRho * Eigen::MatrixXd(t.M1)) * W;
    const int base[2] = {6 * na, 6 * nb};
    for (int i = 0; i < 12; ++i)
      for (int j = 0; j < 12; ++j) {
        K(base[i / 6] + i % 6, base[j / 6] + j % 6) += ke(i, j);
        M(base[i / 6] + i % 6, base[j / 6] + j % 6) += me(i, j);
      }
  };
  const Eigen::Vector3d zero = Eigen::Vector3d::Zero();
  for (int c = 0; c < 2; ++c)
    for (int i = 0; i < kNe; ++i)
      add(5 * c + i, 5 * c + i + 1, x[5 * c + i], x[5 * c + i + 1], kAc, kI1c, kI2c, kJc, {1, 0, 0}, zero, zero);
  const Eigen::Vector3d wa(kD, 0, -kC), wb(-kD, 0, -kC);
  for (int i = 0; i < kNe; ++i) {
    const int na = i == 0 ? 4 : 9 + i, nb = i == kNe - 1 ? 9 : 10 + i;
    const Eigen::Vector3d pa = i == 0 ? Eigen::Vector3d(x[4] + wa) : x[9 + i];
    const Eigen::Vector3d pb = i == kNe - 1 ? Eigen::Vector3d(x[9] + wb) : x[10 + i];
    add(na, nb, pa, pb, kAg, kI1g, kI2g, kJg, {0, 0, 1}, i == 0 ? wa : zero, i == kNe - 1 ? wb : zero);
  }
  std::vector<int> keep; // clamp nodes 0 and 5
  for (int i = 0; i < n; ++i)
    if (i / 6 != 0 && i / 6 != 5) keep.push_back(i);
  Eigen::MatrixXd Kr(keep.size(), keep.size()), Mr = Kr;
  for (std::size_t i = 0; i < keep.size(); ++i)
    for (std::size_t j = 0; j < keep.size(); ++j) {
      Kr(i, j) = K(keep[i], keep[j]);
      Mr(i, j) = M(keep[i], keep[j]);
    }
  return Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd>(Kr, Mr, Eigen::EigenvaluesOnly).eigenvalues();
}

} // namespace

// The offset portal through the reader, fe::Component and SLEPc: its first 8 frequencies equal the
// dense rigid-link model's to 1e-8; the offsets matter (the first frequency moves by > 1 %).
TEST(BdfBarOffsets, OffsetPortalMatchesExplicitRigidLinks) {
  const auto got = eigenvalues(write_deck("portal_offset.bdf", portal_deck(true)), {"SPC1"}, 8);
  const auto plain = eigenvalues(write_deck("portal_plain.bdf", portal_deck(false)), {"SPC1"}, 8);
  const Eigen::VectorXd want = portal_reference();
  ASSERT_GE(got.size(), 8u);
  for (int j = 0; j < 8; ++j)
    EXPECT_NEAR(std::sqrt(got[static_cast<std::size_t>(j)] / want(j)), 1.0, 1e-8)
        << "mode " << j + 1 << ": " << std::sqrt(got[static_cast<std::size_t>(j)]) / (2 * M_PI) << " Hz";
  const double shift = std::sqrt(got[0] / plain[0]) - 1;
  EXPECT_GT(std::abs(shift), 0.01) << "first frequency with and without offsets: " << std::sqrt(got[0]) / (2 * M_PI)
                                   << " Hz, " << std::sqrt(plain[0]) / (2 * M_PI) << " Hz";
}

// ---- pin flags -------------------------------------------------------------------------------------

// One CBAR along x, PA = 6 (θz released at A): in plane 1 it is a propped cantilever seen from B,
// K(v_B, v_B) = 3EI1/L³ and K(θz_B, θz_B) = 3EI1/L; nothing acts on θz_A; plane 2 keeps 12EI2/L³;
// the rigid motions still strain nothing.
TEST(BdfBarPins, ReleasedRotationGivesThePropedCantileverStiffness) {
  const double L = 1.5, I1 = 2e-6, I2 = 5e-7;
  const io::Mesh m = io::read_bdf(write_deck(
      "pin_one.bdf", "GRID,1,,0.,0.,0.\nGRID,2,,1.5,0.,0.\nCBAR,5,7,1,2,0.,1.,0.\n,6\nPBAR,7,1,3.E-3,2.E-6,5.E-7,1.1E-6\n"
                     "MAT1,1,7.E10,,0.33,2700.\n"));
  ASSERT_EQ(m.sections.size(), 1u);
  EXPECT_EQ(m.sections[0].beam_section.release_a, 1 << 5);
  EXPECT_EQ(m.sections[0].beam_section.release_b, 0);
  const auto t = fe::beam_terms(m.coords[0], m.coords[1], m.sections[0].beam_section, 5);
  EXPECT_NEAR(t.K_E(7, 7), 3 * I1 / (L * L * L), 1e-12 * I1);
  EXPECT_NEAR(t.K_E(11, 11), 3 * I1 / L, 1e-12 * I1);
  EXPECT_NEAR(t.K_E(8, 8), 12 * I2 / (L * L * L), 1e-12 * I2);
  EXPECT_EQ(t.K_E.row(5).cwiseAbs().maxCoeff(), 0.0);
  EXPECT_EQ(t.M1.row(5).cwiseAbs().maxCoeff(), 0.0);
  const Eigen::MatrixXd R = rigid_modes({0, 0, 0}, {L, 0, 0});
  EXPECT_LT((Eigen::MatrixXd(t.K_E + t.K_G) * R).cwiseAbs().maxCoeff(), 1e-12);
}

namespace {

const int kNp = 40;
const double kLp = 1.0, kRp = 0.05;

/// A round CBEAM of kNp elements along x, grids 1 and kNp + 1 clamped; PA on the first element,
/// PB on the last.
std::string pinned_deck(const std::string& pa, const std::string& pb) {
  std::ostringstream os;
  os.precision(17);
  os << "PARAM,COUPMASS,1\n";
  for (int i = 0; i <= kNp; ++i) os << "GRID," << i + 1 << ",," << kLp * i / kNp << ",0.,0.\n";
  for (int i = 1; i <= kNp; ++i) {
    os << "CBEAM," << i << ",1," << i << "," << i + 1 << ",0.,1.,0.\n";
    if (i == 1 && !pa.empty()) os << "," << pa << "\n";
    if (i == kNp && !pb.empty()) os << ",," << pb << "\n";
  }
  const double A = M_PI * kRp * kRp, I = M_PI * std::pow(kRp, 4) / 4;
  os << "PBEAM,1,1," << A << "," << I << "," << I << ",0.," << 2 * I << "\n";
  os << "MAT1,1," << kE << ",," << kNu << "," << kRho << "\nSPC1,1,123456,1," << kNp + 1 << "\n";
  return os.str();
}

/// The k-th root of tan λ = tanh λ (clamped–pinned beam), by Newton from (k + 1/4) π.
double clamped_pinned_root(int k) {
  double x = (k + 0.25) * M_PI;
  for (int it = 0; it < 50; ++it) {
    const double f = std::tan(x) - std::tanh(x), df = 1 / std::pow(std::cos(x), 2) - 1 / std::pow(std::cosh(x), 2);
    x -= f / df;
  }
  return x;
}

} // namespace

// Clamped at both grids, pinned at one beam end: the bending pairs are the clamped–pinned beam's,
// ω = (λ/L)² √(EI/ρA) with λ = 3.9266, 7.0686; with PA = 456 the twist is released at the root too
// and the torsion is clamped–free, ω = (π/2L) √(G/ρ).
TEST(BdfBarPins, PinnedEndGivesClampedPinnedFrequencies) {
  EXPECT_NEAR(clamped_pinned_root(1), 3.9266, 1e-4);
  EXPECT_NEAR(clamped_pinned_root(2), 7.0686, 1e-4);
  const double A = M_PI * kRp * kRp, I = M_PI * std::pow(kRp, 4) / 4, G = kE / (2 * (1 + kNu));
  auto bend = [&](int k) { return std::pow(clamped_pinned_root(k) / kLp, 2) * std::sqrt(kE * I / (kRho * A)); };
  const double torsion = M_PI / (2 * kLp) * std::sqrt(G / kRho);
  for (bool at_a : {false, true}) {
    SCOPED_TRACE(at_a ? "PA=456 on the first element" : "PB=56 on the last element");
    const auto got = eigenvalues(write_deck(at_a ? "pin_a.bdf" : "pin_b.bdf", at_a ? pinned_deck("456", "") : pinned_deck("", "56")),
                                 {"SPC1"}, 5);
    ASSERT_GE(got.size(), 5u);
    // Measured (40 Hermite elements): 6.4e-8, 6.8e-7 and, torsion, 7.4e-5 above the closed forms.
    std::vector<std::pair<double, double>> want = {{bend(1), 3e-7}, {bend(1), 3e-7}, {bend(2), 3e-6}, {bend(2), 3e-6}};
    if (at_a) want.insert(want.begin() + 2, {torsion, 2e-4});
    for (std::size_t j = 0; j < want.size() && j < 5; ++j) {
      const double w = std::sqrt(got[j]);
      EXPECT_NEAR(w / want[j].first, 1.0, want[j].second) << "mode " << j + 1 << ": " << w / (2 * M_PI) << " Hz";
    }
  }
}

// ---- nonstructural mass ----------------------------------------------------------------------------

// A clamped CBAR chain (Nastran's coupled CBAR mass: no torsional inertia, so ρA + NSM scales the
// whole mass): with NSM = 1.5 ρA every frequency is √(1/2.5) of the chain's without; PROD/CONROD
// rods the same on their axial modes. Re-evaluated at 2ρ the NSM stays (constant term). WTMASS
// scales the NSM like the density.
TEST(BdfNsm, FrequenciesScaleWithTheAddedMassPerLength) {
  const double A = 2e-4;
  auto chain = [&](const std::string& elem, const std::string& prop, bool rod) {
    std::ostringstream os;
    os.precision(17);
    os << "PARAM,COUPMASS,1\n";
    for (int i = 0; i <= 10; ++i) os << "GRID," << i + 1 << ",," << 0.1 * i << ",0.,0.\n";
    for (int i = 1; i <= 10; ++i) os << elem << "," << i << (rod && elem == "CONROD" ? "" : ",1") << "," << i << "," << i + 1
                                     << (rod ? "" : ",0.,1.,0.") << (elem == "CONROD" ? prop : "") << "\n";
    if (elem != "CONROD") os << prop << "\n";
    os << "MAT1,1," << kE << ",," << kNu << "," << kRho << "\nSPC1,1,123456,1\n";
    return os.str();
  };
  const double nsm = 1.5 * kRho * A, ratio = std::sqrt(1 / 2.5);
  std::ostringstream nsm_s;
  nsm_s.precision(17);
  nsm_s << nsm;
  struct Case {
    std::string elem, plain, heavy;
    bool rod;
  };
  const std::string a = "2.E-4";
  const std::vector<Case> cases = {
      {"CBAR", "PBAR,1,1," + a + ",3.E-9,2.E-9,1.E-9", "PBAR,1,1," + a + ",3.E-9,2.E-9,1.E-9," + nsm_s.str(), false},
      {"CBAR", "PBARL,1,1,,BAR\n,0.02,0.01", "PBARL,1,1,,BAR\n,0.02,0.01," + nsm_s.str(), false},
      {"CROD", "PROD,1,1," + a + ",1.E-9", "PROD,1,1," + a + ",1.E-9,," + nsm_s.str(), true},
      {"CONROD", ",1," + a + ",1.E-9", ",1," + a + ",1.E-9,," + nsm_s.str(), true}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.elem + " " + c.heavy);
    const auto p = eigenvalues(write_deck("nsm_plain.bdf", chain(c.elem, c.plain, c.rod)), {"SPC1"}, 4);
    const auto h = eigenvalues(write_deck("nsm_heavy.bdf", chain(c.elem, c.heavy, c.rod)), {"SPC1"}, 4);
    ASSERT_GE(p.size(), 4u);
    ASSERT_GE(h.size(), 4u);
    for (std::size_t j = 0; j < 4; ++j) EXPECT_NEAR(std::sqrt(h[j] / p[j]), ratio, 1e-8) << "mode " << j + 1;
  }
  // The NSM is the constant mass term: doubling ρ by re-evaluation (as a campaign does) leaves it,
  // so every frequency² goes from ∝ 1/(ρA + NSM) = 1/2.5 to 1/(2ρA + NSM) = 1/3.5 (CBAR coupled mass).
  {
    fe::ComponentOptions o;
    o.fixed_sets = {"SPC1"};
    fe::Component comp(MPI_COMM_WORLD, io::read_bdf(write_deck("nsm_affine.bdf", chain("CBAR", cases[0].heavy, false))), o);
    ASSERT_EQ(comp.mass_terms().names().back(), "constant:nonstructural mass");
    fe::ModeOptions mo;
    mo.count = 4;
    mo.constrained = true;
    mo.progress = false;
    const auto before = fe::solve_modes(comp.K(), comp.M(), mo).eigenvalues;
    std::vector<fe::IsoMaterial> mats{comp.groups()[0].material};
    mats[0].rho *= 2;
    comp.set_materials(mats);
    const auto after = fe::solve_modes(comp.K(), comp.M(), mo).eigenvalues;
    ASSERT_GE(before.size(), 4u);
    ASSERT_GE(after.size(), 4u);
    for (std::size_t j = 0; j < 4; ++j) EXPECT_NEAR(after[j] / before[j], 2.5 / 3.5, 1e-8) << "mode " << j + 1;
  }
  const io::Mesh m = io::read_bdf(write_deck("nsm_wtmass.bdf", "PARAM,WTMASS,0.5\n" + chain("CBAR", cases[0].heavy, false)));
  ASSERT_FALSE(m.sections.empty());
  EXPECT_DOUBLE_EQ(m.sections[0].beam_section.nsm, 0.5 * nsm);
}

// ---- what is still refused -------------------------------------------------------------------------

TEST(BdfBarCards, RefusalsNameCardAndLine) {
  const std::string g = "GRID,1,,0.,0.,0.\nGRID,2,,1.,0.,0.\n", p = "PBAR,1,1,1.,1.,1.,1.\nMAT1,1,1.,,0.3,1.\n";
  expect_error(write_deck("pin_rigid.bdf", g + "CBAR,1,1,1,2,0.,1.,0.\n,1,1\n" + p),
               {"pin_rigid.bdf:3:", "CBAR", "pin flags", "rigid body"});
  expect_error(write_deck("pin_bad.bdf", g + "CBAR,1,1,1,2,0.,1.,0.\n,447\n" + p), {"pin_bad.bdf:3:", "PA=447"});
  expect_error(write_deck("off_o.bdf", g + "CBAR,1,1,1,2,0.,1.,0.,GOG\n,,,0.,0.,0.1\n" + p),
               {"off_o.bdf:3:", "element system", "GOG"});
  expect_error(write_deck("off_zero.bdf", g + "CBAR,1,1,1,2,0.,1.,0.\n,,,1.,0.,0.,0.,0.,0.\n" + p),
               {"off_zero.bdf:3:", "zero length"});
  expect_error(write_deck("nsm_neg.bdf", g + "CROD,1,7,1,2\nPROD,7,1,1.,0.,,-0.5\n" + p.substr(p.find('\n') + 1)),
               {"nsm_neg.bdf:4:", "PROD", "NSM must not be negative"});
}

// ---- scalar masses ---------------------------------------------------------------------------------

// Two CROD rods along y, clamped at grids 1 and 3, tips at grids 2 and 4: each tip's y has the
// stiffness k = EA/L and the lumped rod mass m_r = ρAL/2 (the other tip directions have no
// stiffness: AUTOSPC). CMASS2 m0 grounded on each tip's y, CMASS1 (PMASS) m between the tips' y:
// M = [[m_r + m0 + m, −m], [−m, m_r + m0 + m]], so ω² = k/(m_r + m0) (in phase) and
// k/(m_r + m0 + 2m) (in opposition). WTMASS scales the masses, the rods' and the scalar ones.
TEST(BdfScalarMass, TwoTipsCoupledByAScalarMass) {
  const double L = 0.8, A = 1e-4, k = kE * A / L, mr = kRho * A * L / 2, m0 = 1.5, m = 0.7;
  auto deck = [&](const std::string& extra) {
    std::ostringstream os;
    os.precision(17);
    os << extra << "GRID,1,,0.,0.,0.\nGRID,2,,0.,0.8,0.\nGRID,3,,1.,0.,0.\nGRID,4,,1.,0.8,0.\n"
       << "CROD,1,1,1,2\nCROD,2,1,3,4\nPROD,1,1,1.E-4,1.E-8\n"
       << "MAT1,1," << kE << ",," << kNu << "," << kRho << "\nSPC1,1,123456,1,3\n";
    return os.str();
  };
  const std::string masses = "CMASS2,11,1.5,2,2\nCMASS2,12,1.5,4,2\nCMASS1,13,9,2,2,4,2\nPMASS,9,0.7\n";
  const auto got = eigenvalues(write_deck("cmass.bdf", deck("") + masses), {"SPC1"}, 2);
  ASSERT_GE(got.size(), 2u);
  const double w_opp = k / (mr + m0 + 2 * m), w_in = k / (mr + m0);
  EXPECT_NEAR(got[0] / w_opp, 1.0, 1e-9);
  EXPECT_NEAR(got[1] / w_in, 1.0, 1e-9);
  // WTMASS = 2 doubles every mass: ω² halves.
  const auto heavy = eigenvalues(write_deck("cmass_wt.bdf", "PARAM,WTMASS,2.\n" + deck("") + masses), {"SPC1"}, 2);
  ASSERT_GE(heavy.size(), 2u);
  EXPECT_NEAR(heavy[0] / (w_opp / 2), 1.0, 1e-9);
  EXPECT_NEAR(heavy[1] / (w_in / 2), 1.0, 1e-9);
  const io::Mesh mesh = io::read_bdf(write_deck("cmass_mesh.bdf", deck("") + masses));
  ASSERT_EQ(mesh.scalar_masses.size(), 3u);
  EXPECT_EQ(mesh.scalar_masses[2].node_b, 3);
  EXPECT_EQ(mesh.scalar_masses[2].comp_b, 2);
  EXPECT_DOUBLE_EQ(mesh.scalar_masses[2].k, m);

  const std::string g = deck("");
  expect_error(write_deck("cmass_neg.bdf", g + "CMASS2,11,-1.,2,2\n"), {"cmass_neg.bdf:10:", "CMASS2", "must not be negative"});
  expect_error(write_deck("cmass_pid.bdf", g + "CMASS1,11,5,2,2\nPELAS,5,1.\n"),
               {"cmass_pid.bdf:10:", "CMASS1 11 references property 5, a PELAS (a PMASS is needed)"});
  expect_error(write_deck("cmass_spoint.bdf", g + "CMASS4,11,1.,101\n"), {"cmass_spoint.bdf:10:", "CMASS4", "scalar points"});
  expect_error(write_deck("celas3.bdf", g + "CELAS3,11,5,101,102\n"), {"celas3.bdf:10:", "CELAS3", "scalar points"});
  expect_error(write_deck("cmass_sp.bdf", g + "CMASS2,11,1.,2,0\n"), {"cmass_sp.bdf:10:", "scalar points are not supported"});
}

// ---- RBE3 UM ---------------------------------------------------------------------------------------

// A UM set that moves the dependency onto weighted grids' components leaves the RBE3 as it is read
// (reference grid, REFC, weights, node set); UM = REFGRID's own REFC is the default; anything else
// is refused on the card; UM grids become dependent for the one-rigid-element rule.
TEST(BdfRbe3Um, CommonUmSetsReadAsTheDefaultAndTheRestIsRefused) {
  const std::string grids = "GRID,1,,0.,0.,0.\nGRID,2,,1.,0.,0.\nGRID,3,,1.,1.,0.\nGRID,4,,0.,1.,0.\nGRID,9,,0.5,0.5,1.\n";
  const std::string elems = "CQUAD4,1,1,1,2,3,4\nPSHELL,1,1,0.01,1\nMAT1,1,2.1E11,,0.3,7850.\n";
  auto with = [&](const std::string& rbe3) { return grids + elems + rbe3; };
  const std::string plain = "RBE3,5,,9,123456,1.,123,1,2\n,3,4\n";
  io::BdfDeck ref;
  const io::Mesh ref_mesh = io::read_bdf(write_deck("rbe3_plain.bdf", with(plain)), &ref);
  ASSERT_EQ(ref.rigids.size(), 1u);
  for (const std::string um : {",UM,1,123,2,123\n", ",UM,9,123456\n", ",UM,1,123,2,1,3,12\n"}) {
    SCOPED_TRACE(um);
    io::BdfDeck got;
    const io::Mesh mesh = io::read_bdf(write_deck("rbe3_um.bdf", with(plain + um)), &got);
    ASSERT_EQ(got.rigids.size(), 1u);
    EXPECT_EQ(got.rigids[0].ref_grid, 9);
    EXPECT_EQ(got.rigids[0].components, "123456");
    EXPECT_EQ(got.rigids[0].weights, ref.rigids[0].weights);
    EXPECT_EQ(mesh.node_set("RBE3_5"), ref_mesh.node_set("RBE3_5"));
  }
  expect_error(write_deck("um_count.bdf", with(plain + ",UM,1,123\n")), {"um_count.bdf:9:", "RBE3", "UM has 3 DOFs", "123456"});
  expect_error(write_deck("um_grid.bdf", with(plain + ",UM,7,123,1,123\n")), {"um_grid.bdf:9:", "grid 7 is neither REFGRID"});
  expect_error(write_deck("um_rot.bdf", with(plain + ",UM,1,456,2,123\n")), {"um_rot.bdf:9:", "component 4 of grid 1"});
  expect_error(write_deck("um_twice.bdf", with(plain + ",UM,1,123,1,1,2,12\n")), {"um_twice.bdf:9:", "twice"});
  expect_error(write_deck("um_dep.bdf", with(plain + ",UM,1,123,2,123\nRBE2,6,3,123456,1\n")),
               {"um_dep.bdf:12:", "RBE2 6", "grid 1 is already dependent in RBE3 5"});
  expect_error(write_deck("um_bset.bdf", with(plain + ",UM,1,123,2,123\nBSET1,123456,2\n")),
               {"um_bset.bdf:9:", "grid 2 of its UM set is in the b-set"});
}
