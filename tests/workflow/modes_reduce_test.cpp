// SPDX-License-Identifier: MIT
// workflow::run_modes and workflow::run_reduce without the CLI, on the spring chain of SpringChain.hpp
// (MatrixMarket K and M): the clamped chain's frequencies against the closed form; a Craig–Bampton
// body with nodes 1-3 as its interface, whose fixed-interface modes are those of the 2-mass chain
// below node 3 (closed form) and whose basis is 9 constraint + 4 mode columns; stress modes refused on a model
// without solids, naming the field (the CLI says reduce.stress_modes).
#include "../io/InputErrorOf.hpp"
#include "SpringChain.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/workflow/Component.hpp"
#include "flexuq/workflow/Modes.hpp"
#include "flexuq/workflow/Reduce.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

using namespace flexuq;

TEST(ModesWorkflow, ClampedChainAgainstClosedForm) {
  const std::string dir = test::write_chain();
  fe::ComponentOptions copts;
  copts.fixed_sets = {"FIX"};
  log::PhaseTimes times;
  const auto comp = workflow::build_component(MPI_COMM_WORLD, test::chain_model(dir), copts, times, "chain:");
  EXPECT_EQ(comp->dofs().global_size(), 12); // node 1 held
  workflow::ModesJob job;
  job.modes.count = 6;
  job.output = dir + "/chain-modes.h5";
  const fe::ModeSet modes = workflow::run_modes(MPI_COMM_WORLD, *comp, job, times);
  const auto f = modes.frequencies_hz();
  const auto want = test::chain_hz(1.0, 1.0, 6);
  ASSERT_EQ(f.size(), want.size());
  for (std::size_t k = 0; k < f.size(); ++k) EXPECT_NEAR(f[k], want[k], 1e-8 * want[k]) << "mode " << k;
  EXPECT_TRUE(modes.rigid_eigenvalues.empty()); // held at node 1
  EXPECT_TRUE(std::ifstream(job.output).good());
}

TEST(ReduceWorkflow, CraigBamptonModesOfTheChain) {
  const std::string dir = test::write_chain();
  auto model = test::chain_model(dir);
  model.node_sets["ROOT"] = {1, 2, 3}; // three nodes not on a line: the 6 rigid motions held
  const auto comp = fe::make_matrix_component(MPI_COMM_WORLD, model, fe::ComponentOptions{});
  workflow::ReduceJob job;
  job.interfaces.resize(1);
  job.interfaces[0].set = "ROOT";
  job.reducer.modes.count = 4;
  job.free_free = 0;
  job.output = dir + "/chain-cb.h5";
  log::PhaseTimes times;
  const cms::ReduceResult red = workflow::run_reduce(MPI_COMM_WORLD, *comp, job, times);
  EXPECT_EQ(red.basis.n_columns(), 9 + 4);
  const auto want = test::chain_hz(1.0, 1.0, 4, 2); // nodes 4 and 5 hanging from the held node 3
  ASSERT_EQ(red.basis.mode_eigenvalues.size(), want.size());
  for (std::size_t k = 0; k < want.size(); ++k) {
    const double omega2 = std::pow(2 * M_PI * want[k], 2);
    EXPECT_NEAR(red.basis.mode_eigenvalues[k], omega2, 1e-8 * omega2) << "mode " << k;
  }
  EXPECT_TRUE(std::ifstream(job.output).good());

  job.stress_modes = true; // a chain of point masses has no solid elements
  job.source = "job.yaml";
  job.output = dir + "/chain-cb-stress.h5";
  try {
    workflow::run_reduce(MPI_COMM_WORLD, *comp, job, times);
    ADD_FAILURE() << "stress modes of a model without solids were accepted";
  } catch (const OptionError& e) {
    EXPECT_EQ(e.option(), "stress_modes");
    EXPECT_EQ(e.message_for("reduce.stress_modes").rfind("job.yaml: reduce.stress_modes needs solid", 0), 0u)
        << e.what();
  }
  EXPECT_FALSE(std::ifstream(job.output).good());
}

// A held set that leaves zero-energy modes (two nodes joined along x only, node 1 held): the
// mechanism error names the option that lists the held sets, as the job gave it.
TEST(ModesWorkflow, MechanismNamesTheFixedSetsOption) {
  const std::string dir = test::shared_scratch_dir("workflow-mechanism");
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    std::ofstream k(dir + "/K.mtx"), m(dir + "/M.mtx"), l(dir + "/dofs.txt");
    k << "%%MatrixMarket matrix coordinate real symmetric\n6 6 3\n1 1 1000\n4 4 1000\n4 1 -1000\n";
    m << "%%MatrixMarket matrix coordinate real symmetric\n6 6 6\n";
    for (int i = 1; i <= 6; ++i) m << i << " " << i << " 2\n";
    for (int v = 1; v <= 2; ++v)
      for (int c = 1; c <= 3; ++c) l << v << " " << c << " " << 0.1 * v << " 0 0\n";
  }
  MPI_Barrier(MPI_COMM_WORLD);
  fe::MatrixModelSpec spec;
  spec.labels = dir + "/dofs.txt";
  spec.stiffness = {{"K", {dir + "/K.mtx", io::MatrixFormat::matrix_market, ""}, 1.0}};
  spec.mass = {{"M", {dir + "/M.mtx", io::MatrixFormat::matrix_market, ""}, 1.0}};
  spec.node_sets["FIX"] = {1};
  fe::ComponentOptions copts;
  copts.fixed_sets = {"FIX"};
  const auto comp = fe::make_matrix_component(MPI_COMM_WORLD, spec, copts);
  workflow::ModesJob job;
  job.modes.count = 1;
  job.modes.fixed_key = "model.fixed";
  job.output = dir + "/mechanism.h5";
  log::PhaseTimes times;
  const std::string msg = test::input_error_of([&] { workflow::run_modes(MPI_COMM_WORLD, *comp, job, times); });
  EXPECT_NE(msg.find("mechanism: 2 zero-energy mode(s) remain with fixed sets [FIX]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(or add sets to model.fixed), or omit model.fixed for a free-free analysis"), std::string::npos) << msg;
  EXPECT_FALSE(std::ifstream(job.output).good());
}
