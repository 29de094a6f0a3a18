// SPDX-License-Identifier: MIT
// One libFuzzer target per reader (tests/fuzz/CMakeLists.txt: flexuq_add_fuzzer). The input bytes
// are written to a scratch file with the reader's extension and read with FLEXUQ_FUZZ_CALL(path).
// An InputError is the expected answer to bad input; anything else is a finding: another exception
// (std::length_error, std::bad_alloc, flexuq::Error) escapes and aborts, a sanitizer report aborts,
// a hang exceeds -timeout, an allocation past -rss_limit_mb fails the run.
#include FLEXUQ_FUZZ_HEADER

#include "flexuq/core/Error.hpp"

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

namespace {
std::string scratch_path() {
  const char* tmp = std::getenv("TMPDIR");
  return std::string(tmp && *tmp ? tmp : "/tmp") + "/flexuq_fuzz_" + std::to_string(getpid()) + FLEXUQ_FUZZ_EXT;
}
} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // The readers refuse what does not fit in memory (io/Limits.hpp); cap that well below the
  // fuzzer's -rss_limit_mb so that a refusal, not an out-of-memory kill, answers a huge count.
  setenv("FLEXUQ_MAX_MEMORY", "268435456", 0);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = scratch_path();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    (void)FLEXUQ_FUZZ_CALL(path);
  } catch (const flexuq::InputError&) {
    // the expected answer to bad input
  }
  return 0;
}
