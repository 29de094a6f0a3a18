// SPDX-License-Identifier: MIT
// Numbers of a job's YAML tree set by key path (issue #35 item 1), moved from app/JobParameters
// (issue #33's app bound): the paths checked against the job once, the numbers set per sample.
#include "flexuq/config/KeyPathEdits.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/io/InputFile.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

namespace flexuq::io {

// ---------------------------------------------------------------------------------------------
// Key paths of the simulate job
// ---------------------------------------------------------------------------------------------

namespace {

/// One step of a key path: a mapping key, or a list index (`.2` on a list, or `[2]`).
struct Part {
  std::string key;
  bool bracket = false; ///< written [n]: must be a list index
};

/// "joints[1].point.0" → joints, [1], point, 0. @throws InputError on an empty step or a bad bracket.
std::vector<Part> split_path(const std::string& path, const std::string& where) {
  auto bad = [&](const std::string& what) { return InputError(where + ": the key path '" + path + "' " + what); };
  std::vector<Part> parts;
  std::string cur;
  for (std::size_t i = 0; i < path.size(); ++i) {
    const char c = path[i];
    if (c == '.') {
      if (!cur.empty()) parts.push_back({cur, false});
      else if (i == 0 || path[i - 1] != ']') throw bad("has an empty step");
      cur.clear();
    } else if (c == '[') {
      if (!cur.empty()) parts.push_back({cur, false});
      else if (parts.empty()) throw bad("starts with an index");
      cur.clear();
      const auto close = path.find(']', i);
      const std::string digits = close == std::string::npos ? "" : path.substr(i + 1, close - i - 1);
      if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos)
        throw bad("has a bad index (write [0], [1], ...)");
      parts.push_back({digits, true});
      i = close;
      if (i + 1 < path.size() && path[i + 1] != '.' && path[i + 1] != '[') throw bad("needs a '.' after ']'");
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) parts.push_back({cur, false});
  else if (path.empty() || path.back() == '.') throw bad("has an empty step");
  return parts;
}

std::string join(const std::vector<Part>& parts, std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += (i ? "." : "") + parts[i].key;
  return s;
}

bool is_index(const std::string& s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos; }

/// The node of @p parts in @p root (const: nothing is inserted), or throws InputError (prefix
/// @p where) saying which step is missing and what is there instead.
YAML::Node find(const YAML::Node& root, const std::vector<Part>& parts, const std::string& where,
                const std::string& job) {
  YAML::Node n = root;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string here = i == 0 ? std::string("the top level") : "'" + join(parts, i) + "'";
    const Part& p = parts[i];
    if (n.IsSequence()) {
      if (!is_index(p.key))
        throw InputError(where + ": " + here + " of the simulate job " + job + " is a list: '" + p.key +
                         "' is not an index (0 … " + std::to_string(n.size() ? n.size() - 1 : 0) + ")");
      const std::size_t k = std::stoul(p.key.size() > 9 ? std::string("999999999") : p.key);
      if (k >= n.size())
        throw InputError(where + ": " + here + " of the simulate job " + job + " has " + std::to_string(n.size()) +
                         (n.size() == 1 ? " entry" : " entries") + ": no index " + p.key);
      const YAML::Node c = static_cast<const YAML::Node&>(n)[k];
      n.reset(c);
    } else if (n.IsMap()) {
      const YAML::Node c = static_cast<const YAML::Node&>(n)[p.key];
      if (p.bracket || !c.IsDefined()) {
        std::string keys;
        for (const auto& kv : n) keys += (keys.empty() ? "" : ", ") + kv.first.as<std::string>();
        throw InputError(where + ": the simulate job " + job + " has no key '" + join(parts, i + 1) + "' (" + here +
                         " has: " + keys + "; a number the job leaves out must be written in it to be set)");
      }
      n.reset(c);
    } else {
      throw InputError(where + ": " + here + " of the simulate job " + job + " is a single value: '" +
                       join(parts, parts.size()) + "' goes past it");
    }
  }
  const std::string path = "'" + join(parts, parts.size()) + "'";
  if (n.IsSequence())
    throw InputError(where + ": " + path + " of the simulate job " + job + " is a list of " + std::to_string(n.size()) +
                     " entries, not a number: name one entry (" + join(parts, parts.size()) +
                     ".0), or set several from one parameter with model.set");
  if (n.IsMap()) throw InputError(where + ": " + path + " of the simulate job " + job + " is a mapping, not a number");
  bool number = n.IsScalar();
  if (number) {
    try {
      number = std::isfinite(n.as<double>());
    } catch (const YAML::Exception&) {
      number = false;
    }
  }
  if (!number)
    throw InputError(where + ": " + path + " of the simulate job " + job + " is '" +
                     shorten(n.IsScalar() ? n.Scalar() : std::string("null")) + "', not a number" +
                     (n.Mark().line >= 0 ? " (line " + std::to_string(n.Mark().line + 1) + ")" : std::string()));
  return n;
}

std::string number_text(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

} // namespace

struct KeyPathEdits::Edit {
  std::string key;  ///< the campaign job's key, for messages
  std::string path; ///< as written
  std::vector<Part> parts;
  std::optional<std::size_t> parameter; ///< the value of this parameter, or
  std::optional<Expression> expression; ///< this expression of the parameters
};

KeyPathEdits::KeyPathEdits(const Config& cfg, const Config& job, std::vector<std::string> parameter_names)
    : names_(std::move(parameter_names)) {
  const auto& names = names_;
  std::map<std::string, std::string> seen; // normalised path → the key that set it
  auto add = [&](Edit e) {
    e.parts = split_path(e.path, cfg.source() + ": " + e.key);
    (void)find(job.root(), e.parts, cfg.source() + ": " + e.key, job.source());
    const std::string norm = join(e.parts, e.parts.size());
    const auto [it, fresh] = seen.emplace(norm, e.key);
    if (!fresh)
      throw InputError(cfg.source() + ": " + e.key + " and " + it->second + " both set '" + norm +
                       "' of the simulate job");
    edits_.push_back(std::make_shared<const Edit>(std::move(e)));
  };
  for (std::size_t k = 0; k < names_.size(); ++k) {
    const std::string& n = names_[k];
    if (n.find('.') == std::string::npos && n.find('[') == std::string::npos) continue;
    Edit e;
    e.key = "parameters." + n;
    e.path = n;
    e.parameter = k;
    add(std::move(e));
  }
  if (!cfg.has("model.set")) return;
  const YAML::Node set = cfg.node("model.set");
  if (!set.IsMap() || set.size() == 0)
    throw InputError(cfg.source() + ": model.set must map key paths of the simulate job to expressions of the "
                                    "parameters, e.g. {bodies.crank.position.0: \"l1*cos(pi/4)\"}");
  for (const auto& kv : set) {
    Edit e;
    e.path = kv.first.as<std::string>();
    e.key = "model.set." + e.path;
    if (!kv.second.IsScalar())
      throw InputError(cfg.source() + ": " + e.key + " must be an expression of the parameters (text or a number)");
    e.expression.emplace(kv.second.Scalar(), names, cfg.source() + ": " + e.key);
    add(std::move(e));
  }
}

std::vector<std::size_t> KeyPathEdits::parameters() const {
  std::set<std::size_t> used;
  for (const auto& e : edits_) {
    if (e->parameter) used.insert(*e->parameter);
    if (e->expression)
      for (std::size_t k : e->expression->variables()) used.insert(k);
  }
  return {used.begin(), used.end()};
}

void KeyPathEdits::apply(YAML::Node root, const std::vector<double>& theta) const {
  for (const auto& e : edits_) {
    const double v = e->parameter ? theta.at(*e->parameter) : (*e->expression)(theta);
    if (!std::isfinite(v)) {
      std::string at;
      for (std::size_t k = 0; k < names_.size() && k < theta.size(); ++k)
        at += (at.empty() ? "" : ", ") + names_[k] + " = " + number_text(theta[k]);
      throw InputError(e->key + " is " + number_text(v) + " at " + at + " (not a finite number)");
    }
    YAML::Node n = root;
    for (const auto& p : e->parts) {
      if (n.IsSequence()) n.reset(n[std::stoul(p.key)]);
      else n.reset(n[p.key]);
    }
    n = number_text(v);
  }
}

} // namespace flexuq::io
