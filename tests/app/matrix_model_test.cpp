// SPDX-License-Identifier: MIT
// `model.matrices` (issue #9 item 4): a matrices model equals the mesh model it was exported from,
// through `modes`, `reduce` (all-DOF and RBE2 interfaces) and the campaign model; and the job-level
// errors (unknown term in `param`, a term set twice, model.mesh beside model.matrices).
#include "../io/InputErrorOf.hpp"
#include "../io/ScratchFile.hpp"

#include "flexuq/app/Commands.hpp"
#include "flexuq/app/MatrixModel.hpp"
#include "flexuq/app/ModelFactory.hpp"
#include "flexuq/app/ReduceCommand.hpp"
#include "flexuq/app/ComponentConfig.hpp"
#include "flexuq/fe/MatrixComponent.hpp"
#include "flexuq/io/Hdf5File.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

using namespace flexuq;

namespace {

/// Created once, collectively, at the first call (later calls may come from rank 0 alone).
const std::string& dir() {
  static const std::string d = test::shared_scratch_dir("matrix-model");
  return d;
}

const char* kMesh = R"(
model:
  generator: {type: box, size: [0.3, 0.1, 0.05], cells: [6, 2, 2], order: 1}
  material: {E: 2.1e11, nu: 0.3, rho: 7800}
)";

/// The box with E = 1 and ρ = 1 exported once: K1.mtx, M1.mtx, dofs.txt (with coordinates).
/// K and M are linear in E and ρ at fixed ν, so K(E) = E·K1 and M(ρ) = ρ·M1.
void export_unit_box() {
  static bool done = false;
  if (done) return;
  const auto cfg = io::Config::from_string(R"(
model:
  generator: {type: box, size: [0.3, 0.1, 0.05], cells: [6, 2, 2], order: 1}
  material: {E: 1, nu: 0.3, rho: 1}
)");
  fe::Component c(MPI_COMM_WORLD, app::load_mesh(cfg), app::component_options(cfg));
  fe::write_component_matrix(c, c.K(), dir() + "/K1.mtx");
  fe::write_component_matrix(c, c.M(), dir() + "/M1.mtx");
  fe::write_component_labels(c, dir() + "/dofs.txt");
  done = true;
}

/// The box's faces XMIN and XMAX as YAML {NAME: [node ids]} lines (ids from the generated mesh),
/// each line indented by @p indent.
std::string face_sets(const std::string& indent) {
  const auto cfg = io::Config::from_string(kMesh);
  const auto mesh = app::load_mesh(cfg);
  std::string sets;
  for (const char* name : {"XMIN", "XMAX"}) {
    sets += indent + name + ": [";
    const auto& s = mesh.node_set(name);
    for (std::size_t k = 0; k < s.size(); ++k) sets += (k ? ", " : "") + std::to_string(mesh.node_ids[s[k]]);
    sets += "]\n";
  }
  return sets;
}

/// The matrices job with @p sets as model.matrices.sets: a file name, or (default) the faces inline.
std::string matrices_job(const std::string& rest, const std::string& sets_file = "") {
  return "model:\n  matrices:\n    labels: " + dir() + "/dofs.txt\n    stiffness:\n      K: {file: " + dir() +
         "/K1.mtx, scale: 2.1e11}\n    mass:\n      M: {file: " + dir() + "/M1.mtx, scale: 7800}\n    sets:" +
         (sets_file.empty() ? "\n" + face_sets("      ") : " " + sets_file + "\n") + rest;
}

/// Write @p text to dir()/@p name on rank 0 (all ranks wait). Returns the path.
std::string write_scratch(const std::string& name, const std::string& text) {
  const std::string path = dir() + "/" + name;
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  if (r == 0) std::ofstream(path) << text;
  MPI_Barrier(MPI_COMM_WORLD);
  return path;
}

std::vector<double> read(const std::string& path, const std::string& dset) {
  io::H5File f(MPI_COMM_WORLD, path, io::H5File::Mode::read);
  return f.read_all(dset);
}

void expect_close(const std::vector<double>& a, const std::vector<double>& b, double rtol, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  ASSERT_FALSE(a.empty()) << what;
  for (std::size_t k = 0; k < a.size(); ++k) EXPECT_NEAR(a[k], b[k], rtol * std::abs(b[k])) << what << " entry " << k;
}

} // namespace

TEST(MatrixModel, ModesEqualTheMeshModelClampedAndFree) {
  export_unit_box();
  for (const std::string fixed : {"  fixed: [XMIN]\n", ""}) {
    const std::string tail = fixed + "modes: {count: 8}\n";
    app::run_modes(MPI_COMM_WORLD,
                   io::Config::from_string(std::string(kMesh) + tail + "output: " + dir() + "/mesh-modes.h5\n"));
    app::run_modes(MPI_COMM_WORLD,
                   io::Config::from_string(matrices_job(tail + "output: " + dir() + "/mat-modes.h5\n")));
    const auto fm = read(dir() + "/mesh-modes.h5", "/modes/frequencies_hz");
    const auto fx = read(dir() + "/mat-modes.h5", "/modes/frequencies_hz");
    expect_close(fx, fm, 1e-10, fixed.empty() ? "free-free" : "clamped");
    if (!fixed.empty()) { // a real clamped box, not a rigid mode
      EXPECT_GT(fm[0], 100.0);
    }
    // Mode shapes in input node order: the same subspace (|MAC| of unique modes = 1), node by node.
    const auto vm = read(dir() + "/mesh-modes.h5", "/modes/vectors"),
               vx = read(dir() + "/mat-modes.h5", "/modes/vectors");
    ASSERT_EQ(vm.size(), vx.size());
    const std::size_t nm = fm.size(), rows = vm.size() / nm;
    for (std::size_t j = 0; j < nm; ++j) {
      if (j + 1 < nm && std::abs(fm[j + 1] - fm[j]) < 1e-6 * fm[j]) continue;
      if (j > 0 && std::abs(fm[j] - fm[j - 1]) < 1e-6 * fm[j]) continue;
      double ab = 0, aa = 0, bb = 0;
      for (std::size_t r = 0; r < rows; ++r) {
        const double a = vm[r * nm + j], b = vx[r * nm + j];
        ab += a * b;
        aa += a * a;
        bb += b * b;
      }
      EXPECT_NEAR(ab * ab / (aa * bb), 1.0, 1e-10) << "mode " << j + 1;
    }
  }
}

TEST(MatrixModel, ReduceEqualsTheMeshModel) {
  export_unit_box();
  const std::string reduce = R"(
reduce:
  method: craig-bampton
  interfaces:
    - {set: XMIN, kind: all-dofs}
    - {set: XMAX, kind: rbe2}
  modes: {count: 5}
  checkout: {free_free: 6}
)";
  app::run_reduce(MPI_COMM_WORLD,
                  io::Config::from_string(std::string(kMesh) + reduce + "output: " + dir() + "/mesh-cb.h5\n"));
  app::run_reduce(MPI_COMM_WORLD, io::Config::from_string(matrices_job(reduce + "output: " + dir() + "/mat-cb.h5\n")));
  for (const char* d :
       {"/reduced/checkout/free_free_reduced_hz", "/reduced/checkout/free_free_full_hz", "/reduced/invariants/mass"})
    expect_close(read(dir() + "/mat-cb.h5", d), read(dir() + "/mesh-cb.h5", d), 1e-10, d);
  // Reduced K: boundary rows/columns (interface DOFs first, same labels and order) are unique.
  const auto Km = read(dir() + "/mesh-cb.h5", "/reduced/K"), Kx = read(dir() + "/mat-cb.h5", "/reduced/K");
  ASSERT_EQ(Km.size(), Kx.size());
  const auto n = static_cast<std::size_t>(std::sqrt(static_cast<double>(Km.size())));
  const std::size_t nb = n - 5;
  double kmax = 0;
  for (double v : Km) kmax = std::max(kmax, std::abs(v));
  for (std::size_t i = 0; i < nb; ++i)
    for (std::size_t j = 0; j < nb; ++j) EXPECT_NEAR(Kx[i * n + j], Km[i * n + j], 1e-10 * kmax) << i << "," << j;
}

TEST(MatrixModel, CampaignModelEqualsTheMeshModel) {
  export_unit_box();
  const std::string params_mesh = R"(
parameters:
  E: {dist: normal, mean: 2.1e11, std: 1.0e10}
  rho: {dist: normal, mean: 7800, std: 100}
outputs: {frequencies: 6}
)";
  const std::string params_mat = R"(
parameters:
  E: {dist: normal, mean: 2.1e11, std: 1.0e10, param: K}
  rho: {dist: normal, mean: 7800, std: 100, param: M}
outputs: {frequencies: 6}
)";
  const auto cm = io::Config::from_string(std::string(kMesh) + "  fixed: [XMIN]\n" + params_mesh);
  const auto cx = io::Config::from_string(matrices_job("  fixed: [XMIN]\n" + params_mat));
  auto mm = app::make_model_factory(cm, app::campaign_options(cm).params)(MPI_COMM_WORLD);
  auto mx = app::make_model_factory(cx, app::campaign_options(cx).params)(MPI_COMM_WORLD);
  mm->prepare({2.1e11, 7800});
  mx->prepare({2.1e11, 7800});
  for (const std::vector<double>& theta : {std::vector<double>{2.3e11, 7600}, {1.9e11, 8000}}) {
    const auto om = mm->evaluate(theta), ox = mx->evaluate(theta);
    expect_close(ox.at("frequencies"), om.at("frequencies"), 1e-10, "campaign frequencies");
    EXPECT_NEAR(ox.at("tracking_min_mac")[0], om.at("tracking_min_mac")[0], 1e-8);
  }
  // Scaling check: E × 4 doubles every frequency (an oracle independent of the mesh model).
  const auto a = mx->evaluate({2.1e11, 7800}), b = mx->evaluate({8.4e11, 7800});
  for (std::size_t k = 0; k < a.at("frequencies").size(); ++k)
    EXPECT_NEAR(b.at("frequencies")[k], 2 * a.at("frequencies")[k], 1e-9 * a.at("frequencies")[k]);
}

TEST(MatrixModel, CampaignRunEqualsTheMeshCampaign) {
  // `flexuq campaign` end to end: the same seed and distributions, parameters on E/ρ vs on the
  // terms K/M of the unit-material export: /outputs/frequencies agree sample by sample.
  export_unit_box();
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  if (r == 0) // a fresh campaign each time (an earlier run's journal would ask for --resume)
    for (const char* f : {"/mesh-uq.h5", "/mesh-uq.h5.journal", "/mat-uq.h5", "/mat-uq.h5.journal"})
      std::filesystem::remove_all(dir() + f);
  MPI_Barrier(MPI_COMM_WORLD);
  const std::string tail = R"(
outputs: {frequencies: 3}
method: {type: monte-carlo, samples: 4}
campaign: {seed: 7}
)";
  const std::string pm =
      "parameters:\n  E: {dist: uniform, low: 2.0e11, high: 2.2e11}\n  rho: {dist: uniform, low: 7700, high: 7900}\n";
  const std::string px = "parameters:\n  E: {dist: uniform, low: 2.0e11, high: 2.2e11, param: K}\n"
                         "  rho: {dist: uniform, low: 7700, high: 7900, param: M}\n";
  app::run_campaign(MPI_COMM_WORLD,
                    io::Config::from_string(std::string(kMesh) + "  fixed: [XMIN]\n" + pm + tail + "output: " + dir() +
                                            "/mesh-uq.h5\n"),
                    false);
  app::run_campaign(
      MPI_COMM_WORLD,
      io::Config::from_string(matrices_job("  fixed: [XMIN]\n" + px + tail + "output: " + dir() + "/mat-uq.h5\n")),
      false);
  const auto fm = read(dir() + "/mesh-uq.h5", "/outputs/frequencies"),
             fx = read(dir() + "/mat-uq.h5", "/outputs/frequencies");
  EXPECT_EQ(fm.size(), 12u);
  expect_close(fx, fm, 1e-10, "campaign /outputs/frequencies");
}

// model.matrices.sets naming a file (what modes.export_matrices writes as <prefix>_sets.yaml): the
// job-file parser reads it (no library reads YAML), the component gets its sets, and a bad file is
// refused naming the file and line.
TEST(MatrixModel, SetsFileIsReadByTheParser) {
  export_unit_box();
  const std::string file = write_scratch("faces_sets.yaml", face_sets(""));
  const auto spec = app::parse_matrix_model(io::Config::from_string(matrices_job("", file), "job.yaml"));
  EXPECT_TRUE(spec.node_sets.empty());
  const auto inline_spec = app::parse_matrix_model(io::Config::from_string(matrices_job(""), "job.yaml"));
  ASSERT_EQ(inline_spec.node_sets.size(), 2u);
  EXPECT_EQ(spec.extra_sets, inline_spec.node_sets);
  EXPECT_EQ(spec.extra_sets.at("XMIN").size(), 9u); // the x = 0 face of 6 x 2 x 2 cells: 3 x 3 nodes

  // The same clamped modes as with the sets inline (the component took the file's sets).
  const std::string tail = "  fixed: [XMIN]\nmodes: {count: 4}\n";
  app::run_modes(MPI_COMM_WORLD, io::Config::from_string(matrices_job(tail + "output: " + dir() + "/inline-sets.h5\n")));
  app::run_modes(MPI_COMM_WORLD,
                 io::Config::from_string(matrices_job(tail + "output: " + dir() + "/file-sets.h5\n", file)));
  expect_close(read(dir() + "/file-sets.h5", "/modes/frequencies_hz"),
               read(dir() + "/inline-sets.h5", "/modes/frequencies_hz"), 1e-12, "clamped at the file's XMIN");

  const auto parse_error = [&](const std::string& name, const std::string& text) {
    const std::string path = write_scratch(name, text);
    return test::input_error_of(
        [&] { app::parse_matrix_model(io::Config::from_string(matrices_job("", path), "job.yaml")); });
  };
  const auto e1 = parse_error("sets_not_list.yaml", "A: [1, 2]\nB: 7\n");
  EXPECT_NE(e1.find(dir() + "/sets_not_list.yaml:2: set B: expected a list of node ids"), std::string::npos) << e1;
  const auto e2 = parse_error("sets_not_map.yaml", "[1, 2]\n");
  EXPECT_NE(e2.find(dir() + "/sets_not_map.yaml: expected a mapping {NAME: [node ids]}"), std::string::npos) << e2;
  const auto e3 = parse_error("sets_syntax.yaml", "A: [1, 2\n");
  EXPECT_EQ(e3.rfind(dir() + "/sets_syntax.yaml:", 0), 0u) << e3;
}

TEST(MatrixModel, JobErrorsNameTheKey) {
  export_unit_box();
  const std::string p = "parameters:\n  E: {dist: normal, mean: 1, std: 0.1, param: K_web}\n";
  auto c1 = io::Config::from_string(matrices_job(p), "job.yaml");
  const auto e1 = test::input_error_of([&] { app::make_model_factory(c1, app::campaign_options(c1).params); });
  EXPECT_NE(e1.find("job.yaml: parameter 'E': unknown term 'K_web' in param (model.matrices has K, M)"),
            std::string::npos)
      << e1;
  const std::string p2 = "parameters:\n  a: {dist: normal, mean: 1, std: 0.1, param: K}\n"
                         "  b: {dist: normal, mean: 1, std: 0.1, param: K}\n";
  auto c2 = io::Config::from_string(matrices_job(p2), "job.yaml");
  const auto e2 = test::input_error_of([&] { app::make_model_factory(c2, app::campaign_options(c2).params); });
  EXPECT_NE(e2.find("parameters 'a' and 'b' both set term 'K'"), std::string::npos) << e2;
  auto c3 = io::Config::from_string(matrices_job("  mesh: box.inp\n"), "job.yaml");
  const auto e3 = test::input_error_of([&] { app::run_modes(MPI_COMM_WORLD, c3); });
  EXPECT_NE(e3.find("model.matrices and model.mesh exclude each other"), std::string::npos) << e3;
  // Labels without coordinates: rbe2 interfaces are refused (all-DOF ones work).
  {
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    if (r == 0) {
      std::ifstream in(dir() + "/dofs.txt");
      std::ofstream out(dir() + "/dofs-nocoord.txt");
      long id = 0, comp = 0;
      std::string line;
      std::getline(in, line); // comment
      while (in >> id >> comp && std::getline(in, line)) out << id << " " << comp << "\n";
    }
    MPI_Barrier(MPI_COMM_WORLD);
    std::string job = matrices_job(
        "reduce:\n  method: craig-bampton\n  interfaces: [{set: XMIN, kind: all-dofs}, {set: XMAX, kind: rbe2}]\n"
        "  modes: {count: 2}\noutput: " +
        dir() + "/nocoord.h5\n");
    job.replace(job.find("/dofs.txt"), 9, "/dofs-nocoord.txt");
    auto c5 = io::Config::from_string(job, "job.yaml");
    const auto e5 = test::input_error_of([&] { app::run_reduce(MPI_COMM_WORLD, c5); });
    EXPECT_NE(e5.find("job.yaml: the rbe2/rbe3 interface on set XMAX needs node coordinates"), std::string::npos) << e5;
  }
  auto c4 = io::Config::from_string(matrices_job("  fixed: [NOPE]\n"), "job.yaml");
  const auto e4 = test::input_error_of([&] { app::run_modes(MPI_COMM_WORLD, c4); });
  EXPECT_NE(e4.find("node set 'NOPE' is not defined"), std::string::npos) << e4;
}
