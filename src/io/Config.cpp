// SPDX-License-Identifier: MIT
#include "flexuq/core/Error.hpp"
#include "flexuq/io/Config.hpp"

#include <fstream>
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

Config Config::load(MPI_Comm comm, const std::string& path, const std::vector<std::string>& overrides) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string text;
  int ok = 1;
  if (rank == 0) {
    std::ifstream in(path);
    if (!in) {
      ok = 0;
    } else {
      std::ostringstream ss;
      ss << in.rdbuf();
      text = ss.str();
    }
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
  FLEXUQ_REQUIRE(ok, "cannot open job file '" << path << "'");
  long long n = static_cast<long long>(text.size());
  MPI_Bcast(&n, 1, MPI_LONG_LONG, 0, comm);
  text.resize(static_cast<std::size_t>(n));
  if (n) MPI_Bcast(text.data(), static_cast<int>(n), MPI_CHAR, 0, comm);
  return from_string(text, path, overrides);
}

std::string Config::directory() const {
  const auto slash = source_.find_last_of('/');
  return slash == std::string::npos ? "." : source_.substr(0, slash);
}

std::string Config::resolve_path(const std::string& p) const {
  if (p.empty() || p[0] == '/') return p;
  // Relative paths are relative to the job file, so a job folder can be copied and run anywhere;
  // a path that exists relative to the working directory wins (users type paths from the shell).
  std::ifstream here(p);
  if (here) return p;
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
    bool covered = false;
    for (const auto& u : used_)
      if (leaf == u || (leaf.size() > u.size() && leaf.compare(0, u.size(), u) == 0 && leaf[u.size()] == '.')) {
        covered = true;
        break;
      }
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
