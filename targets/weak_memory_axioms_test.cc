// The weak-memory targets (the wm_ group, buggy and fixed) under the C++20 model: every run's
// memory events, as dpct::WeakMemory produced them, pass the independent axiom check
// (dpct/execution_graph.h), whether the object is correct or not. A model bug would show here as
// an execution C++20 forbids, which could be a false alarm. bench/weak_memory runs 10^5 per
// object; this runs a sample.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "targets/registry.h"
#include "targets/weak_memory_objects.h"

namespace linfault::targets {
namespace {

constexpr std::uint64_t kRuns = 400;

std::vector<std::string> weak_memory_targets() {
  std::vector<std::string> out;
  for (const Target& target : all()) {
    if (target.memory_model == dpct::MemoryModel::kC11) out.push_back(target.name);
  }
  return out;
}

class WeakMemoryAxiomsTest : public ::testing::TestWithParam<std::string> {};

TEST_P(WeakMemoryAxiomsTest, EveryRunIsOneCpp20Allows) {
  const AxiomCheckedRuns checked = run_axiom_checked(find(GetParam()), kRuns);
  EXPECT_EQ(checked.violations, 0u) << checked.first_violation;
  // So that the check saw whole runs with weak behaviour, not only sequentially consistent ones.
  EXPECT_GT(checked.completed, kRuns * 9 / 10);
  EXPECT_GT(checked.stale_reads, 0u);
}

INSTANTIATE_TEST_SUITE_P(WeakMemoryTargets, WeakMemoryAxiomsTest,
                         ::testing::ValuesIn(weak_memory_targets()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace linfault::targets
