// The trees of every object in targets/ come from the build (linfault_structure_trees), and every
// scheduling point those objects pass at run time maps to a node of them.

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "dpct/executor.h"
#include "dpct/pct_scheduler.h"
#include "structure_tree/dpct_estimator.h"
#include "structure_tree/tree.h"
#include "structure_trees/linfault_targets.h"
#include "targets/registry.h"

namespace linfault::structure_tree {
namespace {

std::shared_ptr<const TreeSet> target_trees() {
  const std::string_view json = embedded::linfault_targets();
  if (json.empty()) return nullptr;
  return std::make_shared<const TreeSet>(parse_tree_set(json, "embedded linfault_targets"));
}

TEST(TargetTreesTest, TheBuildEmbedsTheTreesOfThePairSnapshotAsDerivedFromThePaper) {
  const auto trees = target_trees();
  if (trees == nullptr) GTEST_SKIP() << "built without the extractor (LINFAULT_WITH_CLANG=OFF)";
  const OperationTree* write = trees->find("PairSnapshot", "write");
  const OperationTree* readpair = trees->find("PairSnapshot", "readpair");
  ASSERT_NE(write, nullptr);
  ASSERT_NE(readpair, nullptr);
  EXPECT_EQ(sum(*write), 1u);
  ASSERT_EQ(readpair->root.children.size(), 1u) << dump(*readpair);
  const Node& loop = readpair->root.children[0];
  EXPECT_EQ(loop.kind, NodeKind::kLoop) << dump(*readpair);
  EXPECT_FALSE(loop.theta.has_value());
  EXPECT_EQ(sum(*readpair), 3u) << dump(*readpair);
}

TEST(TargetTreesTest, EveryTargetClassHasTrees) {
  const auto trees = target_trees();
  if (trees == nullptr) GTEST_SKIP() << "built without the extractor (LINFAULT_WITH_CLANG=OFF)";
  for (const char* object :
       {"LockFreeList", "BugUnknownList1", "SimpleList", "UnsafeSizeList", "OptimisticUnlockedList",
        "BugUnknownList4", "OptimisticQueue", "MichaelScottQueue", "TreiberStack", "KStack",
        "PairSnapshot", "VersionedPairSnapshot", "SnarkDeque", "LockLeakCounter"}) {
    bool found = false;
    for (const OperationTree& op : trees->operations) found = found || op.object == object;
    EXPECT_TRUE(found) << object;
  }
}

TEST(TargetTreesTest, EverySchedulingPointOfEveryTargetMapsToATreeNode) {
  const auto trees = target_trees();
  if (trees == nullptr) GTEST_SKIP() << "built without the extractor (LINFAULT_WITH_CLANG=OFF)";
  dpct::Executor executor;
  dpct::ExecutionOptions execution;
  execution.record_history = false;
  execution.max_steps = 20'000;
  for (const targets::Target& target : targets::all()) {
    std::uint64_t points = 0;
    std::vector<dpct::Workload> workloads;
    for (const targets::KnownScenario& scenario : target.known_scenarios) {
      workloads.push_back(scenario.workload);
    }
    for (std::uint64_t seed = 1; seed <= 12; ++seed) {
      workloads.push_back(
          targets::random_workload(target, {.setup = 2, .threads = 2, .ops_per_thread = 3}, seed));
    }
    for (std::size_t i = 0; i < workloads.size(); ++i) {
      auto estimator = std::make_unique<TreeStepEstimator>(trees, TreeEstimatorOptions{});
      TreeStepEstimator* observed = estimator.get();
      dpct::PctScheduler scheduler({.seed = i + 1, .depth = 3}, std::move(estimator));
      executor.execute(target.factory, workloads[i], scheduler, execution);
      EXPECT_EQ(observed->unmapped_points(), 0u)
          << target.name << " workload " << i << ": " << observed->unmapped_points() << " of "
          << observed->access_points() << " points in no tree, first "
          << observed->first_unmapped();
      points += observed->access_points();
    }
    EXPECT_GT(points, 0u) << target.name;
  }
}

}  // namespace
}  // namespace linfault::structure_tree
