// The exhaustive cross-checks (exhaustive.h) as unit tests: the enumerator and the oracle on
// their own, then, per model, every small history (sharded so that each test runs in seconds),
// random larger ones, and the regressions the sweeps found (the smallest history of each).

#include "detect/exhaustive/exhaustive.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <iostream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "detect/checker.h"
#include "detect/monitors/monitor.h"
#include "history/formats.h"

namespace linfault::detect::exhaustive {
namespace {

using history::Call;
using history::History;
using history::Outcome;
using history::Value;

// ---------------------------------------------------------------------------------------------
// The enumerator

TEST(ExhaustiveShapes, EveryEventOrderOfCompleteOperations) {
  // n calls in order and their returns, each after its call: (2n - 1)!! orders.
  EXPECT_EQ(shapes(2, 0, ShapeSet::kEventOrders).size(), 3u);
  EXPECT_EQ(shapes(3, 0, ShapeSet::kEventOrders).size(), 15u);
  EXPECT_EQ(shapes(4, 0, ShapeSet::kEventOrders).size(), 105u);
  EXPECT_EQ(shapes(5, 0, ShapeSet::kEventOrders).size(), 945u);
}

TEST(ExhaustiveShapes, OneShapePerIntervalOrder) {
  EXPECT_EQ(shapes(1, 0, ShapeSet::kIntervalOrders).size(), 1u);
  EXPECT_EQ(shapes(2, 0, ShapeSet::kIntervalOrders).size(), 2u);  // 0 < 1, 0 || 1
  // Ops numbered by call order: none, {0<2}, {1<2}, {0<1, 0<2}, {0<2, 1<2}, all three.
  EXPECT_EQ(shapes(3, 0, ShapeSet::kIntervalOrders).size(), 6u);
  // Two ops with pending ones: both complete (2), op 1 pending after or during op 0 (2), op 0
  // pending (1), both pending (1).
  EXPECT_EQ(shapes(2, 2, ShapeSet::kIntervalOrders).size(), 6u);
  EXPECT_EQ(shapes(2, 1, ShapeSet::kIntervalOrders).size(), 5u);
}

TEST(ExhaustiveShapes, ShapesAreWellFormedAndDistinct) {
  for (ShapeSet set : {ShapeSet::kIntervalOrders, ShapeSet::kEventOrders}) {
    std::set<std::pair<std::vector<std::pair<int, int>>, std::uint32_t>> seen;
    for (const Shape& s : shapes(4, 4, set)) {
      std::vector<std::pair<int, int>> events;
      int calls = 0;
      std::uint32_t returned = 0;
      for (const history::Event& e : s.events) {
        events.emplace_back(e.kind == history::Event::Kind::kCall, e.op);
        if (e.kind == history::Event::Kind::kCall) {
          EXPECT_EQ(e.op, calls++);  // calls in op order
        } else {
          EXPECT_LT(e.op, calls);
          returned |= 1u << e.op;
        }
      }
      EXPECT_EQ(calls, 4);
      EXPECT_EQ(returned | s.pending, 0xfu);
      EXPECT_EQ(returned & s.pending, 0u);
      EXPECT_TRUE(seen.emplace(events, s.pending).second);
    }
  }
}

TEST(ExhaustiveEnumerate, RenamableValuesAreUsedInFirstMentionOrder) {
  // Two complete register ops, in sequence, over values 1..2: write(1)/write(2)/read->nil/1/2
  // each; canonical labellings mention 1 before 2.
  const Domain d =
      domain("register", {.values = 2, .failures = false, .without = {}, .distinct_adds = false});
  ASSERT_EQ(d.complete.size(), 5u);
  const Shape sequential = shapes(2, 0, ShapeSet::kIntervalOrders)[0];
  std::vector<std::string> seen;
  enumerate(d, sequential, [&](const History& h) {
    std::string s;
    for (const auto& op : h.operations()) {
      s += op.call.to_string() + "->" + op.result.to_string() + " ";
    }
    seen.push_back(s);
  });
  // Of the 25 labellings, those that mention 2 first are left out: write(1) or read->1 then any
  // of the 5, or read->nil then write(1), read->nil or read->1.
  EXPECT_EQ(seen.size(), 2u * 5u + 3u);
  for (const std::string& s : seen) {
    const std::size_t first = s.find_first_of("12");
    if (first != std::string::npos) {
      EXPECT_EQ(s[first], '1') << s;
    }
  }
}

TEST(ExhaustiveEnumerate, OrderedValuesLeaveNoGap) {
  const Domain d = domain("priorityqueue",
                          {.values = 3, .failures = false, .without = {}, .distinct_adds = false});
  const Shape one = shapes(1, 0, ShapeSet::kIntervalOrders)[0];
  std::vector<std::string> seen;
  enumerate(d, one, [&](const History& h) { seen.push_back(h.op(0).to_string()); });
  // insert(1), poll -> nil, poll -> 1, peek -> nil, peek -> 1.
  EXPECT_EQ(seen.size(), 5u);
}

TEST(ExhaustiveEnumerate, DistinctAddsLeaveOutASecondAddOfAValue) {
  // Two sequential stack ops over 1..2: push(1), pop/peek -> 1 (then any of the 8 labels), or
  // pop/peek -> nil (then one of the 5 that mention at most 1): 34; push(1) twice is one of them.
  const Shape sequential = shapes(2, 0, ShapeSet::kIntervalOrders)[0];
  const auto count = [&](bool distinct) {
    return enumerate(
        domain("stack", {.values = 2, .failures = false, .without = {}, .distinct_adds = distinct}),
        sequential, [](const History&) {});
  };
  EXPECT_EQ(count(false), 34u);
  EXPECT_EQ(count(true), 33u);
}

// ---------------------------------------------------------------------------------------------
// The oracle

History fastlin(const std::string& text) {
  return history::load_history_text(text, "test", history::Format::kFastlin).history;
}

History build(std::initializer_list<std::tuple<bool, int, Call, Outcome, Value>> events) {
  history::HistoryBuilder b("test");
  for (const auto& [call, process, c, outcome, result] : events) {
    if (call) {
      b.invoke(process, c);
    } else {
      b.respond(process, outcome, result);
    }
  }
  return std::move(b).build();
}

TEST(ExhaustiveOracle, ShortestPrefixEndsAtTheFirstResponseThatCannotBeExplained) {
  // pop -> 1 [0, 1] returns before push(1) [2, 3] is called: prefix 2, culprit the pop.
  const History h = fastlin("# stack\npop 1 0 1\npush 1 2 3\n");
  const OracleVerdict o = oracle("stack", h);
  EXPECT_EQ(o.result, Result::kViolation);
  EXPECT_EQ(o.prefix_events, 2u);
  EXPECT_EQ(o.culprit, 0);
}

TEST(ExhaustiveOracle, AnOperationCutShortKeepsItsArguments) {
  // write(1) [0, 3], read -> 2 [1, 2], write(2) [4, 5]: prefix(3) is linearizable only if the
  // pending write(1) could be write(2): it cannot, so the read (event 2) is the culprit.
  const History h = build({{true, 0, Call{"write", {Value(1)}}, Outcome::kOk, Value()},
                           {true, 1, Call{"read", {}}, Outcome::kOk, Value()},
                           {false, 1, Call{}, Outcome::kOk, Value(2)},
                           {false, 0, Call{}, Outcome::kOk, Value()},
                           {true, 2, Call{"write", {Value(2)}}, Outcome::kOk, Value()},
                           {false, 2, Call{}, Outcome::kOk, Value()}});
  const OracleVerdict o = oracle("register", h);
  EXPECT_EQ(o.result, Result::kViolation);
  EXPECT_EQ(o.prefix_events, 3u);
  EXPECT_EQ(o.culprit, 1);
  // A pending write may take effect at any time after its call.
  const History pending = build({{true, 0, Call{"write", {Value(2)}}, Outcome::kOk, Value()},
                                 {true, 1, Call{"read", {}}, Outcome::kOk, Value()},
                                 {false, 1, Call{}, Outcome::kOk, Value(2)}});
  EXPECT_TRUE(oracle_linearizable("register", pending));
  EXPECT_EQ(oracle("register", pending).result, Result::kLinearizable);
}

TEST(ExhaustiveOracle, RealTimeOrderIsRespected) {
  // deq -> 2 before deq -> 1 is legal only if enq(2) took effect first; enq(1) precedes enq(2).
  const History h = fastlin("# queue\nenq 1 0 1\nenq 2 2 3\ndeq 2 4 5\ndeq 1 6 7\n");
  EXPECT_FALSE(oracle_linearizable("queue", h));
  EXPECT_EQ(oracle("queue", h).prefix_events, 6u);
  const History concurrent = fastlin("# queue\nenq 1 0 3\nenq 2 1 2\ndeq 2 4 5\ndeq 1 6 7\n");
  EXPECT_TRUE(oracle_linearizable("queue", concurrent));
}

TEST(ExhaustiveOracle, WitnessCheckRejectsIllegalOrders) {
  const History h = fastlin("# queue\nenq 1 0 1\nenq 2 2 3\ndeq 1 4 5\n");
  EXPECT_TRUE(is_linearization("queue", h, {0, 1, 2}));
  EXPECT_FALSE(is_linearization("queue", h, {1, 0, 2}));     // against real time
  EXPECT_FALSE(is_linearization("queue", h, {0, 1}));        // a completed op missing
  EXPECT_FALSE(is_linearization("queue", h, {0, 0, 1, 2}));  // an op twice
  const History concurrent = fastlin("# queue\nenq 1 0 5\nenq 2 1 4\ndeq 1 6 7\n");
  EXPECT_TRUE(is_linearization("queue", concurrent, {0, 1, 2}));
  EXPECT_FALSE(is_linearization("queue", concurrent, {1, 0, 2}));  // deq would return 2
}

// ---------------------------------------------------------------------------------------------
// Every small history of every model

struct Sweep {
  const char* model;
  int ops;
  int values;
  std::vector<std::string> without;
  int shard;
  int shards;
  std::uint64_t histories;  // expected: the enumeration must not shrink unnoticed
};

void PrintTo(const Sweep& s, std::ostream* os) {
  *os << s.model << " with " << s.ops << " ops over " << s.values << " values, shard " << s.shard
      << " of " << s.shards;
}

std::string sweep_name(const testing::TestParamInfo<Sweep>& info) {
  std::string name = std::string(info.param.model) + "_" + std::to_string(info.param.ops) + "ops_" +
                     std::to_string(info.param.values) + "values";
  for (const std::string& m : info.param.without) name += "_without_" + m;
  if (info.param.shards > 1) {
    name += "_shard" + std::to_string(info.param.shard) + "of" + std::to_string(info.param.shards);
  }
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

class ExhaustiveSweep : public testing::TestWithParam<Sweep> {};

TEST_P(ExhaustiveSweep, SearchMonitorAndAutoAgreeWithTheOracle) {
  const Sweep& p = GetParam();
  Tally all;
  for (int n = 1; n <= p.ops; ++n) {
    SweepOptions options;
    options.ops = n;
    options.max_pending = n;
    options.domain = {
        .values = p.values, .failures = false, .without = p.without, .distinct_adds = false};
    // Smaller sizes in shard 0 only.
    if (n < p.ops && p.shard != 0) continue;
    if (n == p.ops) {
      options.shard = p.shard;
      options.shards = p.shards;
    }
    all.add(sweep(p.model, options));
  }
  std::cout << p.model << ": " << all.summary() << " in " << all.seconds << " s\n";
  for (const auto& [reason, count] : all.decline_reasons) {
    std::cout << "  monitor declined " << count << ": " << reason << "\n";
  }
  std::string first;
  for (const Disagreement& d : all.first) first += d.checker + " " + d.what + ": " + d.detail;
  EXPECT_EQ(all.total_disagreements(), 0u) << first;
  EXPECT_EQ(all.histories, p.histories);
  EXPECT_GT(all.violations, 0u);
  EXPECT_LT(all.violations, all.histories);
  if (has_monitor(p.model)) {
    EXPECT_GT(all.monitor_decided, 0u);
  }
}

// Sizes: each test runs in a few seconds on a busy 2-core machine.
INSTANTIATE_TEST_SUITE_P(
    Models, ExhaustiveSweep,
    testing::Values(
        Sweep{"register", 4, 2, {}, 0, 1, 22596}, Sweep{"cas-register", 3, 2, {}, 0, 1, 29056},
        Sweep{"counter", 4, 2, {}, 0, 1, 79524}, Sweep{"kv", 3, 2, {}, 0, 1, 32227},
        Sweep{"set", 3, 2, {}, 0, 1, 21738}, Sweep{"set", 4, 2, {"size"}, 0, 3, 184635},
        Sweep{"set", 4, 2, {"size"}, 1, 3, 237168}, Sweep{"set", 4, 2, {"size"}, 2, 3, 202176},
        Sweep{"stack", 4, 3, {}, 0, 2, 80756}, Sweep{"stack", 4, 3, {}, 1, 2, 79352},
        Sweep{"queue", 4, 3, {}, 0, 2, 80756}, Sweep{"queue", 4, 3, {}, 1, 2, 79352},
        Sweep{"deque", 3, 2, {}, 0, 1, 28192}, Sweep{"priorityqueue", 4, 3, {}, 0, 3, 117124},
        Sweep{"priorityqueue", 4, 3, {}, 1, 3, 162816},
        Sweep{"priorityqueue", 4, 3, {}, 2, 3, 133604}, Sweep{"snapshot", 3, 2, {}, 0, 1, 23238},
        Sweep{"snapshot", 4, 2, {"readpair"}, 0, 2, 152620},
        Sweep{"snapshot", 4, 2, {"readpair"}, 1, 2, 148512}, Sweep{"mutex", 6, 1, {}, 0, 2, 186460},
        Sweep{"mutex", 6, 1, {}, 1, 2, 161280}, Sweep{"multi-register", 4, 1, {}, 0, 6, 93020},
        Sweep{"multi-register", 4, 1, {}, 1, 6, 120792},
        Sweep{"multi-register", 4, 1, {}, 2, 6, 116072},
        Sweep{"multi-register", 4, 1, {}, 3, 6, 113300},
        Sweep{"multi-register", 4, 1, {}, 4, 6, 133640},
        Sweep{"multi-register", 4, 1, {}, 5, 6, 105160},
        Sweep{"multi-register", 3, 2, {}, 0, 1, 61075},
        Sweep{"multi-register(init=1)", 3, 1, {}, 0, 1, 13680},
        Sweep{"register(init=1)", 4, 2, {}, 0, 1, 45040},
        Sweep{"cas-register(init=1)", 3, 2, {}, 0, 1, 58080}),
    sweep_name);

// ---------------------------------------------------------------------------------------------
// Random larger histories: legal runs with at most one result changed, and random results

class ExhaustiveRandom : public testing::TestWithParam<const char*> {};

TEST_P(ExhaustiveRandom, SearchMonitorAndAutoAgreeWithTheOracle) {
  const std::string model = GetParam();
  const Domain d =
      domain(model, {.values = 6, .failures = false, .without = {}, .distinct_adds = false});
  std::mt19937_64 rng(20261124);
  CrossCheck cross(model);
  for (int round = 0; round < 10000; ++round) {
    RandomOptions options;
    options.legal_results = round % 4 != 0;
    cross.check(random_history(d, 5 + static_cast<int>(rng() % 5), rng, options));
  }
  const Tally& t = cross.tally();
  std::cout << model << ": " << t.summary() << "\n";
  std::string first;
  for (const Disagreement& dis : t.first) first += dis.checker + " " + dis.what + ": " + dis.detail;
  EXPECT_EQ(t.total_disagreements(), 0u) << first;
  EXPECT_GT(t.violations, 0u);
  EXPECT_LT(t.violations, t.histories);
}

INSTANTIATE_TEST_SUITE_P(Models, ExhaustiveRandom,
                         testing::Values("register", "cas-register", "counter", "kv", "set",
                                         "stack", "queue", "deque", "priorityqueue", "snapshot",
                                         "mutex", "multi-register", "cas-register(init=1)",
                                         "multi-register(init=1)"),
                         [](const testing::TestParamInfo<const char*>& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

// multi-register histories whose every transaction touches one register: the checker splits them
// by register (P-compositionality); split or not, its verdict, prefix and culprit are the oracle's.
TEST(ExhaustivePartition, SingleRegisterTransactionsCheckedOneRegisterAtATime) {
  Domain d = domain("multi-register",
                    {.values = 3, .failures = false, .without = {}, .distinct_adds = false});
  const auto two_registers = [](const Label& l) { return l.call.args[0].as_list().size() > 1; };
  std::erase_if(d.complete, two_registers);
  std::erase_if(d.pending, two_registers);
  std::mt19937_64 rng(15);
  int split = 0, violations = 0;
  for (int round = 0; round < 3000; ++round) {
    RandomOptions options;
    options.legal_results = round % 4 != 0;
    const History h = random_history(d, 4 + static_cast<int>(rng() % 7), rng, options);
    const OracleVerdict expected = oracle("multi-register", h);
    CheckOptions whole;
    whole.partition = false;
    const Verdict one = check_history("multi-register", h, whole);
    const Verdict parts = check_history("multi-register", h, CheckOptions{});
    if (parts.partitions > 1) ++split;
    if (expected.result == Result::kViolation) ++violations;
    for (const Verdict* v : {&one, &parts}) {
      ASSERT_EQ(v->result, expected.result) << describe(h);
      if (expected.result != Result::kViolation) continue;
      EXPECT_EQ(v->prefix_events, expected.prefix_events) << describe(h);
      EXPECT_EQ(v->culprit, expected.culprit) << describe(h);
    }
  }
  EXPECT_GT(split, 2000);  // most histories touch both registers
  EXPECT_GT(violations, 300);
  EXPECT_LT(violations, 2700);
}

// A transaction touching both registers puts the history in one partition.
TEST(ExhaustivePartition, ATwoRegisterTransactionDisablesPartitioning) {
  const Domain d = domain("multi-register",
                          {.values = 2, .failures = false, .without = {}, .distinct_adds = false});
  std::mt19937_64 rng(16);
  int whole = 0;
  for (int round = 0; round < 500; ++round) {
    const History h = random_history(d, 6, rng, RandomOptions{});
    bool multi = false;
    for (const history::Operation& op : h.operations()) {
      multi = multi || op.call.args[0].as_list().size() > 1;
    }
    const Verdict v = check_history("multi-register", h, CheckOptions{});
    EXPECT_EQ(v.result, oracle("multi-register", h).result) << describe(h);
    if (multi) {
      EXPECT_EQ(v.partitions, 1u) << describe(h);
      ++whole;
    }
  }
  EXPECT_GT(whole, 250);
}

// ---------------------------------------------------------------------------------------------
// Regressions: the smallest history of each disagreement the sweeps found

// The monitor decides h as the oracle does, with the exact prefix and culprit; so does auto.
void expect_monitor_agrees_with_oracle(const std::string& model, const History& h) {
  const OracleVerdict expected = oracle(model, h);
  const Verdict search = check_history(model, h, CheckOptions{});
  EXPECT_EQ(search.result, expected.result);
  const MonitorResult monitor = run_monitor(model, h, CheckOptions{});
  ASSERT_TRUE(monitor.verdict) << monitor.unsupported;
  EXPECT_EQ(monitor.verdict->result, expected.result);
  const Verdict automatic = check_auto(model, h, CheckOptions{}, Algo::kAuto);
  EXPECT_EQ(automatic.result, expected.result);
  if (expected.result != Result::kViolation) return;
  EXPECT_TRUE(monitor.verdict->prefix_exact);
  EXPECT_EQ(monitor.verdict->prefix_events, expected.prefix_events);
  EXPECT_EQ(monitor.verdict->culprit, expected.culprit);
  EXPECT_EQ(automatic.prefix_events, expected.prefix_events);
  EXPECT_EQ(search.prefix_events, expected.prefix_events);
}

TEST(ExhaustiveRegression, SetTwoPendingAddsAroundARemoval) {
  // Both pending adds may succeed, one before each remove -> true; the monitor allowed one add
  // per value and called the second removal a violation.
  const History h = build({{true, 0, Call{"remove", {Value(1)}}, Outcome::kOk, Value()},
                           {true, 1, Call{"remove", {Value(1)}}, Outcome::kOk, Value()},
                           {true, 2, Call{"add", {Value(1)}}, Outcome::kOk, Value()},
                           {true, 3, Call{"add", {Value(1)}}, Outcome::kOk, Value()},
                           {false, 0, Call{}, Outcome::kOk, Value(true)},
                           {false, 1, Call{}, Outcome::kOk, Value(true)}});
  ASSERT_EQ(oracle("set", h).result, Result::kLinearizable);
  expect_monitor_agrees_with_oracle("set", h);
}

TEST(ExhaustiveRegression, SetAnAddCutShortByThePrefixIsAPendingAdd) {
  // The same with add(1) -> false responding at event 6: in prefix(6) it is a second pending add,
  // so prefix(6) is linearizable; the monitor reported prefix 6 instead of 7.
  const History h = build({{true, 0, Call{"remove", {Value(1)}}, Outcome::kOk, Value()},
                           {true, 1, Call{"remove", {Value(1)}}, Outcome::kOk, Value()},
                           {true, 2, Call{"add", {Value(1)}}, Outcome::kOk, Value()},
                           {true, 3, Call{"add", {Value(1)}}, Outcome::kOk, Value()},
                           {false, 0, Call{}, Outcome::kOk, Value(true)},
                           {false, 1, Call{}, Outcome::kOk, Value(true)},
                           {false, 2, Call{}, Outcome::kOk, Value(false)}});
  expect_monitor_agrees_with_oracle("set", h);
}

TEST(ExhaustiveRegression, PriorityQueuePeekCannotSeeAValueBeforeItsInsertIsCalled) {
  // insert(5) precedes insert(3); peek -> 3 must follow insert(3)'s call, when 5 is the largest.
  // The monitor used to place the peek at its call, before insert(3) was called.
  expect_monitor_agrees_with_oracle(
      "priorityqueue", fastlin("# priorityqueue\ninsert 5 1 3\ninsert 3 3 5\npeek 3 2 4\n"));
}

TEST(ExhaustiveRegression, PriorityQueuePeekAmongPollsAndEmptyPeeks) {
  // peek -> 1 responds after insert(1) is called, but insert(2) completed before and 2 is polled
  // only later: 1 is never the largest while the peek may take effect.
  expect_monitor_agrees_with_oracle(
      "priorityqueue",
      fastlin("# priorityqueue\npeek -1 0 3\npoll -1 1 7\npeek -1 2 5\npeek 1 4 10\n"
              "insert 2 6 8\ninsert 1 9 13\npeek 3 11 17\ninsert 3 12 16\npoll 2 14 15\n"));
}

}  // namespace
}  // namespace linfault::detect::exhaustive
