// SPDX-License-Identifier: MIT
#include "flexuq/io/MeshReader.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/io/BdfReader.hpp"
#include "flexuq/io/InpReader.hpp"
#include "flexuq/io/MshReader.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

namespace flexuq::io {

namespace {

using P3 = std::array<double, 3>;

/// (X_b − X_a) × (X_c − X_a)
P3 normal(const P3* X, int a, int b, int c) {
  const P3 u{X[b][0] - X[a][0], X[b][1] - X[a][1], X[b][2] - X[a][2]};
  const P3 v{X[c][0] - X[a][0], X[c][1] - X[a][1], X[c][2] - X[a][2]};
  return {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
}
double dot(const P3& n, const P3& m) { return n[0] * m[0] + n[1] * m[1] + n[2] * m[2]; }

/// True when either split's normals are more than @p deg apart (no trigonometry: a large mesh is
/// checked on every read).
bool warped_beyond(const P3* X, double deg) {
  const double c = std::cos(deg * M_PI / 180.0);
  const P3 n[4] = {normal(X, 0, 1, 2), normal(X, 0, 2, 3), normal(X, 0, 1, 3), normal(X, 1, 2, 3)};
  for (int k : {0, 2})
    if (dot(n[k], n[k + 1]) < c * std::sqrt(dot(n[k], n[k]) * dot(n[k + 1], n[k + 1]))) return true;
  return false;
}

} // namespace

double quad_warp_angle_deg(const std::array<double, 3>* X) {
  auto angle = [](const P3& n, const P3& m) {
    const double s = std::hypot(n[1] * m[2] - n[2] * m[1], n[2] * m[0] - n[0] * m[2], n[0] * m[1] - n[1] * m[0]);
    return std::atan2(s, dot(n, m)) * 180.0 / M_PI;
  };
  return std::max(angle(normal(X, 0, 1, 2), normal(X, 0, 2, 3)), angle(normal(X, 0, 1, 3), normal(X, 1, 2, 3)));
}

namespace {

/// One warning for the shell4 elements warped beyond kShellWarpWarnDeg, naming the worst.
void warn_warped_shells(Mesh& m) {
  std::size_t count = 0;
  double worst = 0;
  long worst_id = 0;
  std::array<double, 3> X[4];
  for (std::size_t e = 0; e < m.num_elements(); ++e) {
    if (m.elem_type[e] != ElementType::shell4) continue;
    const int* nodes = m.element(e);
    for (int a = 0; a < 4; ++a) X[a] = m.coords[static_cast<std::size_t>(nodes[a])];
    if (!warped_beyond(X, kShellWarpWarnDeg)) continue;
    const double w = quad_warp_angle_deg(X);
    ++count;
    if (w > worst) worst = w, worst_id = m.elem_ids[e];
  }
  if (count == 0) return;
  char deg[32];
  std::snprintf(deg, sizeof deg, "%.1f", worst);
  m.warnings.push_back(std::to_string(count) + " quadrilateral shell element(s) are warped by more than " +
                       std::to_string(static_cast<int>(kShellWarpWarnDeg)) + " degrees (worst: element " +
                       std::to_string(worst_id) + ", " + deg +
                       " degrees between its two triangles' normals); they are computed on their own curved "
                       "surface, but refine the mesh where the surface turns this much per element");
}

Mesh read_any(const std::string& path, bool plane) {
  const std::string ext = upper(std::filesystem::path(path).extension().string());
  if (ext == ".INP") return read_inp(path);
  if (ext == ".MSH") return read_msh(path, plane);
  if (is_bdf_path(path)) return read_bdf(path);
  throw InputError("mesh file '" + path + "': unknown format '" + std::filesystem::path(path).extension().string() +
                   "' (supported: .inp Abaqus/CalculiX, .msh Gmsh ASCII 4.1 or 2.2, .bdf/.dat/.nas Nastran bulk data)");
}

} // namespace

Mesh read_mesh(const std::string& path, bool plane) {
  Mesh m = read_any(path, plane);
  warn_warped_shells(m);
  return m;
}

} // namespace flexuq::io
