// SPDX-License-Identifier: MIT
// Campaign parameters that set numbers of the simulate job (issue #35 item 1): key paths into the
// job's YAML tree, the expressions of `model.set`, and the job parsed again per sample.
#include "flexuq/app/JobParameters.hpp"

#include "flexuq/app/SimulationOptions.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/io/InputFile.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <set>

namespace flexuq::app {

// ---------------------------------------------------------------------------------------------
// Expressions
// ---------------------------------------------------------------------------------------------

struct Expression::Op {
  enum class Kind { number, variable, negate, binary, call1, call2 } kind = Kind::number;
  double value = 0.0;
  std::size_t index = 0;
  char op = 0;
  double (*f1)(double) = nullptr;
  double (*f2)(double, double) = nullptr;
};

namespace {

using Op = Expression::Op;

double fabs_(double x) { return std::fabs(x); }
double fmin_(double a, double b) { return std::min(a, b); }
double fmax_(double a, double b) { return std::max(a, b); }

const std::map<std::string, double (*)(double)>& functions1() {
  static const std::map<std::string, double (*)(double)> f = {
      {"sqrt", [](double x) { return std::sqrt(x); }}, {"exp", [](double x) { return std::exp(x); }},
      {"log", [](double x) { return std::log(x); }},   {"sin", [](double x) { return std::sin(x); }},
      {"cos", [](double x) { return std::cos(x); }},   {"tan", [](double x) { return std::tan(x); }},
      {"asin", [](double x) { return std::asin(x); }}, {"acos", [](double x) { return std::acos(x); }},
      {"atan", [](double x) { return std::atan(x); }}, {"abs", fabs_}};
  return f;
}

const std::map<std::string, double (*)(double, double)>& functions2() {
  static const std::map<std::string, double (*)(double, double)> f = {
      {"atan2", [](double y, double x) { return std::atan2(y, x); }}, {"min", fmin_}, {"max", fmax_}};
  return f;
}

/// Recursive descent over the text, emitting postfix code.
class ExpressionParser {
public:
  ExpressionParser(const std::string& text, const std::vector<std::string>& names, const std::string& where,
                   std::vector<std::shared_ptr<const Op>>& out)
      : s_(text), names_(names), where_(where), out_(out) {}

  void parse() {
    skip();
    if (i_ == s_.size()) fail("is empty");
    sum();
    skip();
    if (i_ < s_.size()) fail(std::string("unexpected '") + s_[i_] + "'");
  }

private:
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(where_ + ": '" + io::shorten(s_) + "' " + what +
                     (i_ < s_.size() ? " at character " + std::to_string(i_ + 1) : std::string()));
  }
  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool take(char c) {
    skip();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  void emit(Op op) { out_.push_back(std::make_shared<const Op>(op)); }
  void binary(char c) {
    Op op;
    op.kind = Op::Kind::binary;
    op.op = c;
    emit(op);
  }
  /// One left-associative level: next (op next)*, op one of @p ops.
  void level(void (ExpressionParser::*next)(), const char* ops) {
    (this->*next)();
    for (;;) {
      skip();
      if (i_ == s_.size() || !std::strchr(ops, s_[i_])) return;
      const char c = s_[i_++];
      (this->*next)();
      binary(c);
    }
  }
  void sum() { level(&ExpressionParser::product, "+-"); }
  void product() { level(&ExpressionParser::unary, "*/"); }
  void unary() {
    if (take('-')) {
      unary();
      Op op;
      op.kind = Op::Kind::negate;
      emit(op);
    } else if (take('+')) {
      unary();
    } else {
      power();
    }
  }
  void power() {
    primary();
    if (take('^')) { // right-associative, binds tighter than a unary minus on its left: -a^2 = -(a^2)
      unary();
      binary('^');
    }
  }
  void primary() {
    skip();
    if (i_ == s_.size()) fail("ends early");
    const char c = s_[i_];
    if (c == '(') {
      ++i_;
      sum();
      if (!take(')')) fail("misses a ')'");
      return;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      const char* begin = s_.c_str() + i_;
      char* end = nullptr;
      Op op;
      op.value = std::strtod(begin, &end);
      if (end == begin) fail("has a malformed number");
      i_ += static_cast<std::size_t>(end - begin);
      emit(op);
      return;
    }
    if (!(std::isalpha(static_cast<unsigned char>(c)) || c == '_')) fail(std::string("has an unexpected '") + c + "'");
    std::size_t j = i_;
    while (j < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[j])) || s_[j] == '_')) ++j;
    const std::string name = s_.substr(i_, j - i_);
    const std::size_t at = i_;
    i_ = j;
    if (take('(')) {
      const auto f1 = functions1().find(name);
      const auto f2 = functions2().find(name);
      if (f1 == functions1().end() && f2 == functions2().end()) {
        i_ = at;
        fail("calls an unknown function '" + name +
             "' (sqrt, exp, log, sin, cos, tan, asin, acos, atan, atan2, abs, min, max)");
      }
      sum();
      Op op;
      if (f2 != functions2().end()) {
        if (!take(',')) fail("needs two arguments for " + name + "(a, b)");
        sum();
        op.kind = Op::Kind::call2;
        op.f2 = f2->second;
      } else {
        op.kind = Op::Kind::call1;
        op.f1 = f1->second;
      }
      if (!take(')')) fail("misses a ')' after the arguments of " + name);
      emit(op);
      return;
    }
    Op op;
    if (name == "pi") {
      op.value = M_PI;
    } else {
      const auto it = std::find(names_.begin(), names_.end(), name);
      if (it == names_.end()) {
        i_ = at;
        std::string list;
        for (const auto& n : names_) list += (list.empty() ? "" : ", ") + n;
        fail("names '" + name + "', which is not a campaign parameter (parameters: " + list + "; constant: pi)");
      }
      op.kind = Op::Kind::variable;
      op.index = static_cast<std::size_t>(it - names_.begin());
    }
    emit(op);
  }

  const std::string& s_;
  const std::vector<std::string>& names_;
  const std::string& where_;
  std::vector<std::shared_ptr<const Op>>& out_;
  std::size_t i_ = 0;
};

} // namespace

Expression::Expression(const std::string& text, const std::vector<std::string>& names, const std::string& where) {
  ExpressionParser(text, names, where, code_).parse();
}

double Expression::operator()(const std::vector<double>& values) const {
  std::vector<double> stack;
  for (const auto& op : code_) {
    switch (op->kind) {
    case Op::Kind::number: stack.push_back(op->value); break;
    case Op::Kind::variable: stack.push_back(values.at(op->index)); break;
    case Op::Kind::negate: stack.back() = -stack.back(); break;
    case Op::Kind::call1: stack.back() = op->f1(stack.back()); break;
    case Op::Kind::call2:
    case Op::Kind::binary: {
      const double b = stack.back();
      stack.pop_back();
      double& a = stack.back();
      if (op->kind == Op::Kind::call2) a = op->f2(a, b);
      else if (op->op == '+') a += b;
      else if (op->op == '-') a -= b;
      else if (op->op == '*') a *= b;
      else if (op->op == '/') a /= b;
      else a = std::pow(a, b);
      break;
    }
    }
  }
  return stack.back();
}

std::vector<std::size_t> Expression::variables() const {
  std::set<std::size_t> v;
  for (const auto& op : code_)
    if (op->kind == Op::Kind::variable) v.insert(op->index);
  return {v.begin(), v.end()};
}

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
                     io::shorten(n.IsScalar() ? n.Scalar() : std::string("null")) + "', not a number" +
                     (n.Mark().line >= 0 ? " (line " + std::to_string(n.Mark().line + 1) + ")" : std::string()));
  return n;
}

std::string number_text(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

} // namespace

struct JobEdits::Edit {
  std::string key;  ///< the campaign job's key, for messages
  std::string path; ///< as written
  std::vector<Part> parts;
  std::optional<std::size_t> parameter; ///< the value of this parameter, or
  std::optional<Expression> expression; ///< this expression of the parameters
};

JobEdits::JobEdits(const io::Config& cfg, const io::Config& job, const std::vector<campaign::ParameterSpec>& params) {
  for (const auto& p : params) names_.push_back(p.name);
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
  for (std::size_t k = 0; k < params.size(); ++k) {
    const std::string& n = params[k].name;
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

std::vector<std::size_t> JobEdits::parameters() const {
  std::set<std::size_t> used;
  for (const auto& e : edits_) {
    if (e->parameter) used.insert(*e->parameter);
    if (e->expression)
      for (std::size_t k : e->expression->variables()) used.insert(k);
  }
  return {used.begin(), used.end()};
}

void JobEdits::apply(YAML::Node root, const std::vector<double>& theta) const {
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

std::function<workflow::SimulationSpec(const std::vector<double>&)> job_at_sample(const std::string& path,
                                                                                JobEdits edits) {
  std::string why = "cannot be opened";
  auto text = io::read_text(path, &why);
  FLEXUQ_REQUIRE(text, "simulate job '" << path << "' " << why);
  auto shared_text = std::make_shared<const std::string>(std::move(*text));
  auto shared_edits = std::make_shared<const JobEdits>(std::move(edits));
  return [shared_text, shared_edits, path](const std::vector<double>& theta) {
    const io::Config c = io::Config::from_string(*shared_text, path);
    shared_edits->apply(c.root(), theta);
    auto spec = parse_simulation_job(c);
    c.mark_used("command");
    c.check_all_used();
    return spec;
  };
}

} // namespace flexuq::app
