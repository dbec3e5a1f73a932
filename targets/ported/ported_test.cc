// The ported targets (plain std::atomic / std::mutex, built INSTRUMENT) behave exactly as the
// hand-instrumented originals: on each known scenario the exhaustive exploration has the same
// number of schedules with the same outcomes and finds the bug at the same execution, and the
// failing run's accesses name the lines of the ported std sources.

#include <gtest/gtest.h>

#include <array>
#include <string>

#include "detect/checker.h"
#include "dpct/executor.h"
#include "dpct/exhaustive.h"
#include "minimize/interleaving.h"
#include "targets/registry.h"

namespace {

using linfault::targets::Target;

struct Pair {
  std::string original;
  std::string port;
  std::string source;  // the ported file the failing accesses must name
};

const Pair kPairs[] = {
    {"treiber_stack_buggy", "treiber_stack_buggy_std", "treiber_stack.cc"},
    {"optimistic_queue_buggy", "optimistic_queue_buggy_std", "optimistic_queue.cc"},
    {"simple_list_buggy", "simple_list_buggy_std", "coarse_list.cc"},
};

struct Exploration {
  std::uint64_t all_schedules = 0;
  std::array<std::uint64_t, 4> outcomes{};
  std::uint64_t violations = 0;
  std::uint64_t first_violation = 0;  // 1-based execution, 0: none
  std::string failing_trace;
};

Exploration explore(const Target& target, const linfault::dpct::Workload& workload) {
  Exploration e;
  linfault::dpct::Executor executor;
  linfault::dpct::ExhaustiveOptions options;
  options.max_preemptions = 2;
  options.execution.max_steps = 20'000;
  options.execution.record_trace = true;
  const auto result = linfault::dpct::explore_exhaustively(
      executor, target.factory, workload, options, [&](const linfault::dpct::Run& run) {
        ++e.all_schedules;
        if (run.outcome == linfault::dpct::RunOutcome::kOk &&
            linfault::detect::check_history(target.model, run.history, {}).result ==
                linfault::detect::Result::kViolation) {
          ++e.violations;
          if (e.first_violation == 0) {
            e.first_violation = e.all_schedules;
            e.failing_trace = linfault::minimize::format_interleaving_compact(workload, run);
          }
        }
        return false;  // explore everything
      });
  e.outcomes = result.outcomes;
  EXPECT_TRUE(result.exhausted);
  return e;
}

class PortedTest : public ::testing::TestWithParam<Pair> {};

TEST_P(PortedTest, BehavesExactlyAsTheHandInstrumentedOriginal) {
  const Target& original = linfault::targets::find(GetParam().original);
  const Target& port = linfault::targets::find(GetParam().port);
  EXPECT_TRUE(linfault::targets::is_registered(port.name));
  ASSERT_FALSE(original.known_scenarios.empty());
  for (const auto& scenario : original.known_scenarios) {
    const Exploration a = explore(original, scenario.workload);
    const Exploration b = explore(port, scenario.workload);
    EXPECT_EQ(a.all_schedules, b.all_schedules) << scenario.description;
    EXPECT_EQ(a.outcomes, b.outcomes) << scenario.description;
    EXPECT_EQ(a.violations, b.violations) << scenario.description;
    EXPECT_EQ(a.first_violation, b.first_violation) << scenario.description;
    EXPECT_GT(b.violations, 0u) << scenario.description;
    EXPECT_NE(b.failing_trace.find(GetParam().source + ":"), std::string::npos) << b.failing_trace;
  }
}

INSTANTIATE_TEST_SUITE_P(Ports, PortedTest, ::testing::ValuesIn(kPairs),
                         [](const auto& info) { return info.param.port; });

}  // namespace
