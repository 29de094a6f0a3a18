// SPDX-License-Identifier: MIT
#include "flexuq/la/MumpsOrdering.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/la/Solvers.hpp"

namespace flexuq::la {

namespace {
MumpsOrdering g_ordering = MumpsOrdering::automatic;
} // namespace

bool mumps_has_scotch() {
#ifdef FLEXUQ_HAVE_MUMPS_SCOTCH
  return true;
#else
  return false;
#endif
}

void check_mumps_ordering(MumpsOrdering ordering, bool have_scotch) {
  if ((ordering == MumpsOrdering::scotch || ordering == MumpsOrdering::ptscotch) && !have_scotch)
    throw OptionError("ordering", std::string("{}: '") + enum_name(kMumpsOrderingNames, ordering) +
                                      "' needs MUMPS built with Scotch, which this build lacks (install Debian's "
                                      "libmumps-ptscotch-5.5 and rebuild with -DFLEXUQ_MUMPS_SCOTCH=ON); "
                                      "'auto' or 'pord' work with any MUMPS");
}

void set_mumps_ordering(MumpsOrdering ordering) {
  check_mumps_ordering(ordering, mumps_has_scotch());
  g_ordering = ordering;
}

MumpsOrdering mumps_ordering() { return g_ordering; }

MumpsOrdering effective_mumps_ordering(MumpsOrdering ordering, int comm_size) {
  if (ordering == MumpsOrdering::automatic)
    return comm_size <= kMumpsPordMaxRanks || !mumps_has_scotch() ? MumpsOrdering::pord : MumpsOrdering::scotch;
  if (ordering == MumpsOrdering::ptscotch && comm_size == 1) return MumpsOrdering::scotch;
  return ordering;
}

void mumps_ordering_defaults(const std::string& ksp_prefix, int comm_size, SolverDefaults& defaults,
                             long long rows) {
  if (g_ordering == MumpsOrdering::automatic && rows >= 0 && rows < kMumpsPordMinRows) {
    defaults.set(ksp_prefix + "mat_mumps_icntl_28", "1");
    defaults.set(ksp_prefix + "mat_mumps_icntl_7", "2"); // AMF
    return;
  }
  switch (effective_mumps_ordering(g_ordering, comm_size)) {
  case MumpsOrdering::ptscotch:
    defaults.set(ksp_prefix + "mat_mumps_icntl_28", "2"); // parallel analysis
    defaults.set(ksp_prefix + "mat_mumps_icntl_29", "1"); // by PT-Scotch
    break;
  case MumpsOrdering::scotch:
    defaults.set(ksp_prefix + "mat_mumps_icntl_28", "1");
    defaults.set(ksp_prefix + "mat_mumps_icntl_7", "3");
    break;
  default: // pord (MUMPS's automatic choice, ICNTL(7) 7, would pick Scotch where the build has it)
    defaults.set(ksp_prefix + "mat_mumps_icntl_28", "1");
    defaults.set(ksp_prefix + "mat_mumps_icntl_7", "4");
    break;
  }
}

} // namespace flexuq::la
