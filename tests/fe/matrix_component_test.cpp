// SPDX-License-Identifier: MIT
// fe::make_matrix_component and the external-matrix readers (io/ExternalMatrices.hpp): the same
// matrix written as MatrixMarket (coordinate symmetric / general, array), Abaqus .mtx (without a
// label file), PETSc binary (written by PETSc's own MatView: an external oracle) and OP4 gives the
// same operator; a 6-DOF beam round-trips through the MatrixMarket export with the same modes; bad
// input names file and line.
#include "../io/InputErrorOf.hpp"
#include "../io/ScratchFile.hpp"
#include "PetscTestUtil.hpp"

#include "flexuq/fe/MatrixComponent.hpp"
#include "flexuq/fe/Modes.hpp"
#include "flexuq/io/Generators.hpp"
#include "flexuq/io/Op4.hpp"

#include <gtest/gtest.h>
#include <petscviewer.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

using namespace flexuq;

namespace {

/// Same path on every rank (collective writers write on rank 0).
std::string shared(const std::string& name) {
  static const std::string d = test::shared_scratch_dir("matrix-component"); // collective at the first call
  return d + "/" + name;
}

/// A cantilever-free beam (6 DOF per node): the reference component.
fe::Component beam() {
  io::BeamSpec s;
  s.length = 1.2;
  s.elements = 6;
  s.section.shape = "RECT";
  s.section.dims = {0.02, 0.03};
  auto mesh = io::generate_beam(s);
  fe::ComponentOptions o;
  io::Material m;
  m.name = "steel";
  m.E = 2.1e11;
  m.nu = 0.3;
  m.rho = 7800;
  o.default_material = m;
  return fe::Component(MPI_COMM_WORLD, std::move(mesh), o);
}

/// Export the beam once: K.mtx, M.mtx, dofs.txt (shared paths).
void export_beam() {
  static bool done = false;
  if (done) return;
  const auto c = beam();
  fe::write_component_matrix(c, c.K(), shared("K.mtx"));
  fe::write_component_matrix(c, c.M(), shared("M.mtx"));
  fe::write_component_labels(c, shared("dofs.txt"));
  done = true;
}

std::vector<double> frequencies(const fe::Component& c, int n) {
  fe::ModeOptions o;
  o.count = n;
  o.progress = false;
  o.constrained = c.has_fixed_nodes();
  return fe::solve_modes(c.K(), c.M(), o).frequencies_hz();
}

fe::MatrixModelSpec spec(const std::string& k, io::MatrixFormat kf, const std::string& labels) {
  fe::MatrixModelSpec s;
  s.source = "test";
  s.labels = labels;
  s.stiffness.push_back({"K", {k, kf, ""}, 1.0});
  s.mass.push_back({"M", {shared("M.mtx"), io::MatrixFormat::matrix_market, ""}, 1.0});
  s.node_sets["END0"] = {1};
  return s;
}

struct Entry {
  std::int64_t r, c;
  double v;
};
/// The exported K's stored entries (lower triangle) and labels.
std::vector<Entry> exported_k(io::DofLabels& L) {
  L = io::read_dof_labels(shared("dofs.txt"));
  std::vector<Entry> e;
  io::scan_matrix({shared("K.mtx"), io::MatrixFormat::matrix_market, ""}, L,
                  [&](std::int64_t r, std::int64_t c, double v, long) {
                    e.push_back({r, c, v});
                  });
  return e;
}

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

} // namespace

TEST(MatrixComponent, BeamRoundTripKeepsTheModes) {
  export_beam();
  const auto ref = beam();
  auto s = spec(shared("K.mtx"), io::MatrixFormat::matrix_market, shared("dofs.txt"));
  const auto c = fe::make_matrix_component(MPI_COMM_WORLD, s, {});
  EXPECT_TRUE(c->is_external());
  EXPECT_EQ(c->dofs().dofs_per_node(), 6);
  EXPECT_EQ(c->dofs().global_size(), ref.dofs().global_size());
  EXPECT_EQ(c->mesh().coords, ref.mesh().coords);
  const auto fr = frequencies(ref, 6), fm = frequencies(*c, 6);
  ASSERT_EQ(fr.size(), fm.size());
  for (std::size_t k = 0; k < fr.size(); ++k) EXPECT_NEAR(fm[k], fr[k], 1e-10 * fr[k]) << k;
  // Clamped at END0 (a node set from the spec) against the mesh model clamped there.
  fe::ComponentOptions fixed;
  fixed.fixed_sets = {"END0"};
  io::BeamSpec bs;
  bs.length = 1.2;
  bs.elements = 6;
  bs.section.shape = "RECT";
  bs.section.dims = {0.02, 0.03};
  fe::ComponentOptions o = fixed;
  io::Material m;
  m.E = 2.1e11;
  m.nu = 0.3;
  m.rho = 7800;
  o.default_material = m;
  const fe::Component refc(MPI_COMM_WORLD, io::generate_beam(bs), o);
  const auto cc = fe::make_matrix_component(MPI_COMM_WORLD, s, fixed);
  const auto a = frequencies(refc, 4), b = frequencies(*cc, 4);
  for (std::size_t k = 0; k < a.size(); ++k) EXPECT_NEAR(b[k], a[k], 1e-10 * a[k]) << k;
  // Cantilever, first bending mode about the weak axis: (1.875104)² / 2π · sqrt(EI / ρA L⁴) within
  // the discretisation error of 6 cubic elements.
  const double I = 0.03 * std::pow(0.02, 3) / 12, A = 0.02 * 0.03;
  const double f1 = std::pow(1.875104, 2) / (2 * M_PI) * std::sqrt(2.1e11 * I / (7800 * A * std::pow(1.2, 4)));
  EXPECT_NEAR(a[0], f1, 1e-3 * f1);
}

TEST(MatrixComponent, EveryFormatGivesTheSameOperator) {
  export_beam();
  io::DofLabels L;
  const auto e = exported_k(L);
  const auto n = static_cast<std::int64_t>(L.rows());
  const auto ref = fe::make_matrix_component(
      MPI_COMM_WORLD, spec(shared("K.mtx"), io::MatrixFormat::matrix_market, shared("dofs.txt")), {});
  std::map<std::string, std::pair<io::MatrixFormat, bool>> files; // file → (format, needs labels)
  // MatrixMarket, general (both triangles).
  {
    std::vector<io::Triplet> t;
    for (const auto& x : e) {
      t.push_back({x.r, x.c, x.v});
      if (x.r != x.c) t.push_back({x.c, x.r, x.v});
    }
    const auto p = test::scratch_file("mc", "K_general.mtx");
    io::write_matrix_market(p, n, t, false);
    files[p] = {io::MatrixFormat::matrix_market, true};
  }
  // MatrixMarket array, symmetric (lower triangle column by column).
  {
    std::vector<double> dense(static_cast<std::size_t>(n * n), 0.0);
    for (const auto& x : e) dense[static_cast<std::size_t>(x.c * n + x.r)] = x.v;
    const auto p = test::scratch_file("mc", "K_array.mtx");
    std::ofstream out(p);
    out << "%%MatrixMarket matrix array real symmetric\n" << n << " " << n << "\n";
    out.precision(17);
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = j; i < n; ++i) out << dense[static_cast<std::size_t>(j * n + i)] << "\n";
    files[p] = {io::MatrixFormat::matrix_market, true};
  }
  // Abaqus MATRIX INPUT (lower triangle, node/DOF labels), no label file.
  {
    const auto p = test::scratch_file("mc", "K_STIF1.mtx");
    std::ofstream out(p);
    out.precision(17);
    for (const auto& x : e)
      out << L.node_ids[static_cast<std::size_t>(L.dof_node[static_cast<std::size_t>(x.r)])] << ", "
          << L.dof_comp[static_cast<std::size_t>(x.r)] + 1 << ", "
          << L.node_ids[static_cast<std::size_t>(L.dof_node[static_cast<std::size_t>(x.c)])] << ", "
          << L.dof_comp[static_cast<std::size_t>(x.c)] + 1 << ", " << x.v << "\n";
    files[p] = {io::MatrixFormat::abaqus, false};
  }
  // PETSc binary, written by PETSc (sequential matrix on this rank).
  {
    const auto p = test::scratch_file("mc", "K.bin");
    MatH A;
    FLEXUQ_PETSC(
        MatCreateSeqAIJ(PETSC_COMM_SELF, static_cast<PetscInt>(n), static_cast<PetscInt>(n), 40, nullptr, A.out()));
    for (const auto& x : e) {
      FLEXUQ_PETSC(MatSetValue(A.get(), static_cast<PetscInt>(x.r), static_cast<PetscInt>(x.c), x.v, INSERT_VALUES));
      FLEXUQ_PETSC(MatSetValue(A.get(), static_cast<PetscInt>(x.c), static_cast<PetscInt>(x.r), x.v, INSERT_VALUES));
    }
    FLEXUQ_PETSC(MatAssemblyBegin(A.get(), MAT_FINAL_ASSEMBLY));
    FLEXUQ_PETSC(MatAssemblyEnd(A.get(), MAT_FINAL_ASSEMBLY));
    PetscViewer v = nullptr;
    FLEXUQ_PETSC(PetscViewerBinaryOpen(PETSC_COMM_SELF, p.c_str(), FILE_MODE_WRITE, &v));
    FLEXUQ_PETSC(PetscViewerBinarySetSkipInfo(v, PETSC_TRUE));
    FLEXUQ_PETSC(MatView(A.get(), v));
    FLEXUQ_PETSC(PetscViewerDestroy(&v));
    files[p] = {io::MatrixFormat::petsc, true};
  }
  // OP4 (binary, dense), with a second matrix in the file to select by name.
  {
    const auto p = test::scratch_file("mc", "K.op4");
    io::Op4Matrix K("KAA", static_cast<int>(n), static_cast<int>(n)), other("OTHER", 2, 2);
    for (const auto& x : e)
      K(static_cast<int>(x.r), static_cast<int>(x.c)) = K(static_cast<int>(x.c), static_cast<int>(x.r)) = x.v;
    io::write_op4(p, {other, K}, io::Op4Format::binary);
    files[p] = {io::MatrixFormat::op4, true};
  }
  for (const auto& [path, how] : files) {
    SCOPED_TRACE(path);
    EXPECT_EQ(io::matrix_format(path), how.first);
    auto s = spec(path, how.first, how.second ? shared("dofs.txt") : "");
    if (how.first == io::MatrixFormat::op4) s.stiffness[0].file.op4_name = "kaa";
    if (!how.second) s.mass[0].file = {path, io::MatrixFormat::abaqus, ""}; // all-Abaqus job: K as M will do
    const auto c = fe::make_matrix_component(MPI_COMM_WORLD, s, {});
    ASSERT_EQ(c->dofs().global_size(), ref->dofs().global_size());
    EXPECT_LT(test::rel_diff(c->K(), ref->K()), 1e-15);
    if (!how.second) {
      EXPECT_FALSE(c->mesh().warnings.empty()); // no coordinates: warned
    }
  }
}

TEST(MatrixComponent, BadInputNamesFileAndLine) {
  const auto labels = test::scratch_file("mc", "dofs.txt");
  write(labels, "# node component\n1 1\n1 2\n1 3\n2 1\n2 2\n2 3\n");
  auto run = [&](const std::string& k, const std::string& lab) {
    fe::MatrixModelSpec s;
    s.source = "job.yaml";
    s.labels = lab;
    s.stiffness.push_back({"K", {k, io::matrix_format(k), ""}, 1.0});
    s.mass.push_back({"M", {k, io::matrix_format(k), ""}, 1.0});
    return test::input_error_of([&] { fe::make_matrix_component(MPI_COMM_WORLD, s, {}); });
  };
  const std::string diag = "1 1 4\n2 2 4\n3 3 4\n4 4 4\n5 5 4\n6 6 4\n";
  const auto k = test::scratch_file("mc", "k.mtx");
  // Not symmetric: (2,1) stored without (1,2) in a general file.
  write(k, "%%MatrixMarket matrix coordinate real general\n6 6 7\n" + diag + "2 1 -1.5\n");
  auto m = run(k, labels);
  EXPECT_NE(m.find(k +
                   ":9: the stiffness term 'K' is not symmetric: (node 1 component 2, node 1 component 1) = -1.5 but "
                   "(node 1 component 1, node 1 component 2) = 0"),
            std::string::npos)
      << m;
  // Size different from the label file.
  write(k, "%%MatrixMarket matrix coordinate real symmetric\n% comment\n7 7 6\n" + diag);
  m = run(k, labels);
  EXPECT_NE(m.find(k + ":3: the matrix has 7 rows but the label file " + labels + " has 6 rows"), std::string::npos)
      << m;
  // Malformed entry.
  write(k, "%%MatrixMarket matrix coordinate real symmetric\n6 6 6\n1 1 4\n2 x 4\n");
  m = run(k, labels);
  EXPECT_NE(m.find(k + ":4: malformed entry '2 x 4'"), std::string::npos) << m;
  // Index out of range, too few entries, both triangles in a symmetric file.
  write(k, "%%MatrixMarket matrix coordinate real symmetric\n6 6 1\n7 1 4\n");
  EXPECT_NE(run(k, labels).find(k + ":3: index (7, 1) is outside 1…6"), std::string::npos);
  write(k, "%%MatrixMarket matrix coordinate real symmetric\n6 6 7\n" + diag);
  EXPECT_NE(run(k, labels).find(k + ":8: the file ends after 6 of 7 entries"), std::string::npos);
  write(k, "%%MatrixMarket matrix coordinate real symmetric\n6 6 8\n" + diag + "2 1 1\n1 2 1\n");
  EXPECT_NE(run(k, labels).find(k + ":10: the file is declared symmetric but stores entries on both sides"),
            std::string::npos);
  write(k, "%%MatrixMarket matrix coordinate complex general\n6 6 0\n");
  EXPECT_NE(run(k, labels).find(k + ":1: field 'complex' is not supported"), std::string::npos);
  // Label files: duplicate, missing component, malformed, bad component.
  write(k, "%%MatrixMarket matrix coordinate real symmetric\n6 6 6\n" + diag);
  const auto bad = test::scratch_file("mc", "bad_dofs.txt");
  write(bad, "1 1\n1 2\n1 3\n2 1\n1 2\n2 3\n");
  m = run(k, bad);
  EXPECT_NE(m.find(bad + ":5: duplicate label: node 1 component 2"), std::string::npos) << m;
  write(bad, "1 1\n1 2\n1 3\n2 1\n2 2\n3 1\n");
  EXPECT_NE(run(k, bad).find(bad + ":4: node 2 lacks component(s) 3"), std::string::npos);
  write(bad, "1 1\n1 2 0.5\n");
  EXPECT_NE(run(k, bad).find(bad + ":2: expected 'node_id component' or 'node_id component x y z'"), std::string::npos);
  write(bad, "1 7\n");
  EXPECT_NE(run(k, bad).find(bad + ":1: component 7 of node 1 is not in 1…6"), std::string::npos);
  // Abaqus: a (node, DOF) the label file lacks; a malformed line.
  const auto abq = test::scratch_file("mc", "k_STIF1.mtx");
  write(abq, "1, 1, 1, 1, 4.0\n9, 1, 1, 1, 1.0\n");
  EXPECT_NE(run(abq, labels).find(abq + ":2: node 9 DOF 1 is not a DOF of " + labels), std::string::npos);
  write(abq, "1, 1, 1, 1, 4.0\n1, 1, 1\n");
  EXPECT_NE(run(abq, labels).find(abq + ":2: expected 'node, dof, node, dof, value'"), std::string::npos);
  // PETSc binary with a wrong header.
  const auto bin = test::scratch_file("mc", "k.bin");
  write(bin, std::string(16, '\0'));
  EXPECT_NE(run(bin, labels).find(bin + ": not a PETSc binary matrix"), std::string::npos);
  // Memory bound (io/Limits.hpp): a cap below what the rows need fails on every rank.
  write(k, "%%MatrixMarket matrix coordinate real symmetric\n6 6 6\n" + diag);
  setenv("FLEXUQ_MAX_MEMORY", "100", 1);
  m = run(k, labels);
  unsetenv("FLEXUQ_MAX_MEMORY");
  EXPECT_NE(m.find("matrix terms, this rank's rows"), std::string::npos) << m;
  // No label file for MatrixMarket; two terms of the same name.
  write(k, "%%MatrixMarket matrix coordinate real symmetric\n6 6 6\n" + diag);
  // make_matrix_component names the option by its field (OptionError); the CLI says model.matrices.labels.
  EXPECT_NE(run(k, "").find("job.yaml: matrices.labels is needed for matrix-market files"), std::string::npos);
}
