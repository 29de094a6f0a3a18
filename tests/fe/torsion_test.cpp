// SPDX-License-Identifier: MIT
// Free-free torsion of a circular shaft (the E2-size bar of Zwölfer & Gerstmayr, Sect. 5.1, with a
// circular section) is an exact 3-D elasticity solution, f_T1 = sqrt(G/ρ)/(2L) = 189.89 Hz for
// d = 100 mm, L = 2 m, E = 1.5 GPa, ν = 0.3, ρ = 1000. Mesh: gmsh tet10 (curved mid-edge nodes on
// the cylinder) made in the fixture.
#include "FeTestUtil.hpp"
#include "TestUtil.hpp"

#include "flexuq/io/MeshReader.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

using namespace flexuq;

TEST(Torsion, FreeFreeCircularShaftMatchesExactSolution) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string msh = "shaft_np" + std::to_string(size) + ".msh";
  int ok = 1;
  if (rank == 0) {
    const bool have_gmsh = std::system("command -v gmsh > /dev/null 2>&1") == 0;
    ok = have_gmsh ? 1 : 0;
    if (have_gmsh) {
      const std::string cmd = "gmsh -3 -order 2 -setnumber h 0.025 -format msh41 -o " + msh + " " +
                              test::data_path("shaft.geo") + " > " + msh + ".log 2>&1";
      ok = std::system(cmd.c_str()) == 0 ? 1 : -1;
    }
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (ok == 0) GTEST_SKIP() << "gmsh not installed";
  ASSERT_EQ(ok, 1) << "gmsh failed, see " << msh << ".log";

  fe::ComponentOptions o;
  o.default_material = test::material("B2", 1.5e9, 0.3, 1000);
  fe::Component c(MPI_COMM_WORLD, io::read_mesh(msh), o);
  fe::ModeOptions mo;
  mo.count = 10;
  auto modes = fe::solve_modes(c.K(), c.M(), mo);
  EXPECT_EQ(modes.rigid_eigenvalues.size(), 6u);

  // Torsional share of each mode: Σ (u·e_θ)² / Σ |u|² with e_θ about the shaft axis (x).
  const auto V = test::natural_columns(c, modes.vectors);
  const auto& X = c.mesh().coords;
  const double G = 1.5e9 / 2.6, fT1 = std::sqrt(G / 1000.0) / (2 * 2.0);
  int torsion_modes = 0;
  for (int j = 0; j < V.cols(); ++j) {
    double tors = 0, all = 0;
    for (std::size_t n = 0; n < X.size(); ++n) {
      const double y = X[n][1], z = X[n][2], r = std::hypot(y, z);
      const Eigen::Vector3d u = V.block<3, 1>(3 * static_cast<Eigen::Index>(n), j);
      if (r > 1e-9) tors += std::pow((-z * u[1] + y * u[2]) / r, 2);
      all += u.squaredNorm();
    }
    if (tors / all > 0.99) {
      ++torsion_modes;
      const double f = modes.frequencies_hz()[static_cast<std::size_t>(j)];
      EXPECT_NEAR(f, fT1, 1e-3 * fT1) << "first torsion mode is mode " << j + 1; // 0.1 %
    }
  }
  EXPECT_EQ(torsion_modes, 1) << "exactly one torsion mode expected among the first 10 (T2 is at 380 Hz)";
}
