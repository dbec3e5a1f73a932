#include "dpct/exhaustive.h"

#include <gtest/gtest.h>

#include <set>

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

}  // namespace
}  // namespace linfault::dpct
