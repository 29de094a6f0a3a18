// SPDX-License-Identifier: MIT
// The V17 cart–pendulum chain (seed 003 ch. 6, tests/ident): the adjoint gradient and the whole BFGS
// identification, full against reduced model, best of N processor times (docs/performance.md, docs/rom.md).
//   build/bench/bench_ident_gradient [repeats = 5]
#include "flexuq/ident/Adjoint.hpp"
#include "flexuq/ident/Bfgs.hpp"
#include "flexuq/rom/Basis.hpp"
#include "CartPendulumChain.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace {

using namespace flexuq;
using ident::Mat;
using ident::Vec;

using ident::test::chain_basis;
using ident::test::chain_problem;

double cpu() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

} // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  const Vec start = ident::test::chain_start(), target = ident::test::chain_target();
  {
    // One gradient: 0.5 s at h = 0.01 s, the ROM trained at the start and the targets (r = 22, l = 15).
    auto pr = chain_problem(0.5, 0.01);
    pr.measured = ident::simulate_signals(pr, target);
    const auto b = chain_basis(pr, {start, target});
    double best[2][2] = {{1e9, 1e9}, {1e9, 1e9}};
    for (int k = 0; k < reps; ++k)
      for (int red = 0; red < 2; ++red) { // full and reduced back to back
        pr.basis = red ? &b : nullptr;
        const auto ev = ident::cost_and_gradient(pr, start);
        best[red][0] = std::min(best[red][0], ev.forward_seconds);
        best[red][1] = std::min(best[red][1], ev.adjoint_seconds);
      }
    std::printf("gradient (r = %d, l = %d): full forward %.4f s + adjoint %.4f s, reduced %.4f s + %.4f s: full / reduced %.2f\n",
                b.r(), b.l(), best[0][0], best[0][1], best[1][0], best[1][1],
                (best[0][0] + best[0][1]) / (best[1][0] + best[1][1]));
  }
  {
    // The whole identification of tests/ident (h = 0.02 s; the ROM from one 1 s training run elsewhere).
    auto pr = chain_problem(0.5, 0.02);
    pr.measured = ident::simulate_signals(pr, target);
    for (std::size_t i = 0; i < pr.signals.size(); ++i)
      pr.signals[i].weight = double(pr.measured.rows()) / pr.measured.col(static_cast<Eigen::Index>(i)).squaredNorm();
    Vec train(9);
    train << 2.0, 0.10, 0.13, 0.16, 0.19, 0.15, 0.2, 0.25, 0.3;
    const auto b = chain_basis(chain_problem(1.0, 0.01), {train});
    double best[2] = {1e9, 1e9}, worst[2] = {0, 0};
    int iterations[2] = {0, 0};
    for (int k = 0; k < reps; ++k)
      for (int red = 0; red < 2; ++red) {
        pr.basis = red ? &b : nullptr;
        auto f = [&](const Vec& p, bool want, Vec& g) {
          if (!want) return ident::cost(pr, p).cost;
          const auto ev = ident::cost_and_gradient(pr, p);
          g = ev.gradient;
          return ev.cost;
        };
        ident::BfgsOptions o;
        o.max_iterations = 100;
        o.cost_tolerance = 1e-9;
        o.gradient_tolerance = 1e-7;
        const double t0 = cpu();
        const auto res = ident::bfgs(f, start, o, [](const Vec& p) { return p.minCoeff() > 0; });
        best[red] = std::min(best[red], cpu() - t0);
        worst[red] = (res.history.back().p - target).cwiseQuotient(target).cwiseAbs().maxCoeff();
        iterations[red] = static_cast<int>(res.history.size()) - 1;
      }
    std::printf("BFGS (r = %d, l = %d): full %.3f s (%d iterations, parameters within %.1e), reduced %.3f s (%d, %.1e): "
                "full / reduced %.2f\n",
                b.r(), b.l(), best[0], iterations[0], worst[0], best[1], iterations[1], worst[1], best[0] / best[1]);
  }
  MPI_Finalize();
  return 0;
}
