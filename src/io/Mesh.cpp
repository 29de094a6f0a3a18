// SPDX-License-Identifier: MIT
#include "flexuq/io/Mesh.hpp"

#include "flexuq/core/Error.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace flexuq::io {

int nodes_per_element(ElementType t) {
  switch (t) {
  case ElementType::tet4: return 4;
  case ElementType::tet10: return 10;
  case ElementType::hex8: return 8;
  case ElementType::hex20: return 20;
  case ElementType::beam2: return 2;
  case ElementType::penta6: return 6;
  case ElementType::penta15: return 15;
  case ElementType::shell4: return 4;
  case ElementType::shell3: return 3;
  case ElementType::quad4: return 4;
  case ElementType::quad8: return 8;
  case ElementType::tri3: return 3;
  case ElementType::tri6: return 6;
  case ElementType::bar2: return 2;
  }
  return 0;
}

bool is_solid(ElementType t) {
  return t != ElementType::beam2 && t != ElementType::bar2 && !is_shell(t) && !is_plane(t);
}
bool is_shell(ElementType t) { return t == ElementType::shell4 || t == ElementType::shell3; }
bool is_plane(ElementType t) {
  return t == ElementType::quad4 || t == ElementType::quad8 || t == ElementType::tri3 || t == ElementType::tri6;
}

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

void BeamSection::compute_properties(const SourceLocation& where) {
  const std::string s = upper(shape);
  auto need = [&](std::size_t n) {
    FLEXUQ_REQUIRE(dims.size() >= n, where.str() << ": beam section " << s << " needs " << n << " dimensions, got "
                                                 << dims.size());
  };
  if (s == "RECT") {
    need(2);
    const double a = dims[0], b = dims[1];
    FLEXUQ_REQUIRE(a > 0 && b > 0, where.str() << ": RECT beam section dimensions must be positive");
    A = a * b;
    I11 = a * b * b * b / 12.0; // about axis 1: ∫ x2² dA, x2 spans b
    I22 = b * a * a * a / 12.0;
    I12 = 0;
    // Saint-Venant torsion constant of a rectangle (long side p, short side q), series approximation
    // J ≈ p q³ (1/3 − 0.21 (q/p)(1 − q⁴/(12 p⁴))): 0.1406 a⁴ for a square, error < 0.5 %.
    const double p = std::max(a, b), q = std::min(a, b);
    J = p * q * q * q * (1.0 / 3.0 - 0.21 * (q / p) * (1.0 - std::pow(q / p, 4) / 12.0));
  } else if (s == "CIRC") {
    need(1);
    const double r = dims[0];
    FLEXUQ_REQUIRE(r > 0, where.str() << ": CIRC beam section radius must be positive");
    A = M_PI * r * r;
    I11 = I22 = M_PI * std::pow(r, 4) / 4.0;
    I12 = 0;
    J = M_PI * std::pow(r, 4) / 2.0;
  } else if (s == "GENERAL") {
    need(5);
    A = dims[0];
    I11 = dims[1];
    I12 = dims[2];
    I22 = dims[3];
    J = dims[4];
    FLEXUQ_REQUIRE(A > 0 && I11 > 0 && I22 > 0 && J > 0,
                   where.str() << ": GENERAL beam section needs positive A, I11, I22 and J");
    FLEXUQ_REQUIRE(std::abs(I12) < 1e-12 * std::max(I11, I22),
                   where.str() << ": GENERAL beam section with I12 != 0 (non-principal axes) is not supported; "
                                  "give the section in its principal axes");
  } else if (s == "ROD") { // Nastran PROD: axial (A) and torsion (J ≥ 0) only, no bending
    need(2);
    A = dims[0];
    J = dims[1];
    I11 = I22 = I12 = 0;
    FLEXUQ_REQUIRE(A > 0 && J >= 0, where.str() << ": ROD section needs A > 0 and J >= 0");
  } else {
    throw InputError(where.str() + ": unsupported beam section shape '" + shape + "' (RECT, CIRC or GENERAL)");
  }
}

void ShellSection::validate(const SourceLocation& where) const {
  FLEXUQ_REQUIRE(std::isfinite(thickness) && thickness > 0,
                 where.str() << ": shell thickness must be positive, got " << thickness);
  FLEXUQ_REQUIRE(std::isfinite(bending_ratio) && bending_ratio > 0,
                 where.str() << ": shell bending stiffness ratio 12I/T^3 must be positive, got " << bending_ratio);
  FLEXUQ_REQUIRE(std::isfinite(shear_ratio) && shear_ratio > 0,
                 where.str() << ": shell transverse shear ratio TS/T must be positive, got " << shear_ratio);
  FLEXUQ_REQUIRE(std::isfinite(nsm) && nsm >= 0,
                 where.str() << ": shell nonstructural mass must not be negative, got " << nsm);
}

void PlaneSection::validate(const SourceLocation& where) const {
  FLEXUQ_REQUIRE(std::isfinite(thickness) && thickness > 0,
                 where.str() << ": the thickness of a plane " << (strain ? "strain" : "stress")
                             << " section must be positive, got " << thickness);
}

void Mesh::add_element(ElementType t, const std::vector<int>& nodes, long id) {
  elem_type.push_back(t);
  elem_nodes.insert(elem_nodes.end(), nodes.begin(), nodes.end());
  elem_offsets.push_back(static_cast<std::int64_t>(elem_nodes.size()));
  elem_ids.push_back(id);
}

namespace {
template <class Map>
const std::vector<int>& find_set(const Map& m, const std::string& name, const char* kind, const std::string& src) {
  auto it = m.find(upper(name));
  if (it != m.end()) return it->second;
  std::string known;
  for (const auto& [k, v] : m) known += (known.empty() ? "" : ", ") + k;
  throw InputError(std::string(kind) + " set '" + name + "' is not defined in " + src +
                   (known.empty() ? std::string(" (it defines none)") : " (known: " + known + ")"));
}
} // namespace

const std::vector<int>& Mesh::node_set(const std::string& name) const {
  return find_set(node_sets, name, "node", source);
}
const std::vector<int>& Mesh::element_set(const std::string& name) const {
  return find_set(element_sets, name, "element", source);
}

bool Mesh::is_2d() const {
  return planar || std::any_of(elem_type.begin(), elem_type.end(), [](ElementType t) { return is_plane(t); });
}

int Mesh::dofs_per_node() const {
  bool solid = false, beam = false, shell = false, plane = false;
  for (auto t : elem_type)
    if (t != ElementType::bar2) (is_solid(t) ? solid : is_shell(t) ? shell : is_plane(t) ? plane : beam) = true;
  if (plane || planar) {
    FLEXUQ_REQUIRE(!solid && !beam && !shell,
                   source << ": a 2-D mesh (quad4, quad8, tri3, tri6 elements or T2D2 bars: 2 DOFs per node) "
                             "cannot hold "
                          << (solid ? "solid" : beam ? "beam" : "shell") << " elements");
    return 2;
  }
  // Solids beside beams or shells (issue #37): every node carries 6 DOFs; fe::Component eliminates
  // the rotations of the nodes no beam or shell element touches (solids have none).
  return beam || shell ? 6 : 3;
}

void Mesh::validate() const {
  FLEXUQ_REQUIRE(!coords.empty(), source << ": the mesh has no nodes");
  FLEXUQ_REQUIRE(!elem_type.empty(), source << ": the mesh has no elements");
  const int n = static_cast<int>(coords.size());
  for (std::size_t e = 0; e < num_elements(); ++e) {
    FLEXUQ_REQUIRE(element_size(e) == nodes_per_element(elem_type[e]),
                   source << ": element " << elem_ids[e] << " has " << element_size(e) << " nodes, "
                          << element_name(elem_type[e]) << " needs " << nodes_per_element(elem_type[e]));
    for (int k = 0; k < element_size(e); ++k)
      FLEXUQ_REQUIRE(element(e)[k] >= 0 && element(e)[k] < n,
                     source << ": element " << elem_ids[e] << " references a missing node");
  }
  // Plain pairs, not structured bindings: FLEXUQ_REQUIRE's message lambda captures the name, which
  // C++17 does not allow for a binding (clang refuses it; the fuzz preset builds with clang).
  for (const auto& set : node_sets)
    for (int v : set.second)
      FLEXUQ_REQUIRE(v >= 0 && v < n, source << ": node set " << set.first << " references a missing node");
  for (const auto& set : element_sets)
    for (int v : set.second)
      FLEXUQ_REQUIRE(v >= 0 && v < static_cast<int>(num_elements()),
                     source << ": element set " << set.first << " references a missing element");
  if (is_2d()) {
    double scale = 0;
    for (const auto& x : coords) scale = std::max({scale, std::abs(x[0]), std::abs(x[1])});
    for (std::size_t v = 0; v < coords.size(); ++v)
      FLEXUQ_REQUIRE(std::abs(coords[v][2]) <= 1e-12 * scale,
                     source << ": node " << node_ids[v] << " has z = " << coords[v][2]
                            << "; a 2-D mesh (2 DOFs per node) lies in the x-y plane (z = 0)");
    FLEXUQ_REQUIRE(springs.empty() && scalar_masses.empty(), source << ": springs and scalar masses are not supported in a 2-D mesh");
  }
  if (springs.empty() && point_masses.empty() && scalar_masses.empty()) return;
  const int dpn = dofs_per_node();
  for (const auto* list : {&springs, &scalar_masses}) {
    const bool mass = list == &scalar_masses;
    for (const auto& s : *list) {
      const std::string what = s.where.str() + (mass ? ": scalar mass " : ": spring ") + std::to_string(s.id);
      FLEXUQ_REQUIRE(s.node_a >= 0 && s.node_a < n && s.node_b >= -1 && s.node_b < n, what << " references a missing node");
      FLEXUQ_REQUIRE(s.node_a != s.node_b || s.comp_a != s.comp_b, what << " connects a DOF to itself");
      for (int c : {s.comp_a, s.comp_b})
        FLEXUQ_REQUIRE(c >= 1 && c <= dpn, what << ": component " << c << " does not exist on this mesh ("
                                                << (dpn == 3 ? "solid elements: translations 1-3 only" : "components 1-6")
                                                << ")");
      if (mass)
        FLEXUQ_REQUIRE(std::isfinite(s.k) && s.k >= 0, what << ": mass must be a finite non-negative number, got " << s.k);
      else
        FLEXUQ_REQUIRE(std::isfinite(s.k), what << ": stiffness is not a finite number");
    }
  }
  for (const auto& m : point_masses) {
    const std::string what = m.where.str() + ": concentrated mass " + std::to_string(m.id);
    FLEXUQ_REQUIRE(m.node >= 0 && m.node < n, what << " references a missing node");
    FLEXUQ_REQUIRE(std::isfinite(m.m) && m.m >= 0, what << ": mass must be a finite non-negative number, got " << m.m);
  }
}

} // namespace flexuq::io
