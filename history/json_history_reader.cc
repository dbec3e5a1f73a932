// The one-pass reader of JSON histories (json_history_build.h): a recursive-descent scanner of the
// plain subset of JSON that linfault writes, straight into ParsedOperations, without a DOM. It
// declines (and the reference reader takes over) at the first thing outside that subset or wrong
// in any way, so it never has to word an error itself: the reference gives every message.

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <limits>

#include "history/json_history_build.h"

namespace linfault::history::json_detail {
namespace {

// Thrown inside the reader when the document is not one it reads; never escapes it.
struct Declined {};

// Deeper lists are left to the reference reader (its limits are 200 for values, 256 for JSON).
constexpr int kMaxListDepth = 64;
constexpr int kVersion = 1;

class OnePassReader {
 public:
  explicit OnePassReader(std::string_view text)
      : position_(text.data()), end_(text.data() + text.size()) {}

  // The document's operations and its "model", or Declined.
  void read(std::vector<ParsedOperation>& ops, std::optional<std::string>& model) {
    enum Field { kTag, kVersionField, kModel, kOperations };
    static constexpr std::array<std::string_view, 4> kNames = {"linfault", "version", "model",
                                                               "operations"};
    const unsigned seen = members(kNames, [&](int field) {
      switch (field) {
        case kTag:
          if (string() != "history") decline();
          break;
        case kVersionField:
          if (integer() != kVersion) decline();
          break;
        case kModel:
          model = std::string(string());
          break;
        case kOperations:
          expect('[');
          items(']', [&] { ops.push_back(operation(ops.size())); });
          break;
      }
    });
    skip_whitespace();
    if (position_ != end_ || (seen & 1U << kOperations) == 0) decline();
  }

 private:
  template <typename T = void>
  [[noreturn]] T decline() {
    throw Declined{};
  }

  void skip_whitespace() {
    while (position_ != end_) {
      const char c = *position_;
      if (c == '\n') {
        ++line_;
      } else if (c != ' ' && c != '\t' && c != '\r') {
        return;
      }
      ++position_;
    }
  }
  bool consume(char c) {
    skip_whitespace();
    if (position_ == end_ || *position_ != c) return false;
    ++position_;
    return true;
  }
  void expect(char c) {
    if (!consume(c)) decline();
  }
  void literal(std::string_view word) {
    if (static_cast<std::size_t>(end_ - position_) < word.size() ||
        std::memcmp(position_, word.data(), word.size()) != 0) {
      decline();
    }
    position_ += word.size();
  }

  // The elements of an array or the members of an object whose opening bracket was read, up to
  // `close`: `read_item` reads each one.
  template <typename ReadItem>
  void items(char close, ReadItem read_item) {
    if (consume(close)) return;
    do {
      read_item();
    } while (consume(','));
    expect(close);
  }

  // An object whose members are all named in `names`, each at most once: `read_member(i)` reads
  // the value of names[i]. Returns the set of members seen, bit i for names[i].
  template <std::size_t N, typename ReadMember>
  unsigned members(const std::array<std::string_view, N>& names, ReadMember read_member) {
    unsigned seen = 0;
    expect('{');
    items('}', [&] {
      const std::string_view name = string();
      expect(':');
      const auto known = std::find(names.begin(), names.end(), name);
      const unsigned bit = 1U << (known - names.begin());
      if (known == names.end() || (seen & bit) != 0) decline();
      seen |= bit;
      read_member(static_cast<int>(known - names.begin()));
    });
    return seen;
  }

  // A string of printable ASCII without escapes (anything else is declined), its bytes in place.
  std::string_view string() {
    expect('"');
    const char* start = position_;
    while (position_ != end_) {
      const auto c = static_cast<unsigned char>(*position_);
      if (c == '"') break;
      if (c == '\\' || c < 0x20 || c >= 0x7f) decline();
      ++position_;
    }
    if (position_ == end_) decline();
    return {start, static_cast<std::size_t>(position_++ - start)};
  }

  // -?(0|[1-9][0-9]*) within int64; fractions, exponents and larger integers are declined.
  std::int64_t integer() {
    skip_whitespace();
    const char* start = position_;
    if (position_ != end_ && *position_ == '-') ++position_;
    if (position_ == end_ || *position_ < '0' || *position_ > '9') decline();
    if (*position_ == '0') {
      ++position_;
    } else {
      while (position_ != end_ && *position_ >= '0' && *position_ <= '9') ++position_;
    }
    if (position_ != end_ && (*position_ == '.' || *position_ == 'e' || *position_ == 'E')) {
      decline();
    }
    std::int64_t number = 0;
    const auto [stop, error] = std::from_chars(start, position_, number);
    if (error != std::errc() || stop != position_) decline();
    return number;
  }

  Value value(int depth) {
    skip_whitespace();
    if (position_ == end_) decline();
    switch (*position_) {
      case 'n':
        literal("null");
        return Value();
      case 't':
        literal("true");
        return Value(true);
      case 'f':
        literal("false");
        return Value(false);
      case '"':
        return Value(std::string(string()));
      case '[': {
        if (depth >= kMaxListDepth) decline();
        ++position_;
        Value::List list;
        items(']', [&] { list.push_back(value(depth + 1)); });
        return Value(std::move(list));
      }
      default:
        return Value(integer());
    }
  }

  std::uint32_t line_number() {
    const std::int64_t line = integer();
    if (line < 0 || line > std::numeric_limits<std::uint32_t>::max()) decline();
    return static_cast<std::uint32_t>(line);
  }

  // One element of "operations", with parse_operation's rules (json_format.cc).
  ParsedOperation operation(std::size_t index) {
    enum Field {
      kProcess,
      kMethod,
      kArgs,
      kOutcome,
      kResult,
      kCall,
      kReturn,
      kKey,
      kLine,
      kReturnLine
    };
    static constexpr std::array<std::string_view, 10> kNames = {
        "process", "method", "args", "outcome", "result",
        "call",    "return", "key",  "line",    "return_line"};
    ParsedOperation op;
    op.index = index;
    skip_whitespace();
    op.json_line = line_;
    std::optional<Outcome> outcome;
    std::optional<std::uint32_t> call_line;
    std::optional<std::uint32_t> return_line;
    const unsigned seen = members(kNames, [&](int field) {
      switch (field) {
        case kProcess:
          op.process = integer();
          break;
        case kMethod:
          op.call.method = std::string(string());
          if (op.call.method.empty()) decline();
          break;
        case kArgs:
          expect('[');
          items(']', [&] { op.call.args.push_back(value(0)); });
          break;
        case kOutcome: {
          const std::string_view name = string();
          outcome = name == "ok"        ? Outcome::kOk
                    : name == "fail"    ? Outcome::kFail
                    : name == "pending" ? Outcome::kPending
                                        : decline<Outcome>();
          break;
        }
        case kResult:
          op.result = value(0);
          break;
        case kCall:
          op.call_position = integer();
          break;
        case kReturn:
          skip_whitespace();
          if (position_ != end_ && *position_ == 'n') {
            literal("null");
          } else {
            op.return_position = integer();
          }
          break;
        case kKey:
          op.key = value(0);
          break;
        case kLine:
          call_line = line_number();
          break;
        case kReturnLine:
          return_line = line_number();
          break;
      }
    });
    constexpr unsigned kRequired = 1U << kProcess | 1U << kMethod | 1U << kCall;
    if ((seen & kRequired) != kRequired) decline();
    if (op.return_position && *op.return_position <= op.call_position) decline();
    op.outcome = outcome.value_or(op.return_position ? Outcome::kOk : Outcome::kPending);
    if ((op.outcome == Outcome::kPending) == op.return_position.has_value()) decline();
    op.source.call_line = call_line.value_or(op.json_line);
    op.source.return_line = return_line.value_or(op.return_position ? op.json_line : 0);
    return op;
  }

  const char* position_;
  const char* const end_;
  std::uint32_t line_ = 1;  // of position_
};

}  // namespace

std::optional<LoadedHistory> read_json_history_fast(std::string_view text,
                                                    const std::string& origin) {
  std::vector<ParsedOperation> ops;
  // linfault writes one operation a line.
  ops.reserve(std::min<std::size_t>(std::count(text.begin(), text.end(), '\n'), text.size() / 32));
  LoadedHistory loaded;
  loaded.format = Format::kJson;
  try {
    OnePassReader(text).read(ops, loaded.model);
  } catch (const Declined&) {
    return std::nullopt;
  }
  loaded.history = build_history(std::move(ops), origin);
  return loaded;
}

}  // namespace linfault::history::json_detail
