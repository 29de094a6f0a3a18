// SPDX-License-Identifier: MIT
// Bounds on sizes and counts read from input (issue #11): overflow-checked arithmetic, the memory
// estimate against the machine (capped with FLEXUQ_MAX_MEMORY for a deterministic test), the box
// and beam generators at and beyond the int range of Mesh, GENERATE ranges near the 64-bit limits,
// self-referencing sets, labels at both ends of the long range, and the job-file structure checks
// (duplicated keys, a second document, alias bombs, integer keys).
#include "TestUtil.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/config/Config.hpp"
#include "InputErrorOf.hpp"
#include "flexuq/io/Generators.hpp"
#include "flexuq/io/BdfReader.hpp"
#include "flexuq/io/InpReader.hpp"
#include "flexuq/config/ConfigCounts.hpp"
#include "flexuq/io/Limits.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

using namespace flexuq;
using namespace flexuq::io;
namespace fs = std::filesystem;

namespace {

using flexuq::test::input_error_of;

#define EXPECT_HAS(msg, text) EXPECT_NE((msg).find(text), std::string::npos) << "message: " << (msg)

/// FLEXUQ_MAX_MEMORY set for the scope of one test.
struct MemoryCap {
  explicit MemoryCap(const char* bytes) { setenv("FLEXUQ_MAX_MEMORY", bytes, 1); }
  ~MemoryCap() { unsetenv("FLEXUQ_MAX_MEMORY"); }
};

/// A per-process scratch folder (both ranks of an np2 run write their own files).
struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("flexuq_limits_" + std::to_string(getpid()));
  Scratch() { fs::create_directories(dir); }
  ~Scratch() { fs::remove_all(dir); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  }
};

const char* kHex = "*NODE\n1,0,0,0\n2,1,0,0\n3,1,1,0\n4,0,1,0\n5,0,0,1\n6,1,0,1\n7,1,1,1\n8,0,1,1\n"
                   "*ELEMENT, TYPE=C3D8, ELSET=E\n1,1,2,3,4,5,6,7,8\n";

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

// ---- arithmetic and memory ---------------------------------------------------------------------

TEST(Limits, CheckedArithmeticDetectsOverflow) {
  EXPECT_EQ(limits::mul(3037000499LL, 3037000499LL).value(), 9223372030926249001LL); // largest square
  EXPECT_FALSE(limits::mul(3037000500LL, 3037000500LL));
  EXPECT_FALSE(limits::mul(LLONG_MIN, -1));
  EXPECT_EQ(limits::add(LLONG_MAX - 1, 1).value(), LLONG_MAX);
  EXPECT_FALSE(limits::add(LLONG_MAX, 1));
}

TEST(Limits, AvailableMemoryIsMemAvailableAndTheCapLowersIt) {
  std::ifstream in("/proc/meminfo");
  std::string key;
  unsigned long long kb = 0, avail = 0;
  while (in >> key >> kb) {
    in.ignore(100, '\n');
    if (key == "MemAvailable:") avail = kb * 1024;
  }
  if (avail > 0) { // never above what the kernel reports (a cgroup may lower it); > 0 on a live system
    EXPECT_LE(limits::available_memory(), avail + (64ULL << 20)); // MemAvailable moves a little between reads
    EXPECT_GT(limits::available_memory(), 0u);
  }
  MemoryCap cap("123456789");
  EXPECT_EQ(limits::available_memory(), 123456789u);
  const std::string msg = input_error_of([] { limits::require_memory(2e9, "model.generator.cells [9, 9, 9]"); });
  EXPECT_HAS(msg, "model.generator.cells [9, 9, 9] needs an estimated 2.0 GB of memory, more than the 123.5 MB available");
  EXPECT_HAS(msg, "FLEXUQ_MAX_MEMORY");
  EXPECT_NO_THROW(limits::require_memory(1e8, "small"));
}

TEST(Limits, HeaderCountMustFitTheBytesLeft) {
  EXPECT_NO_THROW(limits::require_fits(10, 80, 8, "$Nodes"));
  EXPECT_HAS(input_error_of([] { limits::require_fits(11, 80, 8, "f.msh:5: $Nodes"); }),
             "f.msh:5: $Nodes: count 11 is impossible: the 80 bytes left in the file hold at most 10 records");
  EXPECT_HAS(input_error_of([] { limits::require_fits(-1, 80, 8, "$Nodes"); }), "cannot be negative");
}

// ---- generators ----------------------------------------------------------------------------------

TEST(LimitsGenerators, BoxNodeCountFormulaMatchesTheGeneratedMesh) {
  // The size check counts nodes before generating: corners, plus one mid-edge node per edge for hex20.
  for (int order : {1, 2}) {
    BoxSpec s;
    s.cells = {3, 2, 4};
    s.order = order;
    const Mesh m = generate_box(s);
    const long corners = 4 * 3 * 5, edges = 3 * 3 * 5 + 4 * 2 * 5 + 4 * 3 * 4;
    EXPECT_EQ(static_cast<long>(m.num_nodes()), order == 1 ? corners : corners + edges) << "order " << order;
    EXPECT_EQ(m.num_elements(), 24u);
  }
}

TEST(LimitsGenerators, BoxBeyondTheIntRangeIsRefusedBeforeAllocating) {
  BoxSpec s;
  s.cells = {INT_MAX, 2, 2};
  std::string msg = input_error_of([&] { generate_box(s); });
  // The generator names its option by its field (OptionError); the CLI says model.generator.cells.
  EXPECT_EQ(msg.rfind("generator.cells [2147483647, 2, 2] gives 19327352832 nodes and 8589934588 hex8 elements", 0), 0u)
      << msg;
  EXPECT_HAS(msg, "a mesh holds at most 2147483647 of each");
  s.cells = {INT_MAX, INT_MAX, INT_MAX}; // overflows even 64 bits
  s.order = 2;
  msg = input_error_of([&] { generate_box(s); });
  EXPECT_HAS(msg, "more than 2^63");
}

TEST(LimitsGenerators, BoxBeyondMemoryIsRefusedWithTheEstimate) {
  MemoryCap cap("1000000000"); // 1 GB
  BoxSpec s;
  s.cells = {1000, 1000, 1000};
  const auto t0 = std::chrono::steady_clock::now();
  const std::string msg = input_error_of([&] { generate_box(s); });
  EXPECT_LT(seconds_since(t0), 1.0); // refused before anything is allocated
  EXPECT_EQ(msg.rfind("generator.cells [1000, 1000, 1000] (a box of 1003003001 nodes and 1000000000 hex8 elements) "
                      "needs an estimated",
                      0),
            0u)
      << msg;
  EXPECT_HAS(msg, "more than the 1.0 GB available");
  s.cells = {10, 10, 10}; // ~100 kB: far below the cap
  EXPECT_EQ(generate_box(s).num_elements(), 1000u);
}

TEST(LimitsGenerators, BeamAtTheIntLimitIsRefused) {
  BeamSpec s;
  s.section.shape = "RECT";
  s.section.dims = {0.01, 0.02};
  s.elements = INT_MAX; // the loop `i <= elements` never ended
  EXPECT_EQ(input_error_of([&] { generate_beam(s); }),
            "generator.elements = 2147483647 gives 2147483648 nodes; a mesh holds at most 2147483647");
  MemoryCap cap("1000000000");
  s.elements = INT_MAX - 1;
  EXPECT_EQ(input_error_of([&] { generate_beam(s); }).rfind("generator.elements = 2147483646 (a beam of", 0), 0u);
}

// ---- .inp sets and labels ------------------------------------------------------------------------

TEST(LimitsInp, GenerateRangesNearThe64BitLimitEndAtOnce) {
  const auto t0 = std::chrono::steady_clock::now();
  const Mesh m = read_inp(test::data_path("bad/nset_generate_huge.inp"));
  EXPECT_LT(seconds_since(t0), 2.0);
  EXPECT_EQ(m.node_set("ODD"), (std::vector<int>{0, 2, 4, 6}));
  EXPECT_EQ(m.node_set("MANY").size(), 8u);
  std::string warnings;
  for (const auto& w : m.warnings) warnings += w + "\n";
  EXPECT_HAS(warnings, "node set ODD: GENERATE skipped 4611686018427387900 labels"); // 2^62 odd labels − 4
  EXPECT_HAS(warnings, "node set MANY: GENERATE skipped 1999999992 labels");
}

TEST(LimitsInp, GenerateStepsThatWouldPassTheEndAreExact) {
  Scratch tmp;
  const std::string deck = std::string(kHex) +
                           "*NSET, NSET=TOP, GENERATE\n9223372036854775800, 9223372036854775807, 3\n"
                           "*NSET, NSET=S, GENERATE\n1, 7, 3\n"
                           "*NSET, NSET=ALLRANGE, GENERATE\n-9223372036854775808, 9223372036854775807\n";
  const Mesh m = read_inp(tmp.write("gen.inp", deck));
  EXPECT_TRUE(m.node_set("TOP").empty());
  EXPECT_EQ(m.node_set("S"), (std::vector<int>{0, 3, 6}));
  EXPECT_EQ(m.node_set("ALLRANGE").size(), 8u);
}

TEST(LimitsInp, SelfReferencingSetsDoNotGrowWithoutBound) {
  // Each block appends the set to itself: without compaction the list doubles per block (2^60).
  Scratch tmp;
  std::string deck = std::string(kHex) + "*NSET, NSET=A\n1, 2\n";
  for (int i = 0; i < 60; ++i) deck += "*NSET, NSET=A\nA, A, 3\n";
  const auto t0 = std::chrono::steady_clock::now();
  const Mesh m = read_inp(tmp.write("self.inp", deck));
  EXPECT_LT(seconds_since(t0), 2.0);
  EXPECT_EQ(m.node_set("A"), (std::vector<int>{0, 1, 2}));
}

TEST(LimitsInp, LabelsAtBothEndsOfTheLongRange) {
  Scratch tmp;
  const std::string deck = "*NODE\n-9223372036854775808,0,0,0\n9223372036854775807,1,0,0\n3,0,1,0\n4,0,0,1\n"
                           "*ELEMENT, TYPE=C3D4, ELSET=E\n1,-9223372036854775808,9223372036854775807,3,4\n";
  const Mesh m = read_inp(tmp.write("ends.inp", deck));
  ASSERT_EQ(m.num_elements(), 1u);
  EXPECT_EQ(m.element(0)[0], 0);
  EXPECT_EQ(m.element(0)[1], 1);
}

TEST(LimitsInp, IncludeOfADirectoryOrDeviceNamesFileAndLine) {
  Scratch tmp;
  std::string msg = input_error_of([&] { read_inp(tmp.write("dir.inp", std::string(kHex) + "*INCLUDE, INPUT=.\n")); });
  EXPECT_HAS(msg, "dir.inp:12: included file");
  EXPECT_HAS(msg, "is a directory");
  msg = input_error_of([&] { read_inp(tmp.write("dev.inp", std::string(kHex) + "*INCLUDE, INPUT=/dev/zero\n")); });
  EXPECT_HAS(msg, "dev.inp:12: included file '/dev/zero' is not a regular file");
  msg = input_error_of([&] { read_inp(tmp.dir.string()); });
  EXPECT_HAS(msg, "is a directory");
}

TEST(LimitsInp, AFileBeyondMemoryIsRefused) {
  Scratch tmp;
  const std::string path = tmp.write("big.inp", std::string(kHex));
  MemoryCap cap("100");
  const std::string msg = input_error_of([&] { read_inp(path); });
  EXPECT_HAS(msg, "big.inp' is too large: reading it needs an estimated");
}

// The Nastran reader shares the include machinery (detail::IncludeStack): it reports map_text's
// reason, not a bare "cannot open", for the main deck and for an INCLUDE.
TEST(LimitsBdf, IncludeOfADirectoryOrDeviceNamesFileAndLineAndReason) {
  Scratch tmp;
  const std::string grid = "GRID,1,,0.,0.,0.\n";
  std::string msg = input_error_of([&] { read_bdf(tmp.write("dir.bdf", grid + "INCLUDE '.'\n")); });
  EXPECT_HAS(msg, "dir.bdf:2: included file");
  EXPECT_HAS(msg, "is a directory");
  msg = input_error_of([&] { read_bdf(tmp.write("dev.bdf", grid + "INCLUDE '/dev/zero'\n")); });
  EXPECT_HAS(msg, "dev.bdf:2: included file '/dev/zero' is not a regular file");
  msg = input_error_of([&] { read_bdf(tmp.write("none.bdf", grid + "INCLUDE 'nowhere.bdf'\n")); });
  EXPECT_HAS(msg, "none.bdf:2: cannot open included file");
  msg = input_error_of([&] { read_bdf(tmp.dir.string()); });
  EXPECT_HAS(msg, "mesh file '" + tmp.dir.string() + "' is a directory");
}

TEST(LimitsBdf, AnIncludeBeyondMemoryIsRefusedWithTheReason) {
  Scratch tmp;
  std::string big;
  for (int i = 1; i <= 200; ++i) big += "GRID," + std::to_string(i) + ",,0.,0.,0.\n";
  tmp.write("big.bdf", big);
  const std::string main = tmp.write("main.bdf", "INCLUDE 'big.bdf'\n"); // 3 × 18 bytes fit in the cap
  MemoryCap cap("1000");
  const std::string msg = input_error_of([&] { read_bdf(main); });
  EXPECT_HAS(msg, "main.bdf:1: included file");
  EXPECT_HAS(msg, "big.bdf' is too large: reading it needs an estimated");
}

// ---- job files -----------------------------------------------------------------------------------

TEST(LimitsConfig, DuplicatedKeysNameBothLines) {
  std::string msg = input_error_of([] { Config::from_string("modes:\n  count: 3\n  tol: 1e-9\n  count: 4\n", "j.yaml"); });
  EXPECT_HAS(msg, "j.yaml: duplicated key 'modes.count' (lines 2 and 4)");
  msg = input_error_of([] { Config::from_string("output: a.h5\nmodel: {mesh: a.inp}\noutput: b.h5\n", "j.yaml"); });
  EXPECT_HAS(msg, "j.yaml: duplicated key 'output' (lines 1 and 3)");
  msg = input_error_of([] { Config::from_string("r:\n  interfaces:\n    - {set: A, set: B}\n", "j.yaml"); });
  EXPECT_HAS(msg, "duplicated key 'r.interfaces[0].set' (lines 3 and 3)");
  // The same key in different mappings, and equal values in a list, are fine.
  const Config c = Config::from_string("a: {count: 1}\nb: {count: 2}\nl: [1, 1, {x: 1}, {x: 2}]\n", "j.yaml");
  EXPECT_EQ(c.get<int>("b.count"), 2);
}

TEST(LimitsConfig, KeysArePlainNames) {
  // Found by fuzz_yaml: `,&cells: [..]` is an anchored null key; `as<std::string>` of it escaped as
  // YAML::TypedBadConversion from the unknown-key walk.
  EXPECT_HAS(input_error_of([] { Config::from_string("g: {size: 1,&cells: [2]}\n", "j.yaml"); }),
             "j.yaml:1: a key under 'g' is empty, a list, a mapping or an alias; keys are plain names");
  EXPECT_HAS(input_error_of([] { Config::from_string("a: 1\n? [1, 2]\n: 3\n", "j.yaml"); }), "j.yaml:2: a key is empty");
  EXPECT_HAS(input_error_of([] { Config::from_string("a: &k x\n*k : 3\n", "j.yaml"); }), "keys are plain names");
}

TEST(LimitsConfig, ASecondDocumentIsAnError) {
  EXPECT_HAS(input_error_of([] { Config::from_string("a: 1\n---\nb: 2\n", "j.yaml"); }),
             "j.yaml:2: a second YAML document (after '---')");
  EXPECT_EQ(Config::from_string("---\na: 1\n...\n", "j.yaml").get<int>("a"), 1); // one explicit document
}

TEST(LimitsConfig, AliasBombIsRefused) {
  std::string yaml = "a0: &a0 {x: 1, y: 2}\n";
  for (int i = 1; i < 40; ++i)
    yaml += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " {p: *a" + std::to_string(i - 1) + ", q: *a" +
            std::to_string(i - 1) + "}\n";
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_HAS(input_error_of([&] { Config::from_string(yaml, "j.yaml"); }), "j.yaml: the YAML aliases expand to more than");
  EXPECT_LT(seconds_since(t0), 2.0);
  EXPECT_EQ(Config::from_string("a: &x [1, 2]\nb: *x\n", "j.yaml").get<std::vector<int>>("b").size(), 2u);
}

TEST(LimitsConfig, IntegerKeysAreRangeChecked) {
  const Config c = Config::from_string("n: 2147483647\nf: 2.5\ne: 1e12\nl: [4, 2, 0]\nok: [4, 2, 2]\nm: {a: 1}\n", "j.yaml");
  EXPECT_HAS(input_error_of([&] { io::get_count(c, "n", 1, 1000000); }),
             "j.yaml: n must be an integer in [1, 1000000], got 2147483647 (line 1)");
  EXPECT_HAS(input_error_of([&] { io::get_count(c, "f", 1, 10); }), "got 2.5 (line 2)");
  EXPECT_HAS(input_error_of([&] { io::get_count(c, "e", 1, 10); }), "got 1e12 (line 3)");
  EXPECT_HAS(input_error_of([&] { io::get_count(c, "m", 1, 10); }), "got a mapping");
  EXPECT_HAS(input_error_of([&] { io::get_counts(c, "l", 3, 1, INT_MAX); }), "l[2] must be an integer in [1, 2147483647], got 0");
  EXPECT_HAS(input_error_of([&] { io::get_counts(c, "ok", 2, 1, 9); }), "'ok' needs a list of 2 integers (line 5)");
  EXPECT_EQ(io::get_counts(c, "ok", 3, 1, 9), (std::vector<long long>{4, 2, 2}));
  EXPECT_EQ(io::get_count(c, "absent", 1, 9, 7), 7);
}

TEST(LimitsConfig, LoadRefusesADirectoryOnEveryRank) {
  const std::string msg = input_error_of([] { Config::load(MPI_COMM_WORLD, fs::temp_directory_path().string()); });
  EXPECT_HAS(msg, "job file");
}
