// Differential tests: on thousands of small random histories (linearizable, with injected
// violations, with random result mutations, with pending operations and empty results) every
// monitor verdict equals the search's, including the shortest violating prefix and its culprit.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <iostream>
#include <random>
#include <string>

#include "detect/checker.h"
#include "detect/monitors/monitor.h"
#include "history/json_format.h"
#include "spec/generator.h"

namespace linfault::detect {
namespace {

using history::History;
using history::Value;

// Replaces one recorded result with another plausible one (it may or may not break
// linearizability).
History mutate(const History& h, std::mt19937_64& rng) {
  std::vector<history::OpIndex> candidates;
  for (std::size_t i = 0; i < h.size(); ++i) {
    if (h.operations()[i].outcome == history::Outcome::kOk && !h.operations()[i].result.is_nil()) {
      candidates.push_back(static_cast<history::OpIndex>(i));
    }
  }
  if (candidates.empty()) return h;
  const history::OpIndex victim = candidates[rng() % candidates.size()];
  // Rebuild the history with the victim's result changed.
  history::HistoryBuilder builder(h.origin());
  std::vector<Value> seen;
  for (const history::Operation& op : h.operations()) {
    for (const Value& a : op.call.args) seen.push_back(a);
  }
  for (const history::Event& ev : h.events()) {
    const history::Operation& op = h.op(ev.op);
    if (ev.kind == history::Event::Kind::kCall) {
      builder.invoke(op.process, op.call);
      continue;
    }
    Value result = op.result;
    if (ev.op == victim) {
      if (result.is_bool()) {
        result = Value(!result.as_bool());
      } else if (result.is_list()) {
        Value::List l = result.as_list();
        const std::size_t at = rng() % l.size();
        l[at] = Value(1 - l[at].as_int());
        result = Value(l);
      } else {
        switch (rng() % 3) {
          case 0:
            result = Value();
            break;
          case 1:
            result = seen.empty() ? Value() : seen[rng() % seen.size()];
            break;
          default:
            result = Value(std::int64_t{999});
            break;
        }
      }
    }
    builder.respond(op.process, op.outcome, result);
  }
  return std::move(builder).build();
}

struct Tally {
  int decided = 0, violations = 0, unsupported = 0;
};

void compare_on(const std::string& model, int histories, Tally& tally) {
  std::mt19937_64 rng(12345);
  for (int n = 0; n < histories; ++n) {
    spec::GeneratorOptions options;
    options.model = model;
    options.operations = 3 + rng() % 22;
    options.threads = 1 + rng() % 6;
    options.seed = rng();
    options.pending_fraction = rng() % 3 == 0 ? 0.5 : 0;
    const int mode = static_cast<int>(rng() % 3);
    options.violation = mode == 1;
    History h;
    try {
      h = spec::generate_history(options).history;
    } catch (const spec::GeneratorError&) {
      continue;  // too few operations to falsify one: nothing to compare
    }
    if (mode == 2) h = mutate(h, rng);

    CheckOptions check_options;
    check_options.want_witness = false;
    check_options.threads = 1;
    const Verdict search = check_history(model, h, check_options);
    ASSERT_NE(search.result, Result::kUnknown);
    const MonitorResult monitor = run_monitor(model, h, check_options);
    if (!monitor.verdict) {
      ++tally.unsupported;
      EXPECT_FALSE(monitor.unsupported.empty());
      continue;
    }
    ++tally.decided;
    const Verdict& v = *monitor.verdict;
    SCOPED_TRACE(model + " history #" + std::to_string(n));
    auto dump = [&] {
      std::string out;
      for (const history::Operation& op : h.operations()) {
        out += op.to_string() + " [" + std::to_string(op.call_event) + "," +
               std::to_string(op.return_event) + "]\n";
      }
      return out;
    };
    ASSERT_EQ(v.result, search.result) << dump();
    EXPECT_EQ(v.algorithm, "monitor:" + model);
    if (v.result == Result::kViolation) {
      ++tally.violations;
      EXPECT_EQ(v.prefix_events, search.prefix_events) << dump();
      EXPECT_EQ(v.culprit, search.culprit);
      EXPECT_TRUE(v.prefix_exact);
    }
  }
}

class MonitorVersusSearch : public ::testing::TestWithParam<std::string> {};

TEST_P(MonitorVersusSearch, AgreeOnRandomSmallHistories) {
  Tally tally;
  compare_on(GetParam(), 2000, tally);
  std::cout << GetParam() << ": " << tally.decided << " decided by the monitor ("
            << tally.violations << " violations), " << tally.unsupported << " unsupported\n";
  // The monitors must decide the bulk of these histories, violations included.
  EXPECT_GT(tally.decided, 1600) << tally.unsupported << " unsupported";
  EXPECT_GT(tally.violations, 400);
  EXPECT_LT(tally.violations, tally.decided);
}

// A pending call ends where its process calls again (docs/formats.md). The set monitor rebuilt
// each value's operations as a history of their own and kept such a call open there, so the
// process's next call on the same value was refused as bad input (exit 65), by default.
TEST(MonitorVersusSearchTest, APendingCallFollowedByItsProcesssNextCallIsDecided) {
  const std::string pending_then_again =
      R"({"process": 1, "method": "remove", "args": [2], "outcome": "pending", "call": 0},
         {"process": 1, "method": "add", "args": [2], "outcome": "pending", "call": 1},
         {"process": 0, "method": "contains", "args": [2], "result": true, "call": 2, "return": 3})";
  const std::string two_removes =
      R"(, {"process": 0, "method": "remove", "args": [2], "result": true, "call": 4, "return": 5},
         {"process": 0, "method": "remove", "args": [2], "result": true, "call": 6, "return": 7})";
  for (const auto& [operations, expected] :
       {std::pair{pending_then_again, Result::kLinearizable},
        std::pair{pending_then_again + two_removes, Result::kViolation}}) {
    SCOPED_TRACE(operations);
    const History history = history::history_from_json(
        nlohmann::json::parse(R"({"model": "set", "operations": [)" + operations + "]}"),
        "pending.json");
    CheckOptions options;
    for (const bool partition : {true, false}) {
      options.partition = partition;
      const Verdict automatic = check_auto("set", history, options);
      EXPECT_EQ(automatic.result, expected) << automatic.reason;
      EXPECT_EQ(automatic.algorithm.rfind("monitor", 0), 0u) << automatic.algorithm;
      EXPECT_EQ(check_auto("set", history, options, Algo::kSearch).result, expected);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Models, MonitorVersusSearch,
                         ::testing::Values("stack", "queue", "priorityqueue", "set", "snapshot"));

}  // namespace
}  // namespace linfault::detect
