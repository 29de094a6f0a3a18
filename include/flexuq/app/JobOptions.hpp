// SPDX-License-Identifier: MIT
#pragma once
/// @file JobOptions.hpp
/// @brief Job-file keys → the typed option structs of the libraries. Parsing happens here, in
/// `app`: `fe`/`cms` take typed options and never see io::Config. Cross-option checks live next to
/// the structs (fe::validate(ModeOptions), cms::validate(GcmsOptions)) and run once, from here.

#include "flexuq/cms/Gcms.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/fe/Modes.hpp"
#include "flexuq/config/Config.hpp"
#include "flexuq/workflow/BodyAt.hpp"

#include <mpi.h>

#include <string>
#include <vector>

namespace flexuq::app {

/// @p parse() with its InputError's message after "<job file>: " (for parsers that name no file).
template <class Parse> auto in_job(const io::Config& cfg, Parse&& parse) {
  try {
    return parse();
  } catch (const InputError& e) {
    throw InputError(cfg.source() + ": " + e.what());
  }
}

/// The keys a verb accepts under its mode prefix (strict keys: anything else stays unknown).
struct ModeKeys {
  bool solver_keys = false; ///< shift, shift_factor, rigid_tol (`modes` only)
  bool allow_zero_count = false; ///< count: 0 is valid (`reduce` with guyan: no modes)
};

/// One parser for `modes.*` and `reduce.modes.*` (@p prefix without the dot): count | band
/// [f_min_hz, f_max_hz] (not both), tol, max_it, cluster_tol, and with `keys.solver_keys` shift,
/// shift_factor, rigid_tol. Errors name the job file and the key (InputError).
fe::ModeOptions parse_mode_options(const io::Config& cfg, const std::string& prefix, const ModeKeys& keys);

/// The keys under @p prefix (e.g. "reduce.gcms"): strategy (cosine | gram-schmidt | none),
/// cosine_threshold, cosine_floor, cosine_sweep, cosine_sweep_start, cosine_sweep_step,
/// cosine_sweep_rtol, canonicalize, degeneracy_tol, gs_tolerance, zero_tolerance, scaling, svd_loop,
/// svd_tolerance, gap_ratio, svd_max_iterations, unit_norm_modes, origin [x, y, z], csv, csv_final.
/// Throws InputError for unknown strategies and out-of-range values (cms::validate).
void parse_gcms_options(const io::Config& cfg, const std::string& prefix, cms::GcmsOptions& opt);

/// One `flexuq body-at --set` argument: NAME=value (physical) or xi.NAME=value (germ), the value a
/// finite number; InputError naming the argument otherwise. The name is checked against the body
/// file by workflow::run_body_at.
workflow::BodySetting parse_body_setting(const std::string& s);

/// The files a job reads: the job file itself and every string value in it that names an existing
/// regular file, as given (from the working directory) or relative to the job's folder — the mesh,
/// matrices, label and set files, bodies, simulations. Values of the output keys (`output`,
/// `modes.export_matrices`, `reduce.op4`, `reduce.matrix_market`, `*.csv`, `*.csv_final`) are not
/// inputs. Not collective.
std::vector<std::string> job_input_files(const io::Config& cfg);

/// io::check_output of @p path against job_input_files(@p cfg), the message naming the job file and
/// the key @p key. @note Collective.
void check_job_output(MPI_Comm comm, const io::Config& cfg, const std::string& path, const std::string& key);

} // namespace flexuq::app
