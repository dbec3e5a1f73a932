// The walkthrough of docs/adding-a-target.md, as a test: the user's queue agrees with the
// "queue" model when run sequentially, no schedule of a small scenario breaks the correct queue,
// and the same search finds the broken variant's duplicate dequeue.

#include "docs/examples/two_lock_queue.h"

#include <gtest/gtest.h>

#include "detect/checker.h"
#include "dpct/exhaustive.h"

namespace linfault::examples {
namespace {

using history::Call;

dpct::ExhaustiveResult search(const targets::Target& target, const dpct::Workload& workload) {
  dpct::Executor executor;
  dpct::ExhaustiveOptions options;
  options.max_preemptions = 2;
  return dpct::explore_exhaustively(
      executor, target.factory, workload, options, [&](const dpct::Run& run) {
        return run.outcome != dpct::RunOutcome::kOk ||
               detect::check_history(target.model, run.history, {}).result !=
                   detect::Result::kLinearizable;
      });
}

TEST(TwoLockQueueTest, SequentialRunsAreLinearizable) {
  const targets::Target target = two_lock_queue_target(TwoLockQueue::Locking::kBoth);
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    auto queue = target.factory();
    targets::ArgumentSource source(seed);
    history::HistoryBuilder builder("sequential");
    for (int i = 0; i < 50; ++i) {
      const Call call = targets::random_call(target, source);
      builder.call(0, call, queue->invoke(call));
    }
    EXPECT_EQ(detect::check_history("queue", std::move(builder).build(), {}).result,
              detect::Result::kLinearizable);
  }
}

TEST(TwoLockQueueTest, NoScheduleBreaksTheCorrectQueue) {
  const targets::Target target = two_lock_queue_target(TwoLockQueue::Locking::kBoth);
  const dpct::Workload workload{
      {Call{"enq", {1}}, Call{"enq", {2}}},
      {{Call{"deq", {}}, Call{"enq", {3}}}, {Call{"enq", {4}}, Call{"deq", {}}}},
      {Call{"deq", {}}, Call{"deq", {}}}};
  const dpct::ExhaustiveResult result = search(target, workload);
  EXPECT_FALSE(result.found.has_value());
  EXPECT_TRUE(result.exhausted);
  EXPECT_GT(result.executions, 10u);
}

TEST(TwoLockQueueTest, TheSearchFindsTheMissingLock) {
  const targets::Target target = two_lock_queue_target(TwoLockQueue::Locking::kEnqueueOnly);
  const dpct::Workload workload{
      {Call{"enq", {1}}, Call{"enq", {2}}}, {{Call{"deq", {}}}, {Call{"deq", {}}}}, {}};
  const dpct::ExhaustiveResult result = search(target, workload);
  ASSERT_TRUE(result.found.has_value());
  const detect::Verdict verdict = detect::check_history("queue", result.found->history, {});
  EXPECT_EQ(verdict.result, detect::Result::kViolation);
  // Both dequeues returned 1.
  for (const auto& op : result.found->history.operations()) {
    if (op.call.method == "deq") {
      EXPECT_EQ(op.result, history::Value(1));
    }
  }
}

}  // namespace
}  // namespace linfault::examples
