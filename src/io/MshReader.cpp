// SPDX-License-Identifier: MIT
#include "flexuq/io/MshReader.hpp"

#include "TextScan.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/io/Limits.hpp"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace flexuq::io {
namespace {

using detail::LabelIndex;
using detail::LineCursor;
using detail::parse_double;
using detail::parse_long;
using detail::split_blanks;
using detail::trim;

struct GmshType {
  int dim = -1;
  int nodes = 0;
};

/// Dimension and node count of the gmsh element types a mesh may contain (gmsh manual, "MSH file
/// format", element types 1–31, 92, 93); dim −1 for an unknown type.
GmshType gmsh_type(long t) {
  switch (t) {
  case 15: return {0, 1};
  case 1: return {1, 2};
  case 8: return {1, 3};
  case 26: return {1, 4};
  case 27: return {1, 5};
  case 28: return {1, 6};
  case 2: return {2, 3};
  case 3: return {2, 4};
  case 9: return {2, 6};
  case 10: return {2, 9};
  case 16: return {2, 8};
  case 20: return {2, 9};
  case 21: return {2, 10};
  case 22: return {2, 12};
  case 23: return {2, 15};
  case 24: return {2, 15};
  case 25: return {2, 21};
  case 4: return {3, 4};
  case 5: return {3, 8};
  case 6: return {3, 6};
  case 7: return {3, 5};
  case 11: return {3, 10};
  case 12: return {3, 27};
  case 13: return {3, 18};
  case 14: return {3, 14};
  case 17: return {3, 20};
  case 18: return {3, 15};
  case 19: return {3, 13};
  case 29: return {3, 20};
  case 30: return {3, 35};
  case 31: return {3, 56};
  case 92: return {3, 64};
  case 93: return {3, 125};
  default: return {};
  }
}

// Node order gmsh → Abaqus/VTK: abaqus node k is gmsh node PERM[k].
// tet10: gmsh edges 01 12 20 30 32 31; Abaqus edges 01 12 20 03 13 23 → the last two swap.
constexpr int kTet10Perm[10] = {0, 1, 2, 3, 4, 5, 6, 7, 9, 8};
// hex20: gmsh edges 01 03 04 12 15 23 26 37 45 47 56 67 (nodes 8..19);
// Abaqus edges 01 12 23 30 45 56 67 74 04 15 26 37.
constexpr int kHex20Perm[20] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 11, 13, 9, 16, 18, 19, 17, 10, 12, 14, 15};

std::optional<ElementType> kept_solid(long t) {
  switch (t) {
  case 4: return ElementType::tet4;
  case 11: return ElementType::tet10;
  case 5: return ElementType::hex8;
  case 17: return ElementType::hex20;
  default: return std::nullopt;
  }
}

/// The 2-D types kept as shells (gmsh's corner order is the Abaqus S3/S4 order).
std::optional<ElementType> kept_shell(long t) {
  if (t == 2) return ElementType::shell3;
  if (t == 3) return ElementType::shell4;
  return std::nullopt;
}

/// The 2-D types kept as 2-D continuum elements (read_msh with plane): gmsh's node order (corners,
/// then the mid-sides of edges 1-2, 2-3, ...) is the Abaqus CPS3/CPS6/CPS4/CPS8 order.
std::optional<ElementType> kept_plane(long t) {
  if (t == 2) return ElementType::tri3;
  if (t == 9) return ElementType::tri6;
  if (t == 3) return ElementType::quad4;
  if (t == 16) return ElementType::quad8;
  return std::nullopt;
}

using DimTag = std::pair<int, long>;

class MshParser {
public:
  MshParser(const std::string& path, bool plane) : path_(path), plane_(plane) {
    std::string why;
    auto text = detail::load_text(path, &why);
    if (!text)
      throw InputError(why == "cannot be opened" ? "cannot open mesh file '" + path + "'" : "mesh file '" + path + "' " + why);
    text_ = std::move(*text);
    mesh_.source = path;
  }

  Mesh run() {
    LineCursor cur(text_);
    cur_ = &cur;
    std::string_view l;
    bool format = false;
    while (next(l)) {
      if (l == "$MeshFormat") {
        read_format();
        format = true;
        continue;
      }
      if (!format) fail(line_, "not a Gmsh mesh: expected $MeshFormat, found '" + std::string(l.substr(0, 40)) + "'");
      if (l == "$PhysicalNames") read_names();
      else if (l == "$Entities") read_entities();
      else if (l == "$Nodes") v4_ ? read_nodes4() : read_nodes2();
      else if (l == "$Elements") v4_ ? read_elements4() : read_elements2();
      else if (l == "$PartitionedEntities")
        fail(line_, "partitioned meshes are not supported; save the mesh unpartitioned");
      else if (l.front() == '$') skip_section(l);
      else fail(line_, "unexpected line '" + std::string(l.substr(0, 40)) + "' outside a section");
    }
    if (!format) throw InputError(path_ + ": not a Gmsh mesh (no $MeshFormat section)");
    build();
    return std::move(mesh_);
  }

private:
  [[noreturn]] void fail(long line, const std::string& msg) const {
    throw InputError(path_ + ":" + std::to_string(line) + ": " + msg);
  }

  /// Next non-blank line (trimmed); false at the end of the file.
  bool next(std::string_view& l) {
    while (cur_->next(l)) {
      l = trim(l);
      line_ = cur_->line_number();
      if (!l.empty()) return true;
    }
    return false;
  }
  /// Next line split into tok_, with at least @p min fields.
  void tokens(std::size_t min, const char* what) {
    std::string_view l;
    if (!next(l)) fail(line_, std::string("unexpected end of file in ") + what);
    split_blanks(l, tok_);
    if (tok_.size() < min)
      fail(line_, std::string("truncated line in ") + what + ": expected at least " + std::to_string(min) +
                      " fields, found " + std::to_string(tok_.size()));
  }
  /// A physical tag (gmsh writes negative tags for reversed orientation); LONG_MIN has no |·|.
  long physical_tag(std::size_t i) const {
    const long t = integer(i, "$Entities");
    if (t == LONG_MIN) fail(line_, "physical tag " + std::string(tok_[i]) + " out of range in $Entities");
    return t;
  }
  long integer(std::size_t i, const char* what) const {
    long v = 0;
    if (!parse_long(tok_[i], v)) fail(line_, "non-integer field '" + std::string(tok_[i]) + "' in " + what);
    return v;
  }
  double number(std::size_t i, const char* what) const {
    double v = 0;
    if (!parse_double(tok_[i], v)) fail(line_, "non-numeric field '" + std::string(tok_[i]) + "' in " + what);
    return v;
  }
  /// Header count tok_[i] of @p what, checked against what the rest of the file can hold: every
  /// record takes at least @p min_bytes (its shortest line, newline included).
  long count(std::size_t i, const char* what, std::size_t min_bytes) const {
    const long n = integer(i, what);
    limits::require_fits(n, cur_->remaining(), min_bytes, path_ + ":" + std::to_string(line_) + ": " + what);
    return n;
  }
  void expect_end(const char* end) {
    std::string_view l;
    if (!next(l)) fail(line_, std::string("unexpected end of file: missing ") + end);
    if (l != end) fail(line_, std::string("expected ") + end + ", found '" + std::string(l.substr(0, 40)) + "'");
  }
  void skip_section(std::string_view start) {
    const std::string end = "$End" + std::string(start.substr(1));
    const long first = line_;
    std::string_view l;
    while (next(l))
      if (l == end) return;
    fail(first, "section " + std::string(start) + " has no " + end);
  }

  void read_format() {
    tokens(3, "$MeshFormat");
    const std::string version(tok_[0]);
    if (version != "4.1" && version != "2.2")
      fail(line_, "unsupported Gmsh mesh format version " + version + " (supported: 4.1 and 2.2, ASCII)");
    if (tok_[1] != "0")
      fail(line_, "binary Gmsh mesh files are not supported; save as ASCII (gmsh option -bin off / Mesh.Binary = 0)");
    v4_ = version == "4.1";
    expect_end("$EndMeshFormat");
  }

  void read_names() {
    tokens(1, "$PhysicalNames");
    const long n = count(0, "$PhysicalNames", 8); // 1 1 "a"\n
    for (long i = 0; i < n; ++i) {
      std::string_view l;
      if (!next(l)) fail(line_, "unexpected end of file in $PhysicalNames");
      split_blanks(l, tok_);
      const auto q0 = l.find('"'), q1 = l.rfind('"');
      if (tok_.size() < 3 || q0 == std::string_view::npos || q1 == q0)
        fail(line_, "malformed $PhysicalNames line (expected: dim tag \"name\")");
      const int dim = static_cast<int>(integer(0, "$PhysicalNames"));
      names_[{dim, integer(1, "$PhysicalNames")}] = upper(std::string(l.substr(q0 + 1, q1 - q0 - 1)));
    }
    expect_end("$EndPhysicalNames");
  }

  void read_entities() {
    tokens(4, "$Entities");
    long count[4];
    for (int d = 0; d < 4; ++d) count[d] = this->count(static_cast<std::size_t>(d), "$Entities", 10); // 1 0 0 0 0\n
    for (int d = 0; d < 4; ++d)
      for (long i = 0; i < count[d]; ++i) {
        // point: tag x y z nphys phys...; others: tag minx miny minz maxx maxy maxz nphys phys... nbound ...
        const std::size_t at = d == 0 ? 4 : 7;
        tokens(at + 1, "$Entities");
        const long tag = integer(0, "$Entities");
        const long nphys = integer(at, "$Entities");
        if (nphys < 0 || tok_.size() < at + 1 + static_cast<std::size_t>(nphys))
          fail(line_, "truncated line in $Entities: physical tags missing");
        std::vector<long>& phys = entity_phys_[{d, tag}];
        for (long p = 0; p < nphys; ++p)
          phys.push_back(std::abs(physical_tag(at + 1 + static_cast<std::size_t>(p))));
      }
    expect_end("$EndEntities");
  }

  void add_node(long tag, std::size_t first_coord) {
    mesh_.node_ids.push_back(tag);
    mesh_.coords.push_back({number(first_coord, "$Nodes"), number(first_coord + 1, "$Nodes"),
                            number(first_coord + 2, "$Nodes")});
    node_line_.push_back(line_);
  }

  void read_nodes4() {
    tokens(4, "$Nodes");
    // Every node takes a tag line and a coordinate line ("1\n0 0 0\n"), a block a header line.
    const long blocks = count(0, "$Nodes (numEntityBlocks)", 8);
    mesh_.coords.reserve(static_cast<std::size_t>(count(1, "$Nodes (numNodes)", 8)));
    std::vector<long> tags;
    for (long b = 0; b < blocks; ++b) {
      tokens(4, "$Nodes block header");
      const long n = count(3, "$Nodes block header (numNodesInBlock)", 8);
      tags.clear();
      for (long i = 0; i < n; ++i) {
        tokens(1, "$Nodes (node tags)");
        tags.push_back(integer(0, "$Nodes (node tags)"));
      }
      for (long i = 0; i < n; ++i) {
        tokens(3, "$Nodes (coordinates)");
        add_node(tags[static_cast<std::size_t>(i)], 0);
      }
    }
    expect_end("$EndNodes");
  }

  void read_nodes2() {
    tokens(1, "$Nodes");
    const long n = count(0, "$Nodes (number of nodes)", 8); // 1 0 0 0\n
    mesh_.coords.reserve(static_cast<std::size_t>(n));
    for (long i = 0; i < n; ++i) {
      tokens(4, "$Nodes");
      add_node(integer(0, "$Nodes"), 1);
    }
    expect_end("$EndNodes");
  }

  /// Index into group_lists_ of the list of physical groups {(dim, p) : p in phys}.
  int group_list(int dim, const std::vector<long>& phys) {
    std::vector<int> ids;
    for (long p : phys) {
      const auto [it, fresh] = group_id_.try_emplace({dim, p}, static_cast<int>(groups_.size()));
      if (fresh) groups_.push_back({dim, p});
      ids.push_back(it->second);
    }
    group_lists_.push_back(std::move(ids));
    return static_cast<int>(group_lists_.size()) - 1;
  }

  /// Store one element whose tag is tok_[first - 1] and nodes tok_[first...].
  void add_raw(long type, long tag, std::size_t first, int groups) {
    const GmshType g = gmsh_type(type);
    if (g.dim < 0) fail(line_, "unknown gmsh element type " + std::to_string(type));
    if (tok_.size() != first + static_cast<std::size_t>(g.nodes))
      fail(line_, "element " + std::to_string(tag) + " of gmsh type " + std::to_string(type) + " needs " +
                      std::to_string(g.nodes) + " nodes, found " + std::to_string(tok_.size() - first));
    raw_type_.push_back(static_cast<int>(type));
    raw_tag_.push_back(tag);
    raw_line_.push_back(line_);
    raw_groups_.push_back(groups);
    for (std::size_t i = first; i < tok_.size(); ++i) raw_nodes_.push_back(integer(i, "$Elements (node tags)"));
    raw_off_.push_back(static_cast<std::int64_t>(raw_nodes_.size()));
  }

  void read_elements4() {
    tokens(4, "$Elements");
    const long blocks = count(0, "$Elements (numEntityBlocks)", 8);
    (void)count(1, "$Elements (numElements)", 4); // 1 1\n
    for (long b = 0; b < blocks; ++b) {
      tokens(4, "$Elements block header");
      const int dim = static_cast<int>(integer(0, "$Elements block header"));
      const long entity = integer(1, "$Elements block header");
      const long type = integer(2, "$Elements block header");
      const long n = count(3, "$Elements block header (numElementsInBlock)", 4);
      const auto ent = entity_phys_.find({dim, entity});
      const int groups = group_list(dim, ent == entity_phys_.end() ? std::vector<long>{} : ent->second);
      for (long i = 0; i < n; ++i) {
        tokens(2, "$Elements");
        add_raw(type, integer(0, "$Elements"), 1, groups);
      }
    }
    expect_end("$EndElements");
  }

  void read_elements2() {
    tokens(1, "$Elements");
    const long n = count(0, "$Elements (number of elements)", 8); // 1 15 0 1\n
    std::map<DimTag, int> cache; // (dim, physical tag) → group list
    for (long i = 0; i < n; ++i) {
      tokens(3, "$Elements");
      const long type = integer(1, "$Elements");
      const long ntags = integer(2, "$Elements");
      if (ntags < 0 || tok_.size() < 3 + static_cast<std::size_t>(ntags))
        fail(line_, "truncated line in $Elements: element tags missing");
      const long phys = ntags > 0 ? integer(3, "$Elements") : 0;
      const int dim = gmsh_type(type).dim;
      auto it = cache.find({dim, phys});
      if (it == cache.end())
        it = cache.emplace(DimTag{dim, phys}, group_list(dim, phys > 0 ? std::vector<long>{phys} : std::vector<long>{}))
                 .first;
      add_raw(type, integer(0, "$Elements"), 3 + static_cast<std::size_t>(ntags), it->second);
    }
    expect_end("$EndElements");
  }

  std::string group_name(std::size_t g) const {
    const auto [dim, tag] = groups_[g];
    const auto named = names_.find({dim, tag});
    if (named != names_.end()) return named->second;
    int dims_with_tag = 0;
    for (const auto& [d, t] : groups_)
      if (t == tag && !names_.count({d, t})) ++dims_with_tag;
    const std::string base = "PHYS_" + std::to_string(tag);
    return dims_with_tag > 1 ? base + "_DIM" + std::to_string(dim) : base;
  }

  void build() {
    if (static_cast<std::int64_t>(mesh_.node_ids.size()) > limits::max_mesh_entities ||
        static_cast<std::int64_t>(raw_type_.size()) > limits::max_mesh_entities)
      throw InputError(path_ + ": more than " + std::to_string(limits::max_mesh_entities) +
                       " nodes or elements; a mesh holds at most that many");
    LabelIndex nodes;
    const long dup = nodes.build(mesh_.node_ids);
    if (dup >= 0)
      fail(node_line_[static_cast<std::size_t>(dup)],
           "duplicate node tag " + std::to_string(mesh_.node_ids[static_cast<std::size_t>(dup)]));
    bool has3d = false, has2d = false;
    for (int t : raw_type_) {
      has3d = has3d || gmsh_type(t).dim == 3;
      has2d = has2d || gmsh_type(t).dim == 2;
    }
    // Solids if there are any, else shells (2-D elements; lines then only make sets), else beams.
    const int kept_dim = has3d ? 3 : has2d ? 2 : 1;
    if (plane_ && kept_dim != 2)
      throw InputError(path_ + ": model.plane asks for a 2-D component, but the mesh has " +
                       (has3d ? "3-D elements" : "no 2-D elements (triangles, quadrangles)"));

    std::vector<std::vector<int>> group_nodes(groups_.size()), group_elems(groups_.size());
    std::unordered_map<long, int> kept; // element tag → index (msh 2.2 repeats an element per physical group)
    std::vector<int> idx, perm;
    for (std::size_t e = 0; e < raw_type_.size(); ++e) {
      const int type = raw_type_[e];
      idx.clear();
      for (auto k = raw_off_[e]; k < raw_off_[e + 1]; ++k) {
        const long label = raw_nodes_[static_cast<std::size_t>(k)];
        const int v = nodes.find(label);
        if (v < 0)
          fail(raw_line_[e], "element " + std::to_string(raw_tag_[e]) + " references undefined node " +
                                 std::to_string(label));
        idx.push_back(v);
      }
      int elem = -1;
      if (gmsh_type(type).dim == kept_dim) {
        const auto solid = kept_solid(type), shell = kept_shell(type);
        if (has3d && !solid)
          fail(raw_line_[e], "unsupported 3-D element: gmsh type " + std::to_string(type) +
                                 " (supported: 4 tet4, 11 tet10, 5 hex8, 17 hex20; for 20-node hexahedra set "
                                 "Mesh.SecondOrderIncomplete = 1)");
        if (plane_ && !kept_plane(type))
          fail(raw_line_[e], "unsupported 2-D element: gmsh type " + std::to_string(type) +
                                 " (2-D continuum: 2 triangle, 9 6-node triangle, 3 quadrangle, 16 8-node "
                                 "quadrangle; for 8-node quadrangles set Mesh.SecondOrderIncomplete = 1)");
        if (kept_dim == 2 && !plane_ && !shell)
          fail(raw_line_[e], "unsupported 2-D element: gmsh type " + std::to_string(type) +
                                 " (shells: 2 triangle, 3 quadrangle; second-order shells are not supported)");
        if (kept_dim != 1 || type == 1) {
          const auto [it, fresh] = kept.try_emplace(raw_tag_[e], static_cast<int>(mesh_.num_elements()));
          elem = it->second;
          if (fresh)
            add_element(has3d ? *solid : kept_dim == 2 ? (plane_ ? *kept_plane(type) : *shell) : ElementType::beam2, idx,
                        raw_tag_[e]);
        }
      }
      for (int g : group_lists_[static_cast<std::size_t>(raw_groups_[e])]) {
        auto& gn = group_nodes[static_cast<std::size_t>(g)];
        gn.insert(gn.end(), idx.begin(), idx.end());
        if (elem >= 0) group_elems[static_cast<std::size_t>(g)].push_back(elem);
      }
    }
    if (mesh_.num_elements() == 0)
      throw InputError(path_ + ": no usable elements: the mesh has no 3-D elements (tet4, tet10, hex8, hex20), "
                               "no 2-D elements (triangles, quadrangles: shells) and no 2-node lines (beams)");
    for (std::size_t g = 0; g < groups_.size(); ++g) {
      const std::string name = group_name(g);
      auto& ns = mesh_.node_sets[name];
      ns.insert(ns.end(), group_nodes[g].begin(), group_nodes[g].end());
      if (groups_[g].first == kept_dim) {
        auto& es = mesh_.element_sets[name];
        es.insert(es.end(), group_elems[g].begin(), group_elems[g].end());
      }
    }
    detail::normalise_sets(mesh_);
    detail::warn_unused_nodes(mesh_);
    mesh_.validate();
  }

  void add_element(ElementType t, const std::vector<int>& gmsh_nodes, long tag) {
    const int* perm = t == ElementType::tet10 ? kTet10Perm : t == ElementType::hex20 ? kHex20Perm : nullptr;
    if (!perm) return mesh_.add_element(t, gmsh_nodes, tag);
    reordered_.resize(gmsh_nodes.size());
    for (std::size_t k = 0; k < gmsh_nodes.size(); ++k) reordered_[k] = gmsh_nodes[static_cast<std::size_t>(perm[k])];
    mesh_.add_element(t, reordered_, tag);
  }

  std::string path_;
  bool plane_ = false;
  std::string text_;
  LineCursor* cur_ = nullptr;
  long line_ = 0;
  bool v4_ = true;
  Mesh mesh_;
  std::vector<std::string_view> tok_;
  std::vector<long> node_line_;
  std::map<DimTag, std::string> names_;
  std::map<DimTag, std::vector<long>> entity_phys_;
  std::map<DimTag, int> group_id_;
  std::vector<DimTag> groups_;
  std::vector<std::vector<int>> group_lists_;
  std::vector<int> raw_type_, raw_groups_;
  std::vector<long> raw_line_;
  std::vector<long> raw_tag_, raw_nodes_;
  std::vector<std::int64_t> raw_off_{0};
  std::vector<int> reordered_;
};

} // namespace

Mesh read_msh(const std::string& path, bool plane) { return MshParser(path, plane).run(); }

} // namespace flexuq::io
