// SPDX-License-Identifier: MIT
// Writes flexuq's PCE of the shared oracle function (see openturns_oracle.py, which recomputes it
// with OpenTURNS and compares). Usage: uq_oracle_writer <output file>.
//
// Inputs: x1 ~ N(1, 0.5) [Hermite], x2 ~ U(−1, 3) [Legendre], x3 ~ LN(0.1, 0.3) [Hermite in the
// Gaussian germ], x4 ~ Gamma(shape 3, scale 0.5) [Laguerre(2)]. Function:
//   f = 1 + 2 x1 − x1 x2² + 0.5 x2³ + x1 x3 + exp(0.5 x2) x3 / 4 + 0.2 x4² − 0.1 x4 x2 + 0.3 x4 x1
// Fit: projection on the tensor Gauss rule with 6 points per germ, total degree 5 (126 terms).
#include "flexuq/uq/Pce.hpp"
#include "flexuq/uq/StochasticSpace.hpp"

#include <cmath>
#include <cstdio>
#include <exception>

using namespace flexuq::uq;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <output file>\n", argv[0]);
    return 2;
  }
  try {
    StochasticSpace S;
    S.add("x1", Distribution::normal(1.0, 0.5))
        .add("x2", Distribution::uniform(-1.0, 3.0))
        .add("x3", Distribution::lognormal(0.1, 0.3))
        .add("x4", Distribution::gamma(3.0, 0.5));
    const int n_gauss = 6, order = 5;
    const Quadrature q = S.gauss_rule(n_gauss);
    const Eigen::MatrixXd x = S.from_germ(q.points);
    Eigen::MatrixXd y(q.size(), 1);
    for (int i = 0; i < q.size(); ++i) {
      const double x1 = x(i, 0), x2 = x(i, 1), x3 = x(i, 2), x4 = x(i, 3);
      y(i, 0) = 1.0 + 2.0 * x1 - x1 * x2 * x2 + 0.5 * x2 * x2 * x2 + x1 * x3 + std::exp(0.5 * x2) * x3 / 4.0 +
                0.2 * x4 * x4 - 0.1 * x4 * x2 + 0.3 * x4 * x1;
    }
    const Pce pce = Pce::fit_projection(S.families(), MultiIndexSet::total_degree(4, order), q, y);
    std::FILE* f = std::fopen(argv[1], "w");
    if (!f) {
      std::fprintf(stderr, "cannot open %s\n", argv[1]);
      return 1;
    }
    std::fprintf(f, "# flexuq PCE of the OpenTURNS oracle function\n");
    std::fprintf(f, "gauss_points_per_dim %d\norder %d\nterms %d\n", n_gauss, order, pce.n_terms());
    for (int k = 0; k < pce.n_terms(); ++k) {
      std::fprintf(f, "coef");
      for (int d = 0; d < 4; ++d) std::fprintf(f, " %d", pce.basis()(k, d));
      std::fprintf(f, " %.17e\n", pce.coefficients()(k, 0));
    }
    std::fprintf(f, "mean %.17e\nvariance %.17e\n", pce.mean()[0], pce.variance()[0]);
    const Eigen::MatrixXd S1 = pce.sobol_first(), ST = pce.sobol_total();
    for (int d = 0; d < 4; ++d) std::fprintf(f, "sobol_first %d %.17e\n", d, S1(d, 0));
    for (int d = 0; d < 4; ++d) std::fprintf(f, "sobol_total %d %.17e\n", d, ST(d, 0));
    std::fclose(f);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "uq_oracle_writer: %s\n", e.what());
    return 1;
  }
  return 0;
}
