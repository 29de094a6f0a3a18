// SPDX-License-Identifier: MIT
#pragma once
// A rectangular grid of 2-D elements (quad4, quad8, tri3, tri6) of steel in plane stress or plane
// strain, for the tests of fe/Plane.hpp and of 2-D components downstream (cms).
#include "FeTestUtil.hpp"
#include "flexuq/io/Mesh.hpp"

#include <map>
#include <string>
#include <utility>

namespace flexuq::test {

using io::ElementType;

inline constexpr double kPlaneE = 2.1e11, kPlaneNu = 0.3, kPlaneRho = 7850;

inline io::PlaneSection plane_section(double t, bool strain) {
  io::PlaneSection s;
  s.thickness = t;
  s.strain = strain;
  return s;
}

/// Material STEEL (E = 2.1e11, ν = 0.3, ρ = 7850) in @p m and a section of element set @p elset with it.
inline io::Section& add_steel_section(io::Mesh& m, const std::string& elset) {
  m.materials["STEEL"] = material("STEEL", kPlaneE, kPlaneNu, kPlaneRho);
  m.sections.emplace_back();
  m.sections.back().elset = elset;
  m.sections.back().material = "STEEL";
  return m.sections.back();
}

/// A rectangular L × H grid of nx × ny cells of @p type (triangles: two per cell, alternating
/// diagonals), in the x-y plane; node set ROOT at x = 0, element set ALL with material STEEL and a
/// plane section of thickness @p t (plane strain if @p strain). Only the nodes elements use.
inline io::Mesh grid_mesh(ElementType type, double L, double H, int nx, int ny, double t, bool strain) {
  io::Mesh m;
  m.source = "grid";
  const bool quadratic = type == ElementType::quad8 || type == ElementType::tri6;
  const int fx = quadratic ? 2 : 1;
  std::map<std::pair<int, int>, int> node;
  const auto at = [&](int i, int j) { // i, j on the grid of spacing L/(fx nx), H/(fx ny)
    auto it = node.find({i, j});
    if (it != node.end()) return it->second;
    const int v = static_cast<int>(m.coords.size());
    m.coords.push_back({L * i / (fx * nx), H * j / (fx * ny), 0.0});
    m.node_ids.push_back(v + 1);
    if (i == 0) m.node_sets["ROOT"].push_back(v);
    return node[{i, j}] = v;
  };
  long id = 1;
  for (int i = 0; i < nx; ++i)
    for (int j = 0; j < ny; ++j) {
      const int I = fx * i, J = fx * j, s = fx;
      const int c0 = at(I, J), c1 = at(I + s, J), c2 = at(I + s, J + s), c3 = at(I, J + s);
      if (type == ElementType::quad4) m.add_element(type, {c0, c1, c2, c3}, id++);
      if (type == ElementType::quad8)
        m.add_element(type, {c0, c1, c2, c3, at(I + 1, J), at(I + 2, J + 1), at(I + 1, J + 2), at(I, J + 1)}, id++);
      const bool flip = (i + j) % 2 == 1;
      if (type == ElementType::tri3) {
        if (!flip) {
          m.add_element(type, {c0, c1, c2}, id++);
          m.add_element(type, {c0, c2, c3}, id++);
        } else {
          m.add_element(type, {c0, c1, c3}, id++);
          m.add_element(type, {c1, c2, c3}, id++);
        }
      }
      if (type == ElementType::tri6) {
        if (!flip) {
          m.add_element(type, {c0, c1, c2, at(I + 1, J), at(I + 2, J + 1), at(I + 1, J + 1)}, id++);
          m.add_element(type, {c0, c2, c3, at(I + 1, J + 1), at(I + 1, J + 2), at(I, J + 1)}, id++);
        } else {
          m.add_element(type, {c0, c1, c3, at(I + 1, J), at(I + 1, J + 1), at(I, J + 1)}, id++);
          m.add_element(type, {c1, c2, c3, at(I + 2, J + 1), at(I + 1, J + 2), at(I + 1, J + 1)}, id++);
        }
      }
    }
  for (std::size_t e = 0; e < m.num_elements(); ++e) m.element_sets["ALL"].push_back(static_cast<int>(e));
  io::Section& sec = add_steel_section(m, "ALL");
  sec.plane = true;
  sec.plane_section = plane_section(t, strain);
  return m;
}


} // namespace flexuq::test
