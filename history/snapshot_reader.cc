// Snapshot histories (seed 003's experiments): actions separated by `;` (usually all on one line):
//   startUpdate!p,v   process p invokes update(p, v) (p writes its own segment)
//   endUpdate!p,v     ... and it returns
//   startScan!p       process p invokes scan()
//   endScan!p,x0,x1   ... and it returns [x0 x1] (the first segments' values)
// Calls left open at the end stay pending.

#include <charconv>
#include <unordered_map>
#include <vector>

#include "history/readers.h"

namespace linfault::history {
namespace {

struct Action {
  std::string_view name;
  std::vector<std::int64_t> numbers;
};

struct OpenCall {
  bool is_update;
  std::int64_t value;  // for updates
  std::size_t action_index;
};

}  // namespace

LoadedHistory read_snapshot(std::string_view text, const std::string& origin) {
  HistoryBuilder builder(origin);
  std::unordered_map<ProcessId, OpenCall> open;
  std::uint32_t line = 1;
  std::size_t action_index = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find_first_of(";\n", pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view raw = text.substr(pos, end - pos);
    const bool newline_follows = end < text.size() && text[end] == '\n';
    pos = end + 1;
    const std::size_t first = raw.find_first_not_of(" \t\r");
    if (first != std::string_view::npos) {
      raw = raw.substr(first, raw.find_last_not_of(" \t\r") - first + 1);
      ++action_index;
      const std::string where =
          "action " + std::to_string(action_index) + " `" + std::string(raw) + "`: ";
      auto fail = [&](const std::string& problem) {
        throw InputError(origin, line, where + problem);
      };

      Action action;
      const std::size_t bang = raw.find('!');
      if (bang == std::string_view::npos) fail("expected `name!process,...`");
      action.name = raw.substr(0, bang);
      std::string_view rest = raw.substr(bang + 1);
      while (true) {
        const std::size_t comma = std::min(rest.find(','), rest.size());
        const std::string_view field = rest.substr(0, comma);
        std::int64_t number = 0;
        auto [ptr, error] = std::from_chars(field.data(), field.data() + field.size(), number);
        if (error != std::errc() || ptr != field.data() + field.size()) {
          fail("`" + std::string(field) + "` is not an integer");
        }
        action.numbers.push_back(number);
        if (comma == rest.size()) break;
        rest = rest.substr(comma + 1);
      }

      const ProcessId process = action.numbers[0];
      auto expect_fields = [&](std::size_t n, const char* shape) {
        if (action.numbers.size() != n) {
          fail("expected `" + std::string(shape) + "`, got " +
               std::to_string(action.numbers.size()) + " number(s)");
        }
      };
      auto open_call = open.find(process);
      const bool is_start = action.name == "startUpdate" || action.name == "startScan";
      const bool is_end = action.name == "endUpdate" || action.name == "endScan";
      if (!is_start && !is_end) {
        fail("unknown action `" + std::string(action.name) +
             "` (expected startUpdate, endUpdate, startScan or endScan)");
      }
      if (is_start && open_call != open.end()) {
        fail("process " + std::to_string(process) + " starts a call while its call from action " +
             std::to_string(open_call->second.action_index) + " has not ended");
      }
      if (action.name == "startUpdate") {
        expect_fields(2, "startUpdate!process,value");
        builder.invoke(process, Call{"update", {Value(process), Value(action.numbers[1])}}, line);
        open[process] = {true, action.numbers[1], action_index};
      } else if (action.name == "startScan") {
        expect_fields(1, "startScan!process");
        builder.invoke(process, Call{"scan", {}}, line);
        open[process] = {false, 0, action_index};
      } else {
        const bool is_update = action.name == "endUpdate";
        if (open_call == open.end() || open_call->second.is_update != is_update) {
          fail("no open " + std::string(is_update ? "update" : "scan") + " for process " +
               std::to_string(process));
        }
        if (is_update) {
          expect_fields(2, "endUpdate!process,value");
          if (action.numbers[1] != open_call->second.value) {
            fail("the update of process " + std::to_string(process) + " started with value " +
                 std::to_string(open_call->second.value));
          }
          builder.respond(process, Outcome::kOk, Value(), line);
        } else {
          Value::List segments;
          for (std::size_t i = 1; i < action.numbers.size(); ++i) {
            segments.emplace_back(action.numbers[i]);
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
