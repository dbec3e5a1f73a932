#include "dpct/parallel.h"

#include <gtest/gtest.h>

#include <map>
#include <mutex>

#include "dpct/pct_scheduler.h"
#include "dpct/test_objects.h"

namespace linfault::dpct {
namespace {

using history::Call;

Workload stack_workload() {
  Workload w;
  w.threads = {{Call{"push", {1}}, Call{"pop", {}}, Call{"push", {2}}},
               {Call{"pop", {}}, Call{"push", {3}}, Call{"pop", {}}}};
  return w;
}

SchedulerFactory pct_factory() {
  return [] { return std::make_unique<PctScheduler>(PctOptions{0, 3, 30}); };
}

TEST(ParallelTest, EachSeedGivesTheSameRunWhateverTheWorkerCount) {
  const Workload w = stack_workload();
  std::map<std::uint64_t, std::string> by_seed[2];
  std::mutex mutex;
  const unsigned worker_counts[2] = {1, 3};
  for (int i = 0; i < 2; ++i) {
    ManyOptions options;
    options.runs = 300;
    options.first_seed = 10;
    options.workers = worker_counts[i];
    ManyResult r = run_many(fixtures::factory_of<fixtures::TreiberStack>(), w, pct_factory(),
                            options, [&](std::uint64_t seed, const dpct::Run& run) {
                              std::lock_guard lock(mutex);
                              by_seed[i][seed] =
                                  run.schedule.to_text() + "\n" + fixtures::render(run.history);
                              return false;
                            });
    EXPECT_EQ(r.executions, 300u);
    EXPECT_EQ(r.outcomes[static_cast<int>(RunOutcome::kOk)], 300u);
    EXPECT_EQ(r.workers, worker_counts[i]);
    EXPECT_FALSE(r.stop_seed);
    EXPECT_GT(r.steps, 300u);
  }
  EXPECT_EQ(by_seed[0].size(), 300u);
  EXPECT_EQ(by_seed[0], by_seed[1]);
}

TEST(ParallelTest, StopsAtTheSmallestMatchingSeed) {
  const Workload w = stack_workload();
  // Thread 1's first pop returns 1: it ran after thread 0's push.
  auto matches = [](std::uint64_t, const dpct::Run& run) {
    const auto& ops = run.history.operations();
    for (const auto& op : ops) {
      if (op.process == 1 && op.call.method == "pop")
        return op.result == history::Value(std::int64_t{1});
    }
    return false;
  };
  std::optional<std::uint64_t> expected;
  for (unsigned workers : {1u, 2u, 4u}) {
    ManyOptions options;
    options.runs = 500;
    options.workers = workers;
    ManyResult r = run_many(fixtures::factory_of<fixtures::TreiberStack>(), w, pct_factory(),
                            options, matches);
    ASSERT_TRUE(r.stop_seed);
    ASSERT_TRUE(r.stopped);
    EXPECT_TRUE(matches(*r.stop_seed, *r.stopped));
    if (!expected) expected = r.stop_seed;
    EXPECT_EQ(r.stop_seed, expected) << workers << " workers";
  }
}

TEST(ParallelTest, WorkerErrorsAreRethrown) {
  ManyOptions options;
  options.runs = 10;
  options.workers = 2;
  SchedulerFactory bad = []() -> std::unique_ptr<Scheduler> {
    throw std::runtime_error("no scheduler");
  };
  EXPECT_THROW(
      run_many(fixtures::factory_of<fixtures::TreiberStack>(), stack_workload(), bad, options),
      std::runtime_error);
}

}  // namespace
}  // namespace linfault::dpct
