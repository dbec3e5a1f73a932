// fastlin histories (github.com/solarrabbit99/fastlin): a header `# stack|queue|priorityqueue|set|
// deque`, then one complete operation per line, `method value start end`. The value -1 means
// "empty" for the methods that return a value (pop, peek, deq, poll, pop_front, ...) and becomes
// nil. fastlin has no processes: each operation gets its own process id (its 0-based position
// among the operation lines). At equal timestamps a response comes before an invocation.
//
// The reader scans the text in place (a memchr per line, fields as pointer ranges, from_chars for
// numbers) and keeps a 32-byte record per operation until the events are ordered: files of 10^6
// operations are read at disk speed.

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <vector>

#include "history/readers.h"

namespace linfault::history {
namespace {

constexpr std::int64_t kEmpty = -1;

enum class ValueRole : std::uint8_t { kArgument, kResult, kSetTrue, kSetFalse };

// kArgument: the value is the argument and the call returns nothing (or true for a set's
// successful insert); kResult: the value is what came back; kSetTrue/kSetFalse: the value is the
// argument and the call returned true/false.
struct MethodInfo {
  std::string_view fastlin_name;
  std::string_view method;  // linfault's method name
  ValueRole role;
};

constexpr std::array<MethodInfo, 16> kMethods = {{
    {"push", "push", ValueRole::kArgument},
    {"pop", "pop", ValueRole::kResult},
    {"peek", "peek", ValueRole::kResult},
    {"enq", "enq", ValueRole::kArgument},
    {"deq", "deq", ValueRole::kResult},
    {"insert", "insert", ValueRole::kArgument},
    {"poll", "poll", ValueRole::kResult},
    {"remove", "remove", ValueRole::kSetTrue},
    {"contains_true", "contains", ValueRole::kSetTrue},
    {"contains_false", "contains", ValueRole::kSetFalse},
    {"push_front", "push_left", ValueRole::kArgument},
    {"push_back", "push_right", ValueRole::kArgument},
    {"pop_front", "pop_left", ValueRole::kResult},
    {"pop_back", "pop_right", ValueRole::kResult},
    {"peek_front", "peek_left", ValueRole::kResult},
    {"peek_back", "peek_right", ValueRole::kResult},
}};

constexpr std::array<std::string_view, 5> kObjects = {"stack", "queue", "priorityqueue", "set",
                                                      "deque"};

// Index into kMethods, or -1.
int find_method(std::string_view name) {
  for (std::size_t i = 0; i < kMethods.size(); ++i) {
    if (kMethods[i].fastlin_name == name) return static_cast<int>(i);
  }
  return -1;
}

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// The next blank-separated field of [pos, end), advancing pos past it; empty at the line's end.
std::string_view next_field(const char*& pos, const char* end) {
  while (pos < end && is_blank(*pos)) ++pos;
  const char* start = pos;
  while (pos < end && !is_blank(*pos)) ++pos;
  return {start, static_cast<std::size_t>(pos - start)};
}

std::size_t count_fields(std::string_view line) {
  const char* pos = line.data();
  std::size_t count = 0;
  while (!next_field(pos, line.data() + line.size()).empty()) ++count;
  return count;
}

std::int64_t parse_int(std::string_view field, const char* what, const std::string& origin,
                       std::uint32_t line) {
  std::int64_t value = 0;
  auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (error != std::errc() || end != field.data() + field.size()) {
    throw InputError(origin, line,
                     std::string(what) + " `" + std::string(field) + "` is not an integer");
  }
  return value;
}

// One operation line, until the events are ordered.
struct TimedOp {
  std::int64_t value;
  std::int64_t start;
  std::int64_t end;
  std::uint32_t line;
  std::uint8_t method;  // index into kMethods
};

// An event in the order key (time, rank, operation, is_return), the last three packed so that the
// comparison is two integer compares. At equal time: responses (rank 0), then zero-length
// operations (rank 1, call before response), then invocations (rank 2); file order breaks the
// remaining ties.
struct TimedEvent {
  std::int64_t time;
  std::uint64_t order;  // rank << 62 | operation << 1 | is_return

  bool is_return() const { return (order & 1) != 0; }
  std::size_t op() const { return static_cast<std::size_t>((order & ~(3ULL << 62)) >> 1); }
  friend bool operator<(const TimedEvent& a, const TimedEvent& b) {
    return a.time != b.time ? a.time < b.time : a.order < b.order;
  }
};

void sort_unless_sorted(std::vector<TimedEvent>& events) {
  if (!std::is_sorted(events.begin(), events.end())) std::sort(events.begin(), events.end());
}

}  // namespace

LoadedHistory read_fastlin(std::string_view text, const std::string& origin) {
  LoadedHistory loaded;
  loaded.format = Format::kFastlin;
  bool is_set = false;
  std::vector<TimedOp> ops;
  // Operation lines are at least 8 bytes ("pop 1 2 3" and a newline are 10).
  ops.reserve(text.size() / 16 + 1);
  std::uint32_t line_number = 0;
  const char* cursor = text.data();
  const char* const text_end = text.data() + text.size();
  bool seen_content = false;
  while (cursor < text_end) {
    const auto* newline = static_cast<const char*>(
        std::memchr(cursor, '\n', static_cast<std::size_t>(text_end - cursor)));
    const char* line_end = newline != nullptr ? newline : text_end;
    const std::string_view line(cursor, static_cast<std::size_t>(line_end - cursor));
    cursor = line_end + 1;
    ++line_number;
    const char* pos = line.data();
    const std::string_view first = next_field(pos, line_end);
    if (first.empty()) continue;
    if (first[0] == '#') {
      if (seen_content) continue;  // a later # line is a comment
      seen_content = true;
      std::string_view object = first.substr(1);
      if (object.empty()) object = next_field(pos, line_end);
      const auto known = std::find(kObjects.begin(), kObjects.end(), object);
      if (object.empty() || known == kObjects.end()) {
        throw InputError(origin, line_number,
                         "unknown fastlin object `" + std::string(object) +
                             "` (expected stack, queue, priorityqueue, set or deque)");
      }
      loaded.model = std::string(*known);
      is_set = *known == "set";
      continue;
    }
    seen_content = true;
    const std::string_view value_field = next_field(pos, line_end);
    const std::string_view start_field = next_field(pos, line_end);
    const std::string_view end_field = next_field(pos, line_end);
    if (end_field.empty() || !next_field(pos, line_end).empty()) {
      throw InputError(
          origin, line_number,
          "expected 4 fields `method value start end`, got " + std::to_string(count_fields(line)));
    }
    const int method = find_method(first);
    if (method < 0) {
      throw InputError(origin, line_number, "unknown fastlin method `" + std::string(first) + "`");
    }
    TimedOp op;
    op.line = line_number;
    op.method = static_cast<std::uint8_t>(method);
    op.value = parse_int(value_field, "value", origin, line_number);
    op.start = parse_int(start_field, "start", origin, line_number);
    op.end = parse_int(end_field, "end", origin, line_number);
    if (op.end < op.start) {
      throw InputError(origin, line_number,
                       "end " + std::to_string(op.end) + " < start " + std::to_string(op.start));
    }
    ops.push_back(op);
  }

  // Invocations and responses are each ordered on their own, then merged. Files usually list
  // operations by start time: then the invocations are in file order and need no array.
  const std::size_t n = ops.size();
  const auto call_event = [&](std::size_t i) {
    const std::uint64_t rank = ops[i].start == ops[i].end ? 1 : 2;
    return TimedEvent{ops[i].start, rank << 62 | static_cast<std::uint64_t>(i) << 1};
  };
  bool calls_in_file_order = true;
  for (std::size_t i = 1; i < n && calls_in_file_order; ++i) {
    calls_in_file_order = call_event(i - 1) < call_event(i);
  }
  std::vector<TimedEvent> sorted_calls;
  if (!calls_in_file_order) {
    sorted_calls.resize(n);
    for (std::size_t i = 0; i < n; ++i) sorted_calls[i] = call_event(i);
    std::sort(sorted_calls.begin(), sorted_calls.end());
  }
  std::vector<TimedEvent> returns(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t rank = ops[i].start == ops[i].end ? 1 : 0;
    returns[i] = {ops[i].end, rank << 62 | static_cast<std::uint64_t>(i) << 1 | 1};
  }
  sort_unless_sorted(returns);

  HistoryBuilder builder(origin);
  builder.reserve(n, 2 * n);
  std::size_t next_call = 0;
  std::size_t next_return = 0;
  while (next_call < n || next_return < n) {
    TimedEvent event = returns[next_return < n ? next_return : 0];
    if (next_call < n) {
      const TimedEvent call = calls_in_file_order ? call_event(next_call) : sorted_calls[next_call];
      if (next_return == n || call < event) event = call;
    }
    if (event.is_return()) {
      ++next_return;
    } else {
      ++next_call;
    }
    const std::size_t index = event.op();
    const TimedOp& op = ops[index];
    const MethodInfo& info = kMethods[op.method];
    const auto process = static_cast<ProcessId>(index);
    if (!event.is_return()) {
      Call call;
      call.method = info.method;
      if (info.role != ValueRole::kResult) call.args.emplace_back(op.value);
      builder.invoke(process, std::move(call), op.line);
      continue;
    }
    Value result;
    switch (info.role) {
      case ValueRole::kArgument:
        if (is_set) result = Value(true);  // a set's insert in fastlin is a successful add
        break;
      case ValueRole::kResult:
        if (op.value != kEmpty) result = Value(op.value);
        break;
      case ValueRole::kSetTrue:
      case ValueRole::kSetFalse:
        result = Value(info.role == ValueRole::kSetTrue);
        break;
    }
    builder.respond(process, Outcome::kOk, std::move(result), op.line);
  }
  loaded.history = std::move(builder).build();
  return loaded;
}

}  // namespace linfault::history
