// SPDX-License-Identifier: MIT
#include "flexuq/app/Commands.hpp"
#include "flexuq/app/GalerkinJob.hpp"
#include "flexuq/app/JobOptions.hpp"
#include "flexuq/app/ModelFactory.hpp"
#include "flexuq/campaign/Campaign.hpp"

namespace flexuq::app {

void run_campaign(MPI_Comm comm, const io::Config& cfg, bool resume) {
  auto options = campaign_options(cfg);
  check_job_output(comm, cfg, options.output, "output"); // before any work; results are renamed onto it
  if (cfg.get<std::string>("method.type", "") == "galerkin") { // intrusive: no samples (workflow/GalerkinCampaign.cpp)
    const auto job = galerkin_job(cfg, options);
    cfg.check_all_used();
    return workflow::run_galerkin_campaign(comm, job, resume);
  }
  const auto plan = campaign::make_plan(options);
  const auto factory = make_model_factory(cfg, plan.params);
  cfg.check_all_used();
  campaign::run_campaign(comm, plan, factory, resume);
}

} // namespace flexuq::app
