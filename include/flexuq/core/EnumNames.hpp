// SPDX-License-Identifier: MIT
#pragma once
/// @file EnumNames.hpp
/// @brief One table per enum of the names users write (issue #33 item 2): the libraries declare the
/// table beside the enum and use `enum_name` in their messages; only the job-file parser (app) turns
/// a user's string into the enum, through `parse_enum`, and names the key in its message. This
/// replaces the parse_X / X_name pairs that each library kept (and the job keys they named).
///
/// A table is a `constexpr EnumNames<E, N>`:
/// @code
///   enum class Scaling { none, max, norm };
///   inline constexpr EnumNames<Scaling, 3> kScalingNames{{{Scaling::none, "none"}, {Scaling::max, "max"},
///                                                         {Scaling::norm, "norm"}}};
///   enum_name(kScalingNames, Scaling::max)                // "max"
///   parse_enum(kScalingNames, "norm")                     // std::optional<Scaling>{Scaling::norm}
///   enum_choices(kScalingNames)                           // "none, max or norm"
/// @endcode
/// Aliases (two names for one value) are allowed: enum_name returns the first entry of a value.

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace flexuq {

template <class E> struct EnumName {
  E value;
  const char* name;
};

template <class E, std::size_t N> struct EnumNames {
  std::array<EnumName<E>, N> entries;
};

/// The name of @p v (the first entry that has it); "?" for a value the table lacks.
template <class E, std::size_t N> constexpr const char* enum_name(const EnumNames<E, N>& t, E v) {
  for (const auto& e : t.entries)
    if (e.value == v) return e.name;
  return "?";
}

/// The value named @p s (exact, case-sensitive), or nullopt.
template <class E, std::size_t N> std::optional<E> parse_enum(const EnumNames<E, N>& t, std::string_view s) {
  for (const auto& e : t.entries)
    if (s == e.name) return e.value;
  return std::nullopt;
}

/// The names in table order joined for a message: "a, b or c" by default, "a, b, c" with
/// @p last = ", ". Aliases are listed like any name.
template <class E, std::size_t N>
std::string enum_choices(const EnumNames<E, N>& t, std::string_view sep = ", ", std::string_view last = " or ") {
  std::string s;
  for (std::size_t i = 0; i < N; ++i) {
    if (i > 0) s += i + 1 == N ? last : sep;
    s += t.entries[i].name;
  }
  return s;
}

} // namespace flexuq
