// Controls: an exhaustive search over every schedule with at most 3 preemptions of small
// scenarios (2 threads x 2 operations, with a 2-operation prefix Ps and suffix Pr) finds no
// violation, no deadlock and no livelock. The scenarios are a hand-picked one per model kind plus
// random ones drawn from the target's own generators.
//
// So that this search is known to be able to fail, the same search also runs on every buggy
// target's known scenarios and must find their violation.

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "detect/checker.h"
#include "dpct/exhaustive.h"
#include "dpct/test_objects.h"
#include "targets/registry.h"

namespace linfault::targets {
namespace {

using history::Call;

constexpr unsigned kPreemptionBound = 3;
constexpr std::uint64_t kRandomScenarios = 8;

Call c(std::string method, std::vector<history::Value> args = {}) {
  return Call{std::move(method), std::move(args)};
}

// A scenario that exercises the kind's interesting races: removals of the same element,
// insertions next to each other, extraction racing with insertion on a non-empty object.
dpct::Workload hand_picked(const Target& target) {
  const std::string insert = target.operations.at(0).method;
  const std::string extract = target.operations.at(1).method;
  if (target.model == "set") {
    return {{c("add", {1}), c("add", {3})},
            {{c("remove", {1}), c("add", {2})}, {c("remove", {1}), c("add", {1})}},
            {c("contains", {1}), c("contains", {2})}};
  }
  if (target.model == "snapshot") {
    return {
        {c("write", {0, 1}), c("write", {1, 1})},
        {{c("write", {0, 2}), c("write", {1, 2})}, {c("readpair", {0, 1}), c("readpair", {1, 0})}},
        {c("readpair", {0, 1}), c("readpair", {1, 0})}};
  }
  if (target.model == "counter") {
    return {{c("inc")}, {{c("inc"), c("get")}, {c("get"), c("inc")}}, {c("get")}};
  }
  if (target.model.rfind("register", 0) == 0) {
    return {{c("write", {1})},
            {{c("write", {7}), c("read")}, {c("read"), c("write", {6})}},
            {c("read")}};
  }
  return {{c(insert, {1}), c(insert, {2})},
          {{c(extract), c(insert, {3})}, {c(insert, {4}), c(extract)}},
          {c(extract), c(extract)}};
}

std::vector<dpct::Workload> scenarios_for(const Target& target) {
  std::vector<dpct::Workload> scenarios;
  // Unless the target's roles exclude it (the Chase-Lev deque's owner is one thread).
  if (!roles_problem(target, hand_picked(target))) scenarios.push_back(hand_picked(target));
  std::uint64_t drawn = 0;
  for (std::uint64_t seed = 1; drawn < kRandomScenarios && seed <= 100; ++seed) {
    dpct::Workload workload =
        random_workload(target, {.setup = 2, .threads = 2, .ops_per_thread = 2, .reveal = 2}, seed);
    if (setup_waits_forever(target, workload)) continue;
    scenarios.push_back(std::move(workload));
    ++drawn;
  }
  EXPECT_EQ(drawn, kRandomScenarios) << "too few random scenarios whose Ps does not wait forever";
  return scenarios;
}

std::string describe(const dpct::Workload& w) {
  auto list = [](const std::vector<Call>& calls) {
    std::string out;
    for (const Call& call : calls) out += (out.empty() ? "" : "; ") + call.to_string();
    return out;
  };
  return "Ps=[" + list(w.setup) + "] Pc=[" + list(w.threads.at(0)) + "] || [" +
         list(w.threads.at(1)) + "] Pr=[" + list(w.reveal) + "]";
}

// Under c11 (the wm_ targets: their bugs need its reads) the enumeration has no partial-order
// reduction and branches on every read: spinning locks then have millions of schedules within
// three preemptions, so those searches are cut at kWeakExecutions (not exhausted).
constexpr std::uint64_t kWeakExecutions = 20'000;

dpct::ExhaustiveResult search(const Target& target, const dpct::Workload& workload,
                              unsigned bound) {
  dpct::Executor executor;
  dpct::ExhaustiveOptions options;
  options.max_preemptions = bound;
  options.memory_model = target.memory_model;
  if (target.memory_model == dpct::MemoryModel::kC11) options.max_executions = kWeakExecutions;
  options.execution.record_points = false;
  options.execution.max_steps = 10'000;
  // A deadlock is a failure unless the model says which calls block (a blocking queue's serial
  // specification): then Line-Up's rule for stuck histories decides, as detection does.
  const bool tells_blocking = detect::model_tells_blocking(target.model);
  return dpct::explore_exhaustively(
      executor, target.factory, workload, options, [&](const dpct::Run& run) {
        detect::CheckOptions check;
        check.stuck = tells_blocking && dpct::ended_stuck(run.outcome);
        if (run.outcome != dpct::RunOutcome::kOk && !check.stuck) return true;
        return detect::check_history(target.model, run.history, check).result !=
               detect::Result::kLinearizable;
      });
}

std::vector<std::string> names(bool buggy) {
  std::vector<std::string> out;
  for (const Target& target : all()) {
    if (target.bug_expected == buggy) out.push_back(target.name);
  }
  return out;
}

// The targets whose runs are sequentially consistent: the reduction covers those only (under
// c11 every interleaving is enumerated).
std::vector<std::string> sequential_names() {
  std::vector<std::string> out;
  for (bool buggy : {false, true}) {
    for (std::string& name : names(buggy)) {
      if (find(name).memory_model == dpct::MemoryModel::kSequential) out.push_back(std::move(name));
    }
  }
  return out;
}

class ControlTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ControlTest, NoScheduleOfSmallScenariosViolates) {
  const Target& target = find(GetParam());
  std::uint64_t executions = 0;
  for (const dpct::Workload& workload : scenarios_for(target)) {
    SCOPED_TRACE(describe(workload));
    const dpct::ExhaustiveResult result = search(target, workload, kPreemptionBound);
    ASSERT_FALSE(result.found.has_value())
        << "outcome " << dpct::run_outcome_name(result.found->outcome) << " "
        << result.found->message << "\nschedule " << result.found->schedule.to_text();
    if (target.memory_model == dpct::MemoryModel::kSequential) {
      EXPECT_TRUE(result.exhausted);
    }
    EXPECT_GT(result.executions, 1u);
    executions += result.executions;
  }
  RecordProperty("executions", std::to_string(executions));
}

INSTANTIATE_TEST_SUITE_P(Controls, ControlTest, ::testing::ValuesIn(names(false)),
                         [](const auto& info) { return info.param; });

class BuggyTest : public ::testing::TestWithParam<std::string> {};

TEST_P(BuggyTest, TheSameSearchFindsTheKnownBugs) {
  const Target& target = find(GetParam());
  for (const KnownScenario& scenario : target.known_scenarios) {
    SCOPED_TRACE(scenario.description);
    // The pair snapshot needs the most: the reader is preempted three times (x | two writes |
    // y | two writes | x2).
    const dpct::ExhaustiveResult result = search(target, scenario.workload, kPreemptionBound);
    ASSERT_TRUE(result.found.has_value()) << "after " << result.executions << " executions";
    if (scenario.type == 3) {
      // A stuck scenario: what the search finds is the deadlock, whose history is linearizable.
      EXPECT_EQ(result.found->outcome, dpct::RunOutcome::kDeadlock) << result.found->message;
      EXPECT_EQ(detect::check_history(target.model, result.found->history, {}).result,
                detect::Result::kLinearizable);
    } else {
      EXPECT_EQ(result.found->outcome, dpct::RunOutcome::kOk) << result.found->message;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Buggy, BuggyTest, ::testing::ValuesIn(names(true)),
                         [](const auto& info) { return info.param; });

// The wm_ targets' bugs are memory orders only: no sequentially consistent schedule of their
// known scenarios fails (every interleaving, partial-order reduced).
class WeakMemoryOnlyTest : public ::testing::TestWithParam<std::string> {};

TEST_P(WeakMemoryOnlyTest, NoSequentiallyConsistentScheduleFails) {
  const Target& target = find(GetParam());
  for (const KnownScenario& scenario : target.known_scenarios) {
    SCOPED_TRACE(scenario.description);
    dpct::Executor executor;
    dpct::ExhaustiveOptions options;
    options.execution.record_points = false;
    options.execution.max_steps = 10'000;
    const dpct::ExhaustiveResult result = dpct::explore_exhaustively(
        executor, target.factory, scenario.workload, options, [&](const dpct::Run& run) {
          return run.outcome != dpct::RunOutcome::kOk ||
                 detect::check_history(target.model, run.history, {}).result !=
                     detect::Result::kLinearizable;
        });
    EXPECT_FALSE(result.found.has_value())
        << result.found->message << "\nschedule " << result.found->schedule.to_text();
    EXPECT_TRUE(result.exhausted);
  }
}

std::vector<std::string> weak_memory_buggy_names() {
  std::vector<std::string> out;
  for (std::string& name : names(true)) {
    if (find(name).memory_model == dpct::MemoryModel::kC11) out.push_back(std::move(name));
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(WeakMemoryBugs, WeakMemoryOnlyTest,
                         ::testing::ValuesIn(weak_memory_buggy_names()),
                         [](const auto& info) { return info.param; });

// Partial-order reduction loses no history: on every target, every history (up to its
// real-time order) that full enumeration within 2 preemptions produces, the reduced unbounded
// search produces too, on small scenarios (Ps, two threads of two operations, Pr).
class ReductionTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ReductionTest, TheReducedSearchProducesEveryHistoryOfTheBoundedOne) {
  const Target& target = find(GetParam());
  std::uint64_t reduced_runs = 0;
  std::uint64_t full_runs = 0;
  int compared = 0;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const dpct::Workload workload =
        random_workload(target, {.setup = 2, .threads = 2, .ops_per_thread = 2, .reveal = 1}, seed);
    SCOPED_TRACE(describe(workload));
    struct Seen {
      std::set<std::string> histories;
      bool exhausted = false;
    };
    auto histories = [&](bool reduce, std::optional<unsigned> bound) {
      dpct::Executor executor;
      dpct::ExhaustiveOptions options;
      options.reduce = reduce;
      options.max_preemptions = bound;
      options.max_executions = 15'000;
      options.execution.record_points = false;
      options.execution.max_steps = 400;
      Seen seen;
      const dpct::ExhaustiveResult result = dpct::explore_exhaustively(
          executor, target.factory, workload, options, [&](const dpct::Run& run) {
            seen.histories.insert(dpct::fixtures::real_time_form(run.history) +
                                  dpct::run_outcome_name(run.outcome));
            return false;
          });
      seen.exhausted = result.exhausted;
      (reduce ? reduced_runs : full_runs) += result.executions + result.redundant;
      return seen;
    };
    const Seen full = histories(false, 2u);
    ASSERT_TRUE(full.exhausted);
    // An object that can livelock (k_stack_buggy's retry loops) may have more unbounded
    // schedules than the budget: that workload is not compared.
    const Seen reduced = histories(true, std::nullopt);
    if (!reduced.exhausted) continue;
    ++compared;
    for (const std::string& h : full.histories) {
      EXPECT_TRUE(reduced.histories.count(h)) << "missing:\n" << h;
    }
  }
  EXPECT_GE(compared, 2) << "too few workloads fit the budget to compare";
  RecordProperty("reduced_runs", std::to_string(reduced_runs));
  RecordProperty("bounded_full_runs", std::to_string(full_runs));
}

INSTANTIATE_TEST_SUITE_P(All, ReductionTest, ::testing::ValuesIn(sequential_names()),
                         [](const auto& info) { return info.param; });

// Fair spinning releases a thread only until it spins again: a real livelock is still one.
// bu_list1's add retries forever after a spin hint when its predecessor is a stranded marked
// node; the correct spin-waiting controls above never livelock.
TEST(FairSpinningTest, BuList1sLivelockIsStillReported) {
  const Target& target = find("bu_list1");
  const dpct::Workload workload{
      {c("add", {0}), c("add", {2})},
      {{c("remove", {3}), c("remove", {0})}, {c("remove", {2}), c("add", {3})}},
      {}};
  dpct::Executor executor;
  dpct::ExhaustiveOptions options;
  options.execution.max_steps = 2'000;
  options.max_executions = 20'000;
  const dpct::ExhaustiveResult result = dpct::explore_exhaustively(
      executor, target.factory, workload, options,
      [](const dpct::Run& run) { return run.outcome == dpct::RunOutcome::kLivelock; });
  ASSERT_TRUE(result.found.has_value());
  EXPECT_NE(result.found->message.find("no termination"), std::string::npos)
      << result.found->message;
}

}  // namespace
}  // namespace linfault::targets
