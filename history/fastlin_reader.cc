// fastlin histories (github.com/solarrabbit99/fastlin): a header `# stack|queue|priorityqueue|set|
// deque`, then one complete operation per line, `method value start end`. The value -1 means
// "empty" for the methods that return a value (pop, peek, deq, poll, pop_front, ...) and becomes
// nil. fastlin has no processes: each operation gets its own process id (its 0-based position
// among the operation lines). At equal timestamps a response comes before an invocation.

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <map>
#include <vector>

#include "history/readers.h"

namespace linfault::history {
namespace {

constexpr std::int64_t kEmpty = -1;

struct MethodInfo {
  const char* method;  // linfault's method name
  enum class Kind { kArgument, kResult, kSetTrue, kSetFalse } kind;
};

// fastlin method name -> how it maps. kArgument: the value is the argument and the call returns
// nothing (or true for a set's successful insert/remove); kResult: the value is what came back.
const std::map<std::string_view, MethodInfo>& methods() {
  static const std::map<std::string_view, MethodInfo> kMethods = {
      {"push", {"push", MethodInfo::Kind::kArgument}},
      {"pop", {"pop", MethodInfo::Kind::kResult}},
      {"peek", {"peek", MethodInfo::Kind::kResult}},
      {"enq", {"enq", MethodInfo::Kind::kArgument}},
      {"deq", {"deq", MethodInfo::Kind::kResult}},
      {"insert", {"insert", MethodInfo::Kind::kArgument}},
      {"poll", {"poll", MethodInfo::Kind::kResult}},
      {"remove", {"remove", MethodInfo::Kind::kSetTrue}},
      {"contains_true", {"contains", MethodInfo::Kind::kSetTrue}},
      {"contains_false", {"contains", MethodInfo::Kind::kSetFalse}},
      {"push_front", {"push_left", MethodInfo::Kind::kArgument}},
      {"push_back", {"push_right", MethodInfo::Kind::kArgument}},
      {"pop_front", {"pop_left", MethodInfo::Kind::kResult}},
      {"pop_back", {"pop_right", MethodInfo::Kind::kResult}},
      {"peek_front", {"peek_left", MethodInfo::Kind::kResult}},
      {"peek_back", {"peek_right", MethodInfo::Kind::kResult}},
  };
  return kMethods;
}

struct TimedOp {
  Call call;
  Value result;
  std::int64_t start = 0;
  std::int64_t end = 0;
  std::uint32_t line = 0;
};

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t pos = 0;
  while (true) {
    pos = line.find_first_not_of(" \t\r", pos);
    if (pos == std::string_view::npos) break;
    const std::size_t end = std::min(line.find_first_of(" \t\r", pos), line.size());
    fields.push_back(line.substr(pos, end - pos));
    pos = end;
  }
  return fields;
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

}  // namespace

LoadedHistory read_fastlin(std::string_view text, const std::string& origin) {
  static const std::map<std::string_view, std::string_view> kObjects = {
      {"stack", "stack"},
      {"queue", "queue"},
      {"priorityqueue", "priorityqueue"},
      {"set", "set"},
      {"deque", "deque"}};
  LoadedHistory loaded;
  loaded.format = Format::kFastlin;
  std::vector<TimedOp> ops;
  std::uint32_t line_number = 0;
  std::size_t line_start = 0;
  bool seen_content = false;
  while (line_start < text.size()) {
    std::size_t line_end = text.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = text.size();
    const std::string_view line = text.substr(line_start, line_end - line_start);
    line_start = line_end + 1;
    ++line_number;
    const std::vector<std::string_view> fields = split_fields(line);
    if (fields.empty()) continue;
    if (fields[0][0] == '#') {
      if (seen_content) continue;  // a later # line is a comment
      seen_content = true;
      std::string_view object = fields[0].substr(1);
      if (object.empty() && fields.size() > 1) object = fields[1];
      auto known = kObjects.find(object);
      if (known == kObjects.end()) {
        throw InputError(origin, line_number,
                         "unknown fastlin object `" + std::string(object) +
                             "` (expected stack, queue, priorityqueue, set or deque)");
      }
      loaded.model = std::string(known->second);
      continue;
    }
    seen_content = true;
    if (fields.size() != 4) {
      throw InputError(
          origin, line_number,
          "expected 4 fields `method value start end`, got " + std::to_string(fields.size()));
    }
    auto method = methods().find(fields[0]);
    if (method == methods().end()) {
      throw InputError(origin, line_number,
                       "unknown fastlin method `" + std::string(fields[0]) + "`");
    }
    TimedOp op;
    op.line = line_number;
    const std::int64_t value = parse_int(fields[1], "value", origin, line_number);
    op.start = parse_int(fields[2], "start", origin, line_number);
    op.end = parse_int(fields[3], "end", origin, line_number);
    if (op.end < op.start) {
      throw InputError(origin, line_number,
                       "end " + std::to_string(op.end) + " < start " + std::to_string(op.start));
    }
    op.call.method = method->second.method;
    switch (method->second.kind) {
      case MethodInfo::Kind::kArgument:
        op.call.args.emplace_back(value);
        // A set's insert in fastlin is a successful add.
        if (loaded.model == "set") op.result = Value(true);
        break;
      case MethodInfo::Kind::kResult:
        op.result = value == kEmpty ? Value() : Value(value);
        break;
      case MethodInfo::Kind::kSetTrue:
      case MethodInfo::Kind::kSetFalse:
        op.call.args.emplace_back(value);
        op.result = Value(method->second.kind == MethodInfo::Kind::kSetTrue);
        break;
    }
    ops.push_back(std::move(op));
  }

  // Event order: by time; at equal time responses first, then zero-length operations (call and
  // response together), then invocations; file order breaks the remaining ties.
  struct TimedEvent {
    std::int64_t time;
    int rank;
    std::size_t op;
    bool is_call;
  };
  std::vector<TimedEvent> events;
  events.reserve(2 * ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].start == ops[i].end) {
      events.push_back({ops[i].start, 1, i, true});
      events.push_back({ops[i].end, 1, i, false});
    } else {
      events.push_back({ops[i].start, 2, i, true});
      events.push_back({ops[i].end, 0, i, false});
    }
  }
  std::stable_sort(events.begin(), events.end(), [](const TimedEvent& a, const TimedEvent& b) {
    if (a.time != b.time) return a.time < b.time;
    return a.rank < b.rank;
  });
  HistoryBuilder builder(origin);
  for (const TimedEvent& event : events) {
    TimedOp& op = ops[event.op];
    const auto process = static_cast<ProcessId>(event.op);
    if (event.is_call) {
      builder.invoke(process, std::move(op.call), op.line);
    } else {
      builder.respond(process, Outcome::kOk, std::move(op.result), op.line);
    }
  }
  loaded.history = std::move(builder).build();
  return loaded;
}

}  // namespace linfault::history
