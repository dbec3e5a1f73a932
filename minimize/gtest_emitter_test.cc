#include "minimize/gtest_emitter.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "minimize/scenario_repro.h"
#include "targets/registry.h"

namespace linfault::minimize {
namespace {

bool contains(const std::string& text, const std::string& fragment) {
  return text.find(fragment) != std::string::npos;
}

TestCase treiber_test_case() {
  const targets::Target& target = targets::find("treiber_stack_buggy");
  return find_scenario_repro(target, target.known_scenarios.front())->test_case;
}

TEST(GtestEmitterTest, StatesTheTestCaseAsCodeAndChecksItByTargetName) {
  const TestCase tc = treiber_test_case();
  const std::string text = emit_gtest(tc);
  EXPECT_TRUE(contains(text, "TEST(LinfaultRepro, TreiberStackBuggy)")) << text;
  EXPECT_TRUE(contains(text, "#include <linfault/gtest.h>")) << text;
  // The target is looked up by name, so a user's registered target works as a built-in one.
  EXPECT_TRUE(contains(text,
                       "EXPECT_TRUE(linfault::testing::ReproPasses(\n      "
                       "\"treiber_stack_buggy\", workload, schedule, /*max_steps=*/20000));"))
      << text;
  EXPECT_FALSE(contains(text, "targets::find")) << text;
  EXPECT_TRUE(contains(text, "workload.setup = {\n      Call{\"push\", {Value(std::int64_t{1})}},"))
      << text;
  EXPECT_TRUE(contains(text, "workload.threads.push_back({\n      Call{\"pop\", {}},  // -> 1"))
      << text;
  EXPECT_TRUE(contains(text, "(no linearization explains this)")) << text;
  EXPECT_TRUE(contains(text, "workload.reveal = {};")) << text;
  EXPECT_TRUE(contains(text, "//   violation: " + tc.violation)) << text;
  EXPECT_TRUE(contains(text, "//   guarantee: a failing schedule")) << text;
  EXPECT_TRUE(contains(text, "//   find_package(linfault CONFIG REQUIRED)")) << text;
  EXPECT_TRUE(contains(text,
                       "//   linfault_add_test(treiber_stack_buggy_repro SOURCES "
                       "treiber_stack_buggy_repro_test.cc"))
      << text;
  // The schedule is embedded whole, in pieces of 80 characters.
  for (std::size_t at = 0; at < tc.schedule->size(); at += 80) {
    EXPECT_TRUE(contains(text, cpp_string_literal(tc.schedule->substr(at, 80)))) << text;
  }
  // No line of the file is longer than the project's 100 columns.
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    EXPECT_LE((end == std::string::npos ? text.size() : end) - start, 100u)
        << text.substr(start, end - start);
    if (end == std::string::npos) break;
    start = end + 1;
  }
}

TEST(GtestEmitterTest, LongSchedulesAreSplitIntoAdjacentLiterals) {
  TestCase tc = treiber_test_case();
  tc.schedule = std::string(250, 'x');
  const std::string text = emit_gtest(tc);
  EXPECT_TRUE(contains(text, "const std::string schedule =\n      \"" + std::string(80, 'x') +
                                 "\"\n      \"" + std::string(80, 'x') + "\""))
      << text;
}

TEST(GtestEmitterTest, ValuesOfEveryKindBecomeExpressions) {
  TestCase tc = treiber_test_case();
  tc.ps[0].call.args = {history::Value(), history::Value(true), history::Value(-7),
                        history::Value("a\"b"),
                        history::Value(history::Value::List{history::Value(1), history::Value()})};
  tc.ps[0].call.method = "odd\nname";
  const std::string text = emit_gtest(tc);
  EXPECT_TRUE(contains(text,
                       "Call{\"odd\\nname\", {Value(), Value(true), Value(std::int64_t{-7}), "
                       "Value(std::string(\"a\\\"b\")), Value(Value::List{Value(std::int64_t{1}), "
                       "Value()})}}"))
      << text;
  // The comment summary stays on one line, and no backslash could splice the next line into it:
  // the newline, printed as an escape, shows as "?n".
  EXPECT_TRUE(contains(text, "//   Ps: odd?nname(")) << text;
}

TEST(GtestEmitterTest, HistoryLevelTestCasesHaveNothingToEmit) {
  TestCase tc = treiber_test_case();
  tc.target.reset();
  EXPECT_THROW(emit_gtest(tc), std::invalid_argument);
  tc = treiber_test_case();
  tc.schedule.reset();
  EXPECT_THROW(emit_gtest(tc), std::invalid_argument);
}

TEST(CppStringLiteralTest, EscapesQuotesBackslashesControlAndNonAsciiBytes) {
  EXPECT_EQ(cpp_string_literal("plain"), "\"plain\"");
  EXPECT_EQ(cpp_string_literal("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(cpp_string_literal("l1\nl2\t"), "\"l1\\nl2\\t\"");
  EXPECT_EQ(cpp_string_literal(std::string("?") + "?="), "\"\\?\\?=\"");  // never a trigraph
  // Octal escapes are always three digits, so a following digit is not swallowed.
  EXPECT_EQ(cpp_string_literal(std::string("\x01") + "7"), "\"\\0017\"");
  EXPECT_EQ(cpp_string_literal("\xc3\xa9"), "\"\\303\\251\"");
  EXPECT_EQ(cpp_string_literal(std::string(1, '\0')), "\"\\000\"");
  EXPECT_EQ(cpp_string_literal(")\"delim"), "\")\\\"delim\"");
}

TEST(GtestNameTest, CamelCasesTargetNamesIntoIdentifiers) {
  EXPECT_EQ(gtest_name("treiber_stack_buggy"), "TreiberStackBuggy");
  EXPECT_EQ(gtest_name("bu_list1"), "BuList1");
  EXPECT_EQ(gtest_name("my-target.v2"), "MyTargetV2");
  EXPECT_EQ(gtest_name("2pc"), "Target2pc");
  EXPECT_EQ(gtest_name("__"), "Target");
}

}  // namespace
}  // namespace linfault::minimize
