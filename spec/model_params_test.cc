// Tests of model spec parsing (spec/model_params.h): values of every kind, the canonical form and
// its round trip, and the errors.

#include "spec/model_params.h"

#include <gtest/gtest.h>

#include <random>

namespace linfault::spec {
namespace {

using history::Value;

TEST(ModelSpec, NameAlone) {
  const ModelSpec spec = parse_model_spec("cas-register");
  EXPECT_EQ(spec.name, "cas-register");
  EXPECT_TRUE(spec.params.empty());
  EXPECT_EQ(spec.canonical(), "cas-register");
  EXPECT_EQ(parse_model_spec("  stack ( ) ").canonical(), "stack");
}

TEST(ModelSpec, ValuesOfEveryKind) {
  const std::vector<std::pair<std::string, Value>> cases{
      {"nil", Value()},
      {"true", Value(true)},
      {"false", Value(false)},
      {"0", Value(0)},
      {"-12", Value(-12)},
      {"+7", Value(7)},
      {"9223372036854775807", Value(std::int64_t{9223372036854775807})},
      {":ok", Value(":ok")},
      {"abc", Value("abc")},
      {"1x", Value("1x")},
      {"\"a, b)\"", Value("a, b)")},
      {"\"q\\\"\\\\\\n\\u0041\"", Value("q\"\\\nA")},
      {"[1 :a \"b\" [nil]]", Value(Value::List{1, ":a", "b", Value::List{Value()}})},
      {"[]", Value(Value::List{})},
  };
  for (const auto& [text, expected] : cases) {
    EXPECT_EQ(parse_param_value(text), expected) << text;
    const ModelSpec spec = parse_model_spec("m(v=" + text + ", w = 1)");
    ASSERT_EQ(spec.params.entries().size(), 2u);
    EXPECT_EQ(spec.params.entries()[0].second, expected) << text;
    // The canonical form parses back to the same spec.
    EXPECT_EQ(parse_model_spec(spec.canonical()).params, spec.params) << spec.canonical();
  }
}

TEST(ModelSpec, CanonicalFormRoundTripsRandomStrings) {
  std::mt19937 rng(15);
  for (int round = 0; round < 2000; ++round) {
    std::string text;
    for (int i = static_cast<int>(rng() % 8); i > 0; --i) text += static_cast<char>(rng() % 128);
    ModelSpec spec{"register", {}};
    spec.params.add("init", Value(text));
    EXPECT_EQ(parse_model_spec(spec.canonical()).params, spec.params) << spec.canonical();
  }
}

TEST(ModelParams, TakeRemovesAndTheRestIsReported) {
  ModelParams params = parse_model_spec("x(init=1, other=2)").params;
  EXPECT_EQ(params.take("init"), Value(1));
  EXPECT_EQ(params.take("init"), std::nullopt);
  try {
    params.expect_all_taken("x(init=1)");
    FAIL();
  } catch (const ModelSpecError& e) {
    EXPECT_STREQ(e.what(), "model 'x' takes no parameter 'other'");
  }
  params.set("other", Value(3));
  EXPECT_EQ(params.entries().size(), 1u);
  EXPECT_EQ(params.take("other"), Value(3));
  params.expect_all_taken("x");
}

TEST(ModelSpec, SyntaxErrorsNameTheSpecAndColumn) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"", "bad model spec '': expected a model name at column 1"},
      {"(init=0)", "expected a model name at column 1"},
      {"x(init 0)", "expected '=' after parameter 'init' at column 8"},
      {"x(=0)", "expected a parameter name at column 3"},
      {"x(a=1) y", "unexpected 'y' at column 8"},
      {"x(a=[1 2)", "unterminated list"},
      {"x(a=\"\\q\")", "unknown escape '\\q'"},
      {"x(a=99999999999999999999)", "integer out of range"},
      {"x(a=1,a=2)", "parameter 'a' given twice"},
  };
  for (const auto& [text, message] : cases) {
    try {
      parse_model_spec(text);
      ADD_FAILURE() << text << " was accepted";
    } catch (const ModelSpecError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(parse_param_value("1 2"), ModelSpecError);
  EXPECT_THROW(parse_param_value(""), ModelSpecError);
  EXPECT_THROW(parse_param_value("a)"), ModelSpecError);
  // Numbers that are not integers are refused, not read as text; quoted, they are text.
  for (const char* number : {"1.5", "-2.0", "1e5", ".5", "0x10"}) {
    EXPECT_THROW(parse_param_value(number), ModelSpecError) << number;
    EXPECT_EQ(parse_param_value("\"" + std::string(number) + "\""), Value(number)) << number;
  }
  EXPECT_EQ(parse_param_value("1.2.3"), Value("1.2.3"));  // not a number: a word
}

TEST(ModelSpec, RandomTextParsesOrFailsWithAModelSpecError) {
  // Texts built from the grammar's own characters reach every branch; anything else than a spec
  // or a ModelSpecError (a crash, another exception) fails the test.
  const std::string alphabet = "ab-_0129(),=\"\\[]: nilrue+u";
  std::mt19937 rng(16);
  int parsed = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string text;
    for (int i = static_cast<int>(rng() % 16); i > 0; --i)
      text += alphabet[rng() % alphabet.size()];
    try {
      const ModelSpec spec = parse_model_spec(text);
      EXPECT_EQ(parse_model_spec(spec.canonical()).canonical(), spec.canonical()) << text;
      ++parsed;
    } catch (const ModelSpecError& e) {
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
  }
  EXPECT_GT(parsed, 100);
}

}  // namespace
}  // namespace linfault::spec
