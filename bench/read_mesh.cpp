// SPDX-License-Identifier: MIT
// Read one mesh file (any format read_mesh knows) and print wall time and peak memory:
//   bench_read_mesh FILE
// One file per process, so that the peak resident set belongs to that reader alone.
#include "flexuq/io/MeshReader.hpp"

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <exception>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s MESH_FILE\n", argv[0]);
    return 2;
  }
  try {
    rusage before{};
    getrusage(RUSAGE_SELF, &before);
    const auto t0 = std::chrono::steady_clock::now();
    const auto mesh = flexuq::io::read_mesh(argv[1]);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    rusage after{};
    getrusage(RUSAGE_SELF, &after);
    auto cpu = [](const rusage& r) {
      return r.ru_utime.tv_sec + r.ru_stime.tv_sec + 1e-6 * (r.ru_utime.tv_usec + r.ru_stime.tv_usec);
    };
    // CPU time as well: on a shared machine it varies less than the wall time.
    std::printf("%s: %zu nodes, %zu elements, %.3f s wall, %.3f s CPU, peak RSS %.0f MB (%.0f MB at start)\n",
                argv[1], mesh.num_nodes(), mesh.num_elements(), s, cpu(after) - cpu(before), after.ru_maxrss / 1024.0,
                before.ru_maxrss / 1024.0);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
