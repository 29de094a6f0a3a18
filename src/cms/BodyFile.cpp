// SPDX-License-Identifier: MIT
#include "flexuq/cms/BodyFile.hpp"

#include "flexuq/core/Assert.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/io/MeshOutput.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

namespace flexuq::cms {

namespace {

using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Dims = std::vector<std::uint64_t>;

// The layout (docs/hdf5-schema.md). Every dataset path of a body file is spelled here only.
const std::string kReduced = "/reduced";
const std::string kBasis = "/reduced/basis";
const std::string kStressModes = "/reduced/stress_modes";
const std::string kInvariants = "/reduced/invariants";
const std::string kFrame = "/reduced/floating_frame";
const std::string kCheckout = "/reduced/checkout/";
const std::string kDiagnostics = "/reduced/diagnostics";
const std::string kGs = "/reduced/gs/";
const std::string kMesh = "/mesh";
const std::string kGeometry = "/mesh/geometry";
const std::string kNodeIds = "/mesh/node_ids";
const std::string kTopology = "/mesh/topology/";
const std::string kElementIds = "/mesh/element_ids/";
const std::string kTopologyMixed = "/mesh/topology_mixed";
const std::string kNodeSets = "/mesh/node_sets";
const std::string kStochastic = "/stochastic_body";
const std::string kPod = "/stochastic_body/pod";
const std::string kPodDir = "/stochastic_body/pod/";

std::vector<double> flat(const Eigen::MatrixXd& A) {
  RowMat R = A;
  return std::vector<double>(R.data(), R.data() + R.size());
}

std::uint64_t product(const Dims& d) {
  return std::accumulate(d.begin(), d.end(), std::uint64_t{1}, std::multiplies<>());
}

const char* const kFormulation =
    "floating frame of reference, body frame = mesh frame (origin O, mesh axes, no "
    "mean-axis condition); u(x0) = x0 + Phi xi; I1 = m = int rho; I2 = int rho x0 = m c; "
    "S = I3 = int rho Phi; Sr = I4 = int rho skew(x0) Phi; Skl = I5 = int rho Phi_k^T Phi_l; "
    "Sbar = I6 = int rho x0_k Phi_l; Ikl = I7 = int rho x0_k x0_l; Mff = Phi^T M Phi. "
    "Equations of motion in body-frame components (cms/FloatingFrame.hpp, docs/cms.md): "
    "M(xi) [a_O; dot omega; xi''] = Q_v + Q_ext - [0; 0; K xi] with a_O = A^T r_O'', "
    "omega body-frame, J = [1, -skew(x), Phi], x = x0 + Phi xi; M(xi) = int rho J^T J: "
    "M_rr = m 1, M_rtheta = -skew(s), s = m c + S xi, M_rf = S, M_thetatheta = J(xi) = "
    "tr(I')1 - I', I' = Ikl + Sbar_kl xi + Sbar_lk xi + xi^T Skl xi, M_thetaf = Sr + "
    "[eps_akl xi^T Skl]_a, M_ff = Mff; Q_v = -int rho J^T (omega x (omega x x) + 2 omega x "
    "Phi xi'). Row-major datasets: Skl[k][l] (n x n), Sbar[k][l] (n).";

const char* const kFrameMeaning =
    "elastic coordinates eta with xi = V eta: free-free modes of (K, M) without the 6 "
    "rigid ones, V^T M V = 1, V^T K V = diag(eigenvalues); Phi V satisfies the "
    "mean-axis (Tisserand) conditions S = Sr = 0 at eta = 0, so M(eta) is invertible";

/// The invariant datasets under @p I ("/reduced/invariants/"), row-major. @note Collective.
void write_invariants(io::H5File& f, const std::string& I, const Invariants& inv) {
  const auto n = static_cast<std::uint64_t>(inv.Mff.rows());
  f.write_replicated(I + "mass", {1}, &inv.mass);
  f.write_replicated(I + "center_of_mass", {3}, inv.com.data());
  f.write_replicated(I + "inertia_origin", {3, 3}, flat(inv.inertia_origin).data());
  f.write_replicated(I + "inertia_com", {3, 3}, flat(inv.inertia_com).data());
  f.write_replicated(I + "S", {3, n}, flat(inv.S).data());
  f.write_replicated(I + "Sr", {3, n}, flat(inv.Sr).data());
  std::vector<double> skl;
  for (const auto& S : inv.Skl) {
    const auto v = flat(S);
    skl.insert(skl.end(), v.begin(), v.end());
  }
  f.write_replicated(I + "Skl", {3, 3, n, n}, skl.data());
  f.write_replicated(I + "Sbar", {3, 3, n}, flat(inv.Sbar).data());
  f.write_replicated(I + "Ikl", {3, 3}, flat(inv.Ikl).data());
  f.write_replicated(I + "Mff", {n, n}, flat(inv.Mff).data());
}

/// Reads datasets of one file with shape checks that name the file and the dataset.
class Reader {
public:
  explicit Reader(const io::H5File& f) : f_(f) {}
  bool has(const std::string& d) const { return f_.exists(d); }
  std::vector<double> values(const std::string& d, const Dims& want) const {
    require(d);
    const Dims got = f_.shape(d);
    bool ok = got.size() == want.size();
    for (std::size_t i = 0; ok && i < want.size(); ++i) ok = want[i] == kAny || want[i] == got[i];
    if (!ok) throw InputError(FLEXUQ_MSG(f_.path() << ": " << d << " has shape " << str(got) << ", expected " << str(want)));
    return f_.read_all(d);
  }
  /// A 2-D dataset (row-major on file) as a matrix; @p rows / @p cols = kAny for any extent.
  Eigen::MatrixXd matrix(const std::string& d, std::uint64_t rows, std::uint64_t cols) const {
    const auto v = values(d, {rows, cols});
    const Dims s = f_.shape(d);
    return Eigen::Map<const RowMat>(v.data(), static_cast<Eigen::Index>(s[0]), static_cast<Eigen::Index>(s[1]));
  }
  Eigen::VectorXd vector(const std::string& d, std::uint64_t n) const {
    const auto v = values(d, {n});
    return Eigen::Map<const Eigen::VectorXd>(v.data(), static_cast<Eigen::Index>(v.size()));
  }
  std::vector<std::string> strings(const std::string& d, std::uint64_t n) const {
    require(d);
    auto s = f_.read_strings(d);
    if (n != kAny && s.size() != n)
      throw InputError(FLEXUQ_MSG(f_.path() << ": " << d << " holds " << s.size() << " strings, expected " << n));
    return s;
  }
  std::vector<std::string> members(const std::string& group) const {
    std::vector<std::string> out;
    if (!has(group)) return out;
    if (H5Literate_by_name(f_.id(), group.c_str(), H5_INDEX_NAME, H5_ITER_INC, nullptr, &collect, &out, H5P_DEFAULT) < 0)
      throw Error(FLEXUQ_MSG(f_.path() << ": cannot list " << group));
    return out;
  }
  static constexpr std::uint64_t kAny = ~std::uint64_t{0};

private:
  void require(const std::string& d) const {
    if (!has(d)) throw InputError(FLEXUQ_MSG(f_.path() << ": missing " << d << " (not a flexuq reduce result file?)"));
  }
  static std::string str(const Dims& d) {
    std::string s = "(";
    for (std::size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + (d[i] == kAny ? std::string("*") : std::to_string(d[i]));
    return s + ")";
  }
  static herr_t collect(hid_t, const char* name, const H5L_info_t*, void* out) {
    static_cast<std::vector<std::string>*>(out)->emplace_back(name);
    return 0;
  }
  const io::H5File& f_;
};

/// The model data of a body must be finite: a NaN or Inf in K, M or an invariant would surface far
/// away (a "singular mass matrix" at t = 0 of a simulation, a NaN frequency) without naming the file.
void require_finite(const io::H5File& f, const std::string& d, const Eigen::Ref<const Eigen::MatrixXd>& a) {
  for (Eigen::Index j = 0; j < a.cols(); ++j)
    for (Eigen::Index i = 0; i < a.rows(); ++i)
      if (!std::isfinite(a(i, j)))
        throw InputError(FLEXUQ_MSG(f.path() << ": " << d << " has the non-finite entry " << a(i, j) << " at (" << i << ", "
                                             << j << "): not a valid flexuq body file (damaged or written by "
                                                "another program); make it again with flexuq reduce"));
}

void require_finite(const io::H5File& f, const std::string& I, const Invariants& inv) {
  require_finite(f, I + "mass", Eigen::Matrix<double, 1, 1>::Constant(inv.mass));
  require_finite(f, I + "center_of_mass", inv.com);
  require_finite(f, I + "inertia_origin", inv.inertia_origin);
  require_finite(f, I + "S", inv.S);
  require_finite(f, I + "Sr", inv.Sr);
  for (const auto& skl : inv.Skl) require_finite(f, I + "Skl", skl);
  require_finite(f, I + "Sbar", inv.Sbar);
  require_finite(f, I + "Ikl", inv.Ikl);
  require_finite(f, I + "Mff", inv.Mff);
}

Invariants read_invariants(const Reader& r, const std::string& I, std::uint64_t n) {
  Invariants inv;
  inv.mass = r.values(I + "mass", {1})[0];
  inv.com = r.vector(I + "center_of_mass", 3);
  inv.inertia_origin = r.matrix(I + "inertia_origin", 3, 3);
  inv.inertia_com = r.matrix(I + "inertia_com", 3, 3);
  inv.S = r.matrix(I + "S", 3, n);
  inv.Sr = r.matrix(I + "Sr", 3, n);
  const auto skl = r.values(I + "Skl", {3, 3, n, n});
  const auto nn = static_cast<Eigen::Index>(n);
  for (std::size_t kl = 0; kl < 9; ++kl)
    inv.Skl[kl] = Eigen::Map<const RowMat>(skl.data() + kl * n * n, nn, nn);
  const auto sbar = r.values(I + "Sbar", {3, 3, n});
  inv.Sbar = Eigen::Map<const RowMat>(sbar.data(), 9, nn);
  inv.Ikl = r.matrix(I + "Ikl", 3, 3);
  inv.Mff = r.matrix(I + "Mff", n, n);
  return inv;
}

const char* distribution_kind_name(uq::Distribution::Kind k) {
  switch (k) {
  case uq::Distribution::Kind::Normal: return "normal";
  case uq::Distribution::Kind::LogNormal: return "lognormal";
  case uq::Distribution::Kind::Uniform: return "uniform";
  case uq::Distribution::Kind::Beta: return "beta";
  case uq::Distribution::Kind::Gamma: return "gamma";
  case uq::Distribution::Kind::TruncatedNormal: return "truncated_normal";
  }
  return "?";
}

uq::Distribution make_distribution(const std::string& kind, const double* p, const std::string& where) {
  if (kind == "normal") return uq::Distribution::normal(p[0], p[1]);
  if (kind == "lognormal") return uq::Distribution::lognormal(p[0], p[1]);
  if (kind == "uniform") return uq::Distribution::uniform(p[0], p[1]);
  if (kind == "beta") return uq::Distribution::beta(p[0], p[1], p[2], p[3]);
  if (kind == "gamma") return uq::Distribution::gamma(p[0], p[1], p[2]);
  if (kind == "truncated_normal") return uq::Distribution::truncated_normal(p[0], p[1], p[2], p[3]);
  throw InputError(where + ": unknown distribution kind '" + kind + "'");
}

void write_terms(io::H5File& f, const std::string& q, const AffineReducedTerms& a) {
  const auto r = static_cast<std::uint64_t>(a.terms.empty() ? 0 : a.terms[0].rows());
  std::vector<double> buf;
  for (const auto& t : a.terms) {
    const RowMat b = t;
    buf.insert(buf.end(), b.data(), b.data() + b.size());
  }
  f.write_replicated(kPodDir + q + "_terms", {static_cast<std::uint64_t>(a.terms.size()), r, r}, buf.data());
  f.write_replicated(kPodDir + q + "_coefficients", {a.coefficients.size()}, a.coefficients.data());
  f.write_replicated(kPodDir + q + "_parameter", {a.parameter.size()}, a.parameter.data());
}

AffineReducedTerms read_terms(const io::H5File& f, const std::string& q) {
  const std::string& P = kPodDir;
  AffineReducedTerms a;
  const auto d = f.shape(P + q + "_terms");
  FLEXUQ_REQUIRE(d.size() == 3 && d[1] == d[2], f.path() << ": " << P << q << "_terms is not (T, r, r)");
  const auto v = f.read_all(P + q + "_terms");
  const auto r = static_cast<Eigen::Index>(d[1]);
  for (std::uint64_t t = 0; t < d[0]; ++t)
    a.terms.push_back(Eigen::Map<const RowMat>(v.data() + t * d[1] * d[2], r, r));
  a.coefficients = f.read_all(P + q + "_coefficients");
  a.parameter = f.read_all_int(P + q + "_parameter");
  FLEXUQ_REQUIRE(a.coefficients.size() == d[0] && a.parameter.size() == d[0],
                 f.path() << ": " << P << q << "_coefficients/_parameter do not match " << q << "_terms");
  return a;
}

} // namespace

// ---------------------------------------------------------------------------------------------
// The file

BodyFile::BodyFile(MPI_Comm comm, const std::string& path, Mode mode)
    : own_(std::make_unique<io::H5File>(comm, path, mode)), read_(own_.get()),
      write_(mode == Mode::read ? nullptr : own_.get()) {}

BodyFile::BodyFile(io::H5File& f) : read_(&f), write_(&f) {}

BodyFile::BodyFile(const io::H5File& f) : read_(&f) {}

io::H5File& BodyFile::writer() {
  if (!write_) throw Error(path() + ": the body file is open for reading only");
  return *write_;
}

io::H5File& BodyFile::file_for_writing() { return writer(); }

bool BodyFile::has_reduced() const { return file().exists(kReduced + "/K"); }
bool BodyFile::has_basis() const { return file().exists(kBasis); }
bool BodyFile::has_stress_modes() const { return file().exists(kStressModes); }
bool BodyFile::has_mesh() const { return file().exists(kMesh); }
bool BodyFile::has_mesh_topology() const { return file().exists(kTopologyMixed); }
bool BodyFile::is_stochastic() const { return file().exists(kStochastic); }
bool BodyFile::is_pod() const { return file().exists(kPodDir + "K_terms"); }

// ---------------------------------------------------------------------------------------------
// /reduced

void BodyFile::write_reduced(const ReducedBody& b) {
  io::H5File& f = writer();
  const std::string R = kReduced + "/";
  const auto n = static_cast<std::uint64_t>(b.n_columns());
  f.write_replicated(R + "K", {n, n}, flat(b.K).data());
  f.write_replicated(R + "M", {n, n}, flat(b.M).data());
  f.write_strings(R + "dof_labels", b.dof_labels);
  f.write_strings(R + "column_kinds", b.column_kinds);
  f.write_replicated(R + "column_scale", {n}, b.column_scale.data());
  f.write_replicated(R + "mode_eigenvalues", {static_cast<std::uint64_t>(b.mode_eigenvalues.size())},
                     b.mode_eigenvalues.data());
  f.write_strings(R + "interface_labels", b.interface_labels);
  if (!b.interface_points.empty()) {
    std::vector<std::string> names;
    std::vector<double> xyz;
    for (const auto& [name, p] : b.interface_points) {
      names.push_back(name);
      xyz.insert(xyz.end(), p.begin(), p.end());
    }
    f.write_strings(R + "interface_point_sets", names);
    f.write_replicated(R + "interface_points", {names.size(), 3}, xyz.data());
  }
  f.write_attribute(kReduced, "method", b.method);
  f.write_attribute(kReduced, "mode_interface", b.mode_interface);
  f.write_attribute(kReduced, "n_boundary", b.n_boundary);
  f.write_attribute(kReduced, "physical_boundary", b.physical_boundary);
  f.write_attribute(kReduced, "basis_rcond", b.basis_rcond);
  f.write_attribute(kReduced, "dofs_per_node", b.dofs_per_node);
  for (const auto& [name, table] : b.diagnostics)
    f.write_replicated(kDiagnostics + "/" + name,
                       {static_cast<std::uint64_t>(table.rows()), static_cast<std::uint64_t>(table.cols())}, flat(table).data());
  write_invariants(f, kInvariants + "/", b.invariants);
  f.write_attribute(kInvariants, "formulation", std::string(kFormulation));
  f.write_attribute(kInvariants, "lumped_I5_I7", static_cast<std::int64_t>(b.invariants.lumped));
  // Elastic coordinates for a floating frame (FloatingFrame.hpp): only for a free body.
  const Checkout& chk = b.checkout;
  if (b.has_floating_frame()) {
    const std::string F = kFrame + "/";
    const auto ne = static_cast<std::uint64_t>(chk.frame_V.cols());
    f.write_replicated(F + "V", {n, ne}, flat(chk.frame_V).data());
    f.write_replicated(F + "eigenvalues", {ne}, chk.frame_eigenvalues.data());
    write_invariants(f, F + "invariants/", b.frame_invariants());
    f.write_attribute(kFrame, "meaning", std::string(kFrameMeaning));
  }
  const std::string& C = kCheckout;
  f.write_replicated(C + "rigid_residual", {6}, chk.rigid_residual.data());
  f.write_replicated(C + "rigid_strain_energy", {6}, chk.rigid_energy.data());
  const double masses[2] = {chk.full.mass, chk.reduced.mass};
  f.write_replicated(C + "mass_full_reduced", {2}, masses);
  f.write_replicated(C + "com_full", {3}, chk.full.com.data());
  f.write_replicated(C + "com_reduced", {3}, chk.reduced.com.data());
  f.write_replicated(C + "inertia_com_full", {3, 3}, flat(chk.full.inertia_com).data());
  f.write_replicated(C + "inertia_com_reduced", {3, 3}, flat(chk.reduced.inertia_com).data());
  f.write_replicated(C + "free_free_reduced_hz", {static_cast<std::uint64_t>(chk.reduced_hz.size())}, chk.reduced_hz.data());
  f.write_replicated(C + "free_free_full_hz", {static_cast<std::uint64_t>(chk.full_hz.size())}, chk.full_hz.data());
  f.write_replicated(C + "effective_mass", {chk.mode_columns.size(), 6}, flat(chk.effective_mass).data());
  f.write_replicated(C + "effective_mass_fraction", {6}, chk.effective_fraction.data());
  // The basis' Ψ/Υ split (cms/GsSplitBody.hpp), or why there is none.
  const GsSplitData& g = b.gs;
  if (g.present()) {
    f.write_replicated(kGs + "S", {n, n}, flat(g.S).data());
    f.write_strings(kGs + "labels", g.labels);
    f.write_replicated(kGs + "psi_hat", {static_cast<std::uint64_t>(g.psi_hat.size())}, g.psi_hat.data());
    f.write_replicated(kGs + "psi_rcond", {1}, &g.psi_rcond);
    f.write_replicated(kGs + "rigid_residual", {1}, &g.rigid_residual);
  } else if (!g.refused.empty()) {
    f.write_strings(kGs + "refused", {g.refused});
  }
}

ReducedBody BodyFile::read_reduced() const {
  const io::H5File& f = file();
  const Reader r(f);
  const std::string R = kReduced + "/";
  ReducedBody b;
  constexpr auto any = Reader::kAny;
  b.K = r.matrix(R + "K", any, any);
  const auto n = static_cast<std::uint64_t>(b.K.rows());
  if (b.K.cols() != b.K.rows()) throw InputError(FLEXUQ_MSG(f.path() << ": " << R << "K is not square"));
  b.M = r.matrix(R + "M", n, n);
  require_finite(f, R + "K", b.K);
  require_finite(f, R + "M", b.M);
  b.dof_labels = r.strings(R + "dof_labels", n);
  b.column_kinds = r.strings(R + "column_kinds", n);
  b.column_scale = r.vector(R + "column_scale", n);
  b.mode_eigenvalues = r.vector(R + "mode_eigenvalues", any);
  b.interface_labels = r.strings(R + "interface_labels", any);
  if (r.has(R + "interface_point_sets")) { // absent in files older than the datasets
    const auto names = r.strings(R + "interface_point_sets", any);
    const Eigen::MatrixXd xyz = r.matrix(R + "interface_points", names.size(), 3);
    for (std::size_t k = 0; k < names.size(); ++k)
      b.interface_points[names[k]] = {xyz(static_cast<Eigen::Index>(k), 0), xyz(static_cast<Eigen::Index>(k), 1),
                                      xyz(static_cast<Eigen::Index>(k), 2)};
  }
  b.method = f.read_attribute_string(kReduced, "method");
  b.mode_interface = f.read_attribute_string(kReduced, "mode_interface");
  b.n_boundary = f.read_attribute_int(kReduced, "n_boundary");
  b.physical_boundary = f.read_attribute_int(kReduced, "physical_boundary");
  b.basis_rcond = f.read_attribute_double(kReduced, "basis_rcond");
  b.dofs_per_node = f.read_attribute_int(kReduced, "dofs_per_node");
  for (const auto& name : r.members(kDiagnostics))
    b.diagnostics[name] = r.matrix(kDiagnostics + "/" + name, any, any);
  b.invariants = read_invariants(r, kInvariants + "/", n);
  require_finite(f, kInvariants + "/", b.invariants);
  b.invariants.lumped = f.read_attribute_int(kInvariants, "lumped_I5_I7") != 0;
  Checkout& c = b.checkout;
  if (r.has(kFrame)) {
    c.frame_V = r.matrix(kFrame + "/V", n, any);
    c.frame_eigenvalues = r.vector(kFrame + "/eigenvalues", static_cast<std::uint64_t>(c.frame_V.cols()));
  }
  const std::string& C = kCheckout;
  c.rigid_residual = r.vector(C + "rigid_residual", 6);
  c.rigid_energy = r.vector(C + "rigid_strain_energy", 6);
  const auto masses = r.values(C + "mass_full_reduced", {2});
  c.full.mass = masses[0];
  c.reduced.mass = masses[1];
  c.full.com = r.vector(C + "com_full", 3);
  c.reduced.com = r.vector(C + "com_reduced", 3);
  c.full.inertia_com = r.matrix(C + "inertia_com_full", 3, 3);
  c.reduced.inertia_com = r.matrix(C + "inertia_com_reduced", 3, 3);
  c.reduced_hz = r.vector(C + "free_free_reduced_hz", any);
  c.full_hz = r.vector(C + "free_free_full_hz", any);
  // The rows of the effective mass are the normal-mode columns, in column order.
  for (std::size_t j = 0; j < b.column_kinds.size(); ++j) {
    const auto& k = b.column_kinds[j];
    if (k == "fixed_interface_mode" || k == "free_interface_mode" || k == "mixed_interface_mode") c.mode_columns.push_back(j);
  }
  c.effective_mass = r.matrix(C + "effective_mass", c.mode_columns.size(), 6);
  c.effective_fraction = r.vector(C + "effective_mass_fraction", 6);
  GsSplitData& g = b.gs;
  if (r.has(kGs + "S")) { // absent in files older than the split and where it failed
    g.S = r.matrix(kGs + "S", n, n);
    require_finite(f, kGs + "S", g.S);
    g.labels = r.strings(kGs + "labels", n);
    g.psi_hat = f.read_all_int(kGs + "psi_hat");
    FLEXUQ_REQUIRE(static_cast<std::int64_t>(g.psi_hat.size()) == b.n_boundary &&
                       std::all_of(g.psi_hat.begin(), g.psi_hat.end(),
                                   [&](std::int64_t j) { return j >= 0 && j < static_cast<std::int64_t>(n); }),
                   f.path() << ": " << kGs << "psi_hat does not hold " << b.n_boundary << " column indices below " << n);
    g.psi_rcond = r.values(kGs + "psi_rcond", {1})[0];
    g.rigid_residual = r.values(kGs + "rigid_residual", {1})[0];
  } else if (r.has(kGs + "refused")) {
    const auto why = r.strings(kGs + "refused", 1);
    g.refused = why.front();
  }
  return b;
}

void BodyFile::write_reduced_matrices(const Eigen::MatrixXd& K, const Eigen::MatrixXd& M,
                                      const std::vector<double>& free_free_hz, const std::string& method) {
  io::H5File& f = writer();
  const auto n = static_cast<std::uint64_t>(K.rows());
  f.write_replicated(kReduced + "/K", {n, n}, flat(K).data());
  f.write_replicated(kReduced + "/M", {n, n}, flat(M).data());
  f.write_replicated(kCheckout + "free_free_reduced_hz", {free_free_hz.size()}, free_free_hz.data());
  f.write_attribute(kReduced, "method", method);
}

void BodyFile::write_body_at_source(const std::string& source, const std::vector<double>& parameters,
                                    const std::vector<double>* germ) {
  io::H5File& f = writer();
  f.write_attribute(kReduced, "stochastic_source", source);
  f.write_attribute(kReduced, "parameters", parameters);
  if (germ) f.write_attribute(kReduced, "germ", *germ);
}

// ---------------------------------------------------------------------------------------------
// /reduced/basis and /reduced/stress_modes

std::vector<std::uint64_t> BodyFile::basis_shape() const {
  if (!has_basis()) throw InputError(path() + ": missing " + kBasis);
  return file().shape(kBasis);
}

std::vector<std::uint64_t> BodyFile::basis_shape(std::uint64_t nodes, std::uint64_t columns,
                                                 std::uint64_t min_dofs_per_node) const {
  const auto s = basis_shape();
  FLEXUQ_REQUIRE(s.size() == 3 && s[0] == nodes && s[1] >= min_dofs_per_node && s[2] == columns,
                 path() << ": " << kBasis << " is not nodes x dofs per node x " << columns << " columns");
  return s;
}

std::vector<double> BodyFile::read_basis() const { return file().read_all(kBasis); }

std::vector<double> BodyFile::read_basis_rows(std::uint64_t first, std::uint64_t count) const {
  return file().read_rows(kBasis, first, count);
}

void BodyFile::write_basis(const std::vector<std::uint64_t>& dims, std::uint64_t first, std::uint64_t count,
                           const double* data) {
  writer().write_rows(kBasis, dims, first, count, data);
}

void BodyFile::write_basis(const std::vector<std::uint64_t>& dims, const double* data) {
  writer().write_replicated(kBasis, dims, data);
}

void BodyFile::write_basis_xdmf(const std::string& h5_path, const io::Mesh& mesh, std::uint64_t dofs_per_node,
                                std::uint64_t columns) {
  const io::XdmfNodeField fld{kBasis, static_cast<std::size_t>(dofs_per_node), static_cast<std::size_t>(columns),
                              "basis_vector", {}};
  io::write_xdmf_beside(h5_path, mesh, fld);
}

std::vector<double> BodyFile::read_stress_modes(std::uint64_t nodes, std::uint64_t columns) const {
  const auto s = file().shape(kStressModes);
  FLEXUQ_REQUIRE(s.size() == 3 && s[0] == nodes && s[1] == 6 && s[2] == columns,
                 path() << ": " << kStressModes << " is not nodes x 6 x " << columns << " columns");
  return file().read_all(kStressModes);
}

void BodyFile::write_stress_modes(std::uint64_t nodes, std::uint64_t columns, const std::vector<double>& S,
                                  const std::string& components) {
  io::H5File& f = writer();
  FLEXUQ_ASSERT(S.size() == nodes * 6 * columns, "stress modes of the wrong size");
  f.write_replicated(kStressModes, {nodes, 6, columns}, S.data());
  f.write_attribute(kStressModes, "components", components);
}

// ---------------------------------------------------------------------------------------------
// /mesh

void BodyFile::write_mesh(const io::Mesh& mesh) { io::write_mesh(writer(), mesh); }

bool BodyFile::copy_mesh_from(const BodyFile& src) {
  if (!src.has_mesh()) return true;
  return H5Ocopy(src.file().id(), kMesh.c_str(), writer().id(), kMesh.c_str(), H5P_DEFAULT, H5P_DEFAULT) >= 0;
}

BodyMeshNodes BodyFile::read_mesh_nodes() const {
  const io::H5File& f = file();
  FLEXUQ_REQUIRE(f.exists(kGeometry) && f.exists(kNodeIds), path() << ": " << kGeometry << " or " << kNodeIds << " is missing");
  const auto g = read_mesh_geometry();
  BodyMeshNodes m;
  m.ids = read_node_ids();
  FLEXUQ_REQUIRE(g.size() == 3 * m.ids.size(), path() << ": " << kGeometry << " does not match " << kNodeIds);
  m.coords = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, 3, Eigen::RowMajor>>(
      g.data(), static_cast<Eigen::Index>(m.ids.size()), 3);
  return m;
}

std::vector<double> BodyFile::read_mesh_geometry() const { return file().read_all(kGeometry); }

std::vector<std::int64_t> BodyFile::read_node_ids() const { return file().read_all_int(kNodeIds); }

BodyMeshTopology BodyFile::read_mesh_topology() const {
  return {file().read_all_int(kTopologyMixed), file().read_attribute_int(kMesh, "num_elements")};
}

std::vector<std::string> BodyFile::node_set_names() const { return file().members(kNodeSets); }

bool BodyFile::has_node_set(const std::string& name) const { return file().exists(kNodeSets + "/" + name); }

std::vector<std::int64_t> BodyFile::read_node_set(const std::string& name) const {
  return file().read_all_int(kNodeSets + "/" + name);
}

std::vector<std::int64_t> BodyFile::read_node_set(const std::string& name, std::uint64_t nodes) const {
  auto v = read_node_set(name);
  for (const auto i : v)
    FLEXUQ_REQUIRE(i >= 0 && static_cast<std::uint64_t>(i) < nodes,
                   path() << ": " << kNodeSets << "/" << name << " holds node " << i << " outside the mesh");
  return v;
}

BodyMesh BodyFile::read_mesh() const {
  const io::H5File& f = file();
  if (!has_mesh()) throw InputError(path() + ": missing " + kMesh);
  BodyMesh m;
  m.geometry = read_mesh_geometry();
  m.node_ids = read_node_ids();
  for (const auto& type : f.members(kTopology)) {
    auto& e = m.elements[type];
    const auto s = f.shape(kTopology + type);
    e.nodes_per_element = s.size() == 2 ? s[1] : 0;
    e.connectivity = f.read_all_int(kTopology + type);
    e.ids = f.read_all_int(kElementIds + type);
  }
  m.topology_mixed = f.read_all_int(kTopologyMixed);
  m.num_elements = f.read_attribute_int(kMesh, "num_elements");
  m.source = f.read_attribute_string(kMesh, "source");
  for (const auto& name : node_set_names()) m.node_sets[name] = read_node_set(name);
  return m;
}

// ---------------------------------------------------------------------------------------------
// /stochastic_body

void BodyFile::write_stochastic(const StochasticBody& b) {
  io::H5File& f = writer();
  const std::string& G = kStochastic;
  const auto d = static_cast<std::uint64_t>(b.dim());
  const auto P = static_cast<std::uint64_t>(b.multi_indices.size());
  std::vector<std::string> kinds, desc;
  std::vector<double> par;
  for (const auto& dist : b.dists) {
    kinds.emplace_back(distribution_kind_name(dist.kind()));
    desc.push_back(dist.describe());
    for (int i = 0; i < 4; ++i) par.push_back(dist.parameter(i));
  }
  f.write_strings(G + "/germ/names", b.names);
  f.write_strings(G + "/germ/kinds", kinds);
  f.write_strings(G + "/germ/distributions", desc);
  f.write_replicated(G + "/germ/parameters", {d, 4}, par.data());
  std::vector<std::int64_t> mi(P * d);
  for (std::uint64_t t = 0; t < P; ++t)
    for (std::uint64_t i = 0; i < d; ++i) mi[t * d + i] = b.multi_indices(static_cast<int>(t), static_cast<int>(i));
  f.write_replicated(G + "/multi_indices", {P, d}, mi.data());
  for (const auto& [name, q] : b.pce) {
    const std::string Q = G + "/pce/" + name;
    Dims cd{P};
    cd.insert(cd.end(), q.dims.begin(), q.dims.end());
    const RowMat C = q.coefficients;
    f.write_replicated(Q + "/coefficients", cd, C.data());
    if (q.loo.size() > 0) {
      f.write_replicated(Q + "/loo", q.dims, q.loo.data());
      f.write_replicated(Q + "/loo_rms", q.dims, q.loo_rms.data());
    }
  }
  f.write_attribute(G, "fit", std::string(enum_name(uq::kFitMethodNames, b.fit)));
  f.write_attribute(G, "order", static_cast<std::int64_t>(b.order));
  f.write_attribute(G, "points_used", b.points_used);
  f.write_attribute(G, "points_total", b.points_total);
  f.write_attribute(G, "layout",
                    std::string("y(xi) = sum_t coefficients[t] Psi_t(xi); Psi_t = prod_i psi_i^(multi_indices[t][i])(xi_i), "
                                "psi_i orthonormal w.r.t. the germ law of parameter i (germ/kinds, germ/parameters: the "
                                "uq::Distribution constructor arguments); xi_i = to_germ(theta_i); deterministic parts "
                                "of the body under /reduced (the body at the parameter means)"));
}

void BodyFile::write_expansion_rows(const std::string& name, std::uint64_t P, const std::vector<std::uint64_t>& dims,
                                    std::uint64_t first, std::uint64_t count, const double* coefficients,
                                    const double* loo, const double* loo_rms) {
  io::H5File& f = writer();
  const std::string Q = kStochastic + "/pce/" + name;
  FLEXUQ_ASSERT(!dims.empty(), "an expansion written by rows needs rows");
  Dims cd{P};
  cd.insert(cd.end(), dims.begin(), dims.end());
  Dims start(cd.size(), 0), cnt = cd;
  start[1] = first;
  cnt[1] = count;
  f.write_slab(Q + "/coefficients", cd, start, cnt, coefficients);
  if (loo) {
    Dims s1(dims.size(), 0), bd = dims;
    s1[0] = first;
    bd[0] = count;
    f.write_slab(Q + "/loo", dims, s1, bd, loo);
    f.write_slab(Q + "/loo_rms", dims, s1, bd, loo_rms);
  }
}

StochasticBody BodyFile::read_stochastic() const {
  const io::H5File& f = file();
  const std::string& G = kStochastic;
  auto need = [&](const std::string& d) {
    if (!f.exists(d)) // the reduce option that makes one, named by the caller (OptionError)
      throw OptionError("stochastic", "{}").wrapped(f.path() + ": missing " + d +
                                                        " (not a stochastic body file: run flexuq reduce with ",
                                                    ")");
  };
  need(G + "/germ/names");
  StochasticBody b;
  b.nominal = read_reduced();
  b.names = f.read_strings(G + "/germ/names");
  const auto kinds = f.read_strings(G + "/germ/kinds");
  need(G + "/germ/parameters");
  const auto par = f.read_all(G + "/germ/parameters");
  const std::size_t d = b.names.size();
  FLEXUQ_REQUIRE(kinds.size() == d && par.size() == 4 * d,
                 f.path() << ": " << G << "/germ: " << d << " names, " << kinds.size() << " kinds, " << par.size()
                          << " parameters (expected 4 per name)");
  for (std::size_t i = 0; i < d; ++i) b.dists.push_back(make_distribution(kinds[i], par.data() + 4 * i, f.path()));
  need(G + "/multi_indices");
  const auto mi = f.read_all_int(G + "/multi_indices");
  FLEXUQ_REQUIRE(d > 0 && mi.size() % d == 0, f.path() << ": " << G << "/multi_indices does not have " << d << " columns");
  std::vector<uq::MultiIndexSet::Index> idx;
  for (std::size_t t = 0; t < mi.size() / d; ++t) idx.emplace_back(mi.begin() + static_cast<std::ptrdiff_t>(t * d),
                                                                   mi.begin() + static_cast<std::ptrdiff_t>((t + 1) * d));
  b.multi_indices = uq::MultiIndexSet::from_indices(static_cast<int>(d), idx);
  const auto P = static_cast<Eigen::Index>(b.multi_indices.size());
  const std::string fit = f.read_attribute_string(G, "fit");
  const auto fm = parse_enum(uq::kFitMethodNames, fit);
  FLEXUQ_REQUIRE(fm, f.path() << ": " << G << " has fit '" << fit << "' (" << enum_choices(uq::kFitMethodNames) << ")");
  b.fit = *fm;
  b.order = static_cast<int>(f.read_attribute_int(G, "order"));
  b.points_used = f.read_attribute_int(G, "points_used");
  b.points_total = f.read_attribute_int(G, "points_total");
  for (const char* name : {"K", "M", "mode_eigenvalues", "free_free_frequencies", "invariants", "basis"}) {
    const std::string Q = G + "/pce/" + name;
    if (!f.exists(Q + "/coefficients")) {
      FLEXUQ_REQUIRE(std::string(name) != "K" && std::string(name) != "M", f.path() << ": missing " << Q << "/coefficients");
      continue;
    }
    ExpandedQuantity q;
    const Dims s = f.shape(Q + "/coefficients");
    FLEXUQ_REQUIRE(!s.empty() && static_cast<Eigen::Index>(s[0]) == P,
                   f.path() << ": " << Q << "/coefficients has " << (s.empty() ? 0 : s[0]) << " rows for " << P << " terms");
    q.dims.assign(s.begin() + 1, s.end());
    const auto v = f.read_all(Q + "/coefficients");
    q.coefficients = Eigen::Map<const RowMat>(v.data(), P, static_cast<Eigen::Index>(product(q.dims)));
    if (f.exists(Q + "/loo")) {
      const auto l = f.read_all(Q + "/loo"), r = f.read_all(Q + "/loo_rms");
      q.loo = Eigen::Map<const Eigen::VectorXd>(l.data(), static_cast<Eigen::Index>(l.size()));
      q.loo_rms = Eigen::Map<const Eigen::VectorXd>(r.data(), static_cast<Eigen::Index>(r.size()));
    }
    b.pce.emplace(name, std::move(q));
  }
  const auto n = static_cast<std::uint64_t>(b.nominal.n_columns());
  FLEXUQ_REQUIRE(b.pce.at("K").dims == (Dims{n, n}),
                 f.path() << ": " << G << "/pce/K does not match the " << n << " columns of " << kReduced << "/K");
  return b;
}

void BodyFile::write_stochastic_points(const StochasticSamples& s) {
  io::H5File& f = writer();
  const auto N = static_cast<std::uint64_t>(s.germ.rows());
  const std::string P = kStochastic + "/points/";
  std::vector<std::int64_t> idx(s.index.begin(), s.index.end());
  f.write_replicated(P + "index", {N}, idx.data());
  const RowMat G = s.germ;
  f.write_replicated(P + "germ", {N, static_cast<std::uint64_t>(s.germ.cols())}, G.data());
  for (const char* q : {"K", "M"}) {
    const RowMat Y = s.values.at(q);
    Dims d{N};
    d.insert(d.end(), s.dims.at(q).begin(), s.dims.at(q).end());
    f.write_replicated(P + q, d, Y.data());
  }
}

std::string BodyFile::stochastic_galerkin_group() { return kStochastic + "/galerkin"; }

void BodyFile::write_stochastic_galerkin(const Eigen::MatrixXd& eigenvalue_coefficients, const uq::MultiIndexSet& basis,
                                         std::int64_t operator_terms, std::int64_t constraint_pcg_iterations,
                                         double constraint_residual) {
  io::H5File& f = writer();
  const std::string G = stochastic_galerkin_group();
  const auto P = static_cast<std::uint64_t>(eigenvalue_coefficients.rows());
  const auto nm = static_cast<std::uint64_t>(eigenvalue_coefficients.cols());
  f.write_replicated(G + "/eigenvalue_coefficients", {P, nm}, flat(eigenvalue_coefficients).data());
  std::vector<std::int64_t> mi;
  for (int t = 0; t < basis.size(); ++t)
    for (int k = 0; k < basis.dim(); ++k) mi.push_back(basis(t, k));
  f.write_replicated(G + "/multi_indices", {P, static_cast<std::uint64_t>(basis.dim())}, mi.data());
  f.write_attribute(G, "operator_terms", operator_terms);
  f.write_attribute(G, "constraint_pcg_iterations", constraint_pcg_iterations);
  f.write_attribute(G, "constraint_residual", constraint_residual);
}

// ---------------------------------------------------------------------------------------------
// /stochastic_body/pod

void BodyFile::write_pod(const PodBody& b) {
  io::H5File& f = writer();
  const std::string& P = kPodDir;
  write_terms(f, "K", b.K);
  write_terms(f, "M", b.M);
  f.write_strings(P + "parameter_names", b.names);
  f.write_replicated(P + "parameter_nominal", {b.nominal.size()}, b.nominal.data());
  if (b.has_invariants()) {
    std::vector<double> buf;
    for (const auto& t : b.I.terms) buf.insert(buf.end(), t.data(), t.data() + t.size());
    const auto T = static_cast<std::uint64_t>(b.I.terms.size()), L = static_cast<std::uint64_t>(b.I.terms[0].rows());
    f.write_replicated(P + "invariant_terms", {T, L}, buf.data());
    f.write_replicated(P + "invariant_coefficients", {b.I.coefficients.size()}, b.I.coefficients.data());
    f.write_replicated(P + "invariant_parameter", {b.I.parameter.size()}, b.I.parameter.data());
    f.write_attribute(P + "invariant_terms", "lumped_I5_I7", static_cast<std::int64_t>(b.lumped));
  }
}

PodBody BodyFile::read_pod() const {
  const io::H5File& f = file();
  const std::string& P = kPodDir;
  FLEXUQ_REQUIRE(f.exists(P + "K_terms"), f.path() << " holds no POD body (" << P << "K_terms)");
  PodBody b;
  b.K = read_terms(f, "K");
  b.M = read_terms(f, "M");
  b.names = f.read_strings(P + "parameter_names");
  b.nominal = f.read_all(P + "parameter_nominal");
  if (f.exists(P + "invariant_terms")) {
    const auto d = f.shape(P + "invariant_terms");
    FLEXUQ_REQUIRE(d.size() == 2 && d[1] == invariants_size(b.rank()),
                   f.path() << ": " << P << "invariant_terms is not (T, " << invariants_size(b.rank()) << ")");
    const auto v = f.read_all(P + "invariant_terms");
    for (std::uint64_t t = 0; t < d[0]; ++t)
      b.I.terms.push_back(Eigen::Map<const Eigen::VectorXd>(v.data() + t * d[1], static_cast<Eigen::Index>(d[1])));
    b.I.coefficients = f.read_all(P + "invariant_coefficients");
    b.I.parameter = f.read_all_int(P + "invariant_parameter");
    FLEXUQ_REQUIRE(b.I.coefficients.size() == d[0] && b.I.parameter.size() == d[0],
                   f.path() << ": " << P << "invariant_coefficients/_parameter do not match invariant_terms");
    b.lumped = f.read_attribute_int(P + "invariant_terms", "lumped_I5_I7") != 0;
  }
  return b;
}

std::vector<std::uint64_t> BodyFile::pod_basis_shape() const { return file().shape(kPodDir + "basis"); }

std::vector<double> BodyFile::read_pod_basis() const { return file().read_all(kPodDir + "basis"); }

void BodyFile::write_pod_basis(const std::vector<std::uint64_t>& dims, const double* data) {
  writer().write_replicated(kPodDir + "basis", dims, data);
}

void BodyFile::write_pod_points(const std::vector<std::int64_t>& index) {
  writer().write_replicated(kPodDir + "points", {static_cast<std::uint64_t>(index.size())}, index.data());
}

void BodyFile::write_pod_family(const std::string& family, const Eigen::VectorXd& sigma, std::int64_t snapshots,
                                std::int64_t rank, double energy_lost) {
  io::H5File& f = writer();
  const std::string F = kPodDir + family;
  f.write_replicated(F + "/sigma", {static_cast<std::uint64_t>(sigma.size())}, sigma.data());
  const std::int64_t meta[2] = {snapshots, rank};
  f.write_replicated(F + "/snapshots_rank", {2}, meta);
  f.write_attribute(F, "energy_lost", energy_lost);
}

void BodyFile::write_pod_truncation(const std::string& truncation) {
  writer().write_attribute(kPod, "truncation", truncation);
}

void BodyFile::write_pod_point_table(const std::string& name, std::uint64_t N, std::uint64_t m, const double* values) {
  writer().write_replicated(kPodDir + name, {N, m}, values);
}

void BodyFile::write_pod_summary(std::int64_t rank, double affine_check, double max_free_free_relative_difference,
                                 double max_free_free_above_cb) {
  io::H5File& f = writer();
  f.write_attribute(kPod, "rank", rank);
  f.write_attribute(kPod, "affine_check", affine_check);
  f.write_attribute(kPod, "max_free_free_relative_difference", max_free_free_relative_difference);
  f.write_attribute(kPod, "max_free_free_above_cb", max_free_free_above_cb);
}

} // namespace flexuq::cms
