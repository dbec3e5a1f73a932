// The fast JSON history reader (json_history_build.h) on simdjson's On-Demand API: it walks the
// document's "operations" straight into ParsedOperations, without a DOM. It declines (and the
// reference reader takes over) at the first thing outside the plain subset it reads or wrong in
// any way, so it never has to word an error itself: the reference gives every message.

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <limits>

#include "history/json_history_build.h"

namespace linfault::history::json_detail {
namespace {

namespace ondemand = simdjson::ondemand;

// Thrown inside the reader when the document is not one it reads; never escapes it.
struct Declined {};

// Deeper lists are left to the reference reader (its limits are 200 for values, 256 for JSON).
constexpr int kMaxListDepth = 64;
constexpr int kVersion = 1;

template <typename T = void>
[[noreturn]] T decline() {
  throw Declined{};
}

// The value of a simdjson result, or Declined on its error.
template <typename T>
T take(simdjson::simdjson_result<T>&& result) {
  T value;
  if (std::move(result).get(value) != simdjson::SUCCESS) decline();
  return value;
}

// The text of a string without escapes or control characters from `start`, just after its
// opening quote, to its closing quote, in the padded buffer; Declined on anything else (the
// reference reader's unescaping and messages are the ones users see). simdjson has checked that
// every string is closed and the document's UTF-8 valid; the zeros of the padding end the scan in
// any case.
std::string_view plain_text(const char* start) {
  const char* end = start;
  while (*end != '"') {
    if (*end == '\\' || static_cast<unsigned char>(*end) < 0x20) decline();
    ++end;
  }
  return {start, static_cast<std::size_t>(end - start)};
}

// A string value, as plain_text.
std::string_view plain_string(ondemand::value& value) {
  return plain_text(take(value.get_raw_json_string()).raw());
}

// The members of `object`, each named in `names` at most once: `read_member(i, value)` reads the
// value of names[i]. A repeated or unknown key is declined (simdjson looks for neither), as is a
// key with escapes. Returns the set of members seen, bit i for names[i].
template <std::size_t N, typename ReadMember>
unsigned read_members(ondemand::object object, const std::array<std::string_view, N>& names,
                      ReadMember read_member) {
  static_assert(N <= 32);
  unsigned seen = 0;
  for (auto member : object) {
    ondemand::field field = take(std::move(member));
    const std::string_view name = plain_text(field.key().raw());
    // Sizes and first letters tell most names apart without a call to memcmp.
    const auto known = std::find_if(names.begin(), names.end(), [name](std::string_view known) {
      return known.size() == name.size() && known.front() == name.front() && known == name;
    });
    if (known == names.end()) decline();
    const unsigned bit = 1U << (known - names.begin());
    if ((seen & bit) != 0) decline();
    seen |= bit;
    read_member(static_cast<int>(known - names.begin()), field.value());
  }
  return seen;
}

std::int64_t integer(ondemand::value& value) { return take(value.get_int64()); }

std::uint32_t line_number(ondemand::value& value) {
  const std::int64_t line = integer(value);
  if (line < 0 || line > std::numeric_limits<std::uint32_t>::max()) decline();
  return static_cast<std::uint32_t>(line);
}

Value read_value(ondemand::value& value, int depth);

Value::List read_list(ondemand::value& value, int depth) {
  Value::List list;
  for (auto item : take(value.get_array())) {
    ondemand::value element = take(std::move(item));
    list.push_back(read_value(element, depth + 1));
  }
  return list;
}

Value read_value(ondemand::value& value, int depth) {
  switch (take(value.type())) {
    case ondemand::json_type::null:
      if (!take(value.is_null())) decline();
      return Value();
    case ondemand::json_type::boolean:
      return Value(take(value.get_bool()));
    case ondemand::json_type::number:
      return Value(integer(value));
    case ondemand::json_type::string:
      return Value(std::string(plain_string(value)));
    case ondemand::json_type::array:
      if (depth >= kMaxListDepth) decline();
      return Value(read_list(value, depth));
    case ondemand::json_type::object:
      break;
  }
  return decline<Value>();
}

// One element of "operations", with parse_operation's rules (json_format.cc).
ParsedOperation read_operation(ondemand::value& value, std::size_t index, std::uint32_t line) {
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
  op.json_line = line;
  std::optional<Outcome> outcome;
  std::optional<std::uint32_t> call_line;
  std::optional<std::uint32_t> return_line;
  const unsigned seen =
      read_members(take(value.get_object()), kNames, [&](int field, ondemand::value member) {
        switch (field) {
          case kProcess:
            op.process = integer(member);
            break;
          case kMethod:
            op.call.method = std::string(plain_string(member));
            if (op.call.method.empty()) decline();
            break;
          case kArgs:
            op.call.args = read_list(member, 0);
            break;
          case kOutcome: {
            const std::string_view name = plain_string(member);
            outcome = name == "ok"        ? Outcome::kOk
                      : name == "fail"    ? Outcome::kFail
                      : name == "pending" ? Outcome::kPending
                                          : decline<Outcome>();
            break;
          }
          case kResult:
            op.result = read_value(member, 0);
            break;
          case kCall:
            op.call_position = integer(member);
            break;
          case kReturn:
            if (take(member.type()) == ondemand::json_type::null) {
              if (!take(member.is_null())) decline();
            } else {
              op.return_position = integer(member);
            }
            break;
          case kKey:
            op.key = read_value(member, 0);
            break;
          case kLine:
            call_line = line_number(member);
            break;
          case kReturnLine:
            return_line = line_number(member);
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

// Lines of positions in the padded text, met in increasing order: newlines are counted once.
class LineCounter {
 public:
  explicit LineCounter(const char* start) : counted_to_(start) {}
  std::uint32_t line_of(const char* position) {
    line_ += static_cast<std::uint32_t>(std::count(counted_to_, position, '\n'));
    counted_to_ = position;
    return line_;
  }

 private:
  const char* counted_to_;
  std::uint32_t line_ = 1;
};

// The document's operations and its "model", or Declined.
void read_document(const simdjson::padded_string& text, std::vector<ParsedOperation>& ops,
                   std::optional<std::string>& model) {
  enum Field { kTag, kVersionField, kModel, kOperations };
  static constexpr std::array<std::string_view, 4> kNames = {"linfault", "version", "model",
                                                             "operations"};
  ondemand::parser parser;
  ondemand::document document = take(parser.iterate(text));
  LineCounter lines(text.data());
  const unsigned seen =
      read_members(take(document.get_object()), kNames, [&](int field, ondemand::value value) {
        switch (field) {
          case kTag:
            if (plain_string(value) != "history") decline();
            break;
          case kVersionField:
            if (integer(value) != kVersion) decline();
            break;
          case kModel:
            model = std::string(plain_string(value));
            break;
          case kOperations:
            for (auto item : take(value.get_array())) {
              ondemand::value op = take(std::move(item));
              const std::uint32_t line = lines.line_of(op.raw_json_token().data());
              ops.push_back(read_operation(op, ops.size(), line));
            }
            break;
        }
      });
  if ((seen & 1U << kOperations) == 0) decline();
  // Anything after the object (simdjson leaves it unread): current_location() is in bounds.
  const char* trailing = nullptr;
  if (document.current_location().get(trailing) != simdjson::OUT_OF_BOUNDS) decline();
}

}  // namespace

std::optional<LoadedHistory> read_json_history_fast(std::string_view text,
                                                    const std::string& origin) {
  std::vector<ParsedOperation> ops;
  // linfault writes one operation a line.
  ops.reserve(std::min<std::size_t>(std::count(text.begin(), text.end(), '\n'), text.size() / 32));
  LoadedHistory loaded;
  loaded.format = Format::kJson;
  try {
    // simdjson reads up to SIMDJSON_PADDING bytes past the end: it needs its own padded copy.
    const simdjson::padded_string padded(text);
    read_document(padded, ops, loaded.model);
  } catch (const Declined&) {
    return std::nullopt;
  }
  loaded.history = build_history(std::move(ops), origin);
  return loaded;
}

}  // namespace linfault::history::json_detail
