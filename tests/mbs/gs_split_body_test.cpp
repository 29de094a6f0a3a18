// SPDX-License-Identifier: MIT
// The generalised superelement (GS) body on every basis the product builds (issue #36 item 3; seed 002,
// digest §3.3–3.6, tests S1, S2, S5, S6 of §8.2): `flexuq reduce` writes the Ψ/Υ split of its basis to the
// body file (/reduced/gs, cms/GsSplitBody.hpp) and the GS body (mbs/GsBody.hpp) works in the split
// coordinates {q_IP; η}. On the connector of seed 002's slider-crank (configs/seed002-rod.yaml: 0.3 m
// steel rod, r = 3 mm, 8 beam elements, RBE2 interfaces END0 and END1), 6 normal modes per basis, each
// basis reduced here, written to a body file and read back. The references come from the reduction, not
// from the GS code:
//  S1  the file's S puts the basis' own boundary rows (Reducer::boundary_rows) into [1 0];
//  S2  the split pairs (K', M') = Sᵀ(K̄, M̄)S read from the files: Hurty ≡ Craig–Bampton, Craig–Chang
//      (Ψ̂ = Gʳ_b) ≡ Rubin–Martinez, Hintz CMM (Ψ̂ = constraint modes) ≡ Herting;
//  S5  the free planar GS body of every file, linearised at the undeformed state with the frame at END0
//      and at END1, has 3 zero eigenvalues and the elastic eigenvalues of the CMS pair (K̄, M̄) restricted
//      to the plane (the boundary rows uz, rx, ry of Φ held at zero: the GS eliminates them);
//  S6  Guyan, Craig–Bampton, Herting and, after their split, Hurty and Hintz CMM: M_GS = the split M̄ on
//      the planar coordinates (ΨΦ_r = Φ_R); Rubin–Martinez, Craig–Chang, Hintz AMM: M_GS ≠ M̄;
//  and a basis that cannot describe the interface (Craig–Bampton without END1's axial column, the
//  digest's Appendix G case "elongation modes excluded"): reduce records why (/reduced/gs/refused) and
//  the GS body refuses the file, naming it.
#include "CmsTestUtil.hpp"
#include "GsBases.hpp"
#include "MpiTestUtil.hpp"

#include "flexuq/cms/GsSplitBody.hpp"
#include "flexuq/cms/Reduce.hpp"
#include "flexuq/cms/ReducedBodyBuild.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/mbs/GsBody.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>

using namespace flexuq;
using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;

namespace {

const char* kRodYaml = "\nmodel:\n  generator: {type: beam, length: 0.3, elements: 8, direction: [1, 0, 0], "
                       "origin: [-0.15, 0, 0], section: {shape: CIRC, dims: [0.003]}}\n"
                       "  material: {E: 200.0e9, nu: 0.25, rho: 7870}\n";

const std::vector<test::NamedBasis>& kBases = test::gs_bases();

struct Rod : test::CmsFixture {
  Rod()
      : CmsFixture(test::component_from_yaml(MPI_COMM_WORLD, kRodYaml),
                   test::interfaces({"END0", "END1"}, cms::InterfaceKind::rbe2), 6) {}
  /// A body file of @p rb (split attached as flexuq reduce does), read back.
  cms::ReducedBody file_of(cms::ReducedBasis rb, const std::string& path) {
    const auto red = cms::reduced_body_of(*this->red, std::move(rb), 0);
    cms::write_reduced_file(path, *ws, red.basis, red.body, {});
    return cms::ReducedBody::read(MPI_COMM_WORLD, path);
  }
  std::string path(const std::string& name) const {
    return "/tmp/" + test::unique_name("flexuq-gs-split-" + name, ".h5");
  }
};

double rel(const MatrixXd& a, const MatrixXd& b) { return (a - b).norm() / b.norm(); }

/// The linearised planar GS pencil at the undeformed state: (J_fᵀ K J_f, M_GS).
std::pair<MatrixXd, MatrixXd> gs_pencil(const mbs::GsData& d) {
  const mbs::Vec g0 = mbs::Vec::Zero(d.n());
  const auto s = mbs::gs_kinematics(d, g0, mbs::Vec());
  const MatrixXd Jf = s.J.bottomRows(d.n_kept());
  return {Jf.transpose() * d.K * Jf, mbs::gs_body_mass(d, g0)};
}

/// S5's reference: (K̄, M̄) on the ξ whose boundary rows uz, rx, ry vanish.
VectorXd planar_cms_eigenvalues(const cms::ReducedBody& b, const MatrixXd& Phi_b, const cms::WorkSpace& ws) {
  std::vector<Index> oop;
  for (std::size_t k = 0; k < ws.boundary().size(); ++k) {
    const int c = ws.boundary()[k].component;
    if (c == 2 || c == 3 || c == 4) oop.push_back(static_cast<Index>(k));
  }
  // Columns scaled to unit modal mass (attachment columns are O(1e-6) m/N beside O(1) modes), then the
  // null space of the scaled rows by SVD.
  const VectorXd D = b.M.diagonal().cwiseSqrt().cwiseInverse();
  MatrixXd C(static_cast<Index>(oop.size()), Phi_b.cols());
  for (std::size_t k = 0; k < oop.size(); ++k) C.row(static_cast<Index>(k)) = Phi_b.row(oop[k]) * D.asDiagonal();
  Eigen::JacobiSVD<MatrixXd> svd(C, Eigen::ComputeFullV);
  const MatrixXd Z = D.asDiagonal() * svd.matrixV().rightCols(C.cols() - C.rows());
  return test::pencil_eigenvalues(Z.transpose() * b.K * Z, Z.transpose() * b.M * Z);
}

double spectrum_error(const VectorXd& ref, const VectorXd& gs, Index zeros) {
  double w = 0;
  for (Index k = 0; k < zeros; ++k) w = std::max(w, std::abs(gs(k)) / ref(ref.size() - 1));
  for (Index k = zeros; k < ref.size(); ++k) w = std::max(w, std::abs(gs(k) - ref(k)) / ref(k));
  return w;
}

} // namespace

TEST(GsSplitBody, EveryBasisThroughItsFile) {
  Rod f;
  std::map<std::string, cms::ReducedBody> files;
  for (const auto& n : kBases) {
    cms::BuildOptions o;
    o.method = n.method;
    o.mode_interface = n.mi;
    auto rb = f.red->build(o);
    const MatrixXd Phi_b = f.red->boundary_rows(rb.columns);
    const MatrixXd K = rb.K, M = rb.M;
    const auto body = f.file_of(std::move(rb), f.path(n.name));
    ASSERT_TRUE(body.gs.present()) << n.name << ": " << body.gs.refused;
    EXPECT_EQ(body.K, K) << n.name;
    // S1: Φ_b S = [1 0].
    const Index nb = Phi_b.rows(), nc = Phi_b.cols();
    MatrixXd want = MatrixXd::Zero(nb, nc);
    want.leftCols(nb).setIdentity();
    const double s1 = (Phi_b * body.gs.S - want).cwiseAbs().maxCoeff();
    EXPECT_LT(s1, 1e-12) << n.name;
    // S5 with the frame at either end.
    const VectorXd ref = planar_cms_eigenvalues(body, Phi_b, *f.ws);
    for (const char* frame : {"END0", "END1"}) {
      const auto d = mbs::make_gs_data(body, frame, f.path(n.name));
      ASSERT_EQ(d->n(), ref.size()) << n.name;
      const auto [Kg, Mg] = gs_pencil(*d);
      const double s5 = spectrum_error(ref, test::pencil_eigenvalues(Kg, Mg), 3);
      // S6: M_GS against the split M̄ on the planar coordinates (dx, dy, θz per point, then η).
      const auto sb = body.physical_boundary ? body : cms::gs_split_body(body, f.path(n.name));
      std::vector<Index> sel;
      for (const auto& p : d->points)
        for (const char* c : {"ux", "uy", "rz"})
          for (std::size_t j = 0; j < sb.dof_labels.size(); ++j)
            if (sb.dof_labels[j] == "REF " + p + " " + c) sel.push_back(static_cast<Index>(j));
      for (Index j = nb; j < nc; ++j) sel.push_back(j);
      ASSERT_EQ(static_cast<Index>(sel.size()), d->n()) << n.name;
      MatrixXd Ms(d->n(), d->n());
      for (Index a = 0; a < d->n(); ++a)
        for (Index b = 0; b < d->n(); ++b) Ms(a, b) = sb.M(sel[static_cast<std::size_t>(a)], sel[static_cast<std::size_t>(b)]);
      const double s6 = rel(Mg, Ms);
      std::printf("%-17s frame %s  S1 %.1e  S5 %.1e  M_GS vs split M %.1e  (%d coordinates, psi rcond %.1e)\n", n.name,
                  frame, s1, s5, s6, d->n(), body.gs.psi_rcond);
      EXPECT_LT(s5, 1e-9) << n.name << " " << frame;
      const std::string m = n.name;
      if (m == "rubin-martinez" || m == "craig-chang" || m == "hintz-attachment")
        EXPECT_GT(s6, 1e-3) << n.name;
      else
        EXPECT_LT(s6, 1e-12) << n.name;
    }
    files.emplace(n.name, body);
  }
  // S2 on the split pairs of the files.
  auto split_pair = [&](const char* a, const char* b) {
    const auto sa = cms::gs_split_body(files.at(a), a), sb = cms::gs_split_body(files.at(b), b);
    EXPECT_EQ(sa.dof_labels.size(), sb.dof_labels.size());
    return std::max(rel(sa.K, sb.K), rel(sa.M, sb.M));
  };
  const double hur = split_pair("hurty", "craig-bampton"), cc = split_pair("craig-chang", "rubin-martinez"),
               cmm = split_pair("hintz-constraint", "herting");
  std::printf("S2 split pairs from the files: Hurty-CB %.1e  CC-RM %.1e  CMM-Herting %.1e\n", hur, cc, cmm);
  EXPECT_LT(hur, 1e-12);
  EXPECT_LT(cc, 1e-12);
  EXPECT_LT(cmm, 1e-12);
}

TEST(GsSplitBody, BasisWithoutAnInterfaceDirectionIsRefusedNamingTheFile) {
  Rod f;
  cms::BuildOptions o;
  o.method = cms::Method::craig_bampton;
  auto rb = f.red->build(o);
  // Drop END1's axial boundary column: the basis no longer describes that interface coordinate.
  Index drop = -1;
  for (std::size_t j = 0; j < rb.labels.size(); ++j)
    if (rb.labels[j] == "REF END1 ux") drop = static_cast<Index>(j);
  ASSERT_GE(drop, 0);
  const Index n = static_cast<Index>(rb.labels.size());
  std::vector<Index> keep;
  for (Index j = 0; j < n; ++j)
    if (j != drop) keep.push_back(j);
  cms::ReducedBasis cut;
  cut.method = rb.method;
  cut.mode_interface = rb.mode_interface;
  cut.K.resize(n - 1, n - 1);
  cut.M.resize(n - 1, n - 1);
  for (std::size_t a = 0; a < keep.size(); ++a) {
    const auto ja = static_cast<std::size_t>(keep[a]);
    cut.columns.push_back(std::move(rb.columns[ja]));
    cut.labels.push_back(rb.labels[ja]);
    cut.kinds.push_back(rb.kinds[ja]);
    cut.scale.push_back(rb.scale[ja]);
    for (std::size_t b = 0; b < keep.size(); ++b) {
      cut.K(static_cast<Index>(a), static_cast<Index>(b)) = rb.K(keep[a], keep[b]);
      cut.M(static_cast<Index>(a), static_cast<Index>(b)) = rb.M(keep[a], keep[b]);
    }
  }
  cut.mode_eigenvalues = rb.mode_eigenvalues;
  cut.physical_boundary = false;
  const std::string path = f.path("no-end1-ux");
  const auto body = f.file_of(std::move(cut), path);
  EXPECT_FALSE(body.gs.present());
  EXPECT_NE(body.gs.refused.find("cannot describe the interface coordinates independently"), std::string::npos)
      << body.gs.refused;
  try {
    (void)mbs::make_gs_data(body, "END0", path);
    ADD_FAILURE() << "a basis without END1's axial direction was accepted";
  } catch (const InputError& e) {
    const std::string w = e.what();
    std::printf("refused: %s\n", w.c_str());
    EXPECT_EQ(w.rfind(path + ": /reduced/gs", 0), 0u) << w;
    EXPECT_NE(w.find("cannot describe the interface coordinates independently"), std::string::npos) << w;
  }
}
