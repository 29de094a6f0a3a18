// SPDX-License-Identifier: MIT
// Shell input in every format: one warped plate (z = 0.02 x y, so its quads are not flat) written
// as a Nastran deck (CQUAD4/CTRIA3 with PSHELL), an Abaqus/CalculiX .inp (S4/S3 with *SHELL SECTION)
// and a gmsh .msh (quadrangles/triangles, the thickness from the job file's model.shell): the same
// clamped frequencies from all three to 1e-10; what PSHELL's 12I/T³, TS/T and NSM do; and the
// messages for bad shell input (PCOMP, offsets, a missing or zero thickness, degenerate quads,
// MID2/MID3 of their own, unsupported shell types).
#include "FeTestUtil.hpp"
#include "InputErrorOf.hpp"
#include "MpiTestUtil.hpp"
#include "ScratchFile.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/fe/Component.hpp"
#include "flexuq/fe/Modes.hpp"
#include "flexuq/io/BdfReader.hpp"
#include "flexuq/io/InpReader.hpp"
#include "flexuq/io/MeshReader.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <vector>

using namespace flexuq;

namespace {

constexpr int kNx = 10, kNy = 6;
constexpr double kDx = 0.05, kH = 0.005;

/// Node label of grid point (i, j) and its coordinates, short decimals (the same doubles in every format).
long label(int i, int j) { return 1 + i + (kNx + 1) * j; }
std::string xyz(int i, int j, const char* sep) {
  std::ostringstream os;
  os << kDx * i << sep << kDx * j << sep << 5e-5 * i * j; // z = 0.02 x y
  return os.str();
}
bool on_edge(int i, int j) { return i == 0 || j == 0 || i == kNx || j == kNy; }

/// Corners of element @p e (quads, or each quad cut along its 1-3 diagonal) as node labels.
std::vector<std::vector<long>> elements(bool triangles) {
  std::vector<std::vector<long>> out;
  for (int j = 0; j < kNy; ++j)
    for (int i = 0; i < kNx; ++i) {
      const long a = label(i, j), b = label(i + 1, j), c = label(i + 1, j + 1), d = label(i, j + 1);
      if (triangles) {
        out.push_back({a, b, c});
        out.push_back({a, c, d});
      } else {
        out.push_back({a, b, c, d});
      }
    }
  return out;
}

std::string write(const std::string& name, const std::string& text) {
  const std::string p = test::scratch_file("shell", name);
  std::ofstream(p) << text;
  return p;
}

/// The plate as a Nastran deck; @p pshell replaces the property card, @p extra is appended.
std::string bdf_text(bool triangles, const std::string& pshell = "PSHELL,7,3,0.005,3,,3\n", const std::string& extra = "") {
  std::ostringstream os;
  os << "BEGIN BULK\n";
  for (int j = 0; j <= kNy; ++j)
    for (int i = 0; i <= kNx; ++i) os << "GRID," << label(i, j) << ",," << xyz(i, j, ",") << "\n";
  long id = 1;
  for (const auto& e : elements(triangles)) {
    os << (triangles ? "CTRIA3," : "CQUAD4,") << id++ << ",7";
    for (long n : e) os << "," << n;
    os << "\n";
  }
  os << pshell << "MAT1,3,2.1E11,,0.3,7850.\n";
  for (int j = 0; j <= kNy; ++j)
    for (int i = 0; i <= kNx; ++i)
      if (on_edge(i, j)) os << "SPC1,1,123456," << label(i, j) << "\n";
  os << extra << "ENDDATA\n";
  return os.str();
}

std::string inp_text(bool triangles) {
  std::ostringstream os;
  os << "*NODE\n";
  for (int j = 0; j <= kNy; ++j)
    for (int i = 0; i <= kNx; ++i) os << label(i, j) << ", " << xyz(i, j, ", ") << "\n";
  os << "*ELEMENT, TYPE=" << (triangles ? "S3" : "S4R") << ", ELSET=PLATE\n";
  long id = 1;
  for (const auto& e : elements(triangles)) {
    os << id++;
    for (long n : e) os << ", " << n;
    os << "\n";
  }
  os << "*NSET, NSET=EDGE\n";
  for (int j = 0; j <= kNy; ++j)
    for (int i = 0; i <= kNx; ++i)
      if (on_edge(i, j)) os << label(i, j) << "\n";
  os << "*MATERIAL, NAME=STEEL\n*ELASTIC\n2.1E11, 0.3\n*DENSITY\n7850.\n";
  os << "*SHELL SECTION, ELSET=PLATE, MATERIAL=STEEL\n0.005, 5\n";
  return os.str();
}

/// gmsh 2.2: the plate's elements in physical surface PLATE, its boundary lines in physical curve EDGE.
std::string msh_text(bool triangles) {
  std::ostringstream os;
  os << "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n2\n1 1 \"EDGE\"\n2 2 \"PLATE\"\n$EndPhysicalNames\n";
  os << "$Nodes\n" << (kNx + 1) * (kNy + 1) << "\n";
  for (int j = 0; j <= kNy; ++j)
    for (int i = 0; i <= kNx; ++i) os << label(i, j) << " " << xyz(i, j, " ") << "\n";
  os << "$EndNodes\n";
  std::vector<std::string> lines;
  long id = 1;
  auto edge = [&](long a, long b) { lines.push_back(std::to_string(id++) + " 1 2 1 1 " + std::to_string(a) + " " + std::to_string(b)); };
  for (int i = 0; i < kNx; ++i) {
    edge(label(i, 0), label(i + 1, 0));
    edge(label(i, kNy), label(i + 1, kNy));
  }
  for (int j = 0; j < kNy; ++j) {
    edge(label(0, j), label(0, j + 1));
    edge(label(kNx, j), label(kNx, j + 1));
  }
  for (const auto& e : elements(triangles)) {
    std::string l = std::to_string(id++) + (triangles ? " 2" : " 3") + " 2 2 2";
    for (long n : e) l += " " + std::to_string(n);
    lines.push_back(l);
  }
  os << "$Elements\n" << lines.size() << "\n";
  for (const auto& l : lines) os << l << "\n";
  os << "$EndElements\n";
  return os.str();
}

fe::ModeOptions options() {
  fe::ModeOptions mo;
  mo.count = 6;
  mo.shift = 0.0; // clamped: K is positive definite
  mo.rigid_tol = 1e-22;
  mo.constrained = true;
  mo.progress = false;
  return mo;
}

std::vector<double> clamped_frequencies(io::Mesh mesh, const std::string& fixed) {
  fe::ComponentOptions o;
  o.fixed_sets = {fixed};
  fe::Component c(MPI_COMM_WORLD, std::move(mesh), o);
  return fe::solve_modes(c.K(), c.M(), options()).frequencies_hz();
}

void expect_same(const std::vector<double>& a, const std::vector<double>& b, const char* what) {
  ASSERT_GE(a.size(), 6u);
  ASSERT_GE(b.size(), 6u);
  for (std::size_t k = 0; k < 6; ++k) EXPECT_NEAR(a[k] / b[k], 1.0, 1e-10) << what << ", mode " << k + 1;
}

} // namespace

TEST(ShellReaders, NastranInpAndGmshGiveTheSameFrequencies) {
  for (bool tri : {false, true}) {
    const std::string kind = tri ? "tri" : "quad";
    const io::Mesh bdf = io::read_bdf(write(kind + ".bdf", bdf_text(tri)));
    const io::Mesh inp = io::read_inp(write(kind + ".inp", inp_text(tri)));
    ASSERT_EQ(bdf.num_elements(), inp.num_elements());
    EXPECT_EQ(bdf.elem_type[0], tri ? io::ElementType::shell3 : io::ElementType::shell4);
    EXPECT_EQ(inp.elem_type[0], bdf.elem_type[0]);
    ASSERT_EQ(bdf.sections.size(), 1u);
    EXPECT_TRUE(bdf.sections[0].shell);
    EXPECT_EQ(bdf.sections[0].elset, "PSHELL_7");
    EXPECT_EQ(bdf.sections[0].material, "MAT1_3");
    EXPECT_DOUBLE_EQ(bdf.sections[0].shell_section.thickness, kH);
    EXPECT_DOUBLE_EQ(bdf.sections[0].shell_section.shear_ratio, 5.0 / 6.0);
    EXPECT_DOUBLE_EQ(inp.sections[0].shell_section.thickness, kH);
    const auto fb = clamped_frequencies(bdf, "SPC1");
    const auto fi = clamped_frequencies(inp, "EDGE");
    expect_same(fb, fi, tri ? "CTRIA3 vs S3" : "CQUAD4 vs S4R");
    const std::string msh = write(kind + ".msh", msh_text(tri));
    const auto c = test::component_from_yaml(MPI_COMM_WORLD, "model:\n  mesh: " + msh +
                                                                 "\n  material: {E: 2.1e11, nu: 0.3, rho: 7850}\n"
                                                                 "  shell: {thickness: 0.005}\n  fixed: [EDGE]\n");
    EXPECT_EQ(c->mesh().elem_type[0], bdf.elem_type[0]);
    expect_same(fe::solve_modes(c->K(), c->M(), options()).frequencies_hz(), fi, tri ? "gmsh triangles vs S3" : "gmsh quadrangles vs S4R");
    if (test::world_rank() == 0) std::printf("[ShellReaders] %s: f1 %.6f Hz\n", kind.c_str(), fi[0]);
  }
}

TEST(ShellReaders, PshellBendingShearRatiosAndNonstructuralMass) {
  // On a flat clamped plate (membrane and bending do not couple) T with 12I/T³ = 8, TS/T = 5/3 and
  // NSM = ρT has the bending stiffness (8 = 2³), the shear stiffness (5/3 T = 5/6 · 2T) and the
  // translational mass (2ρT) of the plate of thickness 2T: only the rotary inertia differs
  // (ρT³/12 against 8ρT³/12), so its frequencies are slightly higher, by less than 1 % here (the
  // rotary inertia's share, about (πh/λ)²/12). NSM = ρT alone doubles the translational mass: the
  // frequencies fall by √2, again up to the rotary inertia (not doubled).
  std::string flat = bdf_text(false);
  for (int j = 0; j <= kNy; ++j)
    for (int i = 0; i <= kNx; ++i) {
      const std::string from = "GRID," + std::to_string(label(i, j)) + ",," + xyz(i, j, ",") + "\n";
      std::ostringstream to;
      to << "GRID," << label(i, j) << ",," << kDx * i << "," << kDx * j << ",0.\n";
      flat.replace(flat.find(from), from.size(), to.str());
    }
  auto with = [&](const std::string& pshell) {
    std::string d = flat;
    const std::string p0 = "PSHELL,7,3,0.005,3,,3\n";
    d.replace(d.find(p0), p0.size(), pshell);
    return clamped_frequencies(io::read_bdf(write("ratio.bdf", d)), "SPC1");
  };
  const auto base = with("PSHELL,7,3,0.005,3,,3\n");
  const auto stiff = with("PSHELL,7,3,0.005,3,8.,3,1.6666666666666667,39.25\n"); // NSM = ρT = 7850 · 0.005
  const auto thick = with("PSHELL,7,3,0.01,3,,3\n");
  const auto heavy = with("PSHELL,7,3,0.005,3,,3,,39.25\n");
  for (std::size_t k = 0; k < 6; ++k) {
    EXPECT_GT(stiff[k], thick[k]) << "mode " << k + 1;
    EXPECT_LT(stiff[k], 1.01 * thick[k]) << "mode " << k + 1;
    EXPECT_GT(heavy[k] * std::sqrt(2.0), base[k]) << "mode " << k + 1;
    EXPECT_LT(heavy[k] * std::sqrt(2.0), 1.001 * base[k]) << "mode " << k + 1;
  }
  // TS/T: a larger shear factor stiffens (slightly, at a/h = 100).
  const auto shear = with("PSHELL,7,3,0.005,3,,3,2.\n");
  EXPECT_GT(shear[0], base[0]);
  EXPECT_LT(shear[0], base[0] * 1.01);
}

TEST(ShellReaders, BadShellInputIsRefusedWithFileLineAndCard) {
  auto bdf_error = [](const std::string& name, const std::string& text) {
    const std::string path = write(name, text);
    return test::input_error_of([&] { (void)io::read_bdf(path); });
  };
  auto has = [](const std::string& msg, const std::vector<const char*>& parts) {
    for (const char* p : parts) EXPECT_NE(msg.find(p), std::string::npos) << "'" << p << "' not in: " << msg;
  };
  const std::string grids = "GRID,1,,0.,0.,0.\nGRID,2,,1.,0.,0.\nGRID,3,,1.,1.,0.\nGRID,4,,0.,1.,0.\n";
  const std::string mat = "MAT1,3,2.1E11,,0.3,7850.\n";
  struct Case {
    const char* file;
    std::string deck;
    std::vector<const char*> parts;
  };
  const std::string quad = "CQUAD4,1,7,1,2,3,4\n";
  const Case cases[] = {
      {"pcomp.bdf", grids + quad + "PCOMP,7,,,,,,,\n,3,0.001,0.\n" + mat,
       {"pcomp.bdf:6:", "PCOMP", "composite (layered) shell properties are not supported"}},
      {"zoffs.bdf", grids + "CQUAD4,1,7,1,2,3,4,,0.01\nPSHELL,7,3,0.005,3\n" + mat,
       {"zoffs.bdf:5:", "CQUAD4", "offset ZOFFS is not supported"}},
      {"twice.bdf", grids + "CQUAD4,1,7,1,2,2,4\nPSHELL,7,3,0.005,3\n" + mat, {"twice.bdf:5:", "lists grid 2 twice"}},
      {"mid2.bdf", grids + quad + "PSHELL,7,3,0.005\n" + mat, {"mid2.bdf:6:", "PSHELL", "MID2 is blank"}},
      {"mid2b.bdf", grids + quad + "PSHELL,7,3,0.005,4\n" + mat, {"mid2b.bdf:6:", "MID2 = 4 differs from MID1 = 3"}},
      {"mid3.bdf", grids + quad + "PSHELL,7,3,0.005,3,,4\n" + mat, {"mid3.bdf:6:", "MID3 = 4 differs"}},
      {"not.bdf", grids + quad + "PSHELL,7,3,,3\n" + mat, {"not.bdf:5:", "CQUAD4 1: no thickness"}},
      {"taper.bdf", grids + quad + ",,,0.1,0.1,0.2,0.1\nPSHELL,7,3,0.005,3\n" + mat,
       {"taper.bdf:5:", "corner thicknesses that differ"}},
      {"quad8.bdf", grids + "CQUAD8,1,7,1,2,3,4\n", {"quad8.bdf:5:", "CQUAD8", "not supported"}},
      {"psolid.bdf", grids + quad + "PSOLID,7,3\n" + mat, {"psolid.bdf:5:", "CQUAD4 1 references property 7, a PSOLID"}},
  };
  for (const auto& c : cases) has(bdf_error(c.file, c.deck), c.parts);
  // A degenerate quad (three corners in one line) is refused when its matrices are built, naming it
  // (on one rank: the rank that owns the element throws; flexuq's main aborts the others).
  const std::string line = "GRID,1,,0.,0.,0.\nGRID,2,,1.,0.,0.\nGRID,3,,2.,0.,0.\nGRID,4,,0.,1.,0.\n";
  const io::Mesh bent = io::read_bdf(write("bent.bdf", line + "CQUAD4,9,7,1,2,3,4\nPSHELL,7,3,0.005,3\n" + mat));
  fe::ComponentOptions o;
  has(test::input_error_of([&] { fe::Component c(MPI_COMM_SELF, bent, o); }), {"bent.bdf", "shell element 9 (shell4)", "degenerate"});
  // Corner thicknesses override T (equal ones); a relative TFLAG scales it.
  const io::Mesh own = io::read_bdf(write("own.bdf", grids + "CQUAD4,1,7,1,2,3,4\n,,1,2.,2.,2.,2.\nPSHELL,7,3,0.005,3\n" + mat));
  ASSERT_EQ(own.sections.size(), 1u);
  EXPECT_DOUBLE_EQ(own.sections[0].shell_section.thickness, 0.01);
  EXPECT_EQ(own.sections[0].elset, "PSHELL_7_T1");

  auto inp_error = [](const std::string& name, const std::string& text) {
    const std::string path = write(name, text);
    return test::input_error_of([&] { (void)io::read_inp(path); });
  };
  const std::string nodes = "*NODE\n1, 0, 0, 0\n2, 1, 0, 0\n3, 1, 1, 0\n4, 0, 1, 0\n*ELEMENT, TYPE=S4, ELSET=P\n1, 1, 2, 3, 4\n"
                            "*MATERIAL, NAME=STEEL\n*ELASTIC\n2.1E11, 0.3\n*DENSITY\n7850.\n";
  has(inp_error("zero.inp", nodes + "*SHELL SECTION, ELSET=P, MATERIAL=STEEL\n0.\n"),
      {"zero.inp:", "shell thickness must be positive"});
  has(inp_error("none.inp", nodes + "*SHELL SECTION, ELSET=P, MATERIAL=STEEL\n"), {"none.inp:13:", "*SHELL SECTION has no data line"});
  has(inp_error("offset.inp", nodes + "*SHELL SECTION, ELSET=P, MATERIAL=STEEL, OFFSET=SPOS\n0.01\n"),
      {"offset.inp:13:", "OFFSET=SPOS is not supported"});
  has(inp_error("comp.inp", nodes + "*SHELL SECTION, ELSET=P, COMPOSITE\n0.01, 3, STEEL\n"), {"comp.inp:13:", "COMPOSITE"});
  has(inp_error("s8r.inp", "*NODE\n1, 0, 0, 0\n*ELEMENT, TYPE=S8R\n"), {"s8r.inp:3:", "TYPE=S8R", "S4, S4R, S3, S3R"});
  // An S4 without a section: refused by the component, which names the element.
  const io::Mesh bare = io::read_inp(write("bare.inp", nodes));
  o.default_material = bare.materials.at("STEEL");
  has(test::input_error_of([&] { fe::Component c(MPI_COMM_SELF, bare, o); }), {"shell element 1 (shell4) has no shell section"});
  // The job file's model.shell: a zero thickness names the key.
  const std::string msh = write("p.msh", msh_text(false));
  has(test::input_error_of([&] {
        (void)test::component_from_yaml(MPI_COMM_WORLD, "model:\n  mesh: " + msh + "\n  material: {E: 2.1e11, nu: 0.3, rho: 7850}\n"
                                                                                     "  shell: {thickness: 0}\n");
      }),
      {"model.shell", "shell thickness must be positive"});
}
