// SPDX-License-Identifier: MIT
#pragma once
/// @file FuzzAdapters.hpp
/// @brief Fuzz entry points that are not a reader function of a path: the job-file reader, used
/// as the commands use it (overrides, typed and range-checked reads, the unknown-key walk, the
/// generators with the counts read); the external-matrix readers (a DOF label file, and the same
/// bytes as a MatrixMarket, Abaqus, PETSc-binary and OP4 matrix of 6 rows); the HDF5 open path of
/// body and result files (issue #40 item 8).
#include "flexuq/core/Error.hpp"
#include "flexuq/config/Config.hpp"
#include "flexuq/config/ConfigCounts.hpp"
#include "flexuq/io/ExternalMatrices.hpp"
#include "flexuq/io/Hdf5File.hpp"
#include "flexuq/io/Op4.hpp"
#include "flexuq/io/Generators.hpp"

#include <mpi.h>

#include <unistd.h>

#include <climits>
#include <cstdlib>
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

/// A scratch file name of this process (beside the fuzz input, which is in TMPDIR).
inline std::string path_beside(const std::string& name) {
  const char* tmp = std::getenv("TMPDIR");
  return std::string(tmp && *tmp ? tmp : "/tmp") + "/flexuq_fuzz_" + std::to_string(::getpid()) + "_" + name;
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

/// The bytes as a DOF label file, then as each matrix format against 6 fixed labels (nodes 1 and 2,
/// components 1..3), entries discarded; and as an OP4 file.
inline int matrices(const std::string& path) {
  tolerant([&] { (void)io::read_dof_labels(path); });
  static const io::DofLabels labels = [] {
    const std::string p = path_beside("labels.txt");
    std::ofstream(p) << "1 1\n1 2\n1 3\n2 1\n2 2\n2 3\n";
    return io::read_dof_labels(p);
  }();
  const io::EntrySink sink = [](std::int64_t, std::int64_t, double, long) {};
  for (auto f : {io::MatrixFormat::matrix_market, io::MatrixFormat::abaqus, io::MatrixFormat::petsc})
    tolerant([&] { (void)io::scan_matrix({path, f, ""}, labels, sink); });
  tolerant([&] { (void)io::matrix_format(path); });
  tolerant([&] { (void)io::read_op4(path); });
  return 0;
}

/// The bytes as a body file (body-at, simulate's flexible bodies, --resume's HDF5 inputs): the
/// checked open (io/InputFile.hpp, then H5Fopen) must answer a broken file with an InputError.
inline int body(const std::string& path) {
  int up = 0;
  MPI_Initialized(&up);
  if (!up) MPI_Init(nullptr, nullptr);
  const io::H5File f(MPI_COMM_SELF, path, io::H5File::Mode::read);
  (void)f.exists("/reduced/K");
  return 0;
}

} // namespace flexuq::fuzz
