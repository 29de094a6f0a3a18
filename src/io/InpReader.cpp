// SPDX-License-Identifier: MIT
#include "flexuq/io/InpReader.hpp"

#include "TextScan.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/io/Limits.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace flexuq::io {
namespace {

using detail::LabelIndex;
using detail::LineCursor;
using detail::parse_double;
using detail::parse_long;
using detail::split_on;
using detail::trim;

using detail::Loc;

/// A keyword line: "*SOLID SECTION, ELSET=A, MATERIAL=STEEL".
struct Keyword {
  std::string name; ///< upper-case, inner blanks collapsed: "*SOLID SECTION"
  std::vector<std::pair<std::string, std::string>> params; ///< upper-case key, value as written

  const std::string* get(const char* key) const {
    for (const auto& [k, v] : params)
      if (k == key) return &v;
    return nullptr;
  }
  bool has(const char* key) const { return get(key) != nullptr; }
};

Keyword parse_keyword(std::string_view text) {
  Keyword k;
  std::vector<std::string_view> parts;
  split_on(text, ',', parts);
  for (char c : parts[0]) {
    if (c == ' ' || c == '\t') {
      if (!k.name.empty() && k.name.back() != ' ') k.name += ' ';
    } else {
      k.name += c;
    }
  }
  while (!k.name.empty() && k.name.back() == ' ') k.name.pop_back();
  k.name = upper(k.name);
  for (std::size_t i = 1; i < parts.size(); ++i) {
    if (parts[i].empty()) continue;
    const std::size_t eq = parts[i].find('=');
    std::string key = upper(std::string(trim(parts[i].substr(0, eq))));
    std::string_view value = eq == std::string_view::npos ? std::string_view() : trim(parts[i].substr(eq + 1));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
    k.params.emplace_back(std::move(key), std::string(value));
  }
  return k;
}

std::optional<ElementType> abaqus_type(const std::string& t) {
  if (t == "C3D4") return ElementType::tet4;
  if (t == "C3D10") return ElementType::tet10;
  if (t == "C3D8") return ElementType::hex8;
  if (t == "C3D20" || t == "C3D20R") return ElementType::hex20;
  if (t == "B31") return ElementType::beam2;
  if (t == "C3D6") return ElementType::penta6;
  if (t == "C3D15") return ElementType::penta15;
  if (t == "S4" || t == "S4R") return ElementType::shell4; // both the MITC4 shell (fe/Shell.hpp)
  if (t == "S3" || t == "S3R") return ElementType::shell3;
  // 2-D continuum elements, plane stress (CPS) or plane strain (CPE): the reduced-integration
  // variants get the fully integrated element (a warning says so).
  if (t == "CPS4" || t == "CPS4R" || t == "CPE4" || t == "CPE4R") return ElementType::quad4;
  if (t == "CPS8" || t == "CPS8R" || t == "CPE8" || t == "CPE8R") return ElementType::quad8;
  if (t == "CPS3" || t == "CPE3") return ElementType::tri3;
  if (t == "CPS6" || t == "CPE6") return ElementType::tri6;
  if (t == "T2D2" || t == "T3D2") return ElementType::bar2;
  return std::nullopt;
}

/// The element types of the .inp reader, for messages.
constexpr const char* kInpTypes = "C3D4, C3D10, C3D6, C3D15, C3D8, C3D20, C3D20R, B31, S4, S4R, S3, S3R, CPS3, CPS4, "
                                  "CPS4R, CPS6, CPS8, CPS8R, CPE3, CPE4, CPE4R, CPE6, CPE8, CPE8R, T2D2, T3D2";

bool is_material_option(const std::string& kw) {
  static const std::set<std::string> opts = {"*ELASTIC",   "*DENSITY",        "*EXPANSION", "*CONDUCTIVITY",
                                             "*SPECIFIC HEAT", "*DAMPING",    "*PLASTIC",   "*HYPERELASTIC",
                                             "*USER MATERIAL", "*DEPVAR",     "*CREEP"};
  return opts.count(kw) > 0;
}

enum class Block { none, node, element, set, elastic, density, beam, shell, solid, boundary, ignored };

/// One *BOUNDARY data line: a node label or a node set, the components it fixes (bit c = component
/// c + 1); resolved once the whole deck is read.
struct BoundaryItem {
  std::string target; ///< the node label or set name as written (upper case)
  unsigned mask = 0;
  bool named = false; ///< a named type (ENCASTRE, XSYMM, …): components a node lacks are dropped
  Loc where;
};

/// Abaqus's named boundary types → components (bit c = component c + 1): ENCASTRE 1–6, PINNED 1–3,
/// XSYMM u1 = ur2 = ur3 = 0, YSYMM u2 = ur1 = ur3 = 0, ZSYMM u3 = ur1 = ur2 = 0, XASYMM u2 = u3 = ur1
/// = 0, YASYMM u1 = u3 = ur2 = 0, ZASYMM u1 = u2 = ur3 = 0. 0 for an unknown name.
unsigned boundary_type_mask(const std::string& t) {
  auto bits = [](std::initializer_list<int> cs) {
    unsigned m = 0;
    for (int c : cs) m |= 1u << (c - 1);
    return m;
  };
  if (t == "ENCASTRE") return bits({1, 2, 3, 4, 5, 6});
  if (t == "PINNED") return bits({1, 2, 3});
  if (t == "XSYMM") return bits({1, 5, 6});
  if (t == "YSYMM") return bits({2, 4, 6});
  if (t == "ZSYMM") return bits({3, 4, 5});
  if (t == "XASYMM") return bits({2, 3, 4});
  if (t == "YASYMM") return bits({1, 3, 5});
  if (t == "ZASYMM") return bits({1, 2, 6});
  return 0;
}

/// One member of a set definition; resolved once the whole deck is read (Abaqus allows any order).
struct SetItem {
  enum Kind : std::uint8_t { label, range, set_ref, index_range, elset_nodes };
  SetItem(Kind k, Loc w) : kind(k), where(w) {}
  Kind kind;
  long a = 0, b = 0, step = 0; ///< label a; range a..b by step; index range [a, b)
  int ref = -1;                ///< set_ref / elset_nodes: index into InpParser::ref_names_
  Loc where;
};

struct SetOp {
  bool node = true;
  std::string name;
  std::vector<SetItem> items;
};

class InpParser {
public:
  explicit InpParser(const std::string& path) : path_(path) { mesh_.source = path; }

  Mesh run() {
    read_file(path_, std::nullopt);
    end_block();
    finish();
    return std::move(mesh_);
  }

private:
  // ---- locations and errors --------------------------------------------------------------------
  std::string at(Loc l) const { return files_.at(l); }
  /// "line 40" in the main file, "sub.inp:12" in an included one.
  std::string short_at(Loc l) const { return l.file == 0 ? "line " + std::to_string(l.line) : at(l); }
  [[noreturn]] void fail(Loc l, const std::string& msg) const { throw InputError(at(l) + ": " + msg); }
  SourceLocation source_location(Loc l) const { return files_.source(l); }

  // ---- reading ---------------------------------------------------------------------------------
  void read_file(const std::string& path, std::optional<Loc> from) {
    auto [text, fid] = files_.push(path, from ? &*from : nullptr, "*INCLUDE");
    LineCursor cur(text.view());
    std::string_view line;
    std::string kw;
    while (cur.next(line)) {
      const Loc where{fid, cur.line_number()};
      const std::string_view t = trim(line);
      if (t.empty() || (t.size() >= 2 && t[0] == '*' && t[1] == '*')) continue;
      if (t[0] == '*') {
        kw.assign(t);
        std::string_view more;
        while (kw.back() == ',' && cur.next(more)) kw += trim(more); // continued parameter list
        keyword(kw, where);
      } else {
        data(t, where);
      }
    }
    files_.pop();
  }

  std::string required(const Keyword& k, const char* key, Loc where) const {
    const std::string* v = k.get(key);
    if (!v || v->empty()) fail(where, k.name + " needs the parameter " + key + "=");
    return *v;
  }

  /// Read INPUT= of the keyword at @p where, relative to that file's folder.
  void include(const Keyword& k, Loc where) {
    read_file(files_.resolve(required(k, "INPUT", where), where), where);
  }

  void keyword(const std::string& text, Loc where) {
    const Keyword k = parse_keyword(text);
    const std::string& n = k.name;
    if (n == "*INCLUDE") return include(k, where); // the included text stands in place of this line
    end_block();
    block_loc_ = where;
    block_kw_ = n;
    if (!is_material_option(n)) material_.clear();

    if (n == "*NODE") {
      block_ = Block::node;
      block_start_ = static_cast<long>(mesh_.coords.size());
      open_index_set(k, "NSET", true, where);
    } else if (n == "*ELEMENT") {
      const std::string type = upper(required(k, "TYPE", where));
      const auto t = abaqus_type(type);
      if (!t) fail(where, "unsupported element TYPE=" + type + " (supported: " + kInpTypes + ")");
      if (type == "C3D20R" && !c3d20r_) c3d20r_ = where;
      if (type.size() > 4 && type.back() == 'R' && type.compare(0, 2, "CP") == 0 && !cp_reduced_) cp_reduced_ = where;
      strain_ = type.compare(0, 3, "CPE") == 0;
      if (type == "T2D2") mesh_.planar = true;
      block_ = Block::element;
      etype_ = *t;
      npe_ = nodes_per_element(*t);
      block_start_ = static_cast<long>(mesh_.elem_type.size());
      open_index_set(k, "ELSET", false, where);
    } else if (n == "*NSET" || n == "*ELSET") {
      const bool node = n == "*NSET";
      block_ = Block::set;
      generate_ = k.has("GENERATE");
      ops_.push_back({node, upper(required(k, node ? "NSET" : "ELSET", where)), {}});
      if (node && k.has("ELSET")) { // the nodes of an element set
        SetItem it(SetItem::elset_nodes, where);
        it.ref = ref_name(upper(required(k, "ELSET", where)));
        ops_.back().items.push_back(it);
      }
    } else if (n == "*MATERIAL") {
      material_ = upper(required(k, "NAME", where));
      const auto [it, fresh] = mesh_.materials.try_emplace(material_);
      if (!fresh) fail(where, "material " + material_ + " is defined twice (first at " + it->second.where.str() + ")");
      it->second.name = material_;
      it->second.where = source_location(where);
    } else if (n == "*ELASTIC" || n == "*DENSITY") {
      if (material_.empty()) fail(where, n + " outside a *MATERIAL definition");
      if (n == "*ELASTIC" && k.has("TYPE") && upper(*k.get("TYPE")) != "ISOTROPIC")
        fail(where, "*ELASTIC, TYPE=" + *k.get("TYPE") + " is not supported (only TYPE=ISOTROPIC)");
      block_ = n == "*ELASTIC" ? Block::elastic : Block::density;
    } else if (n == "*SOLID SECTION") {
      Section s;
      s.elset = upper(required(k, "ELSET", where));
      s.material = upper(required(k, "MATERIAL", where));
      s.where = source_location(where);
      mesh_.sections.push_back(std::move(s));
      // The data line: nothing for solids, the thickness of 2-D elements, the area of bars.
      solid_value_.resize(mesh_.sections.size());
      block_ = Block::solid;
    } else if (n == "*SHELL SECTION") {
      // *SHELL SECTION, ELSET=, MATERIAL= and a data line "thickness[, integration points]": a
      // homogeneous shell about its mid-surface (OFFSET = 0). Layers, nodal thicknesses and offsets are refused.
      for (const char* key : {"COMPOSITE", "NODAL THICKNESS", "SHELL THICKNESS", "LAYUP", "STACK DIRECTION"})
        if (k.has(key)) fail(where, std::string("*SHELL SECTION, ") + key + " is not supported (a homogeneous shell of one thickness only)");
      if (const std::string* off = k.get("OFFSET")) {
        double v = 0;
        if (!parse_double(*off, v) || v != 0.0)
          fail(where, "*SHELL SECTION, OFFSET=" + *off + " is not supported (the nodes must lie on the mid-surface)");
      }
      Section s;
      s.shell = true;
      s.elset = upper(required(k, "ELSET", where));
      s.material = upper(required(k, "MATERIAL", where));
      s.where = source_location(where);
      mesh_.sections.push_back(std::move(s));
      block_ = Block::shell;
    } else if (n == "*BOUNDARY") {
      // Zero-valued supports: node set BOUNDARY with its components (Mesh::set_components).
      if (const std::string* t = k.get("TYPE"); t && upper(*t) != "DISPLACEMENT")
        fail(where, "*BOUNDARY, TYPE=" + *t + " is not supported (zero displacements only)");
      for (const char* key : {"AMPLITUDE", "USER", "FIXED", "LOAD CASE", "SUBMODEL"})
        if (k.has(key)) fail(where, std::string("*BOUNDARY, ") + key + " is not supported (zero displacements only)");
      block_ = Block::boundary;
    } else if (n == "*SHELL GENERAL SECTION" || n == "*MEMBRANE SECTION") {
      fail(where, n + " is not supported (shells: *SHELL SECTION with a thickness)");
    } else if (n == "*BEAM SECTION" || n == "*BEAM GENERAL SECTION") {
      Section s;
      s.beam = true;
      s.elset = upper(required(k, "ELSET", where));
      const bool general = n == "*BEAM GENERAL SECTION";
      if (general) {
        const std::string shape = k.has("SECTION") ? upper(*k.get("SECTION")) : "GENERAL";
        if (shape != "GENERAL")
          fail(where, "*BEAM GENERAL SECTION, SECTION=" + shape + " is not supported (only SECTION=GENERAL)");
        s.beam_section.shape = shape;
        if (k.has("MATERIAL")) s.material = upper(*k.get("MATERIAL"));
        if (k.has("DENSITY") && !parse_double(*k.get("DENSITY"), general_rho_))
          fail(where, "DENSITY=" + *k.get("DENSITY") + " is not a number");
        general_has_rho_ = k.has("DENSITY");
      } else {
        s.beam_section.shape = upper(required(k, "SECTION", where));
        s.material = upper(required(k, "MATERIAL", where));
      }
      s.where = source_location(where);
      mesh_.sections.push_back(std::move(s));
      block_ = Block::beam;
      beam_general_ = general;
    } else {
      block_ = Block::ignored;
      if (ignored_seen_.insert(n).second) ignored_.push_back(n + " (" + short_at(where) + ")");
    }
    // Data lines kept in another file: *NODE, INPUT=nodes.inp (likewise *ELEMENT, *NSET, *ELSET).
    if ((block_ == Block::node || block_ == Block::element || block_ == Block::set) && k.has("INPUT"))
      include(k, where);
  }

  /// *NODE, NSET= / *ELEMENT, ELSET=: the block's entries join that set.
  void open_index_set(const Keyword& k, const char* key, bool node, Loc where) {
    index_set_op_ = -1;
    if (!k.has(key)) return;
    ops_.push_back({node, upper(required(k, key, where)), {}});
    index_set_op_ = static_cast<long>(ops_.size()) - 1;
  }

  int ref_name(const std::string& name) {
    ref_names_.push_back(name);
    return static_cast<int>(ref_names_.size()) - 1;
  }

  /// Split a data line into fields_; drop the empty field a trailing comma leaves.
  bool split_data(std::string_view line) {
    split_on(line, ',', fields_);
    const bool trailing = fields_.size() > 1 && fields_.back().empty();
    if (trailing) fields_.pop_back();
    return trailing;
  }

  double number(std::string_view f, Loc where, const char* what) const {
    double v = 0;
    if (!parse_double(f, v)) fail(where, "non-numeric field '" + std::string(f) + "' in " + what);
    return v;
  }
  long integer(std::string_view f, Loc where, const char* what) const {
    long v = 0;
    if (!parse_long(f, v)) fail(where, "non-integer field '" + std::string(f) + "' in " + what);
    return v;
  }
  void need_fields(std::size_t n, Loc where, const std::string& what) const {
    if (fields_.size() < n)
      fail(where, "truncated data line: " + what + " needs " + std::to_string(n) + " fields, found " +
                      std::to_string(fields_.size()));
  }

  void data(std::string_view line, Loc where) {
    const bool trailing = split_data(line);
    switch (block_) {
    case Block::none: fail(where, "data line before any keyword");
    case Block::ignored: return;
    case Block::node: {
      need_fields(3, where, "a *NODE line (label, x, y, z)");
      if (fields_.size() < 4 && !short_node_) short_node_ = where; // only a 2-D mesh may omit z
      mesh_.node_ids.push_back(integer(fields_[0], where, "*NODE data (node label)"));
      std::array<double, 3> x{};
      for (std::size_t d = 0; d < 3 && d + 1 < fields_.size(); ++d) {
        const auto f = fields_[d + 1];
        x[static_cast<std::size_t>(d)] = f.empty() ? 0.0 : number(f, where, "*NODE data (coordinate)");
      }
      mesh_.coords.push_back(x);
      node_loc_.push_back(where);
      return;
    }
    case Block::element: return element_data(trailing, where);
    case Block::set: return set_data(where);
    case Block::elastic: {
      if (block_lines_++ > 0)
        fail(where, "temperature-dependent *ELASTIC data (more than one data line) is not supported");
      need_fields(2, where, "*ELASTIC (E, nu)");
      Material& m = mesh_.materials[material_];
      m.E = number(fields_[0], where, "*ELASTIC data");
      m.nu = number(fields_[1], where, "*ELASTIC data");
      return;
    }
    case Block::density: {
      if (block_lines_++ > 0)
        fail(where, "temperature-dependent *DENSITY data (more than one data line) is not supported");
      need_fields(1, where, "*DENSITY");
      mesh_.materials[material_].rho = number(fields_[0], where, "*DENSITY data");
      return;
    }
    case Block::beam: return beam_data(where);
    case Block::boundary: return boundary_data(where);
    case Block::solid: {
      if (block_lines_++ > 0) fail(where, "too many data lines for *SOLID SECTION (one: thickness or area)");
      if (!fields_.empty() && !fields_[0].empty())
        solid_value_[mesh_.sections.size() - 1] = std::make_pair(number(fields_[0], where, "*SOLID SECTION data"), where);
      return;
    }
    case Block::shell: {
      if (block_lines_++ > 0) fail(where, "too many data lines for *SHELL SECTION (layers are not supported)");
      need_fields(1, where, "*SHELL SECTION (thickness)");
      mesh_.sections.back().shell_section.thickness = number(fields_[0], where, "*SHELL SECTION thickness");
      return;
    }
    }
  }

  void element_data(bool trailing, Loc where) {
    if (pending_.empty()) pending_loc_ = where;
    for (auto f : fields_) pending_.push_back(integer(f, where, "*ELEMENT data (labels)"));
    const std::size_t want = static_cast<std::size_t>(npe_) + 1;
    if (pending_.size() > want)
      fail(pending_loc_, "element " + std::to_string(pending_[0]) + " has " + std::to_string(pending_.size() - 1) +
                             " nodes, " + element_name(etype_) + " needs " + std::to_string(npe_));
    if (pending_.size() == want) {
      mesh_.elem_type.push_back(etype_);
      elem_strain_.push_back(strain_ ? 1 : 0);
      mesh_.elem_ids.push_back(pending_[0]);
      elem_labels_.insert(elem_labels_.end(), pending_.begin() + 1, pending_.end());
      mesh_.elem_offsets.push_back(static_cast<std::int64_t>(elem_labels_.size()));
      elem_loc_.push_back(pending_loc_);
      pending_.clear();
    } else if (!trailing && fields_.size() < 16) { // a line continues if it ends in ',' or is full (16 entries)
      incomplete_element();
    }
  }

  [[noreturn]] void incomplete_element() const {
    fail(pending_loc_, "truncated element data: element " + std::to_string(pending_[0]) + " lists " +
                           std::to_string(pending_.size() - 1) + " nodes, " + element_name(etype_) + " needs " +
                           std::to_string(npe_));
  }

  void set_data(Loc where) {
    SetOp& op = ops_.back();
    const char* what = op.node ? "*NSET data" : "*ELSET data";
    if (generate_) {
      if (fields_.size() < 2 || fields_.size() > 3)
        fail(where, std::string(what) + ", GENERATE needs start, end[, step]");
      SetItem it(SetItem::range, where);
      it.a = integer(fields_[0], where, what);
      it.b = integer(fields_[1], where, what);
      it.step = fields_.size() == 3 ? integer(fields_[2], where, what) : 1;
      if (it.step <= 0 || it.b < it.a)
        fail(where, std::string(what) + ", GENERATE: bad range " + std::to_string(it.a) + ", " +
                        std::to_string(it.b) + ", " + std::to_string(it.step) + " (need start <= end, step > 0)");
      op.items.push_back(it);
      return;
    }
    for (auto f : fields_) {
      if (f.empty()) continue;
      SetItem it(SetItem::label, where);
      if (!parse_long(f, it.a)) {
        it.kind = SetItem::set_ref;
        it.ref = ref_name(upper(std::string(f)));
      }
      op.items.push_back(it);
    }
  }

  /// "node or set, first[, last[, magnitude]]" or "node or set, TYPE".
  void boundary_data(Loc where) {
    need_fields(2, where, "a *BOUNDARY line (node or node set, first component[, last[, value]] or a type)");
    BoundaryItem b;
    b.where = where;
    b.target = upper(std::string(fields_[0]));
    const std::string second = upper(std::string(fields_[1]));
    long first = 0;
    if (!parse_long(fields_[1], first)) {
      b.mask = boundary_type_mask(second);
      if (b.mask == 0)
        fail(where, "*BOUNDARY: unknown type '" + std::string(fields_[1]) +
                        "' (ENCASTRE, PINNED, XSYMM, YSYMM, ZSYMM, XASYMM, YASYMM, ZASYMM, or first, last components)");
      if (fields_.size() > 2) fail(where, "*BOUNDARY: a line with type " + second + " takes no more fields");
      b.named = true;
    } else {
      long last = first;
      if (fields_.size() > 2 && !fields_[2].empty()) last = integer(fields_[2], where, "*BOUNDARY data (last component)");
      if (first < 1 || first > 6 || last < 1 || last > 6)
        fail(where, "*BOUNDARY: components " + std::to_string(first) + " to " + std::to_string(last) +
                        " are outside 1-6 (1-3 translations, 4-6 rotations)");
      if (last < first) fail(where, "*BOUNDARY: last component " + std::to_string(last) + " is below the first, " + std::to_string(first));
      if (fields_.size() > 3 && !fields_[3].empty() && number(fields_[3], where, "*BOUNDARY data (magnitude)") != 0.0)
        fail(where, "*BOUNDARY: a nonzero displacement (" + std::string(fields_[3]) + ") is not supported (zero displacements only)");
      if (fields_.size() > 4) fail(where, "*BOUNDARY: too many fields (node or set, first, last, magnitude)");
      for (long c = first; c <= last; ++c) b.mask |= 1u << (c - 1);
    }
    boundary_.push_back(std::move(b));
  }

  /// The *BOUNDARY lines → node set BOUNDARY and Mesh::set_components["BOUNDARY"]. Components a node
  /// does not have are an error naming the line, except those of a named type (Abaqus's meaning:
  /// XSYMM on a solid node fixes u1 only).
  void resolve_boundary() {
    if (boundary_.empty()) return;
    if (mesh_.node_sets.count("BOUNDARY"))
      fail(boundary_.front().where, "*BOUNDARY: the deck defines a node set named BOUNDARY, the name its supports are given");
    const int dpn = mesh_.dofs_per_node();
    const unsigned all = (1u << dpn) - 1u;
    auto& nodes = mesh_.node_sets["BOUNDARY"];
    auto& comps = mesh_.set_components["BOUNDARY"];
    const std::string kinds = dpn == 2 ? "a 2-D component's nodes have components 1-2"
                              : dpn == 3 ? "solid nodes have components 1-3"
                                         : "nodes have components 1-6";
    for (const BoundaryItem& b : boundary_) {
      std::vector<int> targets;
      long label = 0;
      if (parse_long(b.target, label)) {
        const int v = nodes_.find(label);
        if (v < 0) fail(b.where, "*BOUNDARY: node " + b.target + " is not defined");
        targets.push_back(v);
      } else {
        const auto it = mesh_.node_sets.find(b.target);
        if (it == mesh_.node_sets.end() || b.target == "BOUNDARY") fail(b.where, "*BOUNDARY: node set " + b.target + " is not defined");
        targets = it->second;
      }
      const unsigned m = b.mask & all;
      if (m != b.mask && !b.named)
        fail(b.where, "*BOUNDARY: a component above " + std::to_string(dpn) + " on " + b.target + " (" + kinds + ")");
      if (m == 0) fail(b.where, "*BOUNDARY: the type fixes no component of " + b.target + " (" + kinds + ")");
      for (int v : targets) {
        nodes.push_back(v);
        comps.emplace_back(v, m);
      }
    }
  }

  void beam_data(Loc where) {
    Section& s = mesh_.sections.back();
    BeamSection& b = s.beam_section;
    const int line = block_lines_++;
    if (line == 0) {
      need_fields(beam_general_ ? 5 : 1, where, block_kw_);
      b.dims.clear();
      for (auto f : fields_)
        if (!f.empty()) b.dims.push_back(number(f, where, "beam section dimensions"));
    } else if (line == 1) {
      need_fields(3, where, "the beam n1 direction line");
      for (std::size_t d = 0; d < 3; ++d) b.n1[d] = number(fields_[d], where, "beam n1 direction");
    } else if (line == 2 && beam_general_) {
      need_fields(2, where, "the *BEAM GENERAL SECTION material line (E, G)");
      general_E_ = number(fields_[0], where, "beam section E");
      general_G_ = number(fields_[1], where, "beam section G");
      general_has_EG_ = true;
    } else {
      fail(where, "too many data lines for " + block_kw_);
    }
  }

  void end_block() {
    if (block_ == Block::element && !pending_.empty()) incomplete_element();
    if ((block_ == Block::node || block_ == Block::element) && index_set_op_ >= 0) {
      SetItem it(SetItem::index_range, block_loc_);
      it.a = block_start_;
      it.b = block_ == Block::node ? static_cast<long>(mesh_.coords.size()) : static_cast<long>(mesh_.elem_type.size());
      ops_[static_cast<std::size_t>(index_set_op_)].items.push_back(it);
    }
    if ((block_ == Block::elastic || block_ == Block::density) && block_lines_ == 0)
      fail(block_loc_, block_kw_ + " has no data line");
    if (block_ == Block::beam) end_beam();
    if (block_ == Block::shell) {
      if (block_lines_ == 0) fail(block_loc_, "*SHELL SECTION has no data line (thickness)");
      mesh_.sections.back().shell_section.validate(mesh_.sections.back().where);
    }
    block_ = Block::none;
    block_lines_ = 0;
    index_set_op_ = -1;
  }

  void end_beam() {
    Section& s = mesh_.sections.back();
    if (block_lines_ == 0) fail(block_loc_, block_kw_ + " has no data line");
    s.beam_section.compute_properties(s.where);
    if (!beam_general_) return;
    if (general_has_EG_ && s.material.empty()) { // Abaqus style: the section carries E and G itself
      if (general_G_ <= 0) fail(block_loc_, "*BEAM GENERAL SECTION: G must be positive");
      s.material = "SECTION_" + s.elset;
      Material m;
      m.name = s.material;
      m.E = general_E_;
      m.nu = general_E_ / (2 * general_G_) - 1;
      if (general_has_rho_) m.rho = general_rho_;
      m.where = s.where;
      mesh_.materials[s.material] = m;
    }
    if (s.material.empty())
      fail(block_loc_, "*BEAM GENERAL SECTION needs MATERIAL= or a third data line with E, G");
    general_has_EG_ = general_has_rho_ = false;
  }

  // ---- resolution once everything is read ------------------------------------------------------
  std::size_t index_size(bool node) const { return node ? mesh_.node_ids.size() : mesh_.elem_ids.size(); }

  void finish() {
    // Nodes and elements are indexed with int (Mesh::elem_nodes, sets).
    if (static_cast<std::int64_t>(mesh_.node_ids.size()) > limits::max_mesh_entities)
      fail(node_loc_.back(), "more than " + std::to_string(limits::max_mesh_entities) + " nodes; a mesh holds at most that many");
    if (static_cast<std::int64_t>(mesh_.elem_ids.size()) > limits::max_mesh_entities)
      fail(elem_loc_.back(), "more than " + std::to_string(limits::max_mesh_entities) + " elements; a mesh holds at most that many");
    const long dup_node = nodes_.build(mesh_.node_ids);
    if (dup_node >= 0) {
      const auto first = nodes_.find(mesh_.node_ids[static_cast<std::size_t>(dup_node)]);
      fail(node_loc_[static_cast<std::size_t>(dup_node)],
           "duplicate node label " + std::to_string(mesh_.node_ids[static_cast<std::size_t>(dup_node)]) +
               " (first defined at " + at(node_loc_[static_cast<std::size_t>(first)]) + ")");
    }
    mesh_.elem_nodes.resize(elem_labels_.size());
    for (std::size_t e = 0; e < mesh_.num_elements(); ++e)
      for (auto k = mesh_.elem_offsets[e]; k < mesh_.elem_offsets[e + 1]; ++k) {
        const int v = nodes_.find(elem_labels_[static_cast<std::size_t>(k)]);
        if (v < 0)
          fail(elem_loc_[e], "element " + std::to_string(mesh_.elem_ids[e]) + " references undefined node " +
                                 std::to_string(elem_labels_[static_cast<std::size_t>(k)]));
        mesh_.elem_nodes[static_cast<std::size_t>(k)] = v;
      }
    const long dup_elem = elems_.build(mesh_.elem_ids);
    if (dup_elem >= 0)
      fail(elem_loc_[static_cast<std::size_t>(dup_elem)],
           "duplicate element label " + std::to_string(mesh_.elem_ids[static_cast<std::size_t>(dup_elem)]));

    for (const SetOp& op : ops_) apply(op);
    resolve_boundary();

    for (const Section& s : mesh_.sections) {
      if (!mesh_.element_sets.count(s.elset))
        throw InputError(s.where.str() + ": section refers to element set " + s.elset + ", which is not defined");
      if (!mesh_.materials.count(s.material))
        throw InputError(s.where.str() + ": section refers to material " + s.material + ", which is not defined");
    }
    for (std::size_t k = 0; k < mesh_.sections.size(); ++k) solid_section_kind(k);
    if (short_node_ && !mesh_.is_2d())
      fail(*short_node_, "truncated data line: a *NODE line (label, x, y, z) needs 4 fields, found 3 (only the "
                         "nodes of a 2-D mesh, CPS*/CPE*/T2D2 elements, may omit z)");
    if (!ignored_.empty()) {
      std::string w = "ignored keywords: ";
      for (std::size_t i = 0; i < ignored_.size(); ++i) w += (i ? ", " : "") + ignored_[i];
      mesh_.warnings.push_back(w);
    }
    if (c3d20r_)
      mesh_.warnings.push_back("C3D20R elements (first at " + at(*c3d20r_) +
                               ") are treated as C3D20 with full (27-point) integration");
    if (cp_reduced_)
      mesh_.warnings.push_back("reduced-integration 2-D elements (CPS4R, CPE8R, ...; first at " + at(*cp_reduced_) +
                               ") are treated as fully integrated (2x2 and 3x3 Gauss points)");
    detail::normalise_sets(mesh_);
    detail::warn_unused_nodes(mesh_);
    mesh_.validate();
  }

  /// A *SOLID SECTION on 2-D elements becomes a plane section (thickness from its data line,
  /// default 1; plane strain for CPE* elements, plane stress for CPS*), on bars a bar section
  /// (area from its data line, default 1). One section covers one kind of element.
  void solid_section_kind(std::size_t k) {
    Section& s = mesh_.sections[k];
    if (s.beam || s.shell) return;
    const auto& elems = mesh_.element_sets.at(s.elset);
    if (elems.empty()) return;
    const auto first = static_cast<std::size_t>(elems.front());
    const ElementType t0 = mesh_.elem_type[first];
    const bool plane = is_plane(t0), bar = t0 == ElementType::bar2;
    const auto kind = [](ElementType t) { return is_plane(t) ? 1 : t == ElementType::bar2 ? 2 : 0; };
    for (int e : elems) {
      const auto ue = static_cast<std::size_t>(e);
      if (kind(mesh_.elem_type[ue]) != kind(t0))
        throw InputError(s.where.str() + ": *SOLID SECTION covers element " + std::to_string(mesh_.elem_ids[first]) + " (" +
                         element_name(t0) + ") and element " + std::to_string(mesh_.elem_ids[ue]) + " (" +
                         element_name(mesh_.elem_type[ue]) + "); give solids, 2-D elements and bars sections of their own");
      if (plane && elem_strain_[ue] != elem_strain_[first])
        throw InputError(s.where.str() + ": *SOLID SECTION covers plane stress and plane strain elements (" +
                         std::to_string(mesh_.elem_ids[first]) + " and " + std::to_string(mesh_.elem_ids[ue]) +
                         "); give CPS* and CPE* elements sections of their own");
    }
    const auto& value = k < solid_value_.size() ? solid_value_[k] : std::nullopt;
    const double v = value ? value->first : 1.0;
    if (plane) {
      s.plane = true;
      s.plane_section.thickness = v;
      s.plane_section.strain = elem_strain_[first] != 0;
      if (!(std::isfinite(v) && v > 0))
        fail(value->second, "*SOLID SECTION of 2-D element set " + s.elset + " (element " +
                                std::to_string(mesh_.elem_ids[first]) + ", " + element_name(t0) +
                                "): the thickness must be positive, got " + std::string(fields_to_text(v)));
    } else if (bar) {
      s.bar = true;
      s.bar_area = v;
      if (!(std::isfinite(v) && v > 0))
        fail(value->second, "*SOLID SECTION of bar element set " + s.elset + " (element " +
                                std::to_string(mesh_.elem_ids[first]) + "): the cross-section area must be positive, got " +
                                std::string(fields_to_text(v)));
    }
  }
  static std::string fields_to_text(double v) {
    std::ostringstream os;
    os << v;
    return os.str();
  }

  void apply(const SetOp& op) {
    auto& sets = op.node ? mesh_.node_sets : mesh_.element_sets;
    const LabelIndex& index = op.node ? nodes_ : elems_;
    const char* kind = op.node ? "node" : "element";
    std::vector<int> add; // built apart: a set may name itself
    unsigned long skipped = 0;
    // Sets that name themselves or overlapping ranges repeat members; keep the lists within a few
    // times the mesh so that no sequence of set lines can grow them without bound.
    const std::size_t bound = 2 * index_size(op.node) + 1024;
    auto compact = [bound](std::vector<int>& v) {
      if (v.size() <= bound) return;
      std::sort(v.begin(), v.end());
      v.erase(std::unique(v.begin(), v.end()), v.end());
    };
    for (const SetItem& it : op.items) {
      switch (it.kind) {
      case SetItem::label: {
        const int v = index.find(it.a);
        if (v < 0)
          fail(it.where, std::string(kind) + " set " + op.name + ": " + kind + " " + std::to_string(it.a) +
                             " is not defined");
        add.push_back(v);
        break;
      }
      case SetItem::range: {
        // start + k*step for k = 0 .. count-1, counted unsigned (end − start may exceed LONG_MAX).
        // A range longer than the labels defined is matched label by label instead, so
        // `1, 9223372036854775807` costs one pass over the labels, not 2^63 lookups.
        const unsigned long steps =
            (static_cast<unsigned long>(it.b) - static_cast<unsigned long>(it.a)) / static_cast<unsigned long>(it.step);
        const unsigned long count = steps == ULONG_MAX ? steps : steps + 1; // saturates for LONG_MIN..LONG_MAX
        const std::vector<long>& labels = op.node ? mesh_.node_ids : mesh_.elem_ids;
        unsigned long found = 0;
        if (count > labels.size()) {
          std::vector<int> hits;
          for (std::size_t i = 0; i < labels.size(); ++i) {
            const long l = labels[i];
            if (l >= it.a && l <= it.b &&
                (static_cast<unsigned long>(l) - static_cast<unsigned long>(it.a)) % static_cast<unsigned long>(it.step) == 0)
              hits.push_back(static_cast<int>(i));
          }
          found = hits.size();
          add.insert(add.end(), hits.begin(), hits.end());
        } else {
          for (unsigned long k = 0; k < count; ++k) {
            const int v = index.find(static_cast<long>(static_cast<unsigned long>(it.a) + k * static_cast<unsigned long>(it.step)));
            if (v >= 0) {
              add.push_back(v);
              ++found;
            }
          }
        }
        skipped += count - found;
        break;
      }
      case SetItem::index_range:
        for (long v = it.a; v < it.b; ++v) add.push_back(static_cast<int>(v));
        break;
      case SetItem::set_ref: {
        const std::string& name = ref_names_[static_cast<std::size_t>(it.ref)];
        const auto found = sets.find(name);
        if (found == sets.end())
          fail(it.where, std::string(kind) + " set " + op.name + ": member '" + name + "' is neither a " + kind +
                             " label nor a previously defined " + kind + " set");
        add.insert(add.end(), found->second.begin(), found->second.end());
        compact(add);
        break;
      }
      case SetItem::elset_nodes: {
        const std::string& name = ref_names_[static_cast<std::size_t>(it.ref)];
        const auto found = mesh_.element_sets.find(name);
        if (found == mesh_.element_sets.end())
          fail(it.where, "node set " + op.name + ": ELSET=" + name + " is not a previously defined element set");
        for (int e : found->second)
          add.insert(add.end(), mesh_.element(static_cast<std::size_t>(e)),
                     mesh_.element(static_cast<std::size_t>(e)) + mesh_.element_size(static_cast<std::size_t>(e)));
        compact(add);
        break;
      }
      }
    }
    auto& target = sets[op.name];
    target.insert(target.end(), add.begin(), add.end());
    compact(target);
    if (skipped > 0)
      mesh_.warnings.push_back(std::string(kind) + " set " + op.name + ": GENERATE skipped " +
                               std::to_string(skipped) + " labels that are not defined");
  }

  // ---- state -----------------------------------------------------------------------------------
  std::string path_;
  Mesh mesh_;
  detail::IncludeStack files_; ///< files read (Loc::file) and the include chain
  Block block_ = Block::none;
  std::string block_kw_;
  Loc block_loc_;
  int block_lines_ = 0;
  long block_start_ = 0;
  long index_set_op_ = -1;
  ElementType etype_ = ElementType::tet4;
  int npe_ = 0;
  std::vector<long> pending_; ///< element label + node labels gathered so far (continuation lines)
  Loc pending_loc_;
  bool generate_ = false;
  std::string material_; ///< current *MATERIAL, empty outside one
  bool beam_general_ = false, general_has_EG_ = false, general_has_rho_ = false;
  double general_E_ = 0, general_G_ = 0, general_rho_ = 0;
  std::vector<std::string_view> fields_;
  std::vector<long> elem_labels_; ///< node labels of all elements, CSR like Mesh::elem_nodes
  std::vector<Loc> node_loc_, elem_loc_;
  std::vector<SetOp> ops_;
  std::vector<BoundaryItem> boundary_;
  std::vector<std::string> ref_names_;
  LabelIndex nodes_, elems_;
  std::set<std::string> ignored_seen_;
  std::vector<std::string> ignored_;
  std::optional<Loc> c3d20r_, cp_reduced_, short_node_;
  bool strain_ = false;            ///< the current *ELEMENT block is plane strain (CPE*)
  std::vector<char> elem_strain_;  ///< per element: CPE* (plane strain)
  std::vector<std::optional<std::pair<double, Loc>>> solid_value_; ///< per section: its *SOLID SECTION data value
};

} // namespace

Mesh read_inp(const std::string& path) { return InpParser(path).run(); }

} // namespace flexuq::io
