// TreeStepEstimator: D-PCT's k from structure trees, as dpct's StepEstimator hook
// (dpct/step_estimator.h, docs/algorithms.md section 4, docs/structure-trees.md).
//
// estimate() sums SUM(op) over the operations every thread of the concurrent part will run.
// revise() follows each thread through its operation's tree (structure_tree/progress.h) at every
// access point; when a thread goes beyond the assumption (a loop iterating more than theta times,
// a branch other than the widest one) it returns the re-estimated remaining k, so PctScheduler
// redraws the change points still ahead.
//
// Unit: the paper counts instructions (KUnit::kInstructions): k = the sum over threads of their
// instructions. PCT places change points among *decisions* (points where at least two threads
// are enabled); the thread that runs last runs its tail alone, so KUnit::kDecisions (the
// default) estimates decisions as that sum minus the largest per-thread share. The bench
// (bench/dpct_vs_pct) measures both: kDecisions needs fewer runs on every buggy target.
//
// Points whose location is in no tree are counted (unmapped_points()); they leave the estimate
// unchanged. A TreeSet without operations (a build without the extractor) makes estimate()
// return `fallback_k`.
//
// Thread-safety: one estimator per PctScheduler (one execution at a time).
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_STRUCTURE_TREE_DPCT_ESTIMATOR_H_
#define LINFAULT_STRUCTURE_TREE_DPCT_ESTIMATOR_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "dpct/step_estimator.h"
#include "structure_tree/progress.h"
#include "structure_tree/tree.h"

namespace linfault::structure_tree {

enum class KUnit : std::uint8_t { kInstructions, kDecisions };

struct TreeEstimatorOptions {
  std::string object;  // the class whose trees to use; empty: found from the first points
  KUnit unit = KUnit::kDecisions;
  std::uint64_t fallback_k = 100;  // when there are no trees
};

class TreeStepEstimator final : public dpct::StepEstimator {
 public:
  TreeStepEstimator(std::shared_ptr<const TreeSet> trees, TreeEstimatorOptions options);

  std::uint64_t estimate(const dpct::RunInfo& info) override;
  std::optional<std::uint64_t> revise(const dpct::SchedulingPoint& point,
                                      std::uint64_t decisions_left) override;

  // Of the current (or last) run.
  std::uint64_t access_points() const { return access_points_; }
  std::uint64_t unmapped_points() const { return estimator_ ? estimator_->unmapped_points() : 0; }
  std::uint64_t revisions() const { return revisions_; }
  std::string first_unmapped() const { return estimator_ ? estimator_->first_unmapped() : ""; }

 private:
  std::uint64_t in_unit(const std::vector<std::uint64_t>& per_thread) const;

  std::shared_ptr<const TreeSet> trees_;
  std::shared_ptr<const TreeIndexes> indexes_;  // of trees_, made at the first run
  TreeEstimatorOptions options_;
  std::optional<KEstimator> estimator_;
  // The location of the point revise() passes on, its file copied only when the file changes.
  SourceLocation where_;
  const char* where_file_ = nullptr;
  std::uint64_t access_points_ = 0;
  std::uint64_t revisions_ = 0;
};

}  // namespace linfault::structure_tree

#endif  // LINFAULT_STRUCTURE_TREE_DPCT_ESTIMATOR_H_
