#include "history/edn.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

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

// Every token of `text` as "line:column kind text".
std::vector<std::string> tokens(std::string_view text) {
  static const char* const kNames[] = {"end",    "nil",   "bool",  "int",    "bigint",
                                       "float",  "ratio", "char",  "string", "keyword",
                                       "symbol", "open",  "close", "tag"};
  std::vector<std::string> out;
  Scanner scanner(text);
  while (true) {
    const Token& token = scanner.next();
    std::string shown = std::to_string(token.where.line) + ":" +
                        std::to_string(token.where.column) + " " +
                        kNames[static_cast<int>(token.kind)];
    if (token.kind == TokenKind::kOpen || token.kind == TokenKind::kClose) {
      shown += std::string(" ") + token.bracket;
    } else if (token.kind == TokenKind::kInt) {
      shown += " " + std::to_string(token.integer);
    } else if (token.kind == TokenKind::kBool) {
      shown += token.boolean ? " true" : " false";
    } else if (token.kind != TokenKind::kEnd && token.kind != TokenKind::kNil) {
      shown += " " + std::string(token.text);
    }
    out.push_back(shown);
    if (token.kind == TokenKind::kEnd) return out;
  }
}

TEST(EdnScannerTest, TokensCarryLinesAndColumns) {
  EXPECT_EQ(tokens("{:a 1,\n ; comment\n  :b/c [\"x\\ny\" -2]}\n#{sym}"),
            (std::vector<std::string>{"1:1 open {", "1:2 keyword a", "1:5 int 1", "3:3 keyword b/c",
                                      "3:8 open [", "3:9 string x\ny", "3:16 int -2",
                                      "3:18 close ]", "3:19 close }", "4:1 open #",
                                      "4:3 symbol sym", "4:6 close }", "4:7 end"}));
}

TEST(EdnScannerTest, NumbersOfEveryKind) {
  EXPECT_EQ(tokens("0 +7 12N 1.5 -2e3 1.5M 6.02E+23 1/2 -3/4 ##Inf ##-Inf ##NaN "
                   "123456789012345678 99999999999999999999 9223372036854775807 true nil"),
            (std::vector<std::string>{
                "1:1 int 0", "1:3 int 7", "1:6 int 12", "1:10 float 1.5", "1:14 float -2e3",
                "1:19 float 1.5M", "1:24 float 6.02E+23", "1:33 ratio 1/2", "1:37 ratio -3/4",
                "1:42 float ##Inf", "1:48 float ##-Inf", "1:55 float ##NaN",
                "1:61 int 123456789012345678", "1:80 bigint 99999999999999999999",
                "1:101 int 9223372036854775807", "1:121 bool true", "1:126 nil", "1:129 end"}));
}

TEST(EdnScannerTest, CharactersTagsAndDiscards) {
  EXPECT_EQ(tokens("\\a \\newline \\u00e9 \\\xc3\xa9 #inst \"2020\" #_ #_ 1 2 3 #_[4 #_5] x"),
            (std::vector<std::string>{"1:1 char a", "1:4 char newline", "1:13 char u00e9",
                                      "1:20 char \xc3\xa9", "1:24 tag inst", "1:30 string 2020",
                                      "1:47 int 3", "1:59 symbol x", "1:60 end"}));
}

TEST(EdnScannerTest, SkipValueChecksTheSyntaxOfWhatItSkips) {
  Scanner scanner("{:a [1 (2 #{3})] :b #tag {:c 1.5}} after");
  scanner.skip_value(scanner.next());
  EXPECT_EQ(scanner.next().text, "after");
  auto skip_error = [](std::string_view text) -> std::string {
    try {
      Scanner scanner(text);
      scanner.skip_value(scanner.next());
      return "no error";
    } catch (const ParseError& e) {
      return std::to_string(e.line()) + ":" + std::to_string(e.column()) + " " + e.message();
    }
  };
  EXPECT_EQ(skip_error("[1 2)"), "1:5 unexpected `)`");
  EXPECT_EQ(skip_error("{:a 1\n :b}"), "1:1 map has a key without a value");
  EXPECT_EQ(skip_error("[\n(1"), "2:1 `(` is never closed");
  EXPECT_EQ(skip_error("#{1 #_}"), "1:7 unexpected `}`");
  EXPECT_EQ(skip_error("[#_"), "1:2 #_ discards nothing");
  EXPECT_EQ(skip_error(std::string(300, '[')), "1:201 values nested more than 200 deep");
  EXPECT_EQ(
      skip_error(std::string(1000, '#') + "_"),
      "1:1 unknown symbolic value ##" + std::string(35, '#') + "... (##Inf, ##-Inf or ##NaN)");
  std::string discards;
  for (int i = 0; i < 300; ++i) discards += "#_";
  EXPECT_EQ(skip_error(discards + "1"), "1:401 #_ discards nested more than 200 deep");
  EXPECT_EQ(skip_error("\\"), "1:1 `\\` at end of input");
  EXPECT_EQ(skip_error("\\foo"), "1:1 unknown character `\\foo`");
  EXPECT_EQ(skip_error("1.2.3"), "1:1 malformed number 1.2.3");
  EXPECT_EQ(skip_error("##Foo"), "1:1 unknown symbolic value ##Foo (##Inf, ##-Inf or ##NaN)");
  EXPECT_EQ(skip_error("#:a{:b 1}"),
            "1:1 namespaced maps (#:ns{...}) are Clojure, not EDN: not supported");
  EXPECT_EQ(skip_error(":"), "1:1 empty keyword `:`");
  EXPECT_EQ(skip_error("[1 \xc3\xa9]"), "1:4 unexpected character byte 0xC3");
  EXPECT_EQ(skip_error("#\xc3\xa9"), "1:1 unsupported `#` dispatch byte 0xC3");
  EXPECT_EQ(skip_error("#%"), "1:1 unsupported `#` dispatch `#%`");
  EXPECT_EQ(skip_error("\"\\\xc3\xa9\""), "1:2 unknown escape byte 0xC3 in string");
}

TEST(EdnTest, ShortenedTextsStayValidUtf8) {
  EXPECT_EQ(shortened("short"), "short");
  const std::string accents(60, 'a');
  EXPECT_EQ(shortened(accents), std::string(37, 'a') + "...");
  std::string mixed = "ab";
  for (int i = 0; i < 30; ++i) mixed += "\xc3\xa9";
  const std::string cut = shortened(mixed);
  EXPECT_EQ(cut, "ab" + mixed.substr(2, 34) + "...");  // 17 whole characters, not 17.5
  EXPECT_EQ(invalid_utf8_at(cut), std::string_view::npos);
  EXPECT_EQ(shortened("a\x1b[31m"), "a\\u001b[31m");  // no terminal escapes
}

TEST(EdnScannerTest, SeekReadsAValueAgain) {
  Scanner scanner("[1\n 2] [3]");
  scanner.next();
  scanner.next();
  const Position before = scanner.position();
  EXPECT_EQ(scanner.next().integer, 2);
  EXPECT_EQ(scanner.next().kind, TokenKind::kClose);
  scanner.seek(before);
  const Token& again = scanner.next();
  EXPECT_EQ(again.integer, 2);
  EXPECT_EQ(again.where.line, 2u);
  EXPECT_EQ(again.where.column, 2u);
}

TEST(EdnTest, FloatsRatiosAndCharactersAreClearErrorsInTrees) {
  expect_error("[1/2]", 2, "not an integer");
  expect_error("##NaN", 1, "not an integer");
  expect_error("(\\newline)", 2, "characters (\\c) are not supported");
}

}  // namespace
}  // namespace linfault::history::edn
