// SPDX-License-Identifier: MIT
// Job-file keys -> typed options (app/JobOptions.hpp): the GCMS keys (moved here from the cms tests
// with the parser), the one mode-options parser shared by `modes` and `reduce`, and method.pce.fit.
#include "flexuq/app/JobOptions.hpp"
#include "flexuq/app/ModelFactory.hpp"
#include "flexuq/core/Error.hpp"

#include <gtest/gtest.h>

#include <chrono>

using namespace flexuq;

TEST(JobOptions, GcmsKeysAndBadValues) {
  auto cfg = io::Config::from_string(
      "reduce:\n  gcms: {strategy: cosine, cosine_threshold: 0.995, gs_tolerance: 1e-4, svd_tolerance: 1e-5,"
      " scaling: false, csv: cos.csv, origin: [0, 0, 1], cosine_sweep: true, cosine_sweep_start: 0.999,"
      " cosine_sweep_step: 0.002, cosine_sweep_rtol: 0.1, canonicalize: false, degeneracy_tol: 1e-8}\n");
  cms::GcmsOptions o;
  app::parse_gcms_options(cfg, "reduce.gcms", o);
  EXPECT_EQ(o.strategy, cms::GcmsStrategy::cosine);
  EXPECT_EQ(o.cosine_threshold, 0.995);
  EXPECT_EQ(o.gs_tolerance, 1e-4);
  EXPECT_EQ(o.svd_tolerance, 1e-5);
  EXPECT_FALSE(o.scaling);
  EXPECT_EQ(o.csv, "cos.csv");
  ASSERT_TRUE(o.origin.has_value());
  EXPECT_EQ((*o.origin)[2], 1.0);
  EXPECT_TRUE(o.cosine_sweep);
  EXPECT_EQ(o.cosine_sweep_start, 0.999);
  EXPECT_EQ(o.cosine_sweep_step, 0.002);
  EXPECT_EQ(o.cosine_sweep_rtol, 0.1);
  EXPECT_FALSE(o.canonicalize);
  EXPECT_EQ(o.degeneracy_tol, 1e-8);
  EXPECT_NO_THROW(cfg.check_all_used());
  for (const char* bad : {"{strategy: qr}", "{cosine_threshold: 0.9}", "{gs_tolerance: 0}", "{gap_ratio: 1}",
                          "{cosine_sweep_start: 0.9}", "{cosine_sweep_step: 0}", "{cosine_sweep_rtol: 1}",
                          "{degeneracy_tol: -1}"}) {
    cms::GcmsOptions x;
    auto c2 = io::Config::from_string(std::string("reduce:\n  gcms: ") + bad + "\n");
    EXPECT_THROW(app::parse_gcms_options(c2, "reduce.gcms", x), InputError) << bad;
  }
}

TEST(JobOptions, OneModeParserForModesAndReduce) {
  for (const std::string prefix : {"modes", "reduce.modes"}) {
    const auto top = prefix.substr(0, prefix.find('.'));
    auto job = [&](const std::string& body) {
      return prefix == "modes" ? io::Config::from_string("modes: " + body + "\n", "job.yaml")
                               : io::Config::from_string("reduce:\n  modes: " + body + "\n", "job.yaml");
    };
    const auto o = app::parse_mode_options(job("{band: [10, 500], tol: 1e-10, max_it: 50, cluster_tol: 1e-5}"), prefix,
                                           app::ModeKeys{});
    ASSERT_TRUE(o.band_hz.has_value());
    EXPECT_EQ(o.band_hz->second, 500.0);
    EXPECT_EQ(o.tol, 1e-10);
    EXPECT_EQ(o.max_it, 50);
    EXPECT_EQ(o.cluster_tol, 1e-5);
    EXPECT_EQ(app::parse_mode_options(job("{count: 7}"), prefix, app::ModeKeys{}).count, 7);
    // The eigensolver (issue #38 item 1): Krylov–Schur unless the job says block.
    EXPECT_EQ(app::parse_mode_options(job("{count: 7}"), prefix, app::ModeKeys{}).solver, fe::ModeOptions::Method::krylov_schur);
    const auto blk = app::parse_mode_options(job("{count: 7, solver: block, block_size: 4}"), prefix, app::ModeKeys{});
    EXPECT_EQ(blk.solver, fe::ModeOptions::Method::block);
    EXPECT_EQ(blk.block_size, 4);
    // The band check exists once (fe::validate) and names the job file and the key of each verb.
    for (const auto& [bad, text] : std::vector<std::pair<std::string, std::string>>{
             {"{band: [500, 10]}", ".band must be [f_min, f_max] with 0 <= f_min < f_max, got [500, 10]"},
             {"{band: [-1, 10]}", ".band must be"},
             {"{band: [1, 2, 3]}", "band needs [f_min_hz, f_max_hz]"},
             {"{band: [1, 2], count: 3}", "count or " + prefix + ".band, not both"},
             {"{count: 0}", ".count must be an integer in [1, 1000000], got 0"},
             {"{tol: 0}", ".tol must be > 0"},
             {"{cluster_tol: 2}", ".cluster_tol must lie in [0, 1)"},
             {"{solver: lanczos}", ".solver is 'krylov-schur' or 'block', got 'lanczos'"},
             {"{block_size: 4}", ".block_size needs " + prefix + ".solver: block"},
             {"{solver: block, block_size: 0}", ".block_size"}}) {
      try {
        (void)app::parse_mode_options(job(bad), prefix, app::ModeKeys{});
        ADD_FAILURE() << prefix << " " << bad << ": no error";
      } catch (const InputError& e) {
        const std::string w = e.what();
        EXPECT_NE(w.find("job.yaml: "), std::string::npos) << w;
        EXPECT_NE(w.find(text), std::string::npos) << w;
        if (text[0] == '.') {
          EXPECT_NE(w.find(prefix + text), std::string::npos) << w;
        }
      }
    }
    (void)top;
  }
  // Solver keys: accepted by `modes`, unknown (strict keys) for `reduce`.
  auto m = io::Config::from_string("modes: {count: 3, shift: -5, shift_factor: 1e-6, rigid_tol: 1e-8}\n");
  const auto mo = app::parse_mode_options(m, "modes", app::ModeKeys{true, false});
  EXPECT_EQ(mo.shift, -5.0);
  EXPECT_EQ(mo.shift_factor, 1e-6);
  EXPECT_EQ(mo.rigid_tol, 1e-8);
  EXPECT_NO_THROW(m.check_all_used());
  auto r = io::Config::from_string("reduce:\n  modes: {count: 3, shift: -5}\n");
  (void)app::parse_mode_options(r, "reduce.modes", app::ModeKeys{});
  EXPECT_THROW(r.check_all_used(), InputError);
  // reduce with guyan: count 0 is fine (no modes are kept).
  auto g = io::Config::from_string("reduce:\n  modes: {count: 0}\n");
  EXPECT_EQ(app::parse_mode_options(g, "reduce.modes", app::ModeKeys{false, true}).count, 0);
}

// Issue #40 item 2: the parameter count is bounded before the parameters are read, and reading and
// checking many is linear (a lookup by dotted key per parameter, and the strict-key check comparing
// every key with every used key, made 10^5 parameters run for minutes; 2 x 10^4 took over 60 s).
TEST(JobOptions, ManyCampaignParametersAreLinearAndBounded) {
  auto job = [](int n) {
    std::string y = "command: campaign\nmodel: {function: polynomial}\nmethod: {type: monte-carlo, samples: 10}\n"
                    "parameters:\n";
    for (int i = 0; i < n; ++i) y += "  p" + std::to_string(i) + ": {dist: uniform, low: 0, high: 1}\n";
    return y;
  };
  const auto t0 = std::chrono::steady_clock::now();
  const auto ok = io::Config::from_string(job(10000), "many.yaml");
  const auto o = app::campaign_options(ok);
  EXPECT_EQ(o.params.size(), 10000u);
  ok.mark_used("command");
  ok.mark_used("model"); // read by the model factory
  EXPECT_NO_THROW(ok.check_all_used());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(seconds, 10.0) << "10^4 parameters took " << seconds << " s";
  const auto too_many = io::Config::from_string(job(10001), "many.yaml");
  try {
    app::campaign_options(too_many);
    ADD_FAILURE() << "10001 parameters were accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("many.yaml: 'parameters' has 10001 entries; a campaign takes at most 10000"),
              std::string::npos)
        << e.what();
  }
}

// method.pce.fit becomes uq::FitMethod where the job is parsed: an unknown fit is refused there,
// naming the key (it was make_plan's check while the plan held the string).
TEST(JobOptions, PceFitIsParsedIntoItsEnum) {
  auto job = [](const std::string& fit) {
    return io::Config::from_string("command: campaign\nmodel: {function: polynomial}\n"
                                   "method: {type: pce, samples: 10, pce: {fit: " + fit + "}}\n"
                                   "parameters:\n  a: {dist: uniform, low: 0, high: 1}\n",
                                   "fit.yaml");
  };
  EXPECT_EQ(app::campaign_options(job("projection")).method.fit, uq::FitMethod::projection);
  EXPECT_EQ(app::campaign_options(job("regression")).method.fit, uq::FitMethod::regression);
  try {
    app::campaign_options(job("lasso"));
    ADD_FAILURE() << "method.pce.fit: lasso was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("fit.yaml: method.pce.fit must be regression or projection, got 'lasso'"),
              std::string::npos)
        << e.what();
  }
}

// body-at's --set arguments are parsed before any body file is read; the parameter name is the
// workflow's to check against the file (tests/workflow).
TEST(JobOptions, BodyAtSettings) {
  const auto e = app::parse_body_setting("E_left=2.1e11");
  EXPECT_EQ(e.name, "E_left");
  EXPECT_EQ(e.value, 2.1e11);
  EXPECT_FALSE(e.germ);
  const auto xi = app::parse_body_setting("xi.rho_right=-0.25");
  EXPECT_EQ(xi.name, "rho_right");
  EXPECT_EQ(xi.value, -0.25);
  EXPECT_TRUE(xi.germ);
  EXPECT_EQ(xi.shown(), "xi.rho_right=-0.25");
  const std::pair<const char*, const char*> bad[] = {
      {"E_left", "body-at: --set expects NAME=value or xi.NAME=value, got 'E_left'"},
      {"E_left=abc", "body-at: --set E_left=abc: the value is not a number"},
      {"E_left=2e11x", "body-at: --set E_left=2e11x: the value is not a number"},
      {"E_left=", "body-at: --set E_left=: the value is not a number"},
      {"E_left=1e999", "body-at: --set E_left=1e999: the value is not a number"},
      {"xi.E_left=nan", "body-at: --set xi.E_left=nan: the value of parameter 'E_left' is not finite; give a finite number"}};
  for (const auto& [arg, message] : bad) {
    try {
      app::parse_body_setting(arg);
      ADD_FAILURE() << arg << " was accepted";
    } catch (const InputError& err) {
      EXPECT_EQ(std::string(err.what()), message);
    }
  }
}
