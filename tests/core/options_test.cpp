// SPDX-License-Identifier: MIT
// core/EnumNames.hpp and core/Error.hpp's OptionError: what the libraries give the job-file parser (issue #33 item 2).
#include "flexuq/core/EnumNames.hpp"

#include <gtest/gtest.h>

namespace {

enum class Colour { red, green, blue };
constexpr flexuq::EnumNames<Colour, 4> kColours{
    {{{Colour::red, "red"}, {Colour::green, "green"}, {Colour::blue, "blue"}, {Colour::green, "verde"}}}};
static_assert(std::string_view(flexuq::enum_name(kColours, Colour::blue)) == "blue", "usable at compile time");

TEST(EnumNames, BothDirectionsAndAliases) {
  using flexuq::enum_name;
  using flexuq::parse_enum;
  EXPECT_STREQ(enum_name(kColours, Colour::red), "red");
  EXPECT_STREQ(enum_name(kColours, Colour::green), "green"); // the first entry of a value, not its alias
  EXPECT_EQ(parse_enum(kColours, "verde"), Colour::green);
  EXPECT_EQ(parse_enum(kColours, "blue"), Colour::blue);
  EXPECT_FALSE(parse_enum(kColours, "Blue").has_value()); // exact, case-sensitive
  EXPECT_FALSE(parse_enum(kColours, "").has_value());
  EXPECT_STREQ(enum_name(kColours, static_cast<Colour>(7)), "?");
  for (const auto& e : kColours.entries) EXPECT_EQ(parse_enum(kColours, e.name), e.value); // round trip
}

TEST(EnumNames, ChoicesForMessages) {
  EXPECT_EQ(flexuq::enum_choices(kColours), "red, green, blue or verde");
  EXPECT_EQ(flexuq::enum_choices(kColours, ", ", ", "), "red, green, blue, verde");
  constexpr flexuq::EnumNames<Colour, 1> one{{{{Colour::red, "red"}}}};
  EXPECT_EQ(flexuq::enum_choices(one), "red");
}

} // namespace

// core/Error.hpp's OptionError: a library names the option by its field, the parser renders the job key.
#include "flexuq/core/Error.hpp"
namespace {
TEST(OptionError, RendersTheFieldOrTheJobKey) {
  try {
    FLEXUQ_REQUIRE_OPTION(1 < 0, "checkout.free_free", "{} must be >= 0, got " << -3 << " ({} counts modes)");
    FAIL() << "nothing thrown";
  } catch (const flexuq::OptionError& e) {
    EXPECT_EQ(e.option(), "checkout.free_free");
    EXPECT_STREQ(e.what(), "checkout.free_free must be >= 0, got -3 (checkout.free_free counts modes)");
    EXPECT_EQ(e.message_for("reduce.checkout.free_free"),
              "reduce.checkout.free_free must be >= 0, got -3 (reduce.checkout.free_free counts modes)");
  }
  const flexuq::OptionError plain("x", "no placeholder {");
  EXPECT_STREQ(plain.what(), "no placeholder {");
  const flexuq::InputError& base = plain; // caught as InputError by code that predates it
  EXPECT_STREQ(base.what(), "no placeholder {");
}
} // namespace

// A second option of the same struct as {field}, rendered by the same mapping; context added by a caller
// (OptionError::wrapped, rethrow_input_error) keeps the option.
namespace {
std::string reduce_key(const std::string& field) { return "reduce." + field; }

TEST(OptionError, NamedFieldsAndContext) {
  const flexuq::OptionError e("residual_vectors", "{}: true needs {residual_loads} ({set: NAME} {1.5} {A})");
  EXPECT_STREQ(e.what(), "residual_vectors: true needs residual_loads ({set: NAME} {1.5} {A})");
  EXPECT_EQ(e.message_for(reduce_key),
            "reduce.residual_vectors: true needs reduce.residual_loads ({set: NAME} {1.5} {A})");
  EXPECT_EQ(e.message_for("R"), "R: true needs residual_loads ({set: NAME} {1.5} {A})");
  const flexuq::OptionError w = e.wrapped("job.yaml: body {b}: ", " [x]").wrapped("outer: ");
  EXPECT_EQ(w.option(), "residual_vectors");
  EXPECT_STREQ(w.what(), "outer: job.yaml: body {b}: residual_vectors: true needs residual_loads ({set: NAME} {1.5} {A}) [x]");
  EXPECT_EQ(w.message_for(reduce_key),
            "outer: job.yaml: body {b}: reduce.residual_vectors: true needs reduce.residual_loads ({set: NAME} {1.5} {A}) [x]");
  try {
    flexuq::rethrow_input_error(e, "f: ");
  } catch (const flexuq::OptionError& r) {
    EXPECT_EQ(r.message_for(reduce_key), "f: reduce.residual_vectors: true needs reduce.residual_loads ({set: NAME} {1.5} {A})");
  }
  try {
    flexuq::rethrow_input_error(flexuq::InputError("plain {}"), "f: ", "!");
  } catch (const flexuq::OptionError&) {
    FAIL() << "a plain InputError became an OptionError";
  } catch (const flexuq::InputError& r) {
    EXPECT_STREQ(r.what(), "f: plain {}!");
  }
}
} // namespace
