// Snapshot histories (seed 003's experiments): actions separated by `;` (usually all on one line):
//   startUpdate!p,v   process p invokes update(p, v) (p writes its own segment)
//   endUpdate!p,v     ... and it returns
//   startScan!p       process p invokes scan()
//   endScan!p,x0,x1   ... and it returns [x0 x1] (the first segments' values)
// Calls left open at the end stay pending.

#include <algorithm>
#include <charconv>
#include <unordered_map>
#include <vector>

#include "history/readers.h"

namespace linfault::history {
namespace {

struct OpenCall {
  bool is_update;
  std::int64_t value;  // for updates
  std::size_t action_index;
};

}  // namespace

LoadedHistory read_snapshot(std::string_view text, const std::string& origin) {
  HistoryBuilder builder(origin);
  // Two actions an operation; every action names itself with a `!`, so this bounds the actions
  // without counting blank ones (a file of empty lines must not reserve memory per line).
  const auto actions = static_cast<std::size_t>(std::count(text.begin(), text.end(), '!') + 1);
  builder.reserve(actions / 2 + 1, actions);
  std::unordered_map<ProcessId, OpenCall> open;
  std::uint32_t line = 1;
  std::size_t action_index = 0;
  std::size_t pos = 0;
  std::vector<std::int64_t> numbers;  // of the current action, reused
  while (pos < text.size()) {
    std::size_t end = pos;
    while (end < text.size() && text[end] != ';' && text[end] != '\n') ++end;
    std::string_view raw = text.substr(pos, end - pos);
    const bool newline_follows = end < text.size() && text[end] == '\n';
    pos = end + 1;
    const std::size_t first = raw.find_first_not_of(" \t\r");
    if (first != std::string_view::npos) {
      raw = raw.substr(first, raw.find_last_not_of(" \t\r") - first + 1);
      ++action_index;
      auto fail = [&](const std::string& problem) {
        throw InputError(
            origin, line,
            "action " + std::to_string(action_index) + " `" + std::string(raw) + "`: " + problem);
      };

      const std::size_t bang = raw.find('!');
      if (bang == std::string_view::npos) fail("expected `name!process,...`");
      const std::string_view name = raw.substr(0, bang);
      numbers.clear();
      std::string_view rest = raw.substr(bang + 1);
      while (true) {
        const std::size_t comma = std::min(rest.find(','), rest.size());
        const std::string_view field = rest.substr(0, comma);
        std::int64_t number = 0;
        auto [ptr, error] = std::from_chars(field.data(), field.data() + field.size(), number);
        if (error != std::errc() || ptr != field.data() + field.size()) {
          fail("`" + std::string(field) + "` is not an integer");
        }
        numbers.push_back(number);
        if (comma == rest.size()) break;
        rest = rest.substr(comma + 1);
      }

      const ProcessId process = numbers[0];
      auto expect_fields = [&](std::size_t n, const char* shape) {
        if (numbers.size() != n) {
          fail("expected `" + std::string(shape) + "`, got " + std::to_string(numbers.size()) +
               " number(s)");
        }
      };
      auto open_call = open.find(process);
      const bool is_start = name == "startUpdate" || name == "startScan";
      const bool is_end = name == "endUpdate" || name == "endScan";
      if (!is_start && !is_end) {
        fail("unknown action `" + std::string(name) +
             "` (expected startUpdate, endUpdate, startScan or endScan)");
      }
      if (is_start && open_call != open.end()) {
        fail("process " + std::to_string(process) + " starts a call while its call from action " +
             std::to_string(open_call->second.action_index) + " has not ended");
      }
      if (name == "startUpdate") {
        expect_fields(2, "startUpdate!process,value");
        builder.invoke(process, Call{"update", {Value(process), Value(numbers[1])}}, line);
        open[process] = {true, numbers[1], action_index};
      } else if (name == "startScan") {
        expect_fields(1, "startScan!process");
        builder.invoke(process, Call{"scan", {}}, line);
        open[process] = {false, 0, action_index};
      } else {
        const bool is_update = name == "endUpdate";
        if (open_call == open.end() || open_call->second.is_update != is_update) {
          fail("no open " + std::string(is_update ? "update" : "scan") + " for process " +
               std::to_string(process));
        }
        if (is_update) {
          expect_fields(2, "endUpdate!process,value");
          if (numbers[1] != open_call->second.value) {
            fail("the update of process " + std::to_string(process) + " started with value " +
                 std::to_string(open_call->second.value));
          }
          builder.respond(process, Outcome::kOk, Value(), line);
        } else {
          Value::List segments;
          for (std::size_t i = 1; i < numbers.size(); ++i) {
            segments.emplace_back(numbers[i]);
          }
          builder.respond(process, Outcome::kOk, Value(std::move(segments)), line);
        }
        open.erase(open_call);
      }
    }
    if (newline_follows) ++line;
  }
  LoadedHistory loaded;
  loaded.format = Format::kSnapshot;
  loaded.model = "snapshot";
  loaded.history = std::move(builder).build();
  return loaded;
}

}  // namespace linfault::history
