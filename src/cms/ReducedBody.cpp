// SPDX-License-Identifier: MIT
#include "flexuq/cms/ReducedBody.hpp"

#include "flexuq/cms/FloatingFrame.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/io/Hdf5File.hpp"

#include <hdf5.h>

namespace flexuq::cms {

namespace {

using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Dims = std::vector<std::uint64_t>;

std::vector<double> flat(const Eigen::MatrixXd& A) {
  RowMat R = A;
  return std::vector<double>(R.data(), R.data() + R.size());
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

} // namespace

Invariants ReducedBody::frame_invariants() const {
  if (!has_floating_frame()) throw Error("reduced body: no floating-frame coordinates (not a free body, or MacNeal)");
  return transform_invariants(invariants, checkout.frame_V);
}

void ReducedBody::write(io::H5File& f) const {
  const auto n = static_cast<std::uint64_t>(n_columns());
  f.write_replicated("/reduced/K", {n, n}, flat(K).data());
  f.write_replicated("/reduced/M", {n, n}, flat(M).data());
  f.write_strings("/reduced/dof_labels", dof_labels);
  f.write_strings("/reduced/column_kinds", column_kinds);
  f.write_replicated("/reduced/column_scale", {n}, column_scale.data());
  f.write_replicated("/reduced/mode_eigenvalues", {static_cast<std::uint64_t>(mode_eigenvalues.size())},
                     mode_eigenvalues.data());
  f.write_strings("/reduced/interface_labels", interface_labels);
  if (!interface_points.empty()) {
    std::vector<std::string> names;
    std::vector<double> xyz;
    for (const auto& [name, p] : interface_points) {
      names.push_back(name);
      xyz.insert(xyz.end(), p.begin(), p.end());
    }
    f.write_strings("/reduced/interface_point_sets", names);
    f.write_replicated("/reduced/interface_points", {names.size(), 3}, xyz.data());
  }
  f.write_attribute("/reduced", "method", method);
  f.write_attribute("/reduced", "mode_interface", mode_interface);
  f.write_attribute("/reduced", "n_boundary", n_boundary);
  f.write_attribute("/reduced", "physical_boundary", physical_boundary);
  f.write_attribute("/reduced", "basis_rcond", basis_rcond);
  f.write_attribute("/reduced", "dofs_per_node", dofs_per_node);
  for (const auto& [name, table] : diagnostics)
    f.write_replicated("/reduced/diagnostics/" + name,
                       {static_cast<std::uint64_t>(table.rows()), static_cast<std::uint64_t>(table.cols())}, flat(table).data());
  write_invariants(f, "/reduced/invariants/", invariants);
  f.write_attribute("/reduced/invariants", "formulation", std::string(kFormulation));
  f.write_attribute("/reduced/invariants", "lumped_I5_I7", static_cast<std::int64_t>(invariants.lumped));
  // Elastic coordinates for a floating frame (FloatingFrame.hpp): only for a free body.
  if (has_floating_frame()) {
    const std::string F = "/reduced/floating_frame/";
    const auto ne = static_cast<std::uint64_t>(checkout.frame_V.cols());
    f.write_replicated(F + "V", {n, ne}, flat(checkout.frame_V).data());
    f.write_replicated(F + "eigenvalues", {ne}, checkout.frame_eigenvalues.data());
    write_invariants(f, F + "invariants/", frame_invariants());
    f.write_attribute("/reduced/floating_frame", "meaning", std::string(kFrameMeaning));
  }
  const Checkout& chk = checkout;
  const std::string C = "/reduced/checkout/";
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
}

ReducedBody ReducedBody::read(const io::H5File& f) {
  const Reader r(f);
  ReducedBody b;
  constexpr auto any = Reader::kAny;
  b.K = r.matrix("/reduced/K", any, any);
  const auto n = static_cast<std::uint64_t>(b.K.rows());
  if (b.K.cols() != b.K.rows()) throw InputError(FLEXUQ_MSG(f.path() << ": /reduced/K is not square"));
  b.M = r.matrix("/reduced/M", n, n);
  b.dof_labels = r.strings("/reduced/dof_labels", n);
  b.column_kinds = r.strings("/reduced/column_kinds", n);
  b.column_scale = r.vector("/reduced/column_scale", n);
  b.mode_eigenvalues = r.vector("/reduced/mode_eigenvalues", any);
  b.interface_labels = r.strings("/reduced/interface_labels", any);
  if (r.has("/reduced/interface_point_sets")) { // absent in files older than the datasets
    const auto names = r.strings("/reduced/interface_point_sets", any);
    const Eigen::MatrixXd xyz = r.matrix("/reduced/interface_points", names.size(), 3);
    for (std::size_t k = 0; k < names.size(); ++k)
      b.interface_points[names[k]] = {xyz(static_cast<Eigen::Index>(k), 0), xyz(static_cast<Eigen::Index>(k), 1),
                                      xyz(static_cast<Eigen::Index>(k), 2)};
  }
  b.method = f.read_attribute_string("/reduced", "method");
  b.mode_interface = f.read_attribute_string("/reduced", "mode_interface");
  b.n_boundary = f.read_attribute_int("/reduced", "n_boundary");
  b.physical_boundary = f.read_attribute_int("/reduced", "physical_boundary");
  b.basis_rcond = f.read_attribute_double("/reduced", "basis_rcond");
  b.dofs_per_node = f.read_attribute_int("/reduced", "dofs_per_node");
  for (const auto& name : r.members("/reduced/diagnostics"))
    b.diagnostics[name] = r.matrix("/reduced/diagnostics/" + name, any, any);
  b.invariants = read_invariants(r, "/reduced/invariants/", n);
  b.invariants.lumped = f.read_attribute_int("/reduced/invariants", "lumped_I5_I7") != 0;
  Checkout& c = b.checkout;
  if (r.has("/reduced/floating_frame")) {
    c.frame_V = r.matrix("/reduced/floating_frame/V", n, any);
    c.frame_eigenvalues = r.vector("/reduced/floating_frame/eigenvalues", static_cast<std::uint64_t>(c.frame_V.cols()));
  }
  const std::string C = "/reduced/checkout/";
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
  return b;
}

ReducedBody ReducedBody::read(MPI_Comm comm, const std::string& path) {
  const io::H5File f(comm, path, io::H5File::Mode::read);
  return read(f);
}

} // namespace flexuq::cms
