#include "structure_tree/progress.h"

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace linfault::structure_tree {
namespace {

constexpr const char* kFile = "/src/object.h";

SourceLocation loc(std::uint32_t line, std::uint32_t column = 5) { return {kFile, line, column}; }

Instruction one(const std::string& access, std::uint32_t line) {
  return {{Point{access, loc(line), ""}}};
}

Node sequence(std::vector<Instruction> instructions) {
  Node node;
  node.kind = NodeKind::kSequence;
  node.instructions = std::move(instructions);
  return node;
}

Node unit(NodeKind kind, std::vector<Node> children, std::optional<std::uint64_t> theta = {}) {
  Node node;
  node.kind = kind;
  node.children = std::move(children);
  node.theta = theta;
  return node;
}

OperationTree tree(std::string object, std::string method, Node root) {
  OperationTree op;
  op.object = std::move(object);
  op.method = std::move(method);
  op.declared_at = loc(1);
  op.root = std::move(root);
  return op;
}

// PairSnapShot read: R -> L(?) -> S(3), the loads on lines 9, 10, 11.
OperationTree pair_read() {
  return tree("PairSnapShot", "read",
              unit(NodeKind::kRoot,
                   {unit(NodeKind::kLoop,
                         {sequence({one("load", 9), one("load", 10), one("load", 11)})})}));
}

// Buggy set add: R -> [S(1), L(?) -> S(1), S(atomic block lock/store/store/unlock)].
OperationTree set_add() {
  Instruction block{{Point{"lock", loc(20), ""}, Point{"store", loc(21), ""},
                     Point{"store", loc(22), ""}, Point{"unlock", loc(20), ""}}};
  return tree("BuggySet", "add",
              unit(NodeKind::kRoot,
                   {sequence({one("load", 12)}),
                    unit(NodeKind::kLoop, {sequence({one("load", 15)})}), sequence({block})}));
}

TEST(OperationProgressTest, FollowsTheLoopAndReportsTheSecondIterationOfAnUnknownLoop) {
  const OperationTree op = pair_read();
  OperationProgress progress(op);
  EXPECT_EQ(progress.remaining(), 3u);
  EXPECT_EQ(progress.on_point(loc(9), "load"), Move::kAdvanced);
  EXPECT_EQ(progress.remaining(), 2u);
  EXPECT_EQ(progress.on_point(loc(10), "load"), Move::kAdvanced);
  EXPECT_EQ(progress.on_point(loc(11), "load"), Move::kAdvanced);
  EXPECT_EQ(progress.remaining(), 0u);
  // theta is unknown, so 1 is assumed: a second iteration goes beyond the assumption.
  EXPECT_EQ(progress.on_point(loc(9), "load"), Move::kBeyondAssumption);
  EXPECT_EQ(progress.remaining(), 2u) << "the rest of this iteration; no further ones assumed";
  EXPECT_EQ(progress.on_point(loc(10), "load"), Move::kAdvanced);
  EXPECT_EQ(progress.on_point(loc(11), "load"), Move::kAdvanced);
  EXPECT_EQ(progress.on_point(loc(9), "load"), Move::kBeyondAssumption);
  EXPECT_EQ(progress.executed(), 7u);
}

TEST(OperationProgressTest, PointsOfALockedBlockAreOneInstruction) {
  const OperationTree op = set_add();
  OperationProgress progress(op);
  EXPECT_EQ(progress.remaining(), 3u);
  EXPECT_EQ(progress.on_point(loc(12), "load"), Move::kAdvanced);
  EXPECT_EQ(progress.on_point(loc(15), "load"), Move::kAdvanced);
  EXPECT_EQ(progress.remaining(), 1u);
  EXPECT_EQ(progress.on_point(loc(15), "load"), Move::kBeyondAssumption);
  EXPECT_EQ(progress.on_point(loc(20), "lock"), Move::kAdvanced);
  EXPECT_EQ(progress.remaining(), 0u);
  EXPECT_EQ(progress.on_point(loc(21), "store"), Move::kSameInstruction);
  EXPECT_EQ(progress.on_point(loc(22), "store"), Move::kSameInstruction);
  EXPECT_EQ(progress.on_point(loc(20), "unlock"), Move::kSameInstruction);
  EXPECT_EQ(progress.executed(), 4u);
}

TEST(OperationProgressTest, AThreadThatResumesInsideALockedBlockEntersIt) {
  // A thread blocked on the mutex may be seen first at an access inside the block.
  const OperationTree op = set_add();
  OperationProgress progress(op);
  EXPECT_EQ(progress.on_point(loc(12), "load"), Move::kAdvanced);
  EXPECT_EQ(progress.on_point(loc(21), "store"), Move::kAdvanced);
  EXPECT_EQ(progress.on_point(loc(22), "store"), Move::kSameInstruction);
  EXPECT_EQ(progress.on_point(loc(20), "unlock"), Move::kSameInstruction);
  EXPECT_EQ(progress.remaining(), 0u);
}

TEST(OperationProgressTest, SkippingALoopIsFineAndUnknownLocationsAreUnmapped) {
  const OperationTree op = set_add();
  OperationProgress progress(op);
  EXPECT_EQ(progress.on_point(loc(12), "load"), Move::kAdvanced);
  EXPECT_EQ(progress.on_point(loc(20), "lock"), Move::kAdvanced) << "zero iterations";
  EXPECT_EQ(progress.on_point(loc(99), "load"), Move::kUnmapped);
  EXPECT_EQ(progress.on_point(loc(12), "store"), Move::kUnmapped) << "the access kind must agree";
  EXPECT_EQ(progress.on_point(loc(21), "store"), Move::kSameInstruction);
}

// A condition variable's wait releases its lock and takes it again at the wait's own place: both
// are points of the wait, inside a locked block or alone.
TEST(OperationProgressTest, ALockReleasedAndRetakenByAWaitIsPartOfTheWait) {
  Instruction block{{Point{"lock", loc(30), ""}, Point{"load", loc(31), ""},
                     Point{"wait", loc(32), ""}, Point{"unlock", loc(33), ""}}};
  const OperationTree op = tree(
      "Queue", "deq",
      unit(NodeKind::kRoot, {sequence({block}), sequence({one("wait", 40), one("load", 41)})}));
  OperationProgress progress(op);
  EXPECT_EQ(progress.on_point(loc(30), "lock"), Move::kAdvanced);
  EXPECT_EQ(progress.on_point(loc(31), "load"), Move::kSameInstruction);
  EXPECT_EQ(progress.on_point(loc(32), "wait"), Move::kSameInstruction);
  EXPECT_EQ(progress.on_point(loc(32), "unlock"), Move::kSameInstruction);
  EXPECT_EQ(progress.on_point(loc(32), "lock"), Move::kSameInstruction);
  EXPECT_EQ(progress.on_point(loc(33), "unlock"), Move::kSameInstruction);
  EXPECT_EQ(progress.on_point(loc(40), "wait"), Move::kAdvanced);
  EXPECT_EQ(progress.on_point(loc(40), "unlock"), Move::kSameInstruction);
  EXPECT_EQ(progress.on_point(loc(40), "lock"), Move::kSameInstruction);
  EXPECT_EQ(progress.on_point(loc(41), "load"), Move::kAdvanced);
  EXPECT_EQ(progress.executed(), 3u);
  // Only a lock or unlock, and only at a wait's place.
  EXPECT_EQ(progress.on_point(loc(41), "lock"), Move::kUnmapped);
  EXPECT_EQ(progress.on_point(loc(40), "store"), Move::kUnmapped);
}

TEST(OperationProgressTest, KnownTripCountsAndRemainingIterations) {
  const OperationTree op =
      tree("Counter", "bump",
           unit(NodeKind::kRoot,
                {unit(NodeKind::kLoop, {sequence({one("load", 5), one("store", 6)})}, 3),
                 sequence({one("fetch_add", 8)})}));
  OperationProgress progress(op);
  EXPECT_EQ(progress.remaining(), 7u);
  EXPECT_EQ(progress.on_point(loc(5), "load"), Move::kAdvanced);
  EXPECT_EQ(progress.remaining(), 1u + 2u * 2u + 1u);
  EXPECT_EQ(progress.on_point(loc(6), "store"), Move::kAdvanced);
  EXPECT_EQ(progress.on_point(loc(5), "load"), Move::kAdvanced) << "iteration 2 of 3";
  EXPECT_EQ(progress.remaining(), 1u + 2u + 1u);
  EXPECT_EQ(progress.on_point(loc(6), "store"), Move::kAdvanced);
  EXPECT_EQ(progress.on_point(loc(5), "load"), Move::kAdvanced);
  EXPECT_EQ(progress.on_point(loc(6), "store"), Move::kAdvanced);
  EXPECT_EQ(progress.on_point(loc(5), "load"), Move::kBeyondAssumption) << "iteration 4 of 3";
  EXPECT_EQ(progress.on_point(loc(6), "store"), Move::kAdvanced);
  EXPECT_EQ(progress.on_point(loc(8), "fetch_add"), Move::kAdvanced);
  EXPECT_EQ(progress.remaining(), 0u);
}

TEST(OperationProgressTest, ANarrowerBranchIsReportedAndLowersTheEstimate) {
  const OperationTree op =
      tree("Chooser", "pick",
           unit(NodeKind::kRoot,
                {sequence({one("load", 3)}),
                 unit(NodeKind::kChoice,
                      {unit(NodeKind::kBranch, {sequence({one("store", 5)})}),
                       unit(NodeKind::kBranch, {sequence({one("store", 7), one("store", 8)})})}),
                 sequence({one("load", 10)})}));
  OperationProgress widest(op);
  EXPECT_EQ(widest.remaining(), 4u);
  EXPECT_EQ(widest.on_point(loc(3), "load"), Move::kAdvanced);
  EXPECT_EQ(widest.on_point(loc(7), "store"), Move::kAdvanced);
  EXPECT_EQ(widest.remaining(), 2u);
  OperationProgress narrow(op);
  EXPECT_EQ(narrow.on_point(loc(3), "load"), Move::kAdvanced);
  EXPECT_EQ(narrow.on_point(loc(5), "store"), Move::kBeyondAssumption);
  EXPECT_EQ(narrow.remaining(), 1u);
}

TEST(OperationProgressTest, AHelperInlinedTwiceIsTrackedInProgramOrder) {
  // find() (lines 30, 31) inlined at the start of the loop body and once more after the loop.
  const OperationTree op = tree(
      "Twice", "op",
      unit(NodeKind::kRoot,
           {unit(NodeKind::kLoop, {sequence({one("load", 30), one("load", 31), one("cas", 40)})}),
            sequence({one("load", 30), one("load", 31)})}));
  OperationProgress progress(op);
  EXPECT_EQ(progress.on_point(loc(30), "load"), Move::kAdvanced);
  EXPECT_EQ(progress.on_point(loc(31), "load"), Move::kAdvanced);
  EXPECT_EQ(progress.on_point(loc(40), "cas"), Move::kAdvanced);
  EXPECT_EQ(progress.remaining(), 2u);
  // After the CAS, line 30 again is the back edge (the nearer candidate inside the loop).
  EXPECT_EQ(progress.on_point(loc(30), "load"), Move::kBeyondAssumption);
  EXPECT_EQ(progress.remaining(), 2u + 2u);
}

TEST(KEstimatorTest, KIsTheSumOverTheThreadsOperationsAndShrinksAsTheyRun) {
  TreeSet trees;
  trees.operations = {pair_read(), tree("PairSnapShot", "write",
                                        unit(NodeKind::kRoot, {sequence({one("store", 4)})}))};
  KEstimator estimator(trees, "", {{"write", "write", "write", "write"}, {"read"}});
  EXPECT_EQ(estimator.initial_k(), 4u * 1u + 3u);
  EXPECT_EQ(estimator.remaining_k(), 7u);
  EXPECT_EQ(estimator.on_point(1, 0, loc(9), "load"), Move::kAdvanced);
  EXPECT_EQ(estimator.remaining_k(), 4u + 2u);
  EXPECT_EQ(estimator.on_point(0, 0, loc(4), "store"), Move::kAdvanced);
  EXPECT_EQ(estimator.on_point(0, 1, loc(4), "store"), Move::kAdvanced);
  EXPECT_EQ(estimator.remaining_k(), 2u + 2u);
  EXPECT_EQ(estimator.on_point(1, 0, loc(10), "load"), Move::kAdvanced);
  EXPECT_EQ(estimator.on_point(1, 0, loc(11), "load"), Move::kAdvanced);
  EXPECT_EQ(estimator.on_point(1, 0, loc(9), "load"), Move::kBeyondAssumption);
  EXPECT_EQ(estimator.remaining_k(), 2u + 2u);
  EXPECT_EQ(estimator.on_point(0, 2, loc(77), "store"), Move::kUnmapped);
  EXPECT_EQ(estimator.unmapped_points(), 1u);
}

TEST(KEstimatorTest, WithoutAClassTheFirstPointSelectsIt) {
  TreeSet trees;
  trees.operations = {
      set_add(), tree("OtherSet", "add", unit(NodeKind::kRoot, {sequence({one("load", 50)})}))};
  KEstimator estimator(trees, "", {{"add", "add"}});
  EXPECT_EQ(estimator.initial_k(), 6u) << "the widest same-named operation before the run";
  EXPECT_EQ(estimator.on_point(0, 0, loc(50), "load"), Move::kAdvanced);
  EXPECT_EQ(estimator.tree_for("add")->object, "OtherSet");
  EXPECT_EQ(estimator.remaining_k(), 1u);
}

// The indexes of a TreeSet are made once and shared by the estimators of every run on it: each
// run answers as an estimator with indexes of its own does, and indexes of other trees are
// refused.
TEST(KEstimatorTest, RunsSharingTheTreesIndexesAnswerAsRunsWithTheirOwn) {
  TreeSet trees;
  trees.operations = {
      pair_read(), set_add(),
      tree("PairSnapShot", "write", unit(NodeKind::kRoot, {sequence({one("store", 4)})}))};
  const std::shared_ptr<const TreeIndexes> shared = index_trees(trees);
  const std::vector<std::vector<std::string>> methods = {{"read", "write", "read"},
                                                         {"add", "write"}};
  const std::vector<std::tuple<std::size_t, std::size_t, std::uint32_t, std::string>> points = {
      {0, 0, 9, "load"},   {1, 0, 12, "load"},  {0, 0, 10, "load"},   {1, 0, 15, "load"},
      {1, 0, 15, "load"},  {0, 0, 11, "load"},  {0, 0, 9, "load"},    {1, 0, 20, "lock"},
      {1, 0, 21, "store"}, {1, 0, 22, "store"}, {1, 0, 20, "unlock"}, {0, 1, 4, "store"},
      {1, 1, 4, "store"},  {0, 2, 9, "load"},   {0, 2, 77, "load"}};
  for (int run = 0; run < 3; ++run) {
    KEstimator own(trees, "", methods);
    KEstimator reusing(trees, shared, "", methods);
    EXPECT_EQ(reusing.initial_k(), own.initial_k());
    for (const auto& [thread, op, line, access] : points) {
      EXPECT_EQ(reusing.on_point(thread, op, loc(line), access),
                own.on_point(thread, op, loc(line), access))
          << "run " << run << ", line " << line;
      EXPECT_EQ(reusing.remaining_per_thread(), own.remaining_per_thread()) << "line " << line;
    }
    EXPECT_EQ(reusing.unmapped_points(), own.unmapped_points());
  }
  TreeSet fewer;
  fewer.operations = {pair_read()};
  EXPECT_THROW(KEstimator(trees, index_trees(fewer), "", methods), std::invalid_argument);
  EXPECT_THROW(KEstimator(trees, nullptr, "", methods), std::invalid_argument);
}

}  // namespace
}  // namespace linfault::structure_tree
