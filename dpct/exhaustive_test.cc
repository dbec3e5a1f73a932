#include "dpct/exhaustive.h"

#include <gtest/gtest.h>

#include <array>
#include <map>
#include <set>
#include <string>

#include "dpct/replay_scheduler.h"
#include "dpct/test_objects.h"

namespace linfault::dpct {
namespace {

using history::Call;

Workload two_by(int calls_per_thread) {
  Workload w;
  w.threads.resize(2);
  for (int i = 0; i < calls_per_thread; ++i) {
    w.threads[0].push_back(Call{"step", {}});
    w.threads[1].push_back(Call{"step", {}});
  }
  return w;
}

// Two threads with a accesses each have C(2a, a) interleavings. With a = 2: the 6 schedules
// 0011 0101 0110 1100 1010 1001 need 0, 2, 1, 0, 2, 1 preemptions (a switch away from a thread
// that could continue; switching after a thread finished is free).
TEST(ExhaustiveTest, CountsEveryInterleavingAndRespectsThePreemptionBound) {
  Executor executor;
  const ObjectFactory factory = fixtures::factory_of<fixtures::TwoAccesses>();
  const Workload w = two_by(1);  // one call = two accesses per thread
  struct Expectation {
    std::optional<unsigned> bound;
    std::uint64_t count;
  };
  for (const Expectation& e : {Expectation{std::nullopt, 6}, Expectation{0u, 2}, Expectation{1u, 4},
                               Expectation{2u, 6}, Expectation{5u, 6}}) {
    ExhaustiveOptions options;
    options.max_preemptions = e.bound;
    std::set<std::vector<ThreadId>> distinct;
    ExhaustiveResult r =
        explore_exhaustively(executor, factory, w, options, [&](const dpct::Run& run) {
          distinct.insert(run.schedule.decisions);
          unsigned preemptions = std::stoul(*run.schedule.parameter("preemptions"));
          if (e.bound) {
            EXPECT_LE(preemptions, *e.bound);
          }
          return false;
        });
    EXPECT_TRUE(r.exhausted);
    EXPECT_EQ(r.executions, e.count) << "bound " << (e.bound ? std::to_string(*e.bound) : "none");
    EXPECT_EQ(distinct.size(), e.count);
    EXPECT_EQ(r.outcomes[static_cast<int>(RunOutcome::kOk)], e.count);
  }
  // Four accesses each: C(8,4) = 70.
  ExhaustiveResult bigger = explore_exhaustively(executor, factory, two_by(2), {});
  EXPECT_EQ(bigger.executions, 70u);
  // Three threads of two accesses: 6! / (2! 2! 2!) = 90.
  Workload three = two_by(1);
  three.threads.push_back({Call{"step", {}}});
  EXPECT_EQ(explore_exhaustively(executor, factory, three, {}).executions, 90u);
}

TEST(ExhaustiveTest, StopsAtTheFirstRunThePredicateAcceptsAndThatRunReplays) {
  Executor executor;
  Workload w;
  w.threads = {{Call{"push", {1}}, Call{"pop", {}}}, {Call{"push", {2}}, Call{"pop", {}}}};
  const ObjectFactory factory = fixtures::factory_of<fixtures::TreiberStack>();
  // Thread 0 pops 2, i.e. thread 1's push came in between.
  auto wanted = [](const dpct::Run& run) {
    for (const auto& op : run.history.operations()) {
      if (op.process == 0 && op.call.method == "pop" &&
          op.result == history::Value(std::int64_t{2}))
        return true;
    }
    return false;
  };
  ExhaustiveResult r = explore_exhaustively(executor, factory, w, {}, wanted);
  ASSERT_TRUE(r.found);
  EXPECT_FALSE(r.exhausted);
  EXPECT_GT(r.executions, 1u);
  ReplayScheduler replay(r.found->schedule);
  dpct::Run again = executor.execute(factory, w, replay);
  EXPECT_TRUE(wanted(again));
  EXPECT_EQ(fixtures::render(again.history), fixtures::render(r.found->history));
}

TEST(ExhaustiveTest, ExecutionLimitLeavesTheSpaceUnexhausted) {
  Executor executor;
  ExhaustiveOptions options;
  options.max_executions = 4;
  ExhaustiveResult r = explore_exhaustively(executor, fixtures::factory_of<fixtures::TwoAccesses>(),
                                            two_by(1), options);
  EXPECT_EQ(r.executions, 4u);
  EXPECT_FALSE(r.exhausted);
  options.max_executions = 6;
  r = explore_exhaustively(executor, fixtures::factory_of<fixtures::TwoAccesses>(), two_by(1),
                           options);
  EXPECT_TRUE(r.exhausted);
}

// Objects whose Mazurkiewicz traces are counted by hand. Steps of different threads commute
// unless they touch one location and one writes, or one starts an operation and the other ends
// one (that order is the history's real-time order).

// write(t): three stores to locations of thread t only. Only the operations' boundaries
// conflict, so the traces are the real-time orders of the operations: for two, "0 before 1",
// "1 before 0", "overlapping" (3 of C(6,3) = 20 interleavings); for three, the 19 labelled interval
// orders on three elements (of 9! / 3!^3 = 1680).
class PrivateStores final : public ObjectUnderTest {
 public:
  history::Value invoke(const Call& call) override {
    auto& mine = cells_.at(static_cast<std::size_t>(call.args.at(0).as_int()));
    for (Atomic<int>& cell : mine) cell.store(1);
    return {};
  }

 private:
  std::array<std::array<Atomic<int>, 3>, 3> cells_{};
};

// read(): two loads of one shared location. Loads commute: the same 3 traces as above.
class SharedReads final : public ObjectUnderTest {
 public:
  history::Value invoke(const Call&) override {
    const int sum = shared_.load() + shared_.load();
    return std::int64_t{sum};
  }

 private:
  Atomic<int> shared_{0};
};

// store(): one store to one shared location. Two of them conflict: 2 traces per pair.
class SharedStore final : public ObjectUnderTest {
 public:
  history::Value invoke(const Call&) override {
    shared_.store(shared_.load() + 1);
    return {};
  }

 private:
  Atomic<int> shared_{0};
};

Workload one_call_each(std::size_t threads, const std::string& method, bool argument) {
  Workload w;
  for (std::size_t t = 0; t < threads; ++t) {
    std::vector<history::Value> args;
    if (argument) args.push_back(history::Value(static_cast<std::int64_t>(t)));
    w.threads.push_back({Call{method, args}});
  }
  return w;
}

struct Explored {
  ExhaustiveResult result;
  std::set<std::string> histories;
};

Explored explore(const ObjectFactory& factory, const Workload& w, bool reduce) {
  Executor executor;
  ExhaustiveOptions options;
  options.reduce = reduce;
  Explored out;
  out.result = explore_exhaustively(executor, factory, w, options, [&](const Run& run) {
    out.histories.insert(fixtures::real_time_form(run.history) + run_outcome_name(run.outcome));
    return false;
  });
  return out;
}

TEST(ExhaustiveReductionTest, RunsOneExecutionPerMazurkiewiczTrace) {
  struct Case {
    const char* what;
    ObjectFactory factory;
    Workload workload;
    std::uint64_t traces;
    std::uint64_t interleavings;
  };
  const std::vector<Case> cases = {
      {"2 private writers", fixtures::factory_of<PrivateStores>(), one_call_each(2, "write", true),
       3, 20},
      {"3 private writers", fixtures::factory_of<PrivateStores>(), one_call_each(3, "write", true),
       19, 1680},
      {"2 readers", fixtures::factory_of<SharedReads>(), one_call_each(2, "read", false), 3, 6},
      // load then store each: of the 6 interleavings, "l0 l1 s0 s1" = "l1 l0 s0 s1" and
      // "l0 l1 s1 s0" = "l1 l0 s1 s0" (two loads, two starts commute): 4 traces.
      {"2 incrementers", fixtures::factory_of<SharedStore>(), one_call_each(2, "store", false), 4,
       6},
      // Two fetch_adds per operation, each conflicting: 6 traces of 6.
      {"2 two-access counters", fixtures::factory_of<fixtures::TwoAccesses>(), two_by(1), 6, 6},
  };
  for (const Case& c : cases) {
    const Explored full = explore(c.factory, c.workload, false);
    const Explored reduced = explore(c.factory, c.workload, true);
    EXPECT_EQ(full.result.executions, c.interleavings) << c.what;
    EXPECT_FALSE(full.result.reduced);
    EXPECT_TRUE(reduced.result.reduced);
    EXPECT_TRUE(reduced.result.exhausted) << c.what;
    EXPECT_EQ(reduced.result.executions, c.traces) << c.what;
    EXPECT_EQ(reduced.histories, full.histories) << c.what;
  }
}

TEST(ExhaustiveReductionTest, FindsEveryHistoryOfFullEnumerationOnAStack) {
  Workload w;
  w.setup = {Call{"push", {history::Value(std::int64_t{7})}}};
  w.threads = {{Call{"push", {history::Value(std::int64_t{1})}}, Call{"pop", {}}},
               {Call{"pop", {}}, Call{"push", {history::Value(std::int64_t{2})}}}};
  w.reveal = {Call{"pop", {}}, Call{"pop", {}}};
  const ObjectFactory factory = fixtures::factory_of<fixtures::TreiberStack>();
  const Explored full = explore(factory, w, false);
  const Explored reduced = explore(factory, w, true);
  EXPECT_EQ(reduced.histories, full.histories);
  EXPECT_LT(reduced.result.executions + reduced.result.redundant, full.result.executions);
}

TEST(ExhaustiveReductionTest, APreemptionBoundTurnsTheReductionOff) {
  Executor executor;
  ExhaustiveOptions options;
  options.max_preemptions = 1;
  const ExhaustiveResult r = explore_exhaustively(executor, fixtures::factory_of<PrivateStores>(),
                                                  one_call_each(2, "write", true), options);
  EXPECT_FALSE(r.reduced);
  EXPECT_EQ(r.redundant, 0u);
  EXPECT_TRUE(r.exhausted);
}

// await(): spins until the flag is set. set(): sets it.
class SpinFlag final : public ObjectUnderTest {
 public:
  history::Value invoke(const Call& call) override {
    if (call.method == "set") {
      flag_.store(1);
      return {};
    }
    while (flag_.load() == 0) spin_hint();
    return {};
  }

 private:
  Atomic<int> flag_{0};
};

TEST(ExhaustiveSpinTest, ASpinningThreadWaitsForAWriteInsteadOfLivelocking) {
  Workload w;
  w.threads = {{Call{"await", {}}}, {Call{"set", {}}}};
  for (const bool reduce : {false, true}) {
    Executor executor;
    ExhaustiveOptions options;
    options.reduce = reduce;
    options.execution.max_steps = 200;
    const ExhaustiveResult r =
        explore_exhaustively(executor, fixtures::factory_of<SpinFlag>(), w, options);
    EXPECT_TRUE(r.exhausted);
    EXPECT_EQ(r.outcomes[static_cast<int>(RunOutcome::kLivelock)], 0u) << "reduce " << reduce;
    EXPECT_GT(r.outcomes[static_cast<int>(RunOutcome::kOk)], 0u);
  }
}

TEST(ExhaustiveSpinTest, SpinningForAWriteNobodyMakesIsStillALivelock) {
  Workload w;
  w.threads = {{Call{"await", {}}}, {Call{"await", {}}}};
  Executor executor;
  ExhaustiveOptions options;
  options.execution.max_steps = 200;
  options.max_executions = 50;
  const ExhaustiveResult r =
      explore_exhaustively(executor, fixtures::factory_of<SpinFlag>(), w, options);
  EXPECT_GT(r.outcomes[static_cast<int>(RunOutcome::kLivelock)], 0u);
  EXPECT_EQ(r.outcomes[static_cast<int>(RunOutcome::kOk)], 0u);
}

}  // namespace
}  // namespace linfault::dpct
