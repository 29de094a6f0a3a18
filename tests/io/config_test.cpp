// SPDX-License-Identifier: MIT
// Job files: `--set` overrides (parsed as YAML), strict unknown-key reports that name the key and
// its line, typed reads that name the key, aliases, YAML syntax errors with a line, the collective
// load (rank 0 reads and broadcasts; a missing file throws on every rank) and relative paths.
#include "flexuq/core/Error.hpp"
#include "flexuq/config/Config.hpp"
#include "flexuq/config/NodeReader.hpp"
#include "flexuq/config/SetsFile.hpp"
#include "InputErrorOf.hpp"

#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using flexuq::InputError;
using flexuq::io::Config;
namespace fs = std::filesystem;

namespace {

const char* kJob = R"(command: modes
model:
  mesh: part.inp
  material: {E: 2.1e11, nu: 0.3, rho: 7850}
modes:
  count: 10
  fixed: [XMIN]
output: out.h5
)";

using flexuq::test::input_error_of;

/// Read every key of kJob, so check_all_used only sees what a test adds.
void read_job_keys(const Config& c) {
  (void)c.get<std::string>("command");
  (void)c.node("model");
  (void)c.node("modes");
  (void)c.get<std::string>("output");
}

int rank_of(MPI_Comm comm) {
  int r = 0;
  MPI_Comm_rank(comm, &r);
  return r;
}

/// A folder name unique to this run (rank 0's pid and the comm size), the same on every rank.
std::string unique_folder(MPI_Comm comm, const std::string& stem) {
  long pid = static_cast<long>(getpid());
  MPI_Bcast(&pid, 1, MPI_LONG, 0, comm);
  int size = 1;
  MPI_Comm_size(comm, &size);
  return (fs::current_path() / (stem + "_np" + std::to_string(size) + "_" + std::to_string(pid))).string();
}

} // namespace

TEST(ConfigOverride, ScalarReplacesTheFileValue) {
  const auto c = Config::from_string(kJob, "job.yaml", {"modes.count=30"});
  EXPECT_EQ(c.get<int>("modes.count"), 30);
  EXPECT_EQ(c.get<std::string>("model.mesh"), "part.inp"); // siblings untouched
  EXPECT_DOUBLE_EQ(c.get<double>("model.material.E"), 2.1e11);
}

TEST(ConfigOverride, NestedNewKeyCreatesTheMappings) {
  const auto c = Config::from_string(kJob, "job.yaml", {"model.generator.order=2", "solver.eps.tol=1e-9"});
  EXPECT_EQ(c.get<int>("model.generator.order"), 2);
  EXPECT_DOUBLE_EQ(c.get<double>("solver.eps.tol"), 1e-9);
  EXPECT_EQ(c.get<std::string>("model.mesh"), "part.inp"); // the existing mapping was extended, not replaced
  EXPECT_TRUE(c.root()["model"]["material"].IsMap());
}

TEST(ConfigOverride, ListValueIsParsedAsYaml) {
  const auto c = Config::from_string(kJob, "job.yaml", {"modes.fixed=[A,B]"});
  EXPECT_EQ(c.get<std::vector<std::string>>("modes.fixed"), (std::vector<std::string>{"A", "B"}));
  const auto empty = Config::from_string(kJob, "job.yaml", {"modes.fixed=[]"});
  EXPECT_TRUE(empty.get<std::vector<std::string>>("modes.fixed").empty());
  const auto band = Config::from_string(kJob, "job.yaml", {"modes.band=[0, 5000]"});
  EXPECT_EQ(band.get<std::vector<double>>("modes.band"), (std::vector<double>{0.0, 5000.0}));
}

TEST(ConfigOverride, NullRemovesAKey) {
  // The documented way to switch from modes.count to modes.band on the command line.
  const auto c = Config::from_string(kJob, "job.yaml", {"modes.count=null"});
  EXPECT_FALSE(c.has("modes.count"));
  EXPECT_EQ(c.get<int>("modes.count", 7), 7);
}

TEST(ConfigOverride, LaterOverrideWins) {
  const auto c = Config::from_string(kJob, "job.yaml", {"modes.count=3", "modes.count=4"});
  EXPECT_EQ(c.get<int>("modes.count"), 4);
}

TEST(ConfigOverride, MalformedOverridesAreInputErrors) {
  auto msg = input_error_of([] { Config::from_string(kJob, "job.yaml", {"modes.count"}); });
  EXPECT_NE(msg.find("key=value"), std::string::npos) << msg;
  EXPECT_NE(msg.find("modes.count"), std::string::npos) << msg;
  msg = input_error_of([] { Config::from_string(kJob, "job.yaml", {"=3"}); });
  EXPECT_NE(msg.find("key=value"), std::string::npos) << msg;
  // Walking into a scalar: the message names the part that is not a mapping.
  msg = input_error_of([] { Config::from_string(kJob, "job.yaml", {"modes.count.x=1"}); });
  EXPECT_NE(msg.find("'count'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("not a mapping"), std::string::npos) << msg;
  // A value that is not YAML.
  msg = input_error_of([] { Config::from_string(kJob, "job.yaml", {"modes.fixed=[A,"}); });
  EXPECT_NE(msg.find("--set modes.fixed=[A,"), std::string::npos) << msg;
  EXPECT_NE(msg.find("not valid YAML"), std::string::npos) << msg;
}

TEST(ConfigUnknownKeys, AllKeysReadPassesTheCheck) {
  const auto c = Config::from_string(kJob, "job.yaml", {"modes.count=5"});
  read_job_keys(c);
  EXPECT_NO_THROW(c.check_all_used());
}

TEST(ConfigUnknownKeys, TypoIsReportedWithNameAndLine) {
  const std::string text = std::string(kJob) + "modes_extra: 1\n"; // line 9
  const auto c = Config::from_string(text + "mdoes:\n  cuont: 3\n", "typo.yaml"); // mdoes.cuont: line 11
  read_job_keys(c);
  const auto msg = input_error_of([&] { c.check_all_used(); });
  EXPECT_NE(msg.find("typo.yaml"), std::string::npos) << msg;
  EXPECT_NE(msg.find("unknown keys"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'modes_extra' (line 9)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'mdoes.cuont' (line 11)"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("'modes'"), std::string::npos) << "a key that was read is not unknown: " << msg;
}

TEST(ConfigCopy, KeepsEveryNodesFileLine) {
  // Config::copy is a YAML::Clone (which drops the file positions) with every node's line set
  // again: a copy's messages name the same lines as the parse's (app::job_at_sample parses a job
  // once and reports a refused sample from its copy). kJob's lines: modes.count 6, XMIN 7.
  const auto parsed = Config::from_string(std::string(kJob) + "mdoes:\n  cuont: [1, {x: 2}]\n", "copy.yaml");
  const Config c = parsed.copy();
  for (const Config* k : {&parsed, &c}) {
    EXPECT_EQ(k->root()["modes"]["count"].Mark().line + 1, 6);
    EXPECT_EQ(k->root()["modes"]["fixed"][0].Mark().line + 1, 7);
    EXPECT_EQ(k->root()["mdoes"]["cuont"][1]["x"].Mark().line + 1, 10);
    EXPECT_EQ(k->root()["mdoes"]["cuont"][1]["x"].Mark().column, 17); // 0-based, the "2"
  }
  const auto wrong = input_error_of([&] { (void)c.get<std::vector<int>>("modes.count"); });
  EXPECT_EQ(wrong, "copy.yaml: key 'modes.count' has a value of the wrong type ('10') (line 6)");
  read_job_keys(c);
  const auto unknown = input_error_of([&] { c.check_all_used(); });
  EXPECT_NE(unknown.find("'mdoes.cuont' (line 10)"), std::string::npos) << unknown;
  // The copy is deep: editing it leaves the parse's tree as it was, and a second copy is fresh.
  YAML::Node count = c.root()["modes"]["count"]; // a handle (yaml-cpp nodes are shared references)
  count = 99;
  EXPECT_EQ(parsed.get<int>("modes.count"), 10);
  EXPECT_EQ(parsed.copy().get<int>("modes.count"), 10);
}

TEST(ConfigUnknownKeys, PartlyReadSubtreeReportsOnlyTheUnreadLeaves) {
  // Marking a key used covers its subtree; siblings left unread are still reported.
  const auto c = Config::from_string(std::string(kJob) + "extra:\n  a: 1\n  b: {c: 2}\n", "job.yaml");
  read_job_keys(c);
  c.mark_used("extra.a");
  const auto msg = input_error_of([&] { c.check_all_used(); });
  EXPECT_NE(msg.find("unknown key 'extra.b.c' (line 11)"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("extra.a"), std::string::npos) << msg;
  c.mark_used("extra");
  EXPECT_NO_THROW(c.check_all_used());
}

TEST(ConfigUnknownKeys, OverrideKeysSayGivenWithSet) {
  const auto c = Config::from_string(kJob, "job.yaml", {"modes.cuont=3", "newsec.deep.key=1"});
  read_job_keys(c); // reads the whole modes subtree, so only newsec is unknown
  auto msg = input_error_of([&] { c.check_all_used(); });
  EXPECT_NE(msg.find("'newsec.deep.key' (given with --set)"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("(line"), std::string::npos) << "an override has no file line: " << msg;

  const auto d = Config::from_string(kJob, "job.yaml", {"modes.cuont=3"});
  (void)d.get<std::string>("command");
  (void)d.node("model");
  (void)d.get<int>("modes.count");
  (void)d.get<std::vector<std::string>>("modes.fixed");
  (void)d.get<std::string>("output");
  msg = input_error_of([&] { d.check_all_used(); });
  EXPECT_NE(msg.find("unknown key 'modes.cuont' (given with --set)"), std::string::npos) << msg;
}

TEST(ConfigTypedGet, WrongTypeNamesTheKeyAndLine) {
  const auto c = Config::from_string("modes:\n  count: ten\n  band: [a, b]\n", "types.yaml");
  auto msg = input_error_of([&] { (void)c.get<int>("modes.count"); });
  EXPECT_NE(msg.find("types.yaml"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'modes.count'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("wrong type"), std::string::npos) << msg;
  EXPECT_NE(msg.find("line 2"), std::string::npos) << msg;
  msg = input_error_of([&] { (void)c.get<std::vector<double>>("modes.band"); });
  EXPECT_NE(msg.find("'modes.band'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("line 3"), std::string::npos) << msg;
  // A mapping read as a scalar.
  msg = input_error_of([&] { (void)c.get<double>("modes"); });
  EXPECT_NE(msg.find("'modes'"), std::string::npos) << msg;
  // The fallback form still reports a present value of the wrong type instead of using the fallback.
  msg = input_error_of([&] { (void)c.get<int>("modes.count", 3); });
  EXPECT_NE(msg.find("'modes.count'"), std::string::npos) << msg;
}

TEST(ConfigTypedGet, MissingRequiredKeyNamesIt) {
  const auto c = Config::from_string(kJob, "job.yaml");
  const auto msg = input_error_of([&] { (void)c.get<double>("model.material.G"); });
  EXPECT_NE(msg.find("job.yaml"), std::string::npos) << msg;
  EXPECT_NE(msg.find("missing required key 'model.material.G'"), std::string::npos) << msg;
  EXPECT_THROW((void)c.node("nope.deeper"), InputError);
  EXPECT_THROW((void)c.get<int>("modes.count.deeper"), InputError); // walking below a scalar
  EXPECT_FALSE(c.has("modes.count.deeper"));
  EXPECT_EQ(c.get<double>("model.material.G", 8e10), 8e10);
}

TEST(ConfigAliases, FirstPresentPicksTheFirstGivenKey) {
  const auto both = Config::from_string("model: {fixed: [A]}\nmodes: {fixed: [B]}\n", "a.yaml");
  EXPECT_EQ(both.first_present({"model.fixed", "modes.fixed"}), std::optional<std::string>("model.fixed"));
  EXPECT_EQ(both.first_present({"modes.fixed", "model.fixed"}), std::optional<std::string>("modes.fixed"));
  const auto one = Config::from_string("modes: {fixed: [B]}\n", "a.yaml");
  EXPECT_EQ(one.first_present({"model.fixed", "modes.fixed"}), std::optional<std::string>("modes.fixed"));
  const auto none = Config::from_string("modes: {count: 3}\n", "a.yaml");
  EXPECT_EQ(none.first_present({"model.fixed", "modes.fixed"}), std::nullopt);
  // A null value counts as absent.
  const auto null = Config::from_string("model: {fixed: null}\nmodes: {fixed: [B]}\n", "a.yaml");
  EXPECT_EQ(null.first_present({"model.fixed", "modes.fixed"}), std::optional<std::string>("modes.fixed"));
  // first_present only looks: the alias found is still unknown until it is read.
  (void)one.first_present({"model.fixed", "modes.fixed"});
  EXPECT_THROW(one.check_all_used(), InputError);
}

TEST(ConfigSyntax, YamlErrorNamesFileAndLine) {
  // Line 3 opens a flow sequence that line 4 never closes; yaml-cpp reports the line it stops on.
  const std::string text = "command: modes\nmodes:\n  fixed: [A, B\n  count: 3\n";
  const auto msg = input_error_of([&] { Config::from_string(text, "broken.yaml"); });
  EXPECT_NE(msg.find("YAML syntax error"), std::string::npos) << msg;
  EXPECT_TRUE(msg.rfind("broken.yaml:3:", 0) == 0 || msg.rfind("broken.yaml:4:", 0) == 0) << msg;
  // A mapping indented below a scalar value: the error is on line 2.
  const auto msg2 = input_error_of([] { Config::from_string("a: 1\n  b: 2\n", "indent.yaml"); });
  EXPECT_EQ(msg2.rfind("indent.yaml:2: YAML syntax error", 0), 0u) << msg2;
}

TEST(ConfigSyntax, TopLevelMustBeAMapping) {
  const auto msg = input_error_of([] { Config::from_string("- a\n- b\n", "list.yaml"); });
  EXPECT_NE(msg.find("list.yaml"), std::string::npos) << msg;
  EXPECT_NE(msg.find("mapping"), std::string::npos) << msg;
  const auto empty = Config::from_string("", "empty.yaml"); // an empty job is an empty mapping
  EXPECT_FALSE(empty.has("anything"));
  EXPECT_NO_THROW(empty.check_all_used());
}

TEST(ConfigLoad, RankZeroReadsAndEveryRankGetsTheSameJob) {
  MPI_Comm comm = MPI_COMM_WORLD;
  const std::string dir = unique_folder(comm, "config_test_load");
  const std::string path = dir + "/job.yaml";
  if (rank_of(comm) == 0) {
    fs::create_directories(dir);
    std::ofstream(path) << kJob;
  }
  MPI_Barrier(comm);
  const auto c = Config::load(comm, path, {"modes.fixed=[A,B]"});
  EXPECT_EQ(c.source(), path);
  EXPECT_EQ(c.get<int>("modes.count"), 10);
  EXPECT_EQ(c.get<std::vector<std::string>>("modes.fixed"), (std::vector<std::string>{"A", "B"}));
  EXPECT_EQ(c.directory(), dir);
  // Every rank holds the same text: compare a checksum of the emitted YAML across ranks.
  const std::string dumped = YAML::Dump(c.root());
  unsigned long long sum = 0; // unsigned: the hash wraps (a signed one overflowed: UB under UBSan)
  for (char ch : dumped) sum = sum * 31 + static_cast<unsigned char>(ch);
  unsigned long long lo = sum, hi = sum;
  MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, comm);
  MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm);
  EXPECT_EQ(lo, hi);
  MPI_Barrier(comm);
  if (rank_of(comm) == 0) fs::remove_all(dir);
}

TEST(ConfigLoad, EmptyFileLoadsOnEveryRank) {
  MPI_Comm comm = MPI_COMM_WORLD;
  const std::string dir = unique_folder(comm, "config_test_empty");
  if (rank_of(comm) == 0) {
    fs::create_directories(dir);
    std::ofstream(dir + "/empty.yaml") << "";
  }
  MPI_Barrier(comm);
  const auto c = Config::load(comm, dir + "/empty.yaml", {"modes.count=2"});
  EXPECT_EQ(c.get<int>("modes.count"), 2);
  MPI_Barrier(comm);
  if (rank_of(comm) == 0) fs::remove_all(dir);
}

TEST(ConfigLoad, MissingFileThrowsOnEveryRank) {
  MPI_Comm comm = MPI_COMM_WORLD;
  const std::string path = unique_folder(comm, "config_test_missing") + "/no_such_job.yaml";
  // Every rank must throw (not only rank 0), or the others would wait in the next collective.
  EXPECT_THROW(Config::load(comm, path), InputError);
  const auto msg = input_error_of([&] { Config::load(comm, path); });
  EXPECT_NE(msg.find("cannot open job file '" + path + "'"), std::string::npos) << msg;
  MPI_Barrier(comm); // reached by every rank: nothing is left waiting
}

TEST(ConfigLoad, SyntaxErrorThrowsOnEveryRankWithTheLine) {
  MPI_Comm comm = MPI_COMM_WORLD;
  const std::string dir = unique_folder(comm, "config_test_syntax");
  if (rank_of(comm) == 0) {
    fs::create_directories(dir);
    std::ofstream(dir + "/bad.yaml") << "a: 1\n  b: 2\n";
  }
  MPI_Barrier(comm);
  const auto msg = input_error_of([&] { Config::load(comm, dir + "/bad.yaml"); });
  EXPECT_EQ(msg.rfind(dir + "/bad.yaml:2: YAML syntax error", 0), 0u) << msg;
  MPI_Barrier(comm);
  if (rank_of(comm) == 0) fs::remove_all(dir);
}

TEST(ConfigPaths, ResolvePathIsRelativeToTheJobFile) {
  const auto c = Config::from_string(kJob, "/some/jobs/folder/job.yaml");
  EXPECT_EQ(c.directory(), "/some/jobs/folder");
  EXPECT_EQ(c.resolve_path("part-that-is-not-in-the-cwd.inp"), "/some/jobs/folder/part-that-is-not-in-the-cwd.inp");
  EXPECT_EQ(c.resolve_path("sub/part-not-here.inp"), "/some/jobs/folder/sub/part-not-here.inp");
  EXPECT_EQ(c.resolve_path("/abs/part.inp"), "/abs/part.inp");
  EXPECT_EQ(c.resolve_output("out.h5"), "out.h5"); // outputs stay relative to the working directory

  const auto bare = Config::from_string(kJob, "job.yaml");
  EXPECT_EQ(bare.directory(), ".");
  EXPECT_EQ(bare.resolve_path("part-not-here.inp"), "./part-not-here.inp");

  const auto rel = Config::from_string(kJob, "configs/job.yaml");
  EXPECT_EQ(rel.resolve_path("part-not-here.inp"), "configs/part-not-here.inp");
}

TEST(ConfigPaths, LoadedJobResolvesAgainstItsFolder) {
  MPI_Comm comm = MPI_COMM_WORLD;
  const std::string dir = unique_folder(comm, "config_test_paths");
  if (rank_of(comm) == 0) {
    fs::create_directories(dir + "/meshes");
    std::ofstream(dir + "/job.yaml") << kJob;
    std::ofstream(dir + "/meshes/part_in_job_folder.inp") << "*NODE\n";
  }
  MPI_Barrier(comm);
  const auto c = Config::load(comm, dir + "/job.yaml");
  const std::string p = c.resolve_path("meshes/part_in_job_folder.inp");
  EXPECT_EQ(p, dir + "/meshes/part_in_job_folder.inp");
  EXPECT_TRUE(fs::exists(p));
  MPI_Barrier(comm);
  if (rank_of(comm) == 0) fs::remove_all(dir);
}

// io::NodeReader: the simulate parse's strict reader; every message names file, key and line.
TEST(NodeReader, StrictKeysTypedValuesAndMessages) {
  const Config c = Config::from_string("b:\n  mass: 2.5\n  name: rod\n  on: true\n  p: [1, 2]\n  bad: x\n  inf: .inf\n",
                                       "j.yaml");
  const flexuq::io::NodeReader rd(c.source());
  const YAML::Node b = c.node("b");
  EXPECT_EQ(rd.number(b, "b", "mass", 0.0), 2.5);
  EXPECT_EQ(rd.number(b, "b", "absent", 7.0), 7.0);
  EXPECT_EQ(rd.text(b, "b", "name"), "rod");
  EXPECT_TRUE(rd.flag(b, "b", "on", false));
  EXPECT_EQ(rd.list(b["p"], "b.p"), (std::vector<double>{1, 2}));
  EXPECT_EQ(rd.fixed_list(b, "b", "q", 3, "[x, y, z]", {0, 0, 1}), (std::vector<double>{0, 0, 1}));
  EXPECT_EQ(flexuq::io::NodeReader::line(b["p"]), 5);
  using flexuq::test::input_error_of;
  EXPECT_EQ(input_error_of([&] { rd.keys(b, "b", {"mass", "name"}); }),
            "j.yaml: unknown key 'b.on' (line 4) (mass, name)");
  EXPECT_EQ(input_error_of([&] { rd.number(b, "b", "bad", 0.0); }), "j.yaml: b.bad (line 6): must be a number");
  EXPECT_EQ(input_error_of([&] { rd.number(b, "b", "inf", 0.0); }), "j.yaml: b.inf (line 7): must be a finite number");
  EXPECT_EQ(input_error_of([&] { rd.required(b, "b", "length"); }), "j.yaml: b (line 2): 'length' is missing");
  EXPECT_EQ(input_error_of([&] { rd.flag(b, "b", "bad", false); }), "j.yaml: b.bad (line 6): must be true or false");
  EXPECT_EQ(input_error_of([&] { rd.fixed_list(b, "b", "p", 3, "[x, y, z]", {}); }),
            "j.yaml: b.p (line 5): needs 3 numbers [x, y, z], got 2");
  EXPECT_EQ(input_error_of([&] { rd.require_map(b["p"], "b.p"); }), "j.yaml: b.p (line 5): must be a mapping {key: value, ...}");
}

// io::read_sets_file: the model.matrices.sets file, messages with file and line.
TEST(SetsFile, SetsAndMessages) {
  const std::string dir = fs::temp_directory_path() / ("flexuq-sets-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir + "/ok.yaml") << "A: [1, 2]\nB: [7]\n";
  std::ofstream(dir + "/bad.yaml") << "A: [1, 2]\nB: x\n";
  const auto sets = flexuq::io::read_sets_file(dir + "/ok.yaml");
  EXPECT_EQ(sets.at("A"), (std::vector<long>{1, 2}));
  EXPECT_EQ(sets.at("B"), (std::vector<long>{7}));
  EXPECT_EQ(flexuq::test::input_error_of([&] { flexuq::io::read_sets_file(dir + "/bad.yaml"); }),
            dir + "/bad.yaml:2: set B: expected a list of node ids");
  fs::remove_all(dir);
}
