// Value: the arguments and results of recorded operations.
//
// A Value is one of: nil (absent / "empty"), a boolean, a 64-bit integer, a string, or a list of
// values. It is the common currency of every history reader and writer; sequential models turn
// the Values of an operation into their own compact form once, before checking (spec/model.h).
//
// "Empty" results (pop on an empty stack, poll on an empty queue, a read of an absent key) are
// nil, never a magic number of the value domain: the fastlin reader maps its -1 to nil.
//
// Thread-safety: a Value is a regular value type; const access from several threads is safe.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_HISTORY_VALUE_H_
#define LINFAULT_HISTORY_VALUE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace linfault::history {

// `text` with every control character (C0, DEL, and C1 in UTF-8) written as an escape: `\n`, `\t`,
// `\r`, or `\u001b`. Everything linfault prints that came from an input (values, method names,
// quoted tokens in errors) goes through it, so that a history cannot inject terminal escape
// sequences into the output.
// Bytes that are not part of well-formed UTF-8 are written `\xa3`, so the result is always valid
// UTF-8 (a JSON report that carries a message cannot fail on it).
std::string printable(std::string_view text);

// The length (1 to 4) of the well-formed UTF-8 character that starts at text[at] (at <
// text.size()), or 0 when none starts there: a stray continuation byte, a cut sequence, an
// overlong form, a surrogate, or a code point above U+10FFFF.
std::size_t utf8_character_length(std::string_view text, std::size_t at);

// The byte offset of the first malformed UTF-8 sequence in `text` (overlong forms, surrogates and
// code points above U+10FFFF included), or npos.
std::size_t invalid_utf8_at(std::string_view text);

class Value {
 public:
  struct Nil {
    friend bool operator==(Nil, Nil) { return true; }
    friend auto operator<=>(Nil, Nil) = default;
  };
  using List = std::vector<Value>;

  Value() = default;  // nil
  Value(Nil) {}
  Value(bool b) : rep_(b) {}
  Value(int v) : rep_(static_cast<std::int64_t>(v)) {}
  Value(std::int64_t v) : rep_(v) {}
  Value(std::string s) : rep_(std::move(s)) {}
  Value(const char* s) : rep_(std::string(s)) {}
  Value(List l) : rep_(std::move(l)) {}

  bool is_nil() const { return std::holds_alternative<Nil>(rep_); }
  bool is_bool() const { return std::holds_alternative<bool>(rep_); }
  bool is_int() const { return std::holds_alternative<std::int64_t>(rep_); }
  bool is_string() const { return std::holds_alternative<std::string>(rep_); }
  bool is_list() const { return std::holds_alternative<List>(rep_); }

  // Accessors; calling the wrong one throws std::bad_variant_access.
  bool as_bool() const { return std::get<bool>(rep_); }
  std::int64_t as_int() const { return std::get<std::int64_t>(rep_); }
  const std::string& as_string() const { return std::get<std::string>(rep_); }
  const List& as_list() const { return std::get<List>(rep_); }

  // "nil", "true", "42", "\"text\"", "[1 2]" (EDN-like; strings quoted and escaped).
  std::string to_string() const;
  // The kind as a word, for error messages: "nil", "bool", "int", "string", "list".
  std::string_view kind_name() const;
  std::size_t hash() const;

  friend bool operator==(const Value& a, const Value& b) { return a.rep_ == b.rep_; }
  // A total order (by kind, then by value) so Values can be sorted and used as map keys: negative,
  // zero or positive. Visits each element pair at most once, so it is linear in the values' size
  // whatever their nesting (std::variant's operator< compares list elements twice, which doubles
  // the time with each level of nesting).
  static int compare(const Value& a, const Value& b);
  friend bool operator<(const Value& a, const Value& b) { return compare(a, b) < 0; }

 private:
  std::variant<Nil, bool, std::int64_t, std::string, List> rep_;
};

struct ValueHash {
  std::size_t operator()(const Value& v) const { return v.hash(); }
};

}  // namespace linfault::history

#endif  // LINFAULT_HISTORY_VALUE_H_
