// SPDX-License-Identifier: MIT
// The job file's names of library enums → the enums, through the libraries' name tables.
#include "flexuq/app/EnumOptions.hpp"

#include "flexuq/core/EnumNames.hpp"
#include "flexuq/core/Error.hpp"

#include <cctype>

namespace flexuq::app {

namespace {

/// The names of @p t without its aliases (an entry whose value an earlier entry names), joined for a
/// message: "a, b or c" by default.
template <class E, std::size_t N>
std::string primary_choices(const EnumNames<E, N>& t, const std::string& sep = ", ", const std::string& last = " or ") {
  std::vector<const char*> names;
  for (const auto& e : t.entries)
    if (enum_name(t, e.value) == e.name) names.push_back(e.name);
  std::string s;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) s += i + 1 == names.size() ? last : sep;
    s += names[i];
  }
  return s;
}

/// The value @p t names @p name, else InputError(@p message).
template <class E, std::size_t N> E parse_or_throw(const EnumNames<E, N>& t, const std::string& name, const std::string& message) {
  if (const auto v = parse_enum(t, name)) return *v;
  throw InputError(message);
}

} // namespace

log::Level parse_log_level(const std::string& name) {
  return parse_or_throw(log::kLevelNames, name,
                        "unknown log level '" + name + "' (expected " + primary_choices(log::kLevelNames) + ")");
}

cms::Method parse_reduce_method(const std::string& name) {
  return parse_or_throw(cms::kMethodNames, name,
                        "reduce.method: unknown method '" + name + "' (one of " +
                            primary_choices(cms::kMethodNames, ", ", ", ") + ")");
}

cms::Scaling parse_reduce_scaling(const std::string& name) {
  return parse_or_throw(cms::kScalingNames, name,
                        "reduce.scaling: unknown value '" + name + "' (" + primary_choices(cms::kScalingNames) + ")");
}

sg::Method parse_galerkin_solver(const std::string& name, const std::string& key) {
  return parse_or_throw(sg::kMethodNames, name,
                        key + ".solver: unknown value '" + name + "' (" +
                            primary_choices(sg::kMethodNames, " | ", " | ") + ")");
}

sg::Normalization parse_galerkin_normalization(const std::string& name, const std::string& key) {
  return parse_or_throw(sg::kNormalizationNames, name,
                        key + ".normalization: unknown value '" + name + "' (" +
                            primary_choices(sg::kNormalizationNames, " | ", " | ") + ")");
}

mbs::JointType parse_joint_type(const std::string& name) {
  return parse_or_throw(mbs::kJointTypeNames, name,
                        "unknown joint type '" + name + "' (" + primary_choices(mbs::kJointTypeNames, ", ", ", ") +
                            ", perpendicular = dot1)");
}

mbs::Scheme parse_solver_scheme(const std::string& name) {
  return parse_or_throw(mbs::kSchemeNames, name,
                        "unknown solver type '" + name + "' (" + primary_choices(mbs::kSchemeNames, ", ", ", ") + ")");
}

mbs::LinearAlgebra parse_linear_algebra(const std::string& name) {
  return parse_or_throw(mbs::kLinearAlgebraNames, name,
                        "must be " + primary_choices(mbs::kLinearAlgebraNames) + ", got '" + name + "'");
}

io::MatrixFormat parse_matrix_format(const std::string& name, const std::string& path) {
  std::string lower = name;
  for (auto& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return parse_or_throw(io::kMatrixFormatNames, lower,
                        path + ": unknown matrix format '" + name + "' (" + primary_choices(io::kMatrixFormatNames) + ")");
}

campaign::MethodType parse_method_type(const std::string& name) {
  return parse_or_throw(campaign::kMethodTypeNames, name,
                        "method.type '" + name + "' is not one of " + enum_choices(campaign::kMethodTypeNames, ", ", ", "));
}

uq::SamplingMethod parse_sampling(const std::string& name) {
  return parse_or_throw(campaign::kSamplingNames, name,
                        "sampling '" + name + "' is not one of " + enum_choices(campaign::kSamplingNames, ", ", ", "));
}

campaign::Grid parse_grid(const std::string& name, const std::string& key) {
  return parse_or_throw(campaign::kGridNames, name,
                        key + " must be " + enum_choices(campaign::kGridNames) + ", got '" + name + "'");
}

} // namespace flexuq::app
