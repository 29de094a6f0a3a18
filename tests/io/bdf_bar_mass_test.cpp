// SPDX-License-Identifier: MIT
// Nastran's CBAR and CBEAM mass conventions (issue 39, item 2), checked against references built
// here from the closed forms, independently of fe::beam_terms:
// - CBAR, PARAM,COUPMASS,1 (measured against NX Nastran SOL 103 output, see the issue): bending =
//   the consistent cubic-Hermite translational mass in both planes (integrated here from the
//   Hermite shape functions), no rotary inertia, NO torsional inertia, axial ρAL/12 [5 1; 1 5].
// - CBAR and CBEAM without COUPMASS (Nastran's default): ρAL/2 on each end's translations only.
// - CBEAM, COUPMASS,1: flexuq's consistent beam mass, the same bending, axial ρAL/6 [2 1; 1 2] and
//   torsional inertia ρ(I1 + I2)L/6 [2 1; 1 2] (unchanged by the CBAR fix; pinned here).
// Element level: the 12×12 mass of one skew element, entry by entry, and its rigid-body mass
// (total mass and first moments). Structure level: a clamped-free round bar through fe::Component
// and the SLEPc mode solver against a dense beam FE written here with the same convention
// (massless twist DOFs condensed statically, as Nastran eliminates them).
#include "ScratchFile.hpp"
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
  const std::string p = test::scratch_file("bdf", name);
  std::ofstream(p) << text;
  return p;
}

enum class Conv { lumped, cbar_coupled, beam_coupled };

const char* name_of(Conv c) {
  return c == Conv::lumped ? "lumped (no COUPMASS)" : "coupled (PARAM,COUPMASS,1)";
}

/// Local 12×12 mass per unit density of a bar element of length L along its own axes (DOFs per
/// node u, v, w, θx, θy, θz; v–θz bend in plane 1, w–θy in plane 2 with θy = −w').
Eigen::MatrixXd local_mass(Conv c, double L, double A, double I1, double I2) {
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(12, 12);
  if (c == Conv::lumped) {
    for (int i : {0, 1, 2, 6, 7, 8}) M(i, i) = A * L / 2;
    return M;
  }
  // Axial.
  const double d = c == Conv::cbar_coupled ? 5.0 / 12.0 : 1.0 / 3.0, o = c == Conv::cbar_coupled ? 1.0 / 12.0 : 1.0 / 6.0;
  M(0, 0) = M(6, 6) = d * A * L;
  M(0, 6) = M(6, 0) = o * A * L;
  // Torsional inertia: none for CBAR; the polar moment I1 + I2, linear interpolation, for CBEAM.
  if (c == Conv::beam_coupled) {
    const double Ip = I1 + I2;
    M(3, 3) = M(9, 9) = Ip * L / 3;
    M(3, 9) = M(9, 3) = Ip * L / 6;
  }
  // Bending: ∫ ρA N_i N_j dx with the cubic Hermite functions, 4-point Gauss (exact for degree 6).
  const double gx[4] = {-0.8611363115940526, -0.3399810435848563, 0.3399810435848563, 0.8611363115940526};
  const double gw[4] = {0.3478548451374538, 0.6521451548625461, 0.6521451548625461, 0.3478548451374538};
  for (int q = 0; q < 4; ++q) {
    const double s = 0.5 * (gx[q] + 1), w = 0.5 * gw[q] * L;
    const double H[4] = {1 - 3 * s * s + 2 * s * s * s, L * (s - 2 * s * s + s * s * s), 3 * s * s - 2 * s * s * s,
                         L * (-s * s + s * s * s)};
    // v = H0 v_a + H1 θz_a + H2 v_b + H3 θz_b; w = H0 w_a − H1 θy_a + H2 w_b − H3 θy_b.
    const int vdof[4] = {1, 5, 7, 11}, wdof[4] = {2, 4, 8, 10};
    const double wsign[4] = {1, -1, 1, -1};
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        M(vdof[i], vdof[j]) += w * A * H[i] * H[j];
        M(wdof[i], wdof[j]) += w * A * wsign[i] * wsign[j] * H[i] * H[j];
      }
  }
  return M;
}

/// Element axes (rows: x, y, z in basic) of a CBAR/CBEAM from GA → GB and the orientation vector v.
Eigen::Matrix3d element_axes(const Eigen::Vector3d& a, const Eigen::Vector3d& b, const Eigen::Vector3d& v) {
  const Eigen::Vector3d x = (b - a).normalized();
  const Eigen::Vector3d y = (v - v.dot(x) * x).normalized();
  Eigen::Matrix3d R;
  R.row(0) = x;
  R.row(1) = y;
  R.row(2) = x.cross(y);
  return R;
}

Eigen::MatrixXd to_global(const Eigen::MatrixXd& Ml, const Eigen::Matrix3d& R) {
  Eigen::MatrixXd T = Eigen::MatrixXd::Zero(12, 12);
  for (int k = 0; k < 4; ++k) T.block(3 * k, 3 * k, 3, 3) = R;
  return T.transpose() * Ml * T;
}

const double kA = 3e-3, kI1 = 2e-6, kI2 = 5e-7, kJ = 1.1e-6, kRho = 2700;

/// One CBAR (PBAR) or CBEAM (PBEAM) from GA = (0.1, −0.2, 0.3) to GB = GA + (0.4, 0.3, −0.2), v = (0.3, 1, 0.2).
std::string one_element_deck(bool beam, bool coupmass) {
  std::ostringstream os;
  if (coupmass) os << "PARAM,COUPMASS,1\n";
  os << "GRID,1,,0.1,-0.2,0.3\nGRID,2,,0.5,0.1,0.1\n";
  if (beam)
    os << "CBEAM,5,7,1,2,0.3,1.,0.2\nPBEAM,7,1," << kA << "," << kI1 << "," << kI2 << ",0.," << kJ << "\n";
  else
    os << "CBAR,5,7,1,2,0.3,1.,0.2\nPBAR,7,1," << kA << "," << kI1 << "," << kI2 << "," << kJ << "\n";
  os << "MAT1,1,7.E10,,0.33," << kRho << "\n";
  return os.str();
}

} // namespace

TEST(BdfBarMass, OneElementMassMatchesNastranClosedForms) {
  const Eigen::Vector3d a(0.1, -0.2, 0.3), b(0.5, 0.1, 0.1), v(0.3, 1, 0.2);
  const double L = (b - a).norm();
  const Eigen::Matrix3d R = element_axes(a, b, v);
  for (bool beam : {false, true})
    for (bool coupmass : {false, true}) {
      const Conv conv = !coupmass ? Conv::lumped : beam ? Conv::beam_coupled : Conv::cbar_coupled;
      SCOPED_TRACE(std::string(beam ? "CBEAM " : "CBAR ") + name_of(conv));
      const io::Mesh m = io::read_bdf(write_deck("one_bar.bdf", one_element_deck(beam, coupmass)));
      ASSERT_EQ(m.sections.size(), 1u);
      const double rho = *m.materials.at(m.sections[0].material).rho;
      ASSERT_EQ(rho, kRho);
      const auto t = fe::beam_terms(m.coords[0], m.coords[1], m.sections[0].beam_section, 5);
      const Eigen::MatrixXd got = rho * Eigen::MatrixXd(t.M1);
      // Nastran I1 bends in plane 1 (about element z): the reference takes I1, I2 as in the deck.
      const Eigen::MatrixXd want = kRho * to_global(local_mass(conv, L, kA, kI1, kI2), R);
      const double scale = want.cwiseAbs().maxCoeff();
      for (int i = 0; i < 12; ++i)
        for (int j = 0; j < 12; ++j) EXPECT_NEAR(got(i, j), want(i, j), 1e-13 * scale) << "M(" << i << "," << j << ")";

      // Rigid-body mass: translations carry ρAL each, and the first moments put it at the midpoint
      // (r = a + ω × x, rotation DOFs = ω). The rotational block is the convention's own.
      Eigen::MatrixXd Rb = Eigen::MatrixXd::Zero(12, 6);
      for (int n = 0; n < 2; ++n) {
        const Eigen::Vector3d x = n == 0 ? a : b;
        for (int d = 0; d < 3; ++d) {
          Rb(6 * n + d, d) = 1;
          Rb(6 * n + 3 + d, 3 + d) = 1;
        }
        Eigen::Matrix3d S; // ω × x = −skew(x) ω
        S << 0, x.z(), -x.y(), -x.z(), 0, x.x(), x.y(), -x.x(), 0;
        Rb.block(6 * n, 3, 3, 3) = S;
      }
      const Eigen::MatrixXd Mrb = Rb.transpose() * got * Rb;
      const double mass = kRho * kA * L;
      const Eigen::Vector3d c = 0.5 * (a + b);
      Eigen::Matrix3d Sc;
      Sc << 0, c.z(), -c.y(), -c.z(), 0, c.x(), c.y(), -c.x(), 0;
      EXPECT_LT((Mrb.topLeftCorner(3, 3) - mass * Eigen::Matrix3d::Identity()).norm(), 1e-13 * mass);
      EXPECT_LT((Mrb.topRightCorner(3, 3) - mass * Sc).norm(), 1e-13 * mass) << Mrb.topRightCorner(3, 3);
      // The twist about the element axis (ω = x, no translation at the axis points) has inertia
      // ρ(I1 + I2)L for CBEAM coupled and none for CBAR coupled or lumped.
      Eigen::VectorXd twist = Eigen::VectorXd::Zero(12);
      for (int n = 0; n < 2; ++n) twist.segment<3>(6 * n + 3) = R.row(0).transpose();
      const double jt = twist.dot(got * twist);
      EXPECT_NEAR(jt, conv == Conv::beam_coupled ? kRho * (kI1 + kI2) * L : 0.0, 1e-13 * mass);
    }
}

namespace {

const int kN = 10;
const double kLb = 1.0, kR = 0.05, kE = 2.1e11, kNu = 0.3, kRhoSteel = 7850;

/// A clamped-free round bar of kN elements along d = (1, 2, 2)/3 (grid 1 clamped by SPC1).
std::string round_bar_deck(bool beam, bool coupmass) {
  std::ostringstream os;
  os.precision(17);
  if (coupmass) os << "PARAM,COUPMASS,1\n";
  const Eigen::Vector3d d = Eigen::Vector3d(1, 2, 2) / 3;
  for (int i = 0; i <= kN; ++i) {
    const Eigen::Vector3d x = d * (kLb * i / kN);
    os << "GRID*," << i + 1 << ",," << x.x() << "," << x.y() << "\n*," << x.z() << "\n";
  }
  for (int i = 1; i <= kN; ++i) os << (beam ? "CBEAM," : "CBAR,") << i << ",1," << i << "," << i + 1 << ",0.,0.,1.\n";
  if (beam) {
    const double A = M_PI * kR * kR, I = M_PI * std::pow(kR, 4) / 4;
    os << "PBEAM,1,1," << A << "," << I << "," << I << ",0.," << 2 * I << "\n";
  } else {
    os << "PBARL,1,1,,ROD\n," << kR << "\n";
  }
  os << "MAT1,1," << kE << ",," << kNu << "," << kRhoSteel << "\nSPC1,1,123456,1\n";
  return os.str();
}

/// The bar's frequencies (rad/s, ascending) from a dense beam FE along its own axis: axial EA,
/// torsion GJ, Hermite bending EI in two planes; mass of convention @p c; DOFs with no mass
/// (twist, and every rotation when lumped) condensed statically.
Eigen::VectorXd reference_frequencies(Conv c) {
  const double A = M_PI * kR * kR, I = M_PI * std::pow(kR, 4) / 4, J = 2 * I, G = kE / (2 * (1 + kNu)), h = kLb / kN;
  const int n = 6 * (kN + 1);
  Eigen::MatrixXd K = Eigen::MatrixXd::Zero(n, n), M = K;
  Eigen::MatrixXd k = Eigen::MatrixXd::Zero(12, 12);
  auto bend = [&](const int dof[4], double s) { // s = ±1: sign of the rotation DOFs
    const double e = kE * I / (h * h * h);
    const double kb[4][4] = {{12, 6 * h, -12, 6 * h}, {6 * h, 4 * h * h, -6 * h, 2 * h * h}, {-12, -6 * h, 12, -6 * h},
                             {6 * h, 2 * h * h, -6 * h, 4 * h * h}};
    const double sg[4] = {1, s, 1, s};
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) k(dof[i], dof[j]) += e * sg[i] * sg[j] * kb[i][j];
  };
  const int vd[4] = {1, 5, 7, 11}, wd[4] = {2, 4, 8, 10};
  bend(vd, 1);
  bend(wd, -1);
  for (auto [p, q, s] : {std::tuple{0, 6, kE * A / h}, std::tuple{3, 9, G * J / h}}) {
    k(p, p) += s; k(q, q) += s; k(p, q) -= s; k(q, p) -= s;
  }
  const Eigen::MatrixXd m = kRhoSteel * local_mass(c, h, A, I, I);
  for (int e = 0; e < kN; ++e) {
    K.block(6 * e, 6 * e, 12, 12) += k;
    M.block(6 * e, 6 * e, 12, 12) += m;
  }
  // Drop the clamped grid; split the rest into DOFs with and without mass.
  std::vector<int> wm, wo;
  for (int i = 6; i < n; ++i) (M(i, i) > 0 ? wm : wo).push_back(i);
  auto sub = [](const Eigen::MatrixXd& X, const std::vector<int>& r, const std::vector<int>& s) {
    Eigen::MatrixXd Y(r.size(), s.size());
    for (std::size_t i = 0; i < r.size(); ++i)
      for (std::size_t j = 0; j < s.size(); ++j) Y(i, j) = X(r[i], s[j]);
    return Y;
  };
  Eigen::MatrixXd Kr = sub(K, wm, wm);
  if (!wo.empty()) Kr -= sub(K, wm, wo) * sub(K, wo, wo).ldlt().solve(sub(K, wo, wm));
  Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> es(Kr, sub(M, wm, wm), Eigen::EigenvaluesOnly);
  return es.eigenvalues().cwiseSqrt();
}

} // namespace

// The first 9 modes of the round bar (r = 0.05, L = 1, steel): bending pairs near 72, 450, 1260,
// 2460 Hz, axial near 1290 Hz, and — only where there is torsional inertia — torsion near 800 Hz.
TEST(BdfBarMass, ClampedRoundBarFrequenciesMatchAnIndependentBeamFe) {
  int size = 1, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (bool beam : {false, true})
    for (bool coupmass : {true, false}) {
      const Conv conv = !coupmass ? Conv::lumped : beam ? Conv::beam_coupled : Conv::cbar_coupled;
      SCOPED_TRACE(std::string(beam ? "CBEAM " : "CBAR ") + name_of(conv));
      const std::string deck = write_deck("round_bar_np" + std::to_string(size) + ".bdf", round_bar_deck(beam, coupmass));
      fe::ComponentOptions o;
      o.fixed_sets = {"SPC1"};
      fe::Component comp(MPI_COMM_WORLD, io::read_bdf(deck), o);
      ASSERT_EQ(comp.autospc_count(), 0);
      fe::ModeOptions mo;
      mo.count = 9;
      mo.constrained = true;
      mo.progress = false;
      const auto modes = fe::solve_modes(comp.K(), comp.M(), mo);
      const Eigen::VectorXd want = reference_frequencies(conv);
      ASSERT_GE(modes.eigenvalues.size(), 9u);
      double worst = 0;
      for (int j = 0; j < 9; ++j) {
        const double got = std::sqrt(modes.eigenvalues[static_cast<std::size_t>(j)]);
        worst = std::max(worst, std::abs(got / want(j) - 1));
        EXPECT_NEAR(got / want(j), 1.0, 1e-9) << "mode " << j + 1 << ": " << got / (2 * M_PI) << " Hz, reference "
                                               << want(j) / (2 * M_PI) << " Hz";
      }
      if (rank == 0) std::printf("  %s %s: max relative frequency difference %.2e (9 modes)\n", beam ? "CBEAM" : "CBAR", name_of(conv), worst);
    }
}
