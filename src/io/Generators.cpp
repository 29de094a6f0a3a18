// SPDX-License-Identifier: MIT
#include "flexuq/io/Generators.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/io/Limits.hpp"

#include <cmath>
#include <cstdint>
#include <optional>
#include <sstream>

namespace flexuq::io {

namespace {
/// a·b·c, or nullopt on 64-bit overflow.
std::optional<std::int64_t> product(std::int64_t a, std::int64_t b, std::int64_t c) {
  const auto ab = limits::mul(a, b);
  return ab ? limits::mul(*ab, c) : std::nullopt;
}

/// Bytes of a Mesh of @p nodes nodes and @p elements elements of @p npe nodes: coordinates, labels,
/// the ALL sets, connectivity with offsets, types and labels (the face sets and warnings are small).
double mesh_bytes(double nodes, double elements, int npe) {
  return nodes * (3 * sizeof(double) + sizeof(long) + sizeof(int)) +
         elements * (npe * sizeof(int) + sizeof(std::int64_t) + sizeof(ElementType) + sizeof(long) + sizeof(int));
}
} // namespace

Mesh generate_box(const BoxSpec& s) {
  FLEXUQ_REQUIRE(s.order == 1 || s.order == 2, "box generator: order must be 1 (hex8) or 2 (hex20), got " << s.order);
  for (int d = 0; d < 3; ++d) {
    FLEXUQ_REQUIRE(s.cells[d] >= 1, "box generator: cell counts must be >= 1");
    FLEXUQ_REQUIRE(s.size[d] > 0, "box generator: sizes must be positive");
  }
  // Sizes in 64-bit with overflow checks before anything is allocated: nodes and elements must fit
  // the int indices of Mesh, and the mesh must fit in memory.
  const std::int64_t c0 = s.cells[0], c1 = s.cells[1], c2 = s.cells[2];
  const auto elements = product(c0, c1, c2);
  std::optional<std::int64_t> nodes = product(c0 + 1, c1 + 1, c2 + 1), lattice = nodes;
  if (s.order == 2 && nodes) { // corners plus one mid-edge node per cell edge
    lattice = product(2 * c0 + 1, 2 * c1 + 1, 2 * c2 + 1);
    for (const auto& edges : {product(c0, c1 + 1, c2 + 1), product(c0 + 1, c1, c2 + 1), product(c0 + 1, c1 + 1, c2)})
      nodes = nodes && edges ? limits::add(*nodes, *edges) : std::nullopt;
  }
  // The option at fault is named by its field ("generator.cells", OptionError): the caller names its key.
  std::ostringstream key;
  key << "{} [" << c0 << ", " << c1 << ", " << c2 << "]";
  const char* type = s.order == 1 ? "hex8" : "hex20";
  if (!elements || !nodes || !lattice || *elements > limits::max_mesh_entities || *nodes > limits::max_mesh_entities)
    throw OptionError("generator.cells",
                      key.str() + " gives " + (nodes ? std::to_string(*nodes) : std::string("more than 2^63")) +
                          " nodes and " + (elements ? std::to_string(*elements) : std::string("more than 2^63")) + " " +
                          type + " elements; a mesh holds at most " + std::to_string(limits::max_mesh_entities) +
                          " of each");
  try {
    limits::require_memory(static_cast<double>(*lattice) * sizeof(int) + mesh_bytes(static_cast<double>(*nodes),
                                                                                    static_cast<double>(*elements),
                                                                                    s.order == 1 ? 8 : 20),
                           key.str() + " (a box of " + std::to_string(*nodes) + " nodes and " +
                               std::to_string(*elements) + " " + type + " elements)");
  } catch (const InputError& e) {
    throw OptionError("generator.cells", e.what());
  }
  Mesh m;
  std::ostringstream src;
  src << "generator:box(" << s.cells[0] << "x" << s.cells[1] << "x" << s.cells[2] << ", hex" << (s.order == 1 ? 8 : 20)
      << ")";
  m.source = src.str();
  // Lattice of (2n+1)^3 half-step points for hex20 (only points used by the serendipity element are
  // kept), (n+1)^3 for hex8.
  const int f = s.order; // lattice points per cell edge
  const int NX = f * s.cells[0] + 1, NY = f * s.cells[1] + 1, NZ = f * s.cells[2] + 1;
  std::vector<int> id(static_cast<std::size_t>(NX) * NY * NZ, -1);
  auto lat = [&](int i, int j, int k) -> int& { return id[(static_cast<std::size_t>(k) * NY + j) * NX + i]; };
  auto keep = [&](int i, int j, int k) {
    if (f == 1) return true;
    const int odd = (i % 2) + (j % 2) + (k % 2);
    return odd <= 1; // corners and mid-edges only (no face or body centres)
  };
  for (int k = 0; k < NZ; ++k)
    for (int j = 0; j < NY; ++j)
      for (int i = 0; i < NX; ++i)
        if (keep(i, j, k)) {
          lat(i, j, k) = static_cast<int>(m.coords.size());
          m.coords.push_back({s.origin[0] + s.size[0] * i / (NX - 1), s.origin[1] + s.size[1] * j / (NY - 1),
                              s.origin[2] + s.size[2] * k / (NZ - 1)});
          m.node_ids.push_back(static_cast<long>(m.coords.size()));
        }
  // Corner offsets in Abaqus order, then hex20 mid-edge nodes (edges 1-2,2-3,3-4,4-1,5-6,6-7,7-8,8-5,1-5,2-6,3-7,4-8).
  const int corner[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
  const int edge[12][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6}, {6, 7}, {7, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
  long eid = 0;
  for (int ck = 0; ck < s.cells[2]; ++ck)
    for (int cj = 0; cj < s.cells[1]; ++cj)
      for (int ci = 0; ci < s.cells[0]; ++ci) {
        std::vector<int> nodes;
        for (auto& c : corner) nodes.push_back(lat(f * (ci + c[0]), f * (cj + c[1]), f * (ck + c[2])));
        if (f == 2)
          for (auto& e : edge) {
            const int* a = corner[e[0]];
            const int* b = corner[e[1]];
            nodes.push_back(lat(2 * ci + a[0] + b[0], 2 * cj + a[1] + b[1], 2 * ck + a[2] + b[2]));
          }
        m.add_element(f == 1 ? ElementType::hex8 : ElementType::hex20, nodes, ++eid);
      }
  const char* face[6] = {"XMIN", "XMAX", "YMIN", "YMAX", "ZMIN", "ZMAX"};
  for (int n = 0; n < static_cast<int>(m.coords.size()); ++n) {
    m.node_sets["ALL"].push_back(n);
    for (int d = 0; d < 3; ++d) {
      const double x = m.coords[n][d] - s.origin[d];
      const double tol = 1e-9 * s.size[d];
      if (std::abs(x) < tol) m.node_sets[face[2 * d]].push_back(n);
      if (std::abs(x - s.size[d]) < tol) m.node_sets[face[2 * d + 1]].push_back(n);
    }
  }
  for (int e = 0; e < static_cast<int>(m.num_elements()); ++e) m.element_sets["ALL"].push_back(e);
  m.validate();
  return m;
}

Mesh generate_beam(const BeamSpec& s) {
  FLEXUQ_REQUIRE(s.elements >= 1, "beam generator: elements must be >= 1, got " << s.elements);
  FLEXUQ_REQUIRE_OPTION(s.elements < limits::max_mesh_entities, "generator.elements",
                        "{} = " << s.elements << " gives " << static_cast<std::int64_t>(s.elements) + 1
                                << " nodes; a mesh holds at most " << limits::max_mesh_entities);
  try {
    limits::require_memory(mesh_bytes(s.elements + 1.0, s.elements, 2), "{} = " + std::to_string(s.elements) +
                                                                            " (a beam of " +
                                                                            std::to_string(s.elements) + " elements)");
  } catch (const InputError& e) {
    throw OptionError("generator.elements", e.what());
  }
  FLEXUQ_REQUIRE(s.length > 0, "beam generator: length must be positive");
  const double dn = std::sqrt(s.direction[0] * s.direction[0] + s.direction[1] * s.direction[1] +
                              s.direction[2] * s.direction[2]);
  FLEXUQ_REQUIRE(dn > 0, "beam generator: direction must be non-zero");
  Mesh m;
  m.source = "generator:beam(" + std::to_string(s.elements) + " elements)";
  for (int i = 0; i <= s.elements; ++i) {
    const double t = s.length * i / s.elements / dn;
    m.coords.push_back({s.origin[0] + t * s.direction[0], s.origin[1] + t * s.direction[1],
                        s.origin[2] + t * s.direction[2]});
    m.node_ids.push_back(i + 1);
    m.node_sets["ALL"].push_back(i);
  }
  for (int e = 0; e < s.elements; ++e) {
    m.add_element(ElementType::beam2, {e, e + 1}, e + 1);
    m.element_sets["ALL"].push_back(e);
  }
  m.node_sets["END0"] = {0};
  m.node_sets["END1"] = {s.elements};
  if (s.elements % 2 == 0) m.node_sets["MID"] = {s.elements / 2};
  Section sec;
  sec.elset = "ALL";
  sec.material = "DEFAULT";
  sec.beam = true;
  sec.beam_section = s.section;
  sec.where.file = m.source;
  sec.beam_section.compute_properties(sec.where);
  m.sections.push_back(sec);
  m.validate();
  return m;
}

} // namespace flexuq::io
