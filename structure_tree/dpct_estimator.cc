#include "structure_tree/dpct_estimator.h"

#include <algorithm>
#include <numeric>

namespace linfault::structure_tree {

TreeStepEstimator::TreeStepEstimator(std::shared_ptr<const TreeSet> trees,
                                     TreeEstimatorOptions options)
    : trees_(std::move(trees)), options_(std::move(options)) {}

std::uint64_t TreeStepEstimator::in_unit(const std::vector<std::uint64_t>& per_thread) const {
  const std::uint64_t total =
      std::accumulate(per_thread.begin(), per_thread.end(), std::uint64_t{0});
  if (options_.unit == KUnit::kInstructions || per_thread.empty()) return total;
  return total - *std::max_element(per_thread.begin(), per_thread.end());
}

std::uint64_t TreeStepEstimator::estimate(const dpct::RunInfo& info) {
  access_points_ = 0;
  revisions_ = 0;
  estimator_.reset();
  if (trees_ == nullptr || trees_->operations.empty() || info.workload == nullptr) {
    return options_.fallback_k;
  }
  std::vector<std::vector<std::string>> methods;
  for (const auto& calls : info.workload->threads) {
    std::vector<std::string> names;
    for (const auto& call : calls) names.push_back(call.method);
    methods.push_back(std::move(names));
  }
  if (indexes_ == nullptr) indexes_ = index_trees(*trees_);  // the trees never change
  estimator_.emplace(*trees_, indexes_, options_.object, std::move(methods));
  return std::max<std::uint64_t>(in_unit(estimator_->remaining_per_thread()), 1);
}

std::optional<std::uint64_t> TreeStepEstimator::revise(const dpct::SchedulingPoint& point,
                                                       std::uint64_t /*decisions_left*/) {
  // A kBlocked point is the lock access of a thread that must wait for the mutex.
  if (!estimator_ ||
      (point.kind != dpct::PointKind::kAccess && point.kind != dpct::PointKind::kBlocked)) {
    return std::nullopt;
  }
  ++access_points_;
  const dpct::SourceLocation& where = point.access.where;
  // A file name is a string literal: the same pointer is the same text, not copied again.
  if (where.file_name() != where_file_) {
    where_file_ = where.file_name();
    where_.file = where_file_;
  }
  where_.line = where.line();
  where_.column = where.column();
  const Move move = estimator_->on_point(point.thread, point.op_index, where_,
                                         dpct::access_kind_name(point.access.kind));
  if (move != Move::kBeyondAssumption) return std::nullopt;
  ++revisions_;
  // Including the instruction at this point.
  return in_unit(estimator_->remaining_per_thread()) + 1;
}

}  // namespace linfault::structure_tree
