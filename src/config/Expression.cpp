// SPDX-License-Identifier: MIT
// The expressions of a job file's `model.set` (issue #35 item 1), moved from app/JobParameters
// (issue #33's app bound): recursive descent to postfix code, evaluated per sample.
#include "flexuq/config/Expression.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/io/InputFile.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>

namespace flexuq::io {

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

} // namespace flexuq::io
