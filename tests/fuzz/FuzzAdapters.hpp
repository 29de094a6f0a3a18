// SPDX-License-Identifier: MIT
#pragma once
/// @file FuzzAdapters.hpp
/// @brief Fuzz entry points that are not a reader function of a path: the job-file reader, used
/// as the commands use it (overrides, typed and range-checked reads, the unknown-key walk, the
/// generators with the counts read).
#include "flexuq/core/Error.hpp"
#include "flexuq/io/Config.hpp"
#include "flexuq/io/ConfigCounts.hpp"
#include "flexuq/io/Generators.hpp"

#include <climits>
#include <fstream>
#include <sstream>
#include <string>

namespace flexuq::fuzz {

/// Run @p f, swallowing an InputError (one bad key must not hide the reads after it).
template <class F> void tolerant(F&& f) {
  try {
    f();
  } catch (const InputError&) {
  }
}

inline int config(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  const io::Config c = io::Config::from_string(text.str(), path, {"modes.tol=1e-9"});
  tolerant([&] { (void)c.get<std::string>("command"); });
  tolerant([&] { (void)c.get<std::vector<double>>("modes.band"); });
  tolerant([&] { (void)io::get_count(c, "modes.count", 1, 1000000, 10); });
  tolerant([&] { (void)c.get<std::vector<std::string>>("modes.fixed"); });
  tolerant([&] {
    io::BoxSpec s;
    const auto cells = io::get_counts(c, "model.generator.cells", 3, 1, INT_MAX);
    for (int d = 0; d < 3; ++d) s.cells[static_cast<std::size_t>(d)] = static_cast<int>(cells[static_cast<std::size_t>(d)]);
    s.order = static_cast<int>(io::get_count(c, "model.generator.order", 1, 2, 1));
    (void)io::generate_box(s);
  });
  tolerant([&] {
    io::BeamSpec s;
    s.section.shape = "RECT";
    s.section.dims = {0.01, 0.02};
    s.elements = static_cast<int>(io::get_count(c, "model.generator.elements", 1, INT_MAX - 1));
    (void)io::generate_beam(s);
  });
  c.check_all_used(); // walks every leaf (aliases included); unknown keys are an InputError
  return 0;
}

} // namespace flexuq::fuzz
