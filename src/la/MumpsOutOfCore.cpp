// SPDX-License-Identifier: MIT
#include "flexuq/la/MumpsOutOfCore.hpp"

#include "flexuq/la/Solvers.hpp"

namespace flexuq::la {

namespace {
MumpsOutOfCore g_out_of_core = MumpsOutOfCore::off;
} // namespace

void set_mumps_out_of_core(MumpsOutOfCore choice) { g_out_of_core = choice; }

MumpsOutOfCore mumps_out_of_core() { return g_out_of_core; }

void mumps_out_of_core_defaults(const std::string& ksp_prefix, SolverDefaults& defaults) {
  if (g_out_of_core == MumpsOutOfCore::on) defaults.set(ksp_prefix + "mat_mumps_icntl_22", "1");
}

} // namespace flexuq::la
