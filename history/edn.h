// EDN (https://github.com/edn-format/edn) as Jepsen and Knossos write it: a streaming scanner over
// the text, and a small tree parser built on it.
//
// Scanner: a pull lexer over a whole buffer. next() returns one token at a time (scalars, opening
// and closing brackets, tags) without building any tree and without allocating, except to decode
// a string with escapes. It skips whitespace, commas, `;` comments and `#_` discarded values, and
// tracks 1-based line and column (in bytes) of every token. Read by tokens:
//   nil, true/false; integers (optional sign, optional N suffix; beyond 64 bits a kBigInt token);
//   floats (1.5, -2e3, 1.5M, ##Inf, ##NaN) and ratios (1/2) as kFloat/kRatio tokens holding their
//   text; characters (\c, \newline, \u00e9) as kChar; strings with escapes (\" \\ \/ \n \t \r \b
//   \f \uXXXX, surrogate pairs), which must be valid UTF-8; keywords (:a, :a.b/c) and symbols; `[`,
//   `(`, `{`, `#{`; `]`, `)`, `}`; tags (#inst, #uuid, #jepsen.history.Op) as kTag tokens whose
//   value follows. Malformed text (an unterminated string, `#:ns{}` maps, an unknown `#` dispatch)
//   throws ParseError with its line and column; the scanner is then spent. Values nested more
//   than kMaxDepth (200) deep, and #_ nested as deep, are errors; skip_value() keeps its brackets
//   on a heap stack, so only nested discards recurse.
//
// parse() reads exactly one value into a Node tree (for short texts: the console-log reader's
// values, tests); to_value() turns a Node into a history::Value (keywords keep their colon). Nodes
// have no float, ratio or character kind: parse() rejects those with a clear error, as values of a
// history cannot hold them.
//
// Thread-safety: a Scanner is a single-threaded cursor over text that must outlive it; parse() and
// to_value() are pure functions.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_HISTORY_EDN_H_
#define LINFAULT_HISTORY_EDN_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "history/value.h"

namespace linfault::history::edn {

// A place in the text: 1-based line and column (bytes), and the byte offset.
struct Position {
  std::uint32_t line = 1;
  std::size_t column = 1;
  std::size_t offset = 0;
};

class ParseError : public std::runtime_error {
 public:
  ParseError(Position where, const std::string& message)
      : std::runtime_error("column " + std::to_string(where.column) + ": " + message),
        where_(where),
        message_(message) {}
  std::uint32_t line() const { return where_.line; }
  std::size_t column() const { return where_.column; }  // 1-based, in bytes
  const Position& where() const { return where_; }
  const std::string& message() const { return message_; }  // without the column

 private:
  Position where_;
  std::string message_;
};

enum class TokenKind : std::uint8_t {
  kEnd,  // end of the text
  kNil,
  kBool,
  kInt,
  kBigInt,   // an integer beyond 64 bits; `text` holds it
  kFloat,    // `text` holds it
  kRatio,    // `text` holds it
  kChar,     // `text` holds it without the backslash
  kString,   // `text` holds the decoded contents
  kKeyword,  // `text` is the name without the colon: "timed-out", "a.b/c"
  kSymbol,
  kOpen,   // `bracket` is '[', '(', '{' or '#' (a set, #{)
  kClose,  // `bracket` is ']', ')' or '}'
  kTag,    // `text` is the tag without '#': "inst", "jepsen.history.Op"; its value follows
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  char bracket = 0;
  bool boolean = false;
  std::int64_t integer = 0;
  // Keyword, symbol and tag names and number texts point into the scanned text; a decoded string
  // may point into the scanner and lasts until the next call to next().
  std::string_view text;
  Position where;  // of the token's first character
};

namespace detail {
// Characters of symbols, keywords, numbers and tags.
inline constexpr std::array<bool, 256> kSymbolChars = [] {
  std::array<bool, 256> table{};
  for (int c = 'a'; c <= 'z'; ++c) table[c] = true;
  for (int c = 'A'; c <= 'Z'; ++c) table[c] = true;
  for (int c = '0'; c <= '9'; ++c) table[c] = true;
  for (char c : std::string_view(".*+!-_?$%&=<>/':#")) table[static_cast<unsigned char>(c)] = true;
  return table;
}();
inline bool is_symbol_char(char c) { return kSymbolChars[static_cast<unsigned char>(c)]; }
}  // namespace detail

class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}

  // The next token (kEnd at the end of the text, and after it). Throws ParseError. The common
  // tokens of operation maps (keywords, small integers, braces) are read inline.
  const Token& next() {
    skip_blanks();
    token_.where = here();
    if (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == ':') {
        const std::size_t start = pos_ + 1;
        std::size_t end = start;
        while (end < text_.size() && detail::is_symbol_char(text_[end])) ++end;
        if (end != start) {
          pos_ = end;
          token_.kind = TokenKind::kKeyword;
          token_.text = text_.substr(start, end - start);
          return token_;
        }
      } else if (c >= '0' && c <= '9') {
        // Up to 18 digits cannot overflow; anything longer or followed by more (1.5, 2N) is
        // read by the general path.
        std::int64_t value = 0;
        std::size_t end = pos_;
        while (end < text_.size() && end - pos_ < 18 && text_[end] >= '0' && text_[end] <= '9') {
          value = value * 10 + (text_[end] - '0');
          ++end;
        }
        if (end == text_.size() || !detail::is_symbol_char(text_[end])) {
          token_.text = text_.substr(pos_, end - pos_);
          pos_ = end;
          token_.kind = TokenKind::kInt;
          token_.integer = value;
          return token_;
        }
      } else if (c == '{' || c == '}') {
        ++pos_;
        token_.kind = c == '{' ? TokenKind::kOpen : TokenKind::kClose;
        token_.bracket = c;
        return token_;
      }
    }
    return next_token();
  }

  // Skips the rest of the value that starts with `first` (a token just returned by next(); a
  // tag skips its value too), checking its syntax: brackets must match, maps have even counts.
  // A close bracket or kEnd as `first` is an error ("unexpected `]`"). `depth` counts enclosing
  // values; more than kMaxDepth is an error.
  void skip_value(const Token& first, int depth = 1) {
    if (first.kind > TokenKind::kEnd && first.kind < TokenKind::kOpen) return;  // a scalar
    skip_nested(first, depth);
  }

  // Where the next token's blanks begin; seek() returns there (for reading a value again).
  Position position() const { return {line_, pos_ - line_start_ + 1, pos_}; }
  void seek(const Position& where);
  std::string_view text() const { return text_; }

  [[noreturn]] static void fail(const Position& where, const std::string& message) {
    throw ParseError(where, message);
  }

  static constexpr int kMaxDepth = 200;

 private:
  Position here() const { return {line_, pos_ - line_start_ + 1, pos_}; }
  void skip_blanks() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == ' ' || c == ',') {
        ++pos_;
      } else if (c == '\n') {
        ++pos_;
        ++line_;
        line_start_ = pos_;
      } else if (c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        ++pos_;
      } else if (c == ';') {
        const std::size_t end = text_.find('\n', pos_);
        pos_ = end == std::string_view::npos ? text_.size() : end;
      } else {
        return;
      }
    }
  }
  const Token& next_token();  // next() in general
  void skip_nested(const Token& first, int depth);
  void scan_string();
  void scan_number_or_symbol();
  void scan_char();
  void scan_dispatch();
  std::uint32_t scan_hex4();

  std::string_view text_;
  std::size_t pos_ = 0;
  std::size_t line_start_ = 0;
  std::uint32_t line_ = 1;
  int discard_depth_ = 0;
  struct OpenBracket {
    char bracket;
    std::uint32_t count;  // values inside so far
    Position where;
  };
  std::vector<OpenBracket> open_;  // skip_value()'s brackets, discarded values' above them
  Token token_;
  std::string decoded_;  // the contents of a string with escapes
};

// `text` for a message: printable() (history/value.h), and cut after about `length` bytes with
// "..." (never inside a UTF-8 sequence).
std::string shortened(std::string_view text, std::size_t length = 40);

struct Node {
  enum class Kind : std::uint8_t {
    kNil,
    kBool,
    kInt,
    kString,
    kKeyword,
    kSymbol,
    kVector,
    kList,
    kSet,
    kMap
  };
  Kind kind = Kind::kNil;
  bool boolean = false;
  std::int64_t integer = 0;
  std::string text;         // string contents; keyword or symbol name without the leading colon
  std::vector<Node> items;  // elements of a vector/list/set; a map's keys and values alternate

  bool is_keyword(std::string_view name) const { return kind == Kind::kKeyword && text == name; }
  // Map lookup by keyword name (without colon); nullptr if absent or not a map.
  const Node* find(std::string_view keyword) const;
  // The node written back as EDN, for messages: ":ok", "[1 2]", "\"x\"".
  std::string to_string() const;
};

// Parses exactly one EDN value from `text`; anything but whitespace, commas and comments after it
// is an error. Tags stand for their value (#inst "2020" is the string "2020"). Throws ParseError.
Node parse(std::string_view text);

// Converts a node to a Value: nil, booleans, integers and strings map directly; keywords become
// strings with their colon (":timed-out"); vectors, lists and sets become lists. Maps and symbols
// have no Value form: throws std::invalid_argument naming the offending node.
Value to_value(const Node& node);

}  // namespace linfault::history::edn

#endif  // LINFAULT_HISTORY_EDN_H_
