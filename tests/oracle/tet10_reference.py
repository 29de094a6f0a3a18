# SPDX-License-Identifier: MIT
"""Independent tet10 reference for the CalculiX cross-check (numpy + scipy only).

For straight-sided tet10 elements (every gmsh tet10 of a planar-faced solid: mid-edge nodes at the
edge midpoints) the shape functions are quadratic in the barycentric coordinates l1..l4:
  corner i: l_i (2 l_i - 1),   mid-edge (i,j): 4 l_i l_j   (Abaqus C3D10 order: 12 23 31 14 24 34).
  * stiffness: strains are linear, so B^T D B is quadratic and the 4-point Gauss rule is exact;
  * mass: N_i N_j is quartic. Integrated exactly with the closed form
        int_T l1^a l2^b l3^c l4^d dV = 6 V a! b! c! d! / (a+b+c+d+3)!
    it is the consistent mass; integrated with the 4-point rule (degree 2) it is not.
The element mass is rho * V * Mhat (x) I3 with Mhat a fixed 10x10 matrix for either rule, so this
module assembles K once and M both ways and solves the generalised eigenproblem with scipy (ARPACK
shift-invert), giving the frequencies of "consistent exact mass" and of "4-point mass" for the mesh.
"""
import math
from itertools import product

import numpy as np

EDGES = [(0, 1), (1, 2), (2, 0), (0, 3), (1, 3), (2, 3)]
# Symmetric 4-point rule (degree 2) on the tetrahedron, equal weights 1/4 of the volume.
_A, _B = 0.5854101966249685, 0.1381966011250105
GAUSS4 = np.array([[_A, _B, _B, _B], [_B, _A, _B, _B], [_B, _B, _A, _B], [_B, _B, _B, _A]])


def shape_polys():
    """Each shape function as {exponent tuple (a,b,c,d): coefficient} in l1..l4."""
    polys = []
    for i in range(4):
        e2 = [0] * 4
        e2[i] = 2
        e1 = [0] * 4
        e1[i] = 1
        polys.append({tuple(e2): 2.0, tuple(e1): -1.0})
    for i, j in EDGES:
        e = [0] * 4
        e[i] += 1
        e[j] += 1
        polys.append({tuple(e): 4.0})
    return polys


def mhat_exact():
    """int N_i N_j dV / V, exactly."""
    p = shape_polys()
    m = np.zeros((10, 10))
    for i, j in product(range(10), range(10)):
        s = 0.0
        for ea, ca in p[i].items():
            for eb, cb in p[j].items():
                e = [x + y for x, y in zip(ea, eb)]
                s += ca * cb * 6.0 * np.prod([math.factorial(k) for k in e]) / math.factorial(sum(e) + 3)
        m[i, j] = s
    return m


def shape_values(l):
    n = [l[i] * (2 * l[i] - 1) for i in range(4)]
    n += [4 * l[i] * l[j] for i, j in EDGES]
    return np.array(n)


def shape_dl(l):
    """dN/dl (10 x 4)."""
    d = np.zeros((10, 4))
    for i in range(4):
        d[i, i] = 4 * l[i] - 1
    for k, (i, j) in enumerate(EDGES):
        d[4 + k, i] = 4 * l[j]
        d[4 + k, j] = 4 * l[i]
    return d


def mhat_gauss4():
    return sum(0.25 * np.outer(shape_values(q), shape_values(q)) for q in GAUSS4)


def elasticity(E, nu):
    lam = E * nu / ((1 + nu) * (1 - 2 * nu))
    mu = E / (2 * (1 + nu))
    D = np.zeros((6, 6))
    D[:3, :3] = lam
    D[np.arange(3), np.arange(3)] += 2 * mu
    D[np.arange(3, 6), np.arange(3, 6)] = mu
    return D


def assemble(xyz, tets, E, nu, rho):
    """xyz (n,3); tets (m,10) zero-based node indices in C3D10 order. Returns K, M_exact, M_gauss4."""
    import scipy.sparse as sp
    D = elasticity(E, nu)
    me, m4 = mhat_exact(), mhat_gauss4()
    # l4 = 1 - l1 - l2 - l3: derivatives w.r.t. the independent (l1, l2, l3)
    P = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [-1, -1, -1]], dtype=float)
    dls = [shape_dl(q) @ P for q in GAUSS4]  # 10 x 3 each
    rows, cols, kv, mev, m4v = [], [], [], [], []
    for t in tets:
        x = xyz[t]
        mid = 0.5 * (x[[i for i, _ in EDGES]] + x[[j for _, j in EDGES]])
        if np.abs(x[4:] - mid).max() > 1e-9 * np.abs(x).max():
            raise ValueError("tet10 with curved edges: the closed-form reference needs straight sides")
        J = (x[:4].T @ P)  # dx/d(l1,l2,l3), constant for a straight-sided tet
        V = abs(np.linalg.det(J)) / 6.0
        Jinv = np.linalg.inv(J)
        ke = np.zeros((30, 30))
        for dl in dls:
            g = dl @ Jinv  # dN/dx, 10 x 3
            B = np.zeros((6, 30))
            B[0, 0::3], B[1, 1::3], B[2, 2::3] = g[:, 0], g[:, 1], g[:, 2]
            B[3, 0::3], B[3, 1::3] = g[:, 1], g[:, 0]
            B[4, 1::3], B[4, 2::3] = g[:, 2], g[:, 1]
            B[5, 0::3], B[5, 2::3] = g[:, 2], g[:, 0]
            ke += 0.25 * V * B.T @ D @ B
        dofs = (3 * t[:, None] + np.arange(3)).ravel()
        r, c = np.meshgrid(dofs, dofs, indexing="ij")
        rows.append(r.ravel())
        cols.append(c.ravel())
        kv.append(ke.ravel())
        mev.append(np.kron(rho * V * me, np.eye(3)).ravel())
        m4v.append(np.kron(rho * V * m4, np.eye(3)).ravel())
    n = 3 * len(xyz)
    rows, cols = np.concatenate(rows), np.concatenate(cols)

    def mk(v):
        return sp.csr_matrix((np.concatenate(v), (rows, cols)), shape=(n, n))
    return mk(kv), mk(mev), mk(m4v)


def frequencies(K, M, fixed_nodes, nmodes, nrigid):
    """First nmodes elastic frequencies [Hz]; fixed_nodes: zero-based node indices with all DOFs fixed."""
    from scipy.sparse.linalg import eigsh
    n = K.shape[0]
    keep = np.ones(n, dtype=bool)
    for i in fixed_nodes:
        keep[3 * i:3 * i + 3] = False
    Kf, Mf = K[keep][:, keep].tocsc(), M[keep][:, keep].tocsc()
    # a negative shift keeps K - sigma M definite when the part is free-free
    sigma = -1.0e4
    w = eigsh(Kf, k=nmodes + nrigid, M=Mf, sigma=sigma, which="LM", tol=1e-14, return_eigenvectors=False)
    w = np.sort(w)[nrigid:]
    return np.sqrt(np.maximum(w, 0.0)) / (2 * np.pi)


def read_inp_tet10(path):
    """Nodes, C3D10 connectivity and node sets of the cleaned gmsh .inp (zero-based, node-id order)."""
    ids, xyz, tets, nsets = [], [], [], {}
    mode, cur, pending = None, None, []
    with open(path) as f:
        for line in f:
            s = line.strip()
            if not s or s.startswith("**"):
                continue
            if s.startswith("*"):
                u = s.upper().replace(" ", "")
                mode = None
                if u.startswith("*NODE") and not u.startswith("*NODEFILE"):
                    mode = "node"
                elif u.startswith("*ELEMENT") and "TYPE=C3D10" in u:
                    mode = "elem"
                elif u.startswith("*NSET"):
                    mode = "nset"
                    cur = u.split("NSET=")[1].split(",")[0]
                    nsets[cur] = []
                continue
            vals = [v for v in s.replace(",", " ").split()]
            if mode == "node":
                ids.append(int(vals[0]))
                xyz.append([float(v) for v in vals[1:4]])
            elif mode == "elem":
                pending += [int(v) for v in vals]
                if len(pending) >= 11:
                    tets.append(pending[1:11])
                    pending = []
            elif mode == "nset":
                nsets[cur] += [int(v) for v in vals]
    index = {nid: k for k, nid in enumerate(ids)}
    tets = np.array([[index[n] for n in t] for t in tets])
    nsets = {k: np.array([index[n] for n in v]) for k, v in nsets.items()}
    return np.array(xyz), tets, nsets
