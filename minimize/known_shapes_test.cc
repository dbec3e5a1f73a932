// Every buggy target whose bug detection reaches: the first failing run found by PCT shrinks to a
// Pc with the shape of one of the known minimal scenarios of ../shared/docs/benchmark-objects.md,
// proven minimal by enumeration, and its schedule replays the violation. (pair_snapshot, which
// random workloads do not reach, is covered by target_minimizer_test.cc.)

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "minimize/target_minimizer.h"
#include "minimize/test_support.h"
#include "targets/registry.h"

namespace linfault::minimize {
namespace {

using test_support::first_failing_run;
using test_support::replay_result;
using test_support::shape_of;

class KnownShapes : public ::testing::TestWithParam<std::string> {};

TEST_P(KnownShapes, MinimizedPcHasTheShapeOfAKnownScenario) {
  const targets::Target& target = targets::find(GetParam());
  const std::optional<detect::SavedRun> run = first_failing_run(target, 3000);
  ASSERT_TRUE(run.has_value());
  TargetMinimizerOptions options;
  options.timeout_seconds = 100;
  const TargetMinimization m = minimize_saved_run(target, *run, options);
  SCOPED_TRACE(test_case_to_text(m.test_case));
  std::vector<std::string> known;
  for (const targets::KnownScenario& s : target.known_scenarios) {
    known.push_back(shape_of(s.workload.threads));
  }
  const std::string shape = shape_of(m.workload.threads);
  EXPECT_NE(std::find(known.begin(), known.end(), shape), known.end()) << "shape " << shape << "\n"
                                                                       << m.test_case.guarantee;
  EXPECT_TRUE(m.proof.minimal_exhaustive) << m.test_case.guarantee;
  EXPECT_EQ(replay_result(target, m), detect::Result::kViolation);
}

INSTANTIATE_TEST_SUITE_P(BuggyTargets, KnownShapes,
                         ::testing::Values("lf_list_buggy", "simple_list_buggy", "unsafe_size_list",
                                           "bu_list1", "bu_list2", "bu_list3", "bu_list4",
                                           "optimistic_queue_buggy", "k_stack_buggy",
                                           "treiber_stack_buggy", "snark_deque"));

}  // namespace
}  // namespace linfault::minimize
