#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Independent oracle for flexuq's polynomial chaos: recompute the PCE of the shared function of
tests/uq/oracle_writer.cpp with OpenTURNS (Debian python3-openturns) and compare.

Same inputs, same function, same rule (tensor Gauss with 6 points per germ, generated here by
OpenTURNS' GaussProductExperiment), same total-degree-5 orthonormal basis, projection
(IntegrationStrategy). Coefficients are matched by multi-index; OpenTURNS' orthonormal Laguerre
polynomials have leading coefficient sign (-1)^n while flexuq's are positive, so the sign of every
univariate factor is normalised from the leading coefficients OpenTURNS reports.

Usage: openturns_oracle.py <flexuq result file>. Exit status 0 on agreement, 1 on mismatch.
"""
import math
import sys

import openturns as ot

COEF_TOL = 1e-10     # absolute, relative to the largest coefficient
SOBOL_TOL = 1e-10    # absolute on the indices
MOMENT_TOL = 1e-10   # relative on mean and variance


def read_flexuq(path):
    coef, first, total, scal = {}, {}, {}, {}
    with open(path) as f:
        for line in f:
            t = line.split()
            if not t or t[0].startswith("#"):
                continue
            if t[0] == "coef":
                coef[tuple(int(v) for v in t[1:5])] = float(t[5])
            elif t[0] == "sobol_first":
                first[int(t[1])] = float(t[2])
            elif t[0] == "sobol_total":
                total[int(t[1])] = float(t[2])
            else:
                scal[t[0]] = float(t[1])
    return coef, first, total, scal


def model(x):
    x1, x2, g3, x4 = x
    x3 = math.exp(0.1 + 0.3 * g3)  # log-normal input written through its Gaussian germ
    return [1.0 + 2.0 * x1 - x1 * x2 ** 2 + 0.5 * x2 ** 3 + x1 * x3 + math.exp(0.5 * x2) * x3 / 4.0
            + 0.2 * x4 ** 2 - 0.1 * x4 * x2 + 0.3 * x4 * x1]


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    coef_fx, first_fx, total_fx, scal = read_flexuq(sys.argv[1])
    n_gauss, order = int(scal["gauss_points_per_dim"]), int(scal["order"])
    dim = 4

    # Physical input law; x3 enters through its N(0,1) germ (Hermite in the Gaussian germ).
    distribution = ot.ComposedDistribution([ot.Normal(1.0, 0.5), ot.Uniform(-1.0, 3.0), ot.Normal(0.0, 1.0),
                                            ot.Gamma(3.0, 2.0, 0.0)])  # Gamma(k=3, rate 2) = scale 0.5
    factories = [ot.HermiteFactory(), ot.LegendreFactory(), ot.HermiteFactory(), ot.LaguerreFactory(2.0)]
    enum = ot.LinearEnumerateFunction(dim)
    basis = ot.OrthogonalProductPolynomialFactory(factories, enum)
    size = enum.getStrataCumulatedCardinal(order)

    experiment = ot.GaussProductExperiment(basis.getMeasure(), [n_gauss] * dim)
    xi, w = experiment.generateWithWeights()
    # Standard measure -> physical inputs (affine for all four marginals).
    X = ot.Sample([[1.0 + 0.5 * p[0], 1.0 + 2.0 * p[1], p[2], 0.5 * p[3]] for p in xi])
    Y = ot.Sample([model(x) for x in X])

    algo = ot.FunctionalChaosAlgorithm(X, w, Y, distribution, ot.FixedStrategy(basis, size),
                                       ot.IntegrationStrategy())
    algo.run()
    res = algo.getResult()
    coefs = res.getCoefficients()
    indices = res.getIndices()

    # Sign of the leading coefficient of OpenTURNS' univariate polynomial of degree n, per family.
    def sign(j, n):
        c = factories[j].build(n).getCoefficients()
        return 1.0 if c[n] > 0 else -1.0

    failures = []
    ot_coef = {}
    for k in range(indices.getSize()):
        alpha = tuple(int(a) for a in enum(indices[k]))
        s = 1.0
        for j, a in enumerate(alpha):
            s *= sign(j, a)
        ot_coef[alpha] = s * coefs[k][0]
    if set(ot_coef) != set(coef_fx):
        failures.append("multi-index sets differ: %d flexuq vs %d OpenTURNS terms" % (len(coef_fx), len(ot_coef)))
    scale = max(abs(v) for v in coef_fx.values())
    worst = 0.0
    for alpha, v in coef_fx.items():
        if alpha not in ot_coef:
            continue
        d = abs(v - ot_coef[alpha])
        worst = max(worst, d)
        if d > COEF_TOL * scale:
            failures.append("coefficient %s: flexuq %.15e OpenTURNS %.15e" % (alpha, v, ot_coef[alpha]))
    # Order of the enumeration: flexuq's graded lexicographic order equals OpenTURNS' linear enumeration.
    with open(sys.argv[1]) as f:
        fx_order = [tuple(int(v) for v in line.split()[1:5]) for line in f if line.startswith("coef")]
    ot_order = [tuple(int(a) for a in enum(i)) for i in range(size)]
    if fx_order != ot_order:
        failures.append("basis order differs from OpenTURNS' LinearEnumerateFunction")

    vec = ot.FunctionalChaosRandomVector(res)
    mean, var = vec.getMean()[0], vec.getCovariance()[0, 0]
    if abs(mean - scal["mean"]) > MOMENT_TOL * abs(mean):
        failures.append("mean: flexuq %.15e OpenTURNS %.15e" % (scal["mean"], mean))
    if abs(var - scal["variance"]) > MOMENT_TOL * abs(var):
        failures.append("variance: flexuq %.15e OpenTURNS %.15e" % (scal["variance"], var))

    sobol = ot.FunctionalChaosSobolIndices(res)
    for j in range(dim):
        s1, st = sobol.getSobolIndex(j), sobol.getSobolTotalIndex(j)
        if abs(s1 - first_fx[j]) > SOBOL_TOL:
            failures.append("first-order Sobol %d: flexuq %.15e OpenTURNS %.15e" % (j, first_fx[j], s1))
        if abs(st - total_fx[j]) > SOBOL_TOL:
            failures.append("total Sobol %d: flexuq %.15e OpenTURNS %.15e" % (j, total_fx[j], st))
        print("x%d  S1 flexuq %.12f OT %.12f   ST flexuq %.12f OT %.12f" % (j + 1, first_fx[j], s1, total_fx[j], st))

    print("OpenTURNS %s: %d terms, %d Gauss points, max |coefficient difference| = %.3e (scale %.3e)"
          % (ot.__version__, len(ot_coef), X.getSize(), worst, scale))
    print("mean flexuq %.15e OT %.15e; variance flexuq %.15e OT %.15e" % (scal["mean"], mean, scal["variance"], var))
    if failures:
        print("MISMATCH:")
        for f in failures:
            print("  " + f)
        return 1
    print("OK: flexuq agrees with OpenTURNS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
