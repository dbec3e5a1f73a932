#include "dpct/scripted_scheduler.h"

#include <gtest/gtest.h>

#include <array>
#include <stdexcept>

#include "dpct/executor.h"
#include "dpct/replay_scheduler.h"
#include "dpct/schedule.h"
#include "dpct/test_objects.h"

namespace linfault::dpct {
namespace {

constexpr std::uint32_t kUntilDone = ScriptedScheduler::kUntilDone;

SchedulingPoint any_point() { return SchedulingPoint{}; }

TEST(ScriptedSchedulerTest, FollowsTheSegmentsThenRunsThreadsInOrder) {
  ScriptedScheduler scheduler({{1, 2}, {0, 1}, {1, kUntilDone}});
  scheduler.begin(RunInfo{2, nullptr});
  const std::array<ThreadId, 2> both{0, 1};
  const std::array<ThreadId, 1> only0{0};
  EXPECT_EQ(scheduler.choose(any_point(), both), 1u);
  EXPECT_EQ(scheduler.choose(any_point(), both), 1u);
  EXPECT_EQ(scheduler.choose(any_point(), both), 0u);
  EXPECT_EQ(scheduler.choose(any_point(), both), 1u);
  EXPECT_EQ(scheduler.choose(any_point(), both), 1u);
  // Thread 1 finished: its kUntilDone segment ends, and the script with it.
  EXPECT_EQ(scheduler.choose(any_point(), only0), 0u);
  EXPECT_EQ(scheduler.choose(any_point(), both), 0u);
}

TEST(ScriptedSchedulerTest, ABoundedSegmentOfADisabledThreadIsAnError) {
  ScriptedScheduler scheduler({{1, 3}});
  scheduler.begin(RunInfo{2, nullptr});
  const std::array<ThreadId, 2> both{0, 1};
  const std::array<ThreadId, 1> only0{0};
  EXPECT_EQ(scheduler.choose(any_point(), both), 1u);
  try {
    scheduler.choose(any_point(), only0);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "script segment 0 (1x3): thread 1 is not enabled after 1 points");
  }
}

// The Treiber pop || pop race written as a script: T0 reads top and top.next, T1 pops, then T0's
// CAS meets the changed top. The run records the script and replays exactly.
TEST(ScriptedSchedulerTest, ScriptedRunIsRecordedAndReplays) {
  Workload w;
  w.setup = {{"push", {1}}, {"push", {2}}};
  w.threads = {{{"pop", {}}}, {{"pop", {}}}};
  Executor executor;
  ScriptedScheduler scripted({{0, 2}, {1, kUntilDone}, {0, kUntilDone}});
  const dpct::Run run =
      executor.execute(fixtures::factory_of<fixtures::TreiberStack>(), w, scripted);
  ASSERT_EQ(run.outcome, RunOutcome::kOk) << run.message;
  EXPECT_EQ(run.schedule.to_text().rfind("scripted script=0x2,1x*,0x* |", 0), 0u)
      << run.schedule.to_text();
  ReplayScheduler replay(Schedule::from_text(run.schedule.to_text()));
  const dpct::Run again =
      executor.execute(fixtures::factory_of<fixtures::TreiberStack>(), w, replay);
  EXPECT_EQ(fixtures::render(again.history), fixtures::render(run.history));
}

}  // namespace
}  // namespace linfault::dpct
