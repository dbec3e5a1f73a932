// EDN: a parser for the subset of EDN (https://github.com/edn-format/edn) that Jepsen histories
// use.
//
// Supported: nil, true/false, integers (optional sign, optional N suffix), strings with escapes
// (\" \\ \n \t \r \b \f \uXXXX), keywords (:invoke, :timed-out, :a/b), symbols, vectors [..],
// lists (..), sets #{..}, maps {..}, commas as whitespace, ; line comments, #_ discard and tagged
// values (#inst "..." keeps the inner value). Not supported, with a clear error: floating-point
// and ratio numbers, characters (\c).
//
// parse() reads exactly one value; parse errors carry the 1-based column where they were found.
// to_value() turns a parsed node into a history::Value (keywords keep their colon).
//
// Thread-safety: pure functions over immutable data.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_HISTORY_EDN_H_
#define LINFAULT_HISTORY_EDN_H_

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "history/value.h"

namespace linfault::history::edn {

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

class ParseError : public std::runtime_error {
 public:
  ParseError(std::size_t column, const std::string& message)
      : std::runtime_error("column " + std::to_string(column) + ": " + message),
        column_(column),
        message_(message) {}
  std::size_t column() const { return column_; }           // 1-based, in bytes
  const std::string& message() const { return message_; }  // without the column

 private:
  std::size_t column_;
  std::string message_;
};

// Parses exactly one EDN value from `text`; anything but whitespace, commas and comments after it
// is an error. Throws ParseError.
Node parse(std::string_view text);

// Converts a node to a Value: nil, booleans, integers and strings map directly; keywords become
// strings with their colon (":timed-out"); vectors, lists and sets become lists. Maps and symbols
// have no Value form: throws std::invalid_argument naming the offending node.
Value to_value(const Node& node);

}  // namespace linfault::history::edn

#endif  // LINFAULT_HISTORY_EDN_H_
