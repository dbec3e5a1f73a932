#include "dpct/native.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "dpct/test_objects.h"

namespace linfault::dpct {
namespace {

using history::Call;
using history::Value;

// Stress: many native runs of correct objects; the histories must be well formed, the results
// consistent, and (in CI) ThreadSanitizer must stay silent.
TEST(NativeTest, TreiberStackHistoriesAreCompleteAndConsistent) {
  Workload w;
  w.setup = {Call{"push", {0}}};
  for (int t = 0; t < 4; ++t) {
    std::vector<Call> calls;
    for (int i = 1; i <= 50; ++i) {
      calls.push_back(Call{"push", {t * 100 + i}});
      calls.push_back(Call{"pop", {}});
    }
    w.threads.push_back(calls);
  }
  w.reveal = {Call{"pop", {}}};
  for (int round = 0; round < 20; ++round) {
    dpct::Run run = run_native(fixtures::factory_of<fixtures::TreiberStack>(), w);
    ASSERT_EQ(run.outcome, RunOutcome::kOk) << run.message;
    const history::History& h = run.history;
    ASSERT_EQ(h.size(), 402u);
    ASSERT_EQ(h.events().size(), 804u);
    // Pushes and pops balance: every pushed value is popped exactly once overall, and no pop of
    // a thread comes back empty (each thread pushes before it pops).
    std::vector<std::int64_t> pushed, popped;
    for (std::size_t i = 0; i + 1 < h.size(); ++i) {  // all but the reveal pop
      const history::Operation& op = h.operations()[i];
      ASSERT_EQ(op.outcome, history::Outcome::kOk);
      if (op.call.method == "push") pushed.push_back(op.call.args[0].as_int());
      if (op.call.method == "pop") {
        ASSERT_FALSE(op.result.is_nil());
        popped.push_back(op.result.as_int());
      }
    }
    const history::Operation& last = h.op(static_cast<history::OpIndex>(h.size() - 1));
    if (!last.result.is_nil()) popped.push_back(last.result.as_int());
    std::sort(pushed.begin(), pushed.end());
    std::sort(popped.begin(), popped.end());
    EXPECT_EQ(pushed, popped);
    EXPECT_EQ(h.op(0).process, 0);
    EXPECT_EQ(h.events().front().op, 0);
    EXPECT_EQ(run.schedule.scheduler, "native");
  }
}

TEST(NativeTest, LockedCounterCountsEveryIncrement) {
  Workload w;
  for (int t = 0; t < 4; ++t) w.threads.push_back(std::vector<Call>(200, Call{"inc", {}}));
  w.reveal = {Call{"get", {}}};
  for (int round = 0; round < 10; ++round) {
    dpct::Run run = run_native(fixtures::factory_of<fixtures::LockedCounter>(), w);
    ASSERT_EQ(run.outcome, RunOutcome::kOk);
    EXPECT_EQ(run.history.operations().back().result, Value(std::int64_t{800}));
    // The sequence stamps make the threads' events interleave (the barrier lets them overlap)
    // but never tie: every event index is used once.
    EXPECT_EQ(run.history.events().size(), 2 * run.history.size());
  }
}

TEST(NativeTest, ThrowingOperationIsACrash) {
  Workload w;
  w.threads = {{Call{"push", {1}}, Call{"peek", {}}}, {Call{"push", {2}}}};
  w.reveal = {Call{"pop", {}}};
  dpct::Run run = run_native(fixtures::factory_of<fixtures::TreiberStack>(), w);
  EXPECT_EQ(run.outcome, RunOutcome::kCrash);
  EXPECT_EQ(run.message, "thread 0, call 1 peek(): TreiberStack has no method 'peek'");
  EXPECT_EQ(run.history.size(), 3u);  // the crashed call is pending, Pr skipped
}

// "hold" waits, without returning, until the test's stall handler releases it: a native deadlock
// as far as the watchdog can tell.
class Holding final : public ObjectUnderTest {
 public:
  Value invoke(const Call& call) override {
    if (call.method == "hold") {
      while (!released.load()) std::this_thread::yield();
    }
    return {};
  }
  static inline std::atomic<bool> released{false};
};

TEST(NativeTest, TheWatchdogReportsARunThatMakesNoProgress) {
  Workload w;
  w.threads = {{Call{"hold", {}}}, {Call{"other", {}}}};
  dpct::Run run;
  std::vector<std::string> reports;
  {
    const fixtures::StallCapture stalls(Holding::released);
    run = run_native([] { return std::make_unique<Holding>(); }, w);
    reports = stalls.reports();
  }
  EXPECT_EQ(run.outcome, RunOutcome::kOk) << run.message;
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].rfind("a native run has made no progress for 0.3 s", 0), 0u) << reports[0];
  EXPECT_NE(reports[0].find("may_livelock"), std::string::npos) << reports[0];
}

}  // namespace
}  // namespace linfault::dpct
