// lock_leak_counter (Line-Up's Counter2) is a bug the classic check cannot see: every history it
// produces, a deadlocked run's included, is linearizable for the "counter" model. What shows the
// bug is the run's outcome, a deadlock with a call pending that a counter never blocks on (the
// stuck-history rule).

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "detect/checker.h"
#include "dpct/exhaustive.h"
#include "targets/registry.h"

namespace linfault::targets {
namespace {

using history::Call;

struct Census {
  std::uint64_t runs = 0;
  std::uint64_t deadlocks = 0;
  std::uint64_t stuck_with_pending_inc = 0;
  std::uint64_t not_linearizable = 0;
  std::vector<std::string> outcomes_seen;
};

// Every schedule of `workload` (no preemption bound, no reduction), each history checked.
Census every_schedule(const dpct::Workload& workload, std::optional<unsigned> bound) {
  const Target& target = find("lock_leak_counter");
  dpct::Executor executor;
  dpct::ExhaustiveOptions options;
  options.reduce = false;
  options.max_preemptions = bound;
  options.execution.record_points = false;
  Census census;
  const dpct::ExhaustiveResult result = dpct::explore_exhaustively(
      executor, target.factory, workload, options, [&](const dpct::Run& run) {
        ++census.runs;
        const auto& ops = run.history.operations();
        if (run.outcome == dpct::RunOutcome::kDeadlock) {
          ++census.deadlocks;
          census.stuck_with_pending_inc +=
              std::any_of(ops.begin(), ops.end(), [](const history::Operation& op) {
                return !op.completed() && op.call.method == "inc";
              });
        } else if (run.outcome != dpct::RunOutcome::kOk) {
          census.outcomes_seen.push_back(dpct::run_outcome_name(run.outcome) + std::string(": ") +
                                         run.message);
        }
        if (detect::check_history(target.model, run.history, {}).result !=
            detect::Result::kLinearizable) {
          ++census.not_linearizable;
        }
        return false;
      });
  EXPECT_TRUE(result.exhausted);
  return census;
}

TEST(LockLeakCounterTest, OneThreadAloneBehavesLikeACounter) {
  // The lock is reentrant: the thread that leaked it keeps using the counter.
  const Target& target = find("lock_leak_counter");
  dpct::Executor executor;
  dpct::ExhaustiveOptions options;
  const dpct::Workload workload{
      {}, {{Call{"get", {}}, Call{"inc", {}}, Call{"inc", {}}, Call{"get", {}}}}, {}};
  const dpct::ExhaustiveResult result = dpct::explore_exhaustively(
      executor, target.factory, workload, options, [](const dpct::Run& run) {
        EXPECT_EQ(run.outcome, dpct::RunOutcome::kOk) << run.message;
        const auto& ops = run.history.operations();
        EXPECT_EQ(ops.size(), 4u);
        if (ops.size() == 4) {
          EXPECT_EQ(ops[0].result.as_int(), 0);
          EXPECT_EQ(ops[3].result.as_int(), 2);
        }
        return false;
      });
  EXPECT_EQ(result.executions, 1u);
}

TEST(LockLeakCounterTest, GetOrIncEveryScheduleIsLinearizableOneDeadlocks) {
  // get() || inc(): inc first finishes (get -> 1); get first strands inc, pending forever.
  const Census census = every_schedule({{}, {{Call{"get", {}}}, {Call{"inc", {}}}}, {}}, {});
  EXPECT_GE(census.runs, 2u);
  EXPECT_GE(census.deadlocks, 1u);
  EXPECT_EQ(census.stuck_with_pending_inc, census.deadlocks);
  EXPECT_LT(census.deadlocks, census.runs) << "inc before get must complete";
  EXPECT_EQ(census.not_linearizable, 0u);
  EXPECT_TRUE(census.outcomes_seen.empty()) << census.outcomes_seen.front();
}

TEST(LockLeakCounterTest, RandomWorkloadsNeverFailTheClassicCheck) {
  // Larger workloads from the target's own generators, every schedule within 2 preemptions: many
  // runs deadlock, and not one history is a classic violation. (No Ps or Pr: a get() in Ps
  // would leave every run stuck.)
  const Target& target = find("lock_leak_counter");
  std::uint64_t deadlocks = 0;
  std::uint64_t runs = 0;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const dpct::Workload workload =
        random_workload(target, {.setup = 0, .threads = 2, .ops_per_thread = 3, .reveal = 0}, seed);
    const Census census = every_schedule(workload, 2u);
    EXPECT_EQ(census.not_linearizable, 0u) << "seed " << seed;
    EXPECT_TRUE(census.outcomes_seen.empty()) << census.outcomes_seen.front();
    deadlocks += census.deadlocks;
    runs += census.runs;
  }
  EXPECT_GT(deadlocks, 0u);
  EXPECT_LT(deadlocks, runs);
  RecordProperty("runs", std::to_string(runs));
  RecordProperty("deadlocks", std::to_string(deadlocks));
}

}  // namespace
}  // namespace linfault::targets
