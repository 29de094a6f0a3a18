#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Reference integration of seed 000's flexible slider-crank with SciPy: the oracle of
tests/mbs/simulate_vs_scipy_test.sh and the peer of bench/mbs_flexible_slider_crank.sh (issue #8's
side-by-side benchmark).

An independent model of the equations `flexuq simulate configs/slider-crank-flexible.yaml` solves,
written from the floating-frame-of-reference theory (docs/mbs.md) and the body files alone — no
flexuq code is called:

* per body q = [r, p, η]: r, p (Euler parameters) locate the mesh frame, η the free-free elastic
  coordinates ξ = Vη of `/reduced/floating_frame` (7 + n_e coordinates);
* body-frame velocities w = T q̇ = [Aᵀṙ; 2Gṗ; η̇]; the particle at x₀ with displacement Φη
  (Φ = the basis times V) moves as r + A u, u = x₀ + Φη, so that with a_R = Aᵀr̈
      a' = a_R − ũ ω̇' + Φ η̈ + ω̃'ω̃' u + 2 ω̃' Φ η̇,
  and d'Alembert's principle over δx' = δR' − ũ δπ' + Φ δη gives M(η) T q̈ = Q_v + Q_ext − [0; 0; K_e η]
  with M(η) = ∫ρ [1; ũ; Φᵀ][1, −ũ, Φ] and Q_v = −∫ρ [1; ũ; Φᵀ](ω̃'ω̃'u + 2ω̃'Φη̇), every integral an
  invariant of `/reduced/floating_frame/invariants` (I1, I3 = S, I5 = Skl, I6 = Sbar, I7 = Ikl, and
  J_O, I4 = Sr and Mff = VᵀΦᵀMΦV, which hold the beams' rotary inertia that the lumped I5–I7 do not:
  the η-free parts of M(η) are J_O, Sr and Mff, J(η) = J_O + tr(ΔU) 1 − ΔU with ΔU = U(η) − I7, and
  Q_v's rotation row −ω̃'J ω' — flexuq's convention, docs/mbs.md);
  virtual work turns it into Tᵀ M T q̈ = Tᵀ(Q_v + Q_ext) − [0; 0; K_e η] (Ġṗ = 0), K_e = VᵀK̄V;
* joints on interfaces (RBE2 reference nodes `REF <SET> ux … rz`, columns of the basis): a joint point
  s moves to r + A(s + Lη), L = T_I − (s − x_I)~R_I, an axis a' turns to A(a' − ã'R_I η);
  O: revolute ground–crank (END0), A: revolute crank (END1)–rod (END0), B: point-on-line rod (END1)
  on the global x axis; plus pᵀp − 1 = 0 per body: 14 rows on 34 coordinates;
* C_q and γ = −(C_q q̇)_q q̇ analytic (checked here against complex-step and central differences);
* index 1: [Tᵀ M T  C_qᵀ; C_q 0][q̈; λ] = [Q; γ] (the rigid loop's one redundant row is no longer
  exactly redundant once the bars can bend: the matrix is regular, condition ~1e8; least squares if not),
  integrated by solve_ivp (an implicit method: the bars' axial modes, ~60 000 rad/s, make every
  explicit step tiny), no projection.

Initial state: the poses of the config, η = 0, and q̇ = 0 or (--omega W) the rigid loop's velocities
with the crank turning at W rad/s about z (ṙ, ṗ = ½Eᵀω per body, printed as `flexuq_set` lines for
`flexuq simulate --set`), η̇ = 0, made consistent as flexuq does, q̇ ← q̇ − C_qᵀ(C_qC_qᵀ)⁻¹C_q q̇ (the
orthogonal projection onto the null space of C_q, which does not depend on how the rows are written).
Writes t and x_A (the crank's END1 point) at every output time; prints the wall time, the RHS count
and the constraint drift:
    ffrf_slider_crank.py bar1-cb.h5 rod-cb.h5 [--end 0.25] [--method BDF] [--rtol 1e-8] [--omega 20]
        [--out x_A.txt] [--check]
"""
import argparse
import math
import sys
import time

import h5py
import numpy as np
from scipy.integrate import solve_ivp


def skew(a):
    return np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])


def rot(p):
    """A(p) for Euler parameters p (any 4-vector: the quadratic form)."""
    e0, e = p[0], p[1:]
    return (e0 * e0 - e @ e) * np.eye(3) + 2.0 * np.outer(e, e) + 2.0 * e0 * skew(e)


def bmat(p, a):
    """B(p, a) = ∂(A(p) a)/∂p (3 × 4), linear in p."""
    e0, e = p[0], p[1:]
    c = e0 * np.eye(3) + skew(e)
    return 2.0 * np.column_stack([c @ a, np.outer(e, a) - c @ skew(a)])


def gmat(p):
    e0, e = p[0], p[1:]
    return np.column_stack([-e, -skew(e) + e0 * np.eye(3)])


def axis_angle(axis, angle):
    a = np.asarray(axis, float) / np.linalg.norm(axis)
    return np.concatenate([[math.cos(angle / 2)], math.sin(angle / 2) * a])


class Body:
    """A flexible body from a `flexuq reduce` file: invariants of Φ V, K_e, interface rows."""

    def __init__(self, path, r0, p0, frame=None):
        with h5py.File(path, "r") as f:
            ff = f["reduced/floating_frame"]
            # frame: the interface the body frame holds (flexuq's bodies.<b>.frame): the invariants of
            # the whole basis, congruent with V = P W below, instead of the mean-axis ones.
            inv = f["reduced/invariants"] if frame else ff["invariants"]
            self.m = float(np.asarray(inv["mass"]).reshape(-1)[0])
            self.S = np.asarray(inv["S"])            # (3, n)   ∫ρΦ
            self.Skl = np.asarray(inv["Skl"])        # (3, 3, n, n) ∫ρ Φ_kᵀ Φ_l
            self.Sbar = np.asarray(inv["Sbar"])      # (3, 3, n) ∫ρ x0_k Φ_l
            self.Ikl = np.asarray(inv["Ikl"])        # (3, 3)   ∫ρ x0_k x0_l
            self.Sr = np.asarray(inv["Sr"])          # (3, n)   ∫ρ x̃0Φ (consistent mass)
            self.JO = np.asarray(inv["inertia_origin"])
            self.c = np.asarray(inv["center_of_mass"]).reshape(3)
            # ∫ρΦᵀΦ: the file's Mff = VᵀΦᵀMΦV (= 1), the consistent mass with the beams' rotary inertia;
            # Σ_k Skl[k, k] would be the lumped translational part only (a beam's I5 comes from lumped
            # masses, attribute `lumped_I5_I7`), as J_O holds the rotary inertia that I7 does not.
            self.Mff = np.asarray(inv["Mff"])
            V = np.asarray(ff["V"])                  # (n_red, n_e)
            Kbar = np.asarray(f["reduced/K"])
            f_M = np.asarray(f["reduced/M"])
            labels = [x.decode() if isinstance(x, bytes) else x for x in f["reduced/dof_labels"][:]]
            scale = np.asarray(f["reduced/column_scale"])
            sets = [x.decode() if isinstance(x, bytes) else x for x in f["reduced/interface_point_sets"][:]]
            points = np.asarray(f["reduced/interface_points"])
        if frame:
            # Drop the interface's six columns; the rest (fixed-interface CB) vanish there. Elastic
            # coordinates: the normal modes W of the remaining pair, V = P W (WᵀPᵀM̄PW = 1).
            Mbar = np.asarray(f_M)
            keep = [j for j, l in enumerate(labels) if not l.startswith(f"REF {frame} ")]
            assert len(keep) == len(labels) - 6, f"{path}: REF {frame} needs six columns"
            P = np.eye(len(labels))[:, keep]
            lam, W = np.linalg.eigh(np.linalg.solve(np.linalg.cholesky(P.T @ Mbar @ P), np.eye(len(keep))) @ (P.T @ Kbar @ P)
                                    @ np.linalg.solve(np.linalg.cholesky(P.T @ Mbar @ P), np.eye(len(keep))).T)
            W = np.linalg.solve(np.linalg.cholesky(P.T @ Mbar @ P).T, W)
            V = P @ W
            self.S, self.Sr = self.S @ V, self.Sr @ V
            self.Sbar = np.einsum("kln,nm->klm", self.Sbar, V)
            self.Skl = np.einsum("na,klnm,mb->klab", V, self.Skl, V)
            self.Mff = V.T @ self.Mff @ V
        self.n = V.shape[1]
        ke = V.T @ Kbar @ V
        self.K = 0.5 * (ke + ke.T)
        self.interfaces = {}
        comp = ["ux", "uy", "uz", "rx", "ry", "rz"]
        for name, x in zip(sets, points):
            rows = np.zeros((6, self.n))
            for k, cname in enumerate(comp):
                j = labels.index(f"REF {name} {cname}")
                rows[k] = scale[j] * V[j]
            self.interfaces[name] = (np.asarray(x, float), rows[:3], rows[3:])
        self.r0, self.p0 = np.asarray(r0, float), np.asarray(p0, float)
        self.A0 = rot(self.p0)

    def attach_point(self, interface, point):
        """Body-frame joint point s and its L (3 × n) on an interface, from a global point at t = 0."""
        x, T, R = self.interfaces[interface]
        s = self.A0.T @ (np.asarray(point, float) - self.r0)
        return s, T - skew(s - x) @ R

    def attach_axis(self, interface, axis):
        """Body-frame axis a' and the matrix N with a(η) = a' + N η (N = −ã' R_I)."""
        _, _, R = self.interfaces[interface]
        a = self.A0.T @ np.asarray(axis, float)
        return a, -skew(a) @ R

    def mass_and_qv(self, eta, omega, deta):
        """M(η) (6 + n) and Q_v in body-frame velocity slots."""
        Skl, Sbar = self.Skl, self.Sbar
        st = self.m * self.c + self.S @ eta                         # ∫ρu
        # P[j, k] = ∫ρ u_j Φ_k (row vectors): Sbar[j, k] + ηᵀ Skl[j, k]
        P = Sbar + np.einsum("m,jkmn->jkn", eta, Skl)
        dU = np.einsum("kln,n->kl", Sbar, eta)
        dU = dU + dU.T + np.einsum("m,klmn,n->kl", eta, Skl, eta)  # U − I7
        U = self.Ikl + dU
        n = self.n
        M = np.zeros((6 + n, 6 + n))
        M[:3, :3] = self.m * np.eye(3)
        M[:3, 3:6] = -skew(st)
        M[3:6, :3] = skew(st)
        M[:3, 6:] = self.S
        M[6:, :3] = self.S.T
        J = self.JO + np.trace(dU) * np.eye(3) - dU
        M[3:6, 3:6] = J
        # ∫ρ ũΦ = I4 + ε_akl ηᵀI5_kl: the η-free part is the file's consistent Sr, not ε·I6.
        E = P - Sbar
        Mtf = self.Sr + np.array([E[1, 2] - E[2, 1], E[2, 0] - E[0, 2], E[0, 1] - E[1, 0]])
        M[3:6, 6:] = Mtf
        M[6:, 3:6] = Mtf.T
        M[6:, 6:] = self.Mff
        w = omega
        W = skew(w)
        Sd = self.S @ deta
        qv_r = -(W @ (W @ st) + 2.0 * W @ Sd)
        trP = P[0, 0] + P[1, 1] + P[2, 2]
        uv = trP @ deta                                              # ∫ρ u·Φη̇
        Pd = np.einsum("lin,n->li", P, deta)                         # ∫ρ u_l (Φη̇)_i
        qv_t = -(W @ (J @ w) + 2.0 * (w * uv - Pd.T @ w))      # ∫ρ ũω̃ω̃u = ω̃Jω (J with J_O)
        Skd = np.einsum("ikmn,n->ikm", Skl, deta)                    # ∫ρ Φ_i,m (Φη̇)_k
        eps = np.zeros((3, 3, 3))
        eps[0, 1, 2] = eps[1, 2, 0] = eps[2, 0, 1] = 1.0
        eps[0, 2, 1] = eps[2, 1, 0] = eps[1, 0, 2] = -1.0
        qv_f = -(np.einsum("i,l,lin->n", w, w, P) - (w @ w) * trP + 2.0 * np.einsum("ijk,j,ikm->m", eps, w, Skd))
        return M, np.concatenate([qv_r, qv_t, qv_f])


class Model:
    def __init__(self, bar1, rod, qvt=True, frame=None):
        # Poses at t = 0 as in configs/slider-crank-flexible.yaml (mesh frames at the bars' centres).
        a = math.pi / 4
        lc, lr = 0.15, 0.3
        A = np.array([lc * math.cos(a), lc * math.sin(a), 0.0])
        xb = A[0] + math.sqrt(lr * lr - A[1] ** 2)
        phi = -math.asin(A[1] / lr)
        self.crank = Body(bar1, A / 2, axis_angle([0, 0, 1], a), frame)
        self.rod = Body(rod, (A + np.array([xb, 0, 0])) / 2, axis_angle([0, 0, 1], phi), frame)
        self.bodies = [self.crank, self.rod]
        self.qvt = qvt
        z = np.array([0.0, 0.0, 1.0])
        # Joint geometry in the bodies (t = 0).
        self.O = self.crank.attach_point("END0", [0, 0, 0])
        self.Oh = self.crank.attach_axis("END0", z)
        self.Ac = self.crank.attach_point("END1", A)
        self.Ar = self.rod.attach_point("END0", A)
        self.Acf = self.crank.attach_axis("END1", [1, 0, 0])
        self.Acg = self.crank.attach_axis("END1", [0, 1, 0])
        self.Arh = self.rod.attach_axis("END0", z)
        self.B = self.rod.attach_point("END1", [xb, 0, 0])
        self.xb = xb
        self.off = [0, 7 + self.crank.n]
        self.nq = 14 + self.crank.n + self.rod.n
        self.m = 14

    def q0(self):
        q = np.zeros(self.nq)
        for b, o in zip(self.bodies, self.off):
            q[o:o + 3], q[o + 3:o + 7] = b.r0, b.p0
        return q

    def split(self, q, k):
        o, n = self.off[k], self.bodies[k].n
        return q[o:o + 3], q[o + 3:o + 7], q[o + 7:o + 7 + n]

    # --- kinematics of a body point / body vector: value, Jacobian (3 × nq), velocity, quadratic part
    def body_vector(self, k, cL, q, dq, point):
        """A(p)(c + Lη), plus r for a point; with its Jacobian, velocity and d²/dt² at q̈ = 0."""
        c, L = cL
        r, p, e = self.split(q, k)
        _, dp, de = self.split(dq, k)
        A = rot(p)
        x = c + L @ e
        J = np.zeros((3, self.nq))
        o = self.off[k]
        if point:
            J[:, o:o + 3] = np.eye(3)
        J[:, o + 3:o + 7] = bmat(p, x)
        J[:, o + 7:o + 7 + len(e)] = A @ L
        qd = 2.0 * rot(dp) @ x + 2.0 * bmat(p, L @ de) @ dp
        return (r if point else 0.0) + A @ x, J, J @ dq, qd

    def point(self, k, sL, q, dq):
        return self.body_vector(k, sL, q, dq, True)

    def vector(self, k, aN, q, dq):
        return self.body_vector(k, aN, q, dq, False)

    def constraints(self, q, dq):
        """Φ (m), C_q (m × nq), γ = −(C_q q̇)_q q̇."""
        rows, jac, gam = [], [], []

        def add(v, J, g):
            rows.append(v)
            jac.append(J)
            gam.append(g)

        def dot(u, v):  # u = (value, J, velocity, quadratic part); Φ = u·v
            add(u[0] @ v[0], u[0] @ v[1] + v[0] @ u[1], -(u[3] @ v[0] + 2.0 * u[2] @ v[2] + u[0] @ v[3]))

        ex, ey = np.array([1.0, 0, 0]), np.array([0, 1.0, 0])
        zero = np.zeros((3, self.nq))
        # O: revolute ground–crank at the origin, axis z.
        x, J, _, qd = self.point(0, self.O, q, dq)
        for i in range(3):
            add(x[i], J[i], -qd[i])
        h = self.vector(0, self.Oh, q, dq)
        for f in (ex, ey):
            const = (f, zero, np.zeros(3), np.zeros(3))
            dot(const, h)
        # A: revolute crank (END1) – rod (END0).
        xc, Jc, vc, qc = self.point(0, self.Ac, q, dq)
        xr, Jr, vr, qr = self.point(1, self.Ar, q, dq)
        for i in range(3):
            add(xr[i] - xc[i], Jr[i] - Jc[i], -(qr[i] - qc[i]))
        hr = self.vector(1, self.Arh, q, dq)
        dot(self.vector(0, self.Acf, q, dq), hr)
        dot(self.vector(0, self.Acg, q, dq), hr)
        # B: the rod's END1 on the global x axis.
        x, J, _, qd = self.point(1, self.B, q, dq)
        for i in (1, 2):
            add(x[i], J[i], -qd[i])
        # Euler-parameter norms.
        for k in range(2):
            _, p, _ = self.split(q, k)
            _, dp, _ = self.split(dq, k)
            J = np.zeros(self.nq)
            J[self.off[k] + 3:self.off[k] + 7] = 2.0 * p
            add(p @ p - 1.0, J, -2.0 * dp @ dp)
        return np.array(rows), np.array(jac), np.array(gam)

    def mass_force(self, t, q, dq):
        """Tᵀ M(η) T and Tᵀ(Q_v + Q_ext) − [0; 0; K_e η]."""
        M = np.zeros((self.nq, self.nq))
        Q = np.zeros(self.nq)
        for k, b in enumerate(self.bodies):
            r, p, e = self.split(q, k)
            _, dp, de = self.split(dq, k)
            A, G = rot(p), gmat(p)
            omega = 2.0 * G @ dp
            Mb, qv = b.mass_and_qv(e, omega, de)
            if not self.qvt:
                qv[:] = 0.0
            if k == 0:
                qv[3:6] += A.T @ np.array([0.0, 0.0, 1.0])  # 1 N·m about the global z axis
            n = b.n
            T = np.zeros((6 + n, 7 + n))
            T[:3, :3] = A.T
            T[3:6, 3:7] = 2.0 * G
            T[6:, 7:] = np.eye(n)
            o = self.off[k]
            sl = slice(o, o + 7 + n)
            M[sl, sl] = T.T @ Mb @ T
            Q[sl] = T.T @ qv
            Q[o + 7:o + 7 + n] -= b.K @ e
        return M, Q

    def accelerations(self, t, q, dq):
        M, Q = self.mass_force(t, q, dq)
        _, C, g = self.constraints(q, dq)
        m = C.shape[0]
        K = np.zeros((self.nq + m, self.nq + m))
        K[:self.nq, :self.nq] = M
        K[:self.nq, self.nq:] = C.T
        K[self.nq:, :self.nq] = C
        rhs = np.concatenate([Q, g])
        try:
            sol = np.linalg.solve(K, rhs)
        except np.linalg.LinAlgError:  # a redundant row (the rigid loop's): the minimum-norm λ
            sol = np.linalg.lstsq(K, rhs, rcond=1e-13)[0]
        return sol[:self.nq]

    def rhs(self, t, y):
        q, dq = y[:self.nq], y[self.nq:]
        return np.concatenate([dq, self.accelerations(t, q, dq)])

    def x_A(self, q):
        return self.point(0, self.Ac, q, np.zeros(self.nq))[0]


def check(model):
    """C_q and γ against complex-free central differences, at a random state; prints the errors."""
    rng = np.random.default_rng(1)
    q = model.q0()
    q[7:7 + model.crank.n] = 1e-4 * rng.standard_normal(model.crank.n)
    q[model.off[1] + 7:] = 1e-4 * rng.standard_normal(model.rod.n)
    dq = rng.standard_normal(model.nq)
    phi, C, g = model.constraints(q, dq)
    h = 1e-6
    Cfd = np.column_stack([(model.constraints(q + h * e, dq)[0] - model.constraints(q - h * e, dq)[0]) / (2 * h)
                           for e in np.eye(model.nq)])
    # γ = −d²/dε² Φ(q + ε q̇)
    h2 = 1e-4
    gfd = -(model.constraints(q + h2 * dq, dq)[0] - 2 * phi + model.constraints(q - h2 * dq, dq)[0]) / h2**2
    e1 = np.abs(C - Cfd).max() / np.abs(C).max()
    e2 = np.abs(g - gfd).max() / np.abs(g).max()
    print(f"check_Cq_relative_error {e1:.1e}\ncheck_gamma_relative_error {e2:.1e}")
    return e1 < 1e-7 and e2 < 1e-5


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bar1")
    ap.add_argument("rod")
    ap.add_argument("--end", type=float, default=0.25)
    ap.add_argument("--output-step", type=float, default=1e-3)
    ap.add_argument("--method", default="BDF")
    ap.add_argument("--rtol", type=float, default=1e-8)
    ap.add_argument("--atol", type=float, default=1e-11)
    ap.add_argument("--no-qvt", action="store_true")
    ap.add_argument("--frame", help="the interface both bodies' frames hold (flexuq's bodies.<b>.frame); "
                    "default the mean axes")
    ap.add_argument("--omega", type=float, default=0.0, help="initial angular velocity of the crank about z")
    ap.add_argument("--out", default="scipy-flex-x_A.txt")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    model = Model(a.bar1, a.rod, qvt=not a.no_qvt, frame=a.frame)
    if a.check and not check(model):
        sys.exit("the analytic C_q or γ disagrees with finite differences")
    q0 = model.q0()
    phi0 = model.constraints(q0, np.zeros(model.nq))[0]
    dq0 = np.zeros(model.nq)
    if a.omega != 0.0:
        # The rigid loop's velocities: the crank at ω about O, the rod from v_B ∥ x; flexuq takes them
        # as bodies.<b>.velocity / angular_velocity (printed below), and both project them.
        wc = np.array([0.0, 0.0, a.omega])
        xa = model.x_A(q0)
        va = np.cross(wc, xa)
        wr = np.array([0.0, 0.0, -va[1] / (model.xb - xa[0])])
        for k, w in enumerate((wc, wr)):
            r, p, _ = model.split(q0, k)
            e0, e = p[0], p[1:]
            E = np.column_stack([-e, skew(e) + e0 * np.eye(3)])
            o = model.off[k]
            dq0[o:o + 3] = np.cross(wc, r) if k == 0 else va + np.cross(wr, r - xa)
            dq0[o + 3:o + 7] = 0.5 * E.T @ w
            name = ("crank", "rod")[k]
            print(f"flexuq_set bodies.{name}.velocity=[{dq0[o]!r}, {dq0[o + 1]!r}, 0]")
            print(f"flexuq_set bodies.{name}.angular_velocity=[0, 0, {w[2]!r}]")
        C = model.constraints(q0, dq0)[1]
        dq0 -= C.T @ np.linalg.solve(C @ C.T, C @ dq0)
    y0 = np.concatenate([q0, dq0])
    ts = np.arange(0.0, a.end + 0.5 * a.output_step, a.output_step)
    nfev = [0]

    def f(t, y):
        nfev[0] += 1
        return model.rhs(t, y)

    # The Jacobian of the right-hand side for the implicit methods: forward differences with a step
    # per state of √ε·max(|y_j|, typical size) (SciPy's own num_jac grows its steps without bound on
    # the columns a state does not enter, the positions r, and stalls Radau and BDF here).
    typical = np.concatenate([np.full(model.nq, 1e-3), np.full(model.nq, 1e-1)])

    def jac(t, y):
        f0 = model.rhs(t, y)
        J = np.empty((y.size, y.size))
        for j in range(y.size):
            h = 1.5e-8 * max(abs(y[j]), typical[j])
            yj = y.copy()
            yj[j] += h
            J[:, j] = (model.rhs(t, yj) - f0) / h
        nfev[0] += y.size + 1
        return J

    opts = {} if a.method in ("RK45", "DOP853", "RK23") else {"jac": jac}
    t0 = time.perf_counter()
    sol = solve_ivp(f, (0.0, ts[-1]), y0, method=a.method, t_eval=ts, rtol=a.rtol, atol=a.atol, **opts)
    wall = time.perf_counter() - t0
    if not sol.success:
        sys.exit(f"solve_ivp failed: {sol.message}")
    drift = max(np.abs(model.constraints(sol.y[:model.nq, i], np.zeros(model.nq))[0]).max()
                for i in range(len(sol.t)))
    xa = np.array([model.x_A(sol.y[:model.nq, i]) for i in range(len(sol.t))])
    np.savetxt(a.out, np.column_stack([sol.t, xa]))
    print(f"scipy_method {a.method} rtol {a.rtol} atol {a.atol}")
    print(f"scipy_initial_residual {np.abs(phi0).max():.1e}")
    print(f"scipy_rhs_evaluations {nfev[0]}")
    print(f"scipy_jacobians {sol.njev}")
    print(f"scipy_drift {drift:.1e}")
    print(f"scipy_x_A_end {xa[-1][0]:.12f} {xa[-1][1]:.12f}")
    print(f"scipy_wall_seconds {wall:.2f}")


if __name__ == "__main__":
    main()
