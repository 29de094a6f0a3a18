// SPDX-License-Identifier: MIT
#include "flexuq/app/Commands.hpp"
#include "flexuq/campaign/Campaign.hpp"

namespace flexuq::app {

void run_campaign(MPI_Comm comm, const io::Config& cfg, bool resume) { campaign::run_campaign(comm, cfg, resume); }

} // namespace flexuq::app
