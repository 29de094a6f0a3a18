// SPDX-License-Identifier: MIT
#include "flexuq/cms/Superelement.hpp"

#include "flexuq/cms/FloatingFrame.hpp"
#include "flexuq/core/Error.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <map>
#include <utility>

namespace flexuq::cms {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;

std::vector<Index> GsLayout::dofs_of(int p) const {
  std::vector<Index> out;
  for (std::size_t k = 0; k < point_of.size(); ++k)
    if (point_of[k] == p) out.push_back(static_cast<Index>(k));
  return out;
}

GsLayout gs_layout(const WorkSpace& ws) {
  GsLayout l;
  l.rigid_selection = ws.rigid_selection();
  std::map<std::pair<int, int>, int> index; // (interface, node) → point
  const auto& coords = ws.component().mesh().coords;
  for (const auto& b : ws.boundary()) {
    const auto key = std::make_pair(b.interface, b.node);
    auto it = index.find(key);
    if (it == index.end()) {
      it = index.emplace(key, static_cast<int>(l.points.size())).first;
      l.points.push_back(b.node >= 0 ? coords[static_cast<std::size_t>(b.node)]
                                     : ws.reference_point(static_cast<std::size_t>(b.interface)));
    }
    l.point_of.push_back(it->second);
    l.component_of.push_back(b.component);
  }
  return l;
}

MatrixXd interface_rigid_modes(const GsLayout& layout, const std::vector<Eigen::Vector3d>& positions) {
  FLEXUQ_REQUIRE(positions.empty() || positions.size() == layout.points.size(),
                 "interface_rigid_modes: " << positions.size() << " positions for " << layout.points.size()
                                           << " interface points");
  MatrixXd R(layout.n_boundary(), 6);
  for (Index k = 0; k < layout.n_boundary(); ++k) {
    const auto p = static_cast<std::size_t>(layout.point_of[static_cast<std::size_t>(k)]);
    std::array<double, 3> x = layout.points[p];
    if (!positions.empty()) x = {positions[p](0), positions[p](1), positions[p](2)};
    R.row(k) = rigid_row(x, layout.component_of[static_cast<std::size_t>(k)], {0, 0, 0});
  }
  return R * layout.rigid_selection;
}

namespace {

/// Column-pivoted QR pick of @p n columns of @p A (the most independent ones), ascending.
std::vector<Index> pivoted_columns(const MatrixXd& A, Index n) {
  Eigen::ColPivHouseholderQR<MatrixXd> qr(A);
  std::vector<Index> out;
  for (Index j = 0; j < std::min<Index>(n, A.cols()); ++j) out.push_back(qr.colsPermutation().indices()(j));
  std::sort(out.begin(), out.end());
  return out;
}

/// σ_min/σ_max of a square matrix (1 for an empty one): the invertibility test of the split and frame.
double rcond_of(const MatrixXd& A) {
  if (A.size() == 0) return 1.0;
  const VectorXd sv = Eigen::JacobiSVD<MatrixXd>(A).singularValues();
  return sv(0) > 0 ? sv(sv.size() - 1) / sv(0) : 0.0;
}

} // namespace

std::vector<Index> default_psi_hat(const std::vector<ColumnKind>& kinds, const MatrixXd& Phi_b) {
  const Index nb = Phi_b.rows();
  auto of = [&](std::initializer_list<ColumnKind> want) {
    std::vector<Index> out;
    for (std::size_t j = 0; j < kinds.size(); ++j)
      if (std::find(want.begin(), want.end(), kinds[j]) != want.end()) out.push_back(static_cast<Index>(j));
    return out;
  };
  for (auto k : {ColumnKind::boundary_dof, ColumnKind::residual_attachment, ColumnKind::attachment,
                 ColumnKind::constraint_mode}) {
    auto c = of({k});
    if (static_cast<Index>(c.size()) == nb) return c;
  }
  auto hurty = of({ColumnKind::rigid_body, ColumnKind::constraint_mode});
  if (static_cast<Index>(hurty.size()) == nb && !of({ColumnKind::constraint_mode}).empty()) return hurty;
  return pivoted_columns(Phi_b, nb);
}

GsSplit split_basis(const MatrixXd& K, const MatrixXd& M, const MatrixXd& Phi_b, const MatrixXd& rigid_boundary,
                    const MatrixXd& rigid_coupling, const MatrixXd& rigid_mass, const std::vector<Index>& psi_hat) {
  const Index nc = K.rows(), nb = Phi_b.rows();
  FLEXUQ_REQUIRE(K.cols() == nc && M.rows() == nc && M.cols() == nc && Phi_b.cols() == nc &&
                     rigid_coupling.cols() == nc && rigid_mass.rows() == rigid_coupling.rows() &&
                     rigid_boundary.rows() == nb && rigid_boundary.cols() == rigid_mass.rows(),
                 "generalised superelement: inconsistent sizes (" << nc << " columns, boundary rows " << Phi_b.rows()
                                                                  << " x " << Phi_b.cols() << ")");
  FLEXUQ_REQUIRE(static_cast<Index>(psi_hat.size()) == nb,
                 "generalised superelement: " << psi_hat.size() << " columns chosen as the boundary basis for "
                                              << nb << " interface coordinates");
  std::vector<char> taken(static_cast<std::size_t>(nc), 0);
  for (Index j : psi_hat) {
    FLEXUQ_REQUIRE(j >= 0 && j < nc && !taken[static_cast<std::size_t>(j)],
                   "generalised superelement: boundary-basis column " << j << " is out of range or repeated");
    taken[static_cast<std::size_t>(j)] = 1;
  }
  std::vector<Index> rest;
  for (Index j = 0; j < nc; ++j)
    if (!taken[static_cast<std::size_t>(j)]) rest.push_back(j);
  GsSplit s;
  s.n_b = nb;
  s.psi_hat = psi_hat;
  MatrixXd Eh = MatrixXd::Zero(nc, nb), Eu = MatrixXd::Zero(nc, nc - nb);
  for (Index k = 0; k < nb; ++k) Eh(psi_hat[static_cast<std::size_t>(k)], k) = 1.0;
  for (std::size_t k = 0; k < rest.size(); ++k) Eu(rest[k], static_cast<Index>(k)) = 1.0;
  const MatrixXd Pip = Phi_b * Eh, Uip = Phi_b * Eu;
  const Eigen::FullPivLU<MatrixXd> lu(Pip);
  // Invertibility, independent of the columns' units: σ_min/σ_max of the column-normalised block.
  MatrixXd Pn = Pip;
  for (Index j = 0; j < nb; ++j)
    if (Pn.col(j).norm() > 0) Pn.col(j).normalize();
  s.psi_rcond = rcond_of(Pn);
  FLEXUQ_REQUIRE(s.psi_rcond > 1e-8,
                 "generalised superelement: the basis cannot describe the interface coordinates independently "
                 "(the boundary rows of its boundary columns are singular, rcond "
                     << s.psi_rcond << "); the split needs n_b columns with an invertible interface block");
  s.S.resize(nc, nc);
  s.S.leftCols(nb) = Eh * lu.inverse();
  s.S.rightCols(nc - nb) = Eu - Eh * lu.solve(Uip);
  s.K = s.S.transpose() * K * s.S;
  s.M = s.S.transpose() * M * s.S;
  s.K = 0.5 * (s.K + s.K.transpose()).eval();
  s.M = 0.5 * (s.M + s.M.transpose()).eval();
  // Φ_R in the split coordinates: the interface rows are Φ_r (Ψ_IP = 1, Υ_IP = 0); c_η is the
  // M-projection of Φ_R − ΨΦ_r on Υ, c_η = M_ηη⁻¹(Υᵀ M Φ_R − M_ηb Φ_r); then the M-norm residual.
  const Index ne = nc - nb, nr = rigid_mass.rows();
  const MatrixXd Cs = s.S.transpose() * rigid_coupling.transpose(); // [Ψ Υ]ᵀ M Φ_R
  s.rigid = MatrixXd::Zero(nc, nr);
  s.rigid.topRows(nb) = rigid_boundary;
  if (ne > 0) {
    const Eigen::LDLT<MatrixXd> me(s.M.bottomRightCorner(ne, ne));
    s.rigid.bottomRows(ne) = me.solve(Cs.bottomRows(ne) - s.M.bottomLeftCorner(ne, nb) * rigid_boundary);
  }
  const MatrixXd res2 = rigid_mass - 2.0 * s.rigid.transpose() * Cs + s.rigid.transpose() * s.M * s.rigid;
  s.rigid_residual = 0;
  for (Index a = 0; a < nr; ++a) {
    const double m = rigid_mass(a, a);
    if (m <= 0) continue;
    s.rigid_residual = std::max(s.rigid_residual, std::sqrt(std::max(0.0, res2(a, a)) / m));
  }
  FLEXUQ_REQUIRE(s.rigid_residual < 1e-6,
                 "generalised superelement: the basis cannot describe rigid-body motion (M-norm residual "
                     << s.rigid_residual << "); the frame transformation needs it (seed 002 §3.3)");
  return s;
}

GsSplit split_basis(Reducer& r, const ReducedBasis& b, const std::vector<Index>& psi_hat) {
  const auto& ws = r.space();
  const MatrixXd sel = ws.rigid_selection();
  const MatrixXd Phi_b = r.boundary_rows(b.columns);
  const auto& rig = r.rigid();
  const auto nc = static_cast<Index>(b.columns.size());
  MatrixXd C6 = MatrixXd::Zero(6, nc);
  VecH y = ws.new_vector();
  for (std::size_t a = 0; a < rig.size(); ++a) {
    FLEXUQ_PETSC(MatMult(ws.M(), rig[a].get(), y.get()));
    for (Index j = 0; j < nc; ++j) {
      PetscScalar d = 0;
      FLEXUQ_PETSC(VecDot(b.columns[static_cast<std::size_t>(j)].get(), y.get(), &d));
      C6(static_cast<Index>(a), j) = d;
    }
  }
  const MatrixXd C = sel.transpose() * C6, Mrr = sel.transpose() * r.rigid_mass() * sel;
  const MatrixXd Rb = r.boundary_rows(rig) * sel;
  return split_basis(b.K, b.M, Phi_b, Rb, C, Mrr, psi_hat.empty() ? default_psi_hat(b.kinds, Phi_b) : psi_hat);
}

GsFrame gs_frame(const MatrixXd& phi_r, const MatrixXd& psi_ff, const MatrixXd& ups_ff) {
  const Index nr = phi_r.cols(), nb = phi_r.rows();
  FLEXUQ_REQUIRE(psi_ff.rows() == nr && psi_ff.cols() == nb && ups_ff.rows() == nr,
                 "generalised superelement: the frame rows are " << psi_ff.rows() << " x " << psi_ff.cols()
                                                                 << ", expected " << nr << " x " << nb);
  const MatrixXd A = psi_ff * phi_r;
  const Eigen::FullPivLU<MatrixXd> lu(A);
  GsFrame f;
  f.rcond = rcond_of(A);
  FLEXUQ_REQUIRE(f.rcond > 1e-12, "generalised superelement: Psi_FF Phi_r is singular at the frame location (rcond "
                                      << f.rcond << "): its coordinates do not determine the rigid motion");
  f.Z = lu.solve(psi_ff);
  f.Z_int = lu.solve(ups_ff);
  f.T = MatrixXd::Identity(nb, nb) - phi_r * f.Z;
  f.T_int = -phi_r * f.Z_int;
  return f;
}

void frame_at_point(const GsLayout& layout, int p, Index n_eta, MatrixXd& psi_ff, MatrixXd& ups_ff) {
  const auto dofs = layout.dofs_of(p);
  const MatrixXd phi_r = interface_rigid_modes(layout);
  const Index nr = layout.n_rigid();
  MatrixXd rows(static_cast<Index>(dofs.size()), nr);
  for (std::size_t k = 0; k < dofs.size(); ++k) rows.row(static_cast<Index>(k)) = phi_r.row(dofs[k]);
  FLEXUQ_REQUIRE(static_cast<Index>(dofs.size()) >= nr && rcond_of(rows.transpose() * rows) > 1e-14,
                 "generalised superelement: interface point " << p << " has " << dofs.size()
                                                              << " coordinates; a frame there needs " << nr
                                                              << " that determine the rigid motion");
  const auto pick = pivoted_columns(rows.transpose(), nr);
  psi_ff = MatrixXd::Zero(nr, layout.n_boundary());
  for (Index a = 0; a < nr; ++a) psi_ff(a, dofs[static_cast<std::size_t>(pick[static_cast<std::size_t>(a)])]) = 1.0;
  ups_ff = MatrixXd::Zero(nr, n_eta);
}

MatrixXd gs_coefficients(const GsSplit& s, const GsFrame& f, const MatrixXd& phi_r) {
  const Index nc = s.S.cols();
  MatrixXd D = s.rigid;
  D.topRows(s.n_b) -= phi_r;
  MatrixXd ZZ(f.Z.rows(), nc);
  ZZ << f.Z, f.Z_int;
  return MatrixXd::Identity(nc, nc) + D * ZZ;
}

MatrixXd gs_mass(const GsSplit& s, const GsFrame& f, const MatrixXd& phi_r) {
  const MatrixXd L = gs_coefficients(s, f, phi_r);
  MatrixXd m = L.transpose() * s.M * L;
  return 0.5 * (m + m.transpose());
}

std::vector<Eigen::Vector3d> deformed_points(const GsLayout& layout, const VectorXd& q_ip) {
  FLEXUQ_REQUIRE(q_ip.size() == layout.n_boundary(), "generalised superelement: " << q_ip.size()
                                                        << " local interface DOFs for " << layout.n_boundary());
  std::vector<Eigen::Vector3d> x;
  for (const auto& p : layout.points) x.emplace_back(p[0], p[1], p[2]);
  for (Index k = 0; k < layout.n_boundary(); ++k) {
    const int c = layout.component_of[static_cast<std::size_t>(k)];
    if (c < 3) x[static_cast<std::size_t>(layout.point_of[static_cast<std::size_t>(k)])](c) += q_ip(k);
  }
  return x;
}

MatrixXd gs_mass_at(const Invariants& split_invariants, const GsLayout& layout, const MatrixXd& psi_ff,
                    const MatrixXd& ups_ff, const VectorXd& xi) {
  const Index nb = layout.n_boundary(), nc = xi.size(), nr = layout.n_rigid();
  FLEXUQ_REQUIRE(nc >= nb && static_cast<Index>(split_invariants.Mff.rows()) == nc,
                 "generalised superelement: " << nc << " local coordinates for invariants of "
                                              << split_invariants.Mff.rows() << " columns");
  const MatrixXd phi_r = interface_rigid_modes(layout, deformed_points(layout, xi.head(nb)));
  const GsFrame f = gs_frame(phi_r, psi_ff, ups_ff);
  MatrixXd sel = MatrixXd::Zero(kFrameDofs + nc, nr + nc);
  sel.topLeftCorner(kFrameDofs, nr) = layout.rigid_selection;
  sel.bottomRightCorner(nc, nc).setIdentity();
  const MatrixXd Mff = sel.transpose() * generalized_mass(split_invariants, xi) * sel;
  MatrixXd A = MatrixXd::Zero(nr + nc, nc);
  A.topLeftCorner(nr, nb) = f.Z;
  A.topRightCorner(nr, nc - nb) = f.Z_int;
  A.block(nr, 0, nb, nb) = f.T;
  A.block(nr, nb, nb, nc - nb) = f.T_int;
  A.bottomRightCorner(nc - nb, nc - nb).setIdentity();
  MatrixXd m = A.transpose() * Mff * A;
  return 0.5 * (m + m.transpose());
}

namespace {
/// [[T, T_int], [0, 1]]: {q_IP^o; η} → the linearised local {q_IP^{j,j}; η}.
MatrixXd local_map(const GsSplit& s, const GsFrame& f) {
  const Index nc = s.S.cols(), nb = s.n_b;
  MatrixXd P = MatrixXd::Identity(nc, nc);
  P.topLeftCorner(nb, nb) = f.T;
  P.topRightCorner(nb, nc - nb) = f.T_int;
  return P;
}
} // namespace

MatrixXd gs_stiffness(const GsSplit& s, const GsFrame& f) { return local_map(s, f).transpose() * s.K; }

MatrixXd gs_stiffness_linearised(const GsSplit& s, const GsFrame& f) {
  const MatrixXd P = local_map(s, f);
  MatrixXd k = P.transpose() * s.K * P;
  return 0.5 * (k + k.transpose());
}

namespace {

Eigen::Vector3d rotation_vector(const Eigen::Matrix3d& R) {
  const Eigen::AngleAxisd aa(R);
  return aa.angle() * aa.axis();
}

Eigen::Matrix3d exp_map(const Eigen::Vector3d& w) {
  const double a = w.norm();
  if (a == 0) return Eigen::Matrix3d::Identity();
  return Eigen::AngleAxisd(a, w / a).toRotationMatrix();
}

/// Least-squares rigid fit x ≈ r + R X (Kabsch), or the rotation of the first point with rotations.
void initial_frame(const GsLayout& l, const std::vector<Eigen::Vector3d>& x, const std::vector<Eigen::Matrix3d>& rot,
                   Eigen::Matrix3d& R, Eigen::Vector3d& r) {
  const auto np = l.points.size();
  std::vector<char> has_rot(np, 0);
  for (std::size_t k = 0; k < l.point_of.size(); ++k)
    if (l.component_of[k] >= 3) has_rot[static_cast<std::size_t>(l.point_of[k])] = 1;
  Eigen::Vector3d xc = Eigen::Vector3d::Zero(), Xc = Eigen::Vector3d::Zero();
  for (std::size_t p = 0; p < np; ++p) {
    xc += x[p];
    Xc += Eigen::Vector3d(l.points[p][0], l.points[p][1], l.points[p][2]);
  }
  xc /= static_cast<double>(np);
  Xc /= static_cast<double>(np);
  R = Eigen::Matrix3d::Identity();
  const auto first = std::find(has_rot.begin(), has_rot.end(), 1);
  if (first != has_rot.end()) {
    R = rot[static_cast<std::size_t>(first - has_rot.begin())];
  } else {
    Eigen::Matrix3d H = Eigen::Matrix3d::Zero();
    for (std::size_t p = 0; p < np; ++p)
      H += (x[p] - xc) * (Eigen::Vector3d(l.points[p][0], l.points[p][1], l.points[p][2]) - Xc).transpose();
    Eigen::JacobiSVD<Eigen::Matrix3d> svd(H, Eigen::ComputeFullU | Eigen::ComputeFullV);
    Eigen::Matrix3d D = Eigen::Matrix3d::Identity();
    D(2, 2) = (svd.matrixU() * svd.matrixV().transpose()).determinant() < 0 ? -1.0 : 1.0;
    R = svd.matrixU() * D * svd.matrixV().transpose();
  }
  r = xc - R * Xc;
}

VectorXd local_dofs(const GsLayout& l, const std::vector<Eigen::Vector3d>& x, const std::vector<Eigen::Matrix3d>& rot,
                    const Eigen::Matrix3d& R, const Eigen::Vector3d& r, std::vector<Eigen::Vector3d>& local_pos) {
  const auto np = l.points.size();
  local_pos.resize(np);
  std::vector<Eigen::Vector3d> u(np), th(np);
  for (std::size_t p = 0; p < np; ++p) {
    const Eigen::Vector3d X(l.points[p][0], l.points[p][1], l.points[p][2]);
    local_pos[p] = R.transpose() * (x[p] - r);
    u[p] = local_pos[p] - X;
    th[p] = rotation_vector(R.transpose() * rot[p]);
  }
  VectorXd q(l.n_boundary());
  for (Index k = 0; k < l.n_boundary(); ++k) {
    const auto p = static_cast<std::size_t>(l.point_of[static_cast<std::size_t>(k)]);
    const int c = l.component_of[static_cast<std::size_t>(k)];
    q(k) = c < 3 ? u[p](c) : th[p](c - 3);
  }
  return q;
}

} // namespace

GsLocalState gs_local_state(const GsLayout& layout, const MatrixXd& psi_ff, const MatrixXd& ups_ff,
                            const std::vector<Eigen::Vector3d>& x, const std::vector<Eigen::Matrix3d>& rot,
                            const VectorXd& eta, double tol, int max_iterations) {
  FLEXUQ_REQUIRE(x.size() == layout.points.size() && rot.size() == layout.points.size(),
                 "generalised superelement: " << x.size() << " positions and " << rot.size() << " rotations for "
                                              << layout.points.size() << " interface points");
  GsLocalState st;
  initial_frame(layout, x, rot, st.R, st.r);
  std::vector<Eigen::Vector3d> lp;
  double scale = 1.0;
  for (const auto& p : layout.points) scale = std::max(scale, std::hypot(p[0], p[1], p[2]));
  for (st.iterations = 0;; ++st.iterations) {
    st.q_ip = local_dofs(layout, x, rot, st.R, st.r, lp);
    const VectorXd g = psi_ff * st.q_ip + ups_ff * eta;
    st.residual = g.norm();
    if (st.residual <= tol * scale) break;
    if (st.iterations >= max_iterations)
      throw Error(FLEXUQ_MSG("generalised superelement: the frame did not converge in " << max_iterations
                                                                                        << " iterations (residual "
                                                                                        << st.residual << ")"));
    const MatrixXd phi_r = interface_rigid_modes(layout, lp);
    const VectorXd d = layout.rigid_selection * (psi_ff * phi_r).fullPivLu().solve(g);
    st.r += st.R * d.head<3>();
    st.R = st.R * exp_map(d.tail<3>());
  }
  return st;
}

} // namespace flexuq::cms
