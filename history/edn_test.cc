#include "history/edn.h"

#include <gtest/gtest.h>

namespace linfault::history::edn {
namespace {

TEST(EdnTest, ParsesScalars) {
  EXPECT_EQ(parse("nil").kind, Node::Kind::kNil);
  EXPECT_TRUE(parse("true").boolean);
  EXPECT_FALSE(parse(" false ").boolean);
  EXPECT_EQ(parse("-42").integer, -42);
  EXPECT_EQ(parse("+7").integer, 7);
  EXPECT_EQ(parse("12N").integer, 12);
  EXPECT_EQ(parse(":timed-out").text, "timed-out");
  EXPECT_EQ(parse(":a/b").text, "a/b");
  EXPECT_EQ(parse("sym").kind, Node::Kind::kSymbol);
}

TEST(EdnTest, ParsesStringEscapes) {
  EXPECT_EQ(parse(R"("a\"b\\c\nd\te")").text, "a\"b\\c\nd\te");
  EXPECT_EQ(parse(R"("\u00e9")").text, "\xc3\xa9");
}

TEST(EdnTest, ParsesCollectionsWithCommasAndComments) {
  const Node map = parse("{:process 0, :type :invoke, :value [1 (2 3) #{4}]} ; trailing comment");
  ASSERT_EQ(map.kind, Node::Kind::kMap);
  EXPECT_EQ(map.find("process")->integer, 0);
  EXPECT_TRUE(map.find("type")->is_keyword("invoke"));
  EXPECT_EQ(map.find("missing"), nullptr);
  const Value value = to_value(*map.find("value"));
  EXPECT_EQ(value, Value(Value::List{1, Value::List{2, 3}, Value::List{4}}));
  EXPECT_EQ(map.to_string(), "{:process 0 :type :invoke :value [1 (2 3) #{4}]}");
}

TEST(EdnTest, DiscardAndTagsKeepTheRightValue) {
  EXPECT_EQ(parse("#_ 1 2").integer, 2);
  EXPECT_EQ(parse("#inst \"2020\"").text, "2020");
}

TEST(EdnTest, KeywordsBecomeStringsWithColon) {
  EXPECT_EQ(to_value(parse(":timed-out")), Value(":timed-out"));
  EXPECT_EQ(to_value(parse("nil")), Value());
  EXPECT_THROW(to_value(parse("{:a 1}")), std::invalid_argument);
  EXPECT_THROW(to_value(parse("oops")), std::invalid_argument);
}

void expect_error(std::string_view text, std::size_t column, std::string_view fragment) {
  try {
    parse(text);
    ADD_FAILURE() << "no error for " << text;
  } catch (const ParseError& e) {
    EXPECT_EQ(e.column(), column) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(EdnTest, ReportsErrorsWithColumns) {
  expect_error("", 1, "end of input");
  expect_error("{:a 1", 1, "never closed");
  expect_error("[1 2 3.5]", 6, "not an integer");
  expect_error("\"abc", 1, "unterminated string");
  expect_error("{:a}", 1, "key without a value");
  expect_error("1 2", 3, "after the value");
  expect_error("99999999999999999999", 1, "64 bits");
  expect_error("\"\\q\"", 2, "unknown escape");
  expect_error("]", 1, "unexpected `]`");
  expect_error("\\c", 1, "not supported");
}

TEST(EdnTest, DeepNestingIsAnErrorNotACrash) {
  expect_error(std::string(1000, '['), 201, "nested");
}

TEST(EdnTest, StringsAreValidUtf8) {
  EXPECT_EQ(parse("\"\\u00e9\\ud83d\\ude00\"").text, "\xc3\xa9\xf0\x9f\x98\x80");
  expect_error("\"a\xff\"", 1, "not valid UTF-8");
  expect_error("\"\xc0\xaf\"", 1, "not valid UTF-8");  // overlong '/'
  expect_error("\"\\ud800\"", 8, "without its low surrogate");
  expect_error("\"\\udc00\"", 8, "lone low surrogate");
}

TEST(EdnTest, RepeatedMapKeysAreErrors) {
  expect_error("{:a 1 :b 2 :a 3}", 1, "duplicate key :a");
  expect_error("{[1 2] 1 [1 2] 2}", 1, "duplicate key [1 2]");
  EXPECT_EQ(parse("{\"a\" 1 :a 2 a 3}").items.size(), 6u);  // a string, a keyword, a symbol
}

}  // namespace
}  // namespace linfault::history::edn
