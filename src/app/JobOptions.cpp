// SPDX-License-Identifier: MIT
#include "flexuq/app/JobOptions.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/config/ConfigCounts.hpp"
#include "flexuq/io/Limits.hpp"
#include "flexuq/io/OutputFile.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace flexuq::app {

fe::ModeOptions parse_mode_options(const io::Config& c, const std::string& prefix, const ModeKeys& keys) {
  const std::string p = prefix + ".";
  fe::ModeOptions o;
  o.key = prefix; // messages name the job's keys (modes.count or reduce.modes.count)
  if (c.has(p + "band")) {
    const auto b = c.get<std::vector<double>>(p + "band");
    FLEXUQ_REQUIRE(b.size() == 2, c.source() << ": " << p << "band needs [f_min_hz, f_max_hz]");
    FLEXUQ_REQUIRE(!c.has(p + "count"), c.source() << ": give " << p << "count or " << p << "band, not both");
    o.band_hz = std::make_pair(b[0], b[1]);
  } else {
    // Bounded above so that the eigensolver's count + extra cannot overflow (io/Limits.hpp).
    o.count = static_cast<int>(io::get_count(c, p + "count", keys.allow_zero_count ? 0 : 1, io::limits::max_mode_count, 10));
  }
  if (keys.solver_keys) {
    if (c.has(p + "shift")) o.shift = c.get<double>(p + "shift");
    o.shift_factor = c.get<double>(p + "shift_factor", o.shift_factor);
    o.rigid_tol = c.get<double>(p + "rigid_tol", o.rigid_tol);
  }
  o.tol = c.get<double>(p + "tol", o.tol);
  o.max_it = c.get<int>(p + "max_it", o.max_it);
  if (c.has(p + "solver")) { // issue #38 item 1
    const auto m = c.get<std::string>(p + "solver");
    FLEXUQ_REQUIRE(m == "krylov-schur" || m == "block",
                   c.source() << ": " << p << "solver is 'krylov-schur' or 'block', got '" << m << "'");
    o.solver = m == "block" ? fe::ModeOptions::Method::block : fe::ModeOptions::Method::krylov_schur;
  }
  if (c.has(p + "block_size")) {
    FLEXUQ_REQUIRE(o.solver == fe::ModeOptions::Method::block,
                   c.source() << ": " << p << "block_size needs " << p << "solver: block");
    o.block_size = static_cast<int>(io::get_count(c, p + "block_size", 1, io::limits::max_mode_count, 0));
  }
  o.cluster_tol = c.get<double>(p + "cluster_tol", o.cluster_tol);
  // The checks of fe::validate, once, here: the message then names the job file.
  fe::ModeOptions checked = o;
  if (keys.allow_zero_count && !o.band_hz) checked.count = std::max(checked.count, 1);
  in_job(c, [&] { fe::validate(checked, prefix); });
  return o;
}

void parse_gcms_options(const io::Config& cfg, const std::string& prefix, cms::GcmsOptions& o) {
  const std::string p = prefix.empty() ? std::string() : prefix + ".";
  if (cfg.has(p + "strategy")) {
    const std::string s = cfg.get<std::string>(p + "strategy");
    const auto strategy = parse_enum(cms::kGcmsStrategyNames, s);
    if (!strategy)
      throw InputError(cfg.source() + ": key '" + p + "strategy' is '" + s +
                       "'; expected cosine, gram-schmidt or none");
    o.strategy = *strategy;
  }
  o.cosine_threshold = cfg.get<double>(p + "cosine_threshold", o.cosine_threshold);
  o.cosine_floor = cfg.get<double>(p + "cosine_floor", o.cosine_floor);
  o.cosine_sweep = cfg.get<bool>(p + "cosine_sweep", o.cosine_sweep);
  o.cosine_sweep_start = cfg.get<double>(p + "cosine_sweep_start", o.cosine_sweep_start);
  o.cosine_sweep_step = cfg.get<double>(p + "cosine_sweep_step", o.cosine_sweep_step);
  o.cosine_sweep_rtol = cfg.get<double>(p + "cosine_sweep_rtol", o.cosine_sweep_rtol);
  o.canonicalize = cfg.get<bool>(p + "canonicalize", o.canonicalize);
  o.degeneracy_tol = cfg.get<double>(p + "degeneracy_tol", o.degeneracy_tol);
  o.gs_tolerance = cfg.get<double>(p + "gs_tolerance", o.gs_tolerance);
  o.zero_field_tolerance = cfg.get<double>(p + "zero_tolerance", o.zero_field_tolerance);
  o.scaling = cfg.get<bool>(p + "scaling", o.scaling);
  o.svd_loop = cfg.get<bool>(p + "svd_loop", o.svd_loop);
  o.svd_tolerance = cfg.get<double>(p + "svd_tolerance", o.svd_tolerance);
  o.gap_ratio = cfg.get<double>(p + "gap_ratio", o.gap_ratio);
  o.svd_max_iterations = cfg.get<int>(p + "svd_max_iterations", o.svd_max_iterations);
  o.unit_norm_modes = cfg.get<bool>(p + "unit_norm_modes", o.unit_norm_modes);
  if (cfg.has(p + "origin")) {
    const auto v = cfg.get<std::vector<double>>(p + "origin");
    FLEXUQ_REQUIRE(v.size() == 3, cfg.source() << ": key '" << p << "origin' needs 3 numbers, got " << v.size());
    o.origin = std::array<double, 3>{v[0], v[1], v[2]};
  }
  if (cfg.has(p + "csv")) o.csv = cfg.resolve_output(cfg.get<std::string>(p + "csv"));
  if (cfg.has(p + "csv_final")) o.csv_final = cfg.resolve_output(cfg.get<std::string>(p + "csv_final"));
  try {
    cms::validate(o);
  } catch (const InputError& e) {
    throw InputError(cfg.source() + " (" + prefix + "): " + e.what());
  }
}

workflow::BodySetting parse_body_setting(const std::string& s) {
  const auto eq = s.find('=');
  FLEXUQ_REQUIRE(eq != std::string::npos, "body-at: --set expects NAME=value or xi.NAME=value, got '" << s << "'");
  workflow::BodySetting b{s.substr(0, eq), 0.0, s.rfind("xi.", 0) == 0, s};
  if (b.germ) b.name = b.name.substr(3);
  std::size_t used = 0;
  try {
    b.value = std::stod(s.substr(eq + 1), &used);
  } catch (const std::exception&) { // no number, or out of range
    used = 0;
  }
  FLEXUQ_REQUIRE(used > 0 && used == s.size() - eq - 1, "body-at: --set " << s << ": the value is not a number");
  FLEXUQ_REQUIRE(std::isfinite(b.value), "body-at: --set " << s << ": the value of parameter '" << b.name
                                                           << "' is not finite; give a finite number");
  return b;
}

namespace {
bool is_output_key(const std::string& key) {
  const auto dot = key.find_last_of('.');
  const std::string last = dot == std::string::npos ? key : key.substr(dot + 1);
  return last == "output" || last == "csv" || last == "csv_final" || key == "modes.export_matrices" ||
         key.rfind("reduce.op4", 0) == 0 || key == "reduce.matrix_market";
}
void collect_files(const io::Config& cfg, const YAML::Node& n, const std::string& key, std::vector<std::string>& out) {
  if (is_output_key(key)) return;
  if (n.IsMap()) {
    for (const auto& kv : n)
      if (kv.first.IsScalar()) collect_files(cfg, kv.second, key.empty() ? kv.first.Scalar() : key + "." + kv.first.Scalar(), out);
  } else if (n.IsSequence()) {
    for (const auto& e : n) collect_files(cfg, e, key, out);
  } else if (n.IsScalar() && !n.Scalar().empty() && n.Scalar().size() < 4096) {
    const std::string& v = n.Scalar();
    for (const std::string& p : {v, v[0] == '/' ? std::string() : cfg.directory() + "/" + v}) {
      struct stat st {};
      if (!p.empty() && ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode)) out.push_back(p);
    }
  }
}
} // namespace

std::vector<std::string> job_input_files(const io::Config& cfg) {
  std::vector<std::string> files{cfg.source()};
  collect_files(cfg, cfg.root(), "", files);
  return files;
}

void check_job_output(MPI_Comm comm, const io::Config& cfg, const std::string& path, const std::string& key) {
  in_job(cfg, [&] { io::check_output(comm, path, job_input_files(cfg), key); });
}

} // namespace flexuq::app
