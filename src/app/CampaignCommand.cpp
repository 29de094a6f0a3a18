// SPDX-License-Identifier: MIT
#include "flexuq/app/Commands.hpp"
#include "flexuq/app/GalerkinCampaign.hpp"
#include "flexuq/app/ModelFactory.hpp"
#include "flexuq/campaign/Campaign.hpp"

namespace flexuq::app {

void run_campaign(MPI_Comm comm, const io::Config& cfg, bool resume) {
  if (cfg.get<std::string>("method.type", "") == "galerkin") { // intrusive: no samples (GalerkinCampaign.cpp)
    const auto job = galerkin_job(cfg, campaign_options(cfg));
    cfg.check_all_used();
    return run_galerkin_campaign(comm, job, resume);
  }
  const auto plan = campaign::make_plan(campaign_options(cfg));
  const auto factory = make_model_factory(cfg, plan.params);
  cfg.check_all_used();
  campaign::run_campaign(comm, plan, factory, resume);
}

} // namespace flexuq::app
