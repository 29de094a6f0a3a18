// SPDX-License-Identifier: MIT
#include "flexuq/core/Error.hpp"
#include "flexuq/config/Config.hpp"
#include "flexuq/config/ConfigCounts.hpp"
#include "flexuq/io/InputFile.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <sys/stat.h>

#include <climits>
#include <fstream>
#include <map>
#include <sstream>

namespace flexuq::io {

namespace {
std::vector<std::string> split_key(const std::string& key) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : key) {
    if (c == '.') {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  parts.push_back(cur);
  return parts;
}

void apply_override(YAML::Node& root, const std::string& kv, const std::string& source) {
  const auto eq = kv.find('=');
  FLEXUQ_REQUIRE(eq != std::string::npos && eq > 0, "--set expects key=value, got '" << kv << "'");
  const std::string key = kv.substr(0, eq);
  YAML::Node value;
  try {
    value = YAML::Load(kv.substr(eq + 1));
  } catch (const YAML::Exception& e) {
    throw InputError("--set " + kv + ": value is not valid YAML: " + e.msg);
  }
  const auto parts = split_key(key);
  // Walk with fresh handles (yaml-cpp node assignment rebinds); rebuild the path from the root.
  std::vector<YAML::Node> chain{root};
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    YAML::Node child = chain.back()[parts[i]];
    if (!child.IsDefined() || child.IsNull()) {
      chain.back()[parts[i]] = YAML::Node(YAML::NodeType::Map);
      child = chain.back()[parts[i]];
    }
    FLEXUQ_REQUIRE(child.IsMap(), "--set " << kv << ": '" << parts[i] << "' in " << source << " is not a mapping");
    chain.push_back(child);
  }
  chain.back()[parts.back()] = value;
}

/// What yaml-cpp's Load accepts silently but a job file must not contain, found on the event
/// stream before the node tree is built: a key given twice in one mapping (yaml-cpp keeps the
/// first), a second document after `---` (Load ignores it), and aliases that expand to more nodes
/// than any job has (`a: &a [...]`, `b: &b [*a, *a, ...]` doubles per line: "billion laughs").
class StructureCheck : public YAML::EventHandler {
public:
  static constexpr double kMaxExpandedNodes = 1e7;

  explicit StructureCheck(const std::string& source) : source_(source) {}
  int documents() const { return documents_; }

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents_ > 1)
      throw InputError(source_ + ":" + std::to_string(mark.line + 1) +
                       ": a second YAML document (after '---'); a job file holds one document");
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { leaf(mark, anchor, nullptr); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    const auto it = sizes_.find(anchor);
    child_done(it == sizes_.end() ? 1.0 : it->second, nullptr, mark.line + 1);
  }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, const std::string& value) override {
    leaf(mark, anchor, &value);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    open(false, anchor, mark.line + 1);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    open(true, anchor, mark.line + 1);
  }
  void OnMapEnd() override { close(); }

private:
  struct Frame {
    bool map = false;
    YAML::anchor_t anchor = 0;
    int line = 0;
    double size = 1;           ///< nodes below and including this one, aliases expanded
    long long children = 0;    ///< events completed inside: in a map, even = key, odd = value
    std::string path;          ///< dotted key of this node ("modes", "reduce.interfaces[1]")
    std::string key;           ///< the last key read (map frames)
    std::map<std::string, int> lines; ///< key → line (map frames)
  };

  std::string child_path() const {
    if (stack_.empty()) return {};
    const Frame& f = stack_.back();
    if (!f.map) return f.path + "[" + std::to_string(f.children) + "]";
    return f.path.empty() ? f.key : f.path + "." + f.key;
  }
  void leaf(const YAML::Mark& mark, YAML::anchor_t anchor, const std::string* value) {
    if (anchor) sizes_[anchor] = 1;
    child_done(1, value, mark.line + 1);
  }
  void open(bool map, YAML::anchor_t anchor, int line) {
    Frame f;
    f.map = map;
    f.anchor = anchor;
    f.line = line;
    f.path = child_path();
    stack_.push_back(std::move(f));
  }
  void close() {
    Frame f = std::move(stack_.back());
    stack_.pop_back();
    if (f.anchor) sizes_[f.anchor] = f.size;
    child_done(f.size, nullptr, f.line);
  }
  /// A node of @p size expanded nodes, starting at @p line, ended; @p key: its text if a scalar.
  void child_done(double size, const std::string* key, int line) {
    if (stack_.empty()) return;
    Frame& f = stack_.back();
    f.size += size;
    if (f.size > kMaxExpandedNodes) // checked per node: the total is at most one alias past the limit
      throw InputError(source_ + ": the YAML aliases expand to more than " + std::to_string(long(kMaxExpandedNodes)) +
                       " nodes" + (f.path.empty() ? std::string() : " under '" + f.path + "'"));
    if (f.map && f.children % 2 == 0) { // a key: a name, as every reader of a job expects
      if (!key)
        throw InputError(source_ + ":" + std::to_string(line) + ": a key " + (f.path.empty() ? "" : "under '" + f.path + "' ") +
                         "is empty, a list, a mapping or an alias; keys are plain names");
      f.key = *key;
      const auto [it, fresh] = f.lines.try_emplace(*key, line);
      if (!fresh)
        throw InputError(source_ + ": duplicated key '" + (f.path.empty() ? *key : f.path + "." + *key) + "' (lines " +
                         std::to_string(it->second) + " and " + std::to_string(line) + ")");
    }
    ++f.children;
  }

  std::string source_;
  int documents_ = 0;
  std::vector<Frame> stack_;
  std::map<YAML::anchor_t, double> sizes_;
};

void check_structure(const std::string& yaml, const std::string& source) {
  std::istringstream in(yaml);
  YAML::Parser parser(in);
  StructureCheck check(source);
  while (parser.HandleNextDocument(check)) {
  }
}

/// "an integer in [1, 2147483647]" check of @p n at @p key; the message quotes the value as written.
long long integer_in(const YAML::Node& n, const std::string& source, const std::string& key, long long lo, long long hi,
                     const std::string& word = "") {
  long long v = 0;
  bool ok = n.IsScalar();
  if (ok) {
    try {
      v = n.as<long long>();
    } catch (const YAML::Exception&) {
      ok = false;
    }
  }
  if (!ok || v < lo || v > hi) {
    std::ostringstream os;
    os << source << ": " << key << " must be " << (word.empty() ? "" : word + " or ") << "an integer in [" << lo << ", "
       << hi << "], got ";
    if (n.IsScalar())
      os << shorten(n.Scalar());
    else
      os << "a " << (n.IsSequence() ? "list" : "mapping");
    if (n.Mark().line >= 0) os << " (line " << n.Mark().line + 1 << ")";
    throw InputError(os.str());
  }
  return v;
}

void collect_leaves(const YAML::Node& n, const std::string& prefix, std::vector<std::string>& out) {
  if (n.IsMap() && n.size() > 0) {
    for (const auto& kv : n) {
      const std::string k = kv.first.as<std::string>();
      collect_leaves(kv.second, prefix.empty() ? k : prefix + "." + k, out);
    }
  } else if (!prefix.empty()) {
    out.push_back(prefix);
  }
}
} // namespace

Config Config::from_string(const std::string& yaml, const std::string& source, const std::vector<std::string>& overrides) {
  Config c;
  c.source_ = source;
  try {
    check_structure(yaml, source);
    c.root_ = YAML::Load(yaml);
  } catch (const YAML::ParserException& e) {
    throw InputError(source + ":" + std::to_string(e.mark.line + 1) + ": YAML syntax error: " + e.msg);
  }
  if (c.root_.IsNull()) c.root_ = YAML::Node(YAML::NodeType::Map);
  FLEXUQ_REQUIRE(c.root_.IsMap(), source << ": a job file must be a YAML mapping at the top level");
  for (const auto& kv : overrides) {
    apply_override(c.root_, kv, source);
    c.overridden_.insert(kv.substr(0, kv.find('=')));
  }
  return c;
}

} // namespace flexuq::io

namespace flexuq::io::detail {
/// Tag of the one as_if specialisation below (a type of this project, so specialising yaml-cpp's
/// template for it is allowed).
struct MarkAccess {};
} // namespace flexuq::io::detail

/// yaml-cpp's Node befriends every as_if<T, S>: through this specialisation a node's file position
/// is set (detail::node::set_mark, the call yaml-cpp's own NodeBuilder makes while parsing).
namespace YAML {
template <> struct as_if<flexuq::io::detail::MarkAccess, flexuq::io::detail::MarkAccess> {
  static void set_mark(const Node& n, const Mark& mark) {
    if (n.m_isValid && n.m_pNode) n.m_pNode->set_mark(mark);
  }
};
} // namespace YAML

namespace flexuq::io {

namespace {
using MarkSetter = YAML::as_if<detail::MarkAccess, detail::MarkAccess>;

/// Give @p to, a YAML::Clone of @p from (same structure, same order: Clone emits the tree in
/// iteration order and yaml-cpp keeps a map's insertion order), every node's file position.
void copy_marks(const YAML::Node& from, const YAML::Node& to) {
  MarkSetter::set_mark(to, from.Mark());
  if (from.IsMap()) {
    auto t = to.begin();
    for (auto f = from.begin(); f != from.end() && t != to.end(); ++f, ++t) {
      copy_marks(f->first, t->first);
      copy_marks(f->second, t->second);
    }
  } else if (from.IsSequence()) {
    for (std::size_t i = 0; i < from.size() && i < to.size(); ++i) copy_marks(from[i], to[i]);
  }
}
} // namespace

Config Config::copy() const {
  Config c;
  c.source_ = source_;
  c.root_ = YAML::Clone(root_);
  copy_marks(root_, c.root_); // Clone drops the file lines; the messages of a copy name them too
  c.overridden_ = overridden_;
  return c;
}

Config Config::load(MPI_Comm comm, const std::string& path, const std::vector<std::string>& overrides) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string text;
  int ok = 1;
  std::string why = "cannot be opened";
  if (rank == 0) {
    auto t = read_text(path, &why); // refuses directories, devices and files beyond memory
    if (!t) ok = 0;
    else text = std::move(*t);
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
  if (!ok)
    throw InputError(why == "cannot be opened" ? "cannot open job file '" + path + "'" : "job file '" + path + "' " + why);
  long long n = static_cast<long long>(text.size());
  MPI_Bcast(&n, 1, MPI_LONG_LONG, 0, comm);
  FLEXUQ_REQUIRE(n <= INT_MAX, "job file '" << path << "' has " << n << " bytes; a job file is text of at most "
                                                << INT_MAX << " bytes (put large data in HDF5 or mesh files)");
  text.resize(static_cast<std::size_t>(n));
  if (n) MPI_Bcast(text.data(), static_cast<int>(n), MPI_CHAR, 0, comm);
  return from_string(text, path, overrides);
}

long long get_count(const Config& c, const std::string& key, long long lo, long long hi) {
  return integer_in(c.node(key), c.source(), key, lo, hi);
}

long long get_count(const Config& c, const std::string& key, long long lo, long long hi, long long fallback) {
  return c.has(key) ? get_count(c, key, lo, hi) : fallback;
}

std::optional<long long> get_count_or(const Config& c, const std::string& key, const std::string& word, long long lo,
                                      long long hi) {
  const YAML::Node n = c.node(key);
  if (n.IsScalar() && n.Scalar() == word) return std::nullopt;
  return integer_in(n, c.source(), key, lo, hi, word);
}

std::vector<long long> get_counts(const Config& c, const std::string& key, std::size_t n, long long lo, long long hi) {
  const YAML::Node list = c.node(key);
  FLEXUQ_REQUIRE(list.IsSequence() && list.size() == n,
                 c.source() << ": key '" << key << "' needs a list of " << n << " integers"
                            << (list.Mark().line >= 0 ? " (line " + std::to_string(list.Mark().line + 1) + ")" : std::string()));
  std::vector<long long> v;
  for (std::size_t i = 0; i < n; ++i) v.push_back(integer_in(list[i], c.source(), key + "[" + std::to_string(i) + "]", lo, hi));
  return v;
}

std::string Config::directory() const {
  const auto slash = source_.find_last_of('/');
  return slash == std::string::npos ? "." : source_.substr(0, slash);
}

std::string Config::resolve_path(const std::string& p) const {
  if (p.empty() || p[0] == '/') return p;
  // Relative paths are relative to the job file, so a job folder can be copied and run anywhere;
  // a path that exists relative to the working directory wins (users type paths from the shell).
  // (stat, not an open: opening a FIFO blocks until a writer comes)
  struct stat here {};
  if (::stat(p.c_str(), &here) == 0) return p;
  return directory() + "/" + p;
}

YAML::Node Config::lookup(const std::string& key) const {
  const auto parts = split_key(key);
  // yaml-cpp's operator[] on a const node does not insert; use const refs throughout.
  std::vector<YAML::Node> chain;
  chain.push_back(root_);
  for (const auto& p : parts) {
    const YAML::Node& parent = chain.back();
    if (!parent.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
    const YAML::Node child = static_cast<const YAML::Node&>(parent)[p];
    if (!child.IsDefined()) return YAML::Node(YAML::NodeType::Undefined);
    chain.push_back(child);
  }
  return chain.back();
}

bool Config::has(const std::string& key) const {
  const YAML::Node n = lookup(key);
  return n.IsDefined() && !n.IsNull();
}

YAML::Node Config::node(const std::string& key) const {
  YAML::Node n = lookup(key);
  FLEXUQ_REQUIRE(n.IsDefined() && !n.IsNull(), source_ << ": missing required key '" << key << "'");
  mark_used(key);
  return n;
}

std::optional<std::string> Config::first_present(const std::vector<std::string>& keys) const {
  for (const auto& k : keys)
    if (has(k)) return k;
  return std::nullopt;
}

void Config::mark_used(const std::string& key) const { used_.insert(key); }

void Config::check_all_used() const {
  std::vector<std::string> leaves;
  collect_leaves(root_, "", leaves);
  std::vector<std::string> unknown;
  for (const auto& leaf : leaves) {
    // Covered when the leaf or one of its dotted prefixes was used: a set lookup per prefix, not a
    // scan of every used key per leaf (quadratic: 10^5 parameters took minutes).
    bool covered = used_.count(leaf) > 0;
    for (std::size_t dot = leaf.find('.'); !covered && dot != std::string::npos; dot = leaf.find('.', dot + 1))
      covered = used_.count(leaf.substr(0, dot)) > 0;
    if (!covered) unknown.push_back(leaf);
  }
  if (unknown.empty()) return;
  std::string msg = source_ + ": unknown key";
  msg += unknown.size() > 1 ? "s " : " ";
  for (std::size_t i = 0; i < unknown.size(); ++i) {
    const YAML::Node n = lookup(unknown[i]);
    msg += (i ? ", '" : "'") + unknown[i] + "'";
    bool from_cli = false;
    for (const auto& o : overridden_)
      if (unknown[i] == o || unknown[i].rfind(o + ".", 0) == 0) from_cli = true;
    if (from_cli)
      msg += " (given with --set)";
    else if (n.IsDefined() && n.Mark().line >= 0)
      msg += " (line " + std::to_string(n.Mark().line + 1) + ")";
  }
  msg += " (see docs/config.md for the keys each command reads)";
  throw InputError(msg);
}

} // namespace flexuq::io
