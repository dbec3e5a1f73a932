#include "dpct/random_scheduler.h"

#include <gtest/gtest.h>

#include <array>

#include "dpct/executor.h"
#include "dpct/schedule.h"
#include "dpct/test_objects.h"

namespace linfault::dpct {
namespace {

SchedulingPoint access_point(ThreadId thread, AccessKind kind) {
  SchedulingPoint p;
  p.kind = PointKind::kAccess;
  p.thread = thread;
  p.access.kind = kind;
  return p;
}

TEST(RandomSchedulerTest, ChoosesUniformlyAmongEnabledThreads) {
  RandomScheduler scheduler(5);
  scheduler.begin(RunInfo{3, nullptr});
  const std::array<ThreadId, 3> enabled{0, 1, 2};
  std::array<int, 3> counts{};
  for (int i = 0; i < 3000; ++i)
    ++counts[scheduler.choose(access_point(0, AccessKind::kLoad), enabled)];
  for (int c : counts) {
    EXPECT_GT(c, 850);
    EXPECT_LT(c, 1150);
  }
}

TEST(RandomSchedulerTest, YieldingThreadIsPassedOver) {
  RandomScheduler scheduler(5);
  scheduler.begin(RunInfo{3, nullptr});
  const std::array<ThreadId, 3> enabled{0, 1, 2};
  std::array<int, 3> counts{};
  for (int i = 0; i < 1000; ++i)
    ++counts[scheduler.choose(access_point(1, AccessKind::kYield), enabled)];
  EXPECT_EQ(counts[1], 0);
  EXPECT_GT(counts[0], 400);
  EXPECT_GT(counts[2], 400);
  const std::array<ThreadId, 1> alone{1};
  EXPECT_EQ(scheduler.choose(access_point(1, AccessKind::kYield), alone), 1u);
}

TEST(RandomSchedulerTest, RunIsAPureFunctionOfTheSeed) {
  history::Call push{"push", {1}}, pop{"pop", {}};
  Workload w;
  w.threads = {{push, pop, push}, {pop, push, pop}, {push, push}};
  Executor executor;
  RandomScheduler scheduler(0);
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    scheduler.reseed(seed);
    dpct::Run a = executor.execute(fixtures::factory_of<fixtures::TreiberStack>(), w, scheduler);
    dpct::Run b = executor.execute(fixtures::factory_of<fixtures::TreiberStack>(), w, scheduler);
    EXPECT_EQ(a.schedule.to_text(), b.schedule.to_text());
    EXPECT_EQ(fixtures::render(a.history), fixtures::render(b.history));
    EXPECT_EQ(a.schedule.to_text().rfind("random seed=" + std::to_string(seed) + " n=3 |", 0), 0u)
        << a.schedule.to_text();
  }
}

}  // namespace
}  // namespace linfault::dpct
