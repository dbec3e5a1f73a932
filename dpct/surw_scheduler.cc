#include "dpct/surw_scheduler.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "dpct/schedule.h"

namespace linfault::dpct {

bool is_interesting(AccessKind kind) {
  return kind != AccessKind::kLoad && kind != AccessKind::kYield;
}

SurwScheduler::SurwScheduler(const SurwOptions& options) : options_(options) {
  if (options_.events_per_operation == 0) {
    throw std::invalid_argument("SURW needs at least one event per operation");
  }
}

SurwScheduler::SurwScheduler(const SurwOptions& options, std::unique_ptr<StepEstimator> estimator)
    : SurwScheduler(options) {
  if (!estimator) throw std::invalid_argument("SURW was given a null step estimator");
  estimator_ = std::move(estimator);
}

void SurwScheduler::begin(const RunInfo& info) {
  rng_ = SplitMix64(options_.seed);
  view_ = info.view;
  const std::size_t n = info.threads;
  operations_.assign(n, 1);
  estimate_.assign(n, options_.events_per_operation);
  for (std::size_t t = 0; t < n && info.workload != nullptr && t < info.workload->threads.size();
       ++t) {
    const auto& calls = info.workload->threads[t];
    operations_[t] = std::max<std::size_t>(calls.size(), 1);
    if (estimator_) {
      twins_.threads.resize(2);
      twins_.threads[0] = calls;
      twins_.threads[1] = calls;
      estimate_[t] = estimator_->estimate(RunInfo{2, &twins_, nullptr});
    } else {
      estimate_[t] = operations_[t] * options_.events_per_operation;
    }
  }
  if (estimator_) estimator_->estimate(info);  // leaves it set up for this run
  for (auto& e : estimate_) e = std::max<std::uint64_t>(e, 1);
  initial_estimate_ = estimate_;
  done_.assign(n, 0);
  op_index_.assign(n, 0);
  designated_ = kNoThread;
  draws_ = 0;
  revisions_ = 0;
}

std::uint64_t SurwScheduler::remaining(ThreadId t) const {
  return estimate_[t] > done_[t] ? estimate_[t] - done_[t] : 1;
}

void SurwScheduler::revise(ThreadId t) {
  if (done_[t] < estimate_[t]) return;
  const std::uint64_t started = op_index_[t] + 1;
  const std::uint64_t per_operation = (done_[t] + started - 1) / started;  // rounded up
  const std::uint64_t left = operations_[t] > started ? operations_[t] - started : 0;
  estimate_[t] = done_[t] + std::max<std::uint64_t>(per_operation * left, 1);
  ++revisions_;
}

bool SurwScheduler::pending_is_interesting(const SchedulingPoint& point, ThreadId t) const {
  if (view_ != nullptr) {
    const Access* access = view_->pending(t).access;
    return access != nullptr && is_interesting(access->kind);
  }
  if (point.kind == PointKind::kAccess && point.thread == t)
    return is_interesting(point.access.kind);
  return true;  // unknown: only the designated thread may run it
}

ThreadId SurwScheduler::draw(std::span<const ThreadId> enabled) {
  std::uint64_t total = 0;
  for (ThreadId t : enabled) total += remaining(t);
  std::uint64_t ticket = rng_.below(total);
  for (ThreadId t : enabled) {
    if (ticket < remaining(t)) return t;
    ticket -= remaining(t);
  }
  return enabled.back();  // unreachable: the tickets cover [0, total)
}

bool SurwScheduler::spinning(const SchedulingPoint& point, ThreadId t) const {
  if (point.is_yield() && point.thread == t) return true;
  if (view_ == nullptr) return false;
  const Access* access = view_->pending(t).access;
  return access != nullptr && access->kind == AccessKind::kYield;
}

ThreadId SurwScheduler::choose(const SchedulingPoint& point, std::span<const ThreadId> enabled) {
  if (point.thread < op_index_.size() && point.kind != PointKind::kFinished) {
    op_index_[point.thread] = point.op_index;
  }
  // Spinning threads wait for the others: they run only when every enabled thread spins.
  std::vector<ThreadId>& active = active_;
  active.clear();
  for (ThreadId t : enabled) {
    if (!spinning(point, t)) active.push_back(t);
  }
  if (active.empty()) active.assign(enabled.begin(), enabled.end());
  if (std::find(active.begin(), active.end(), designated_) == active.end()) {
    designated_ = draw(active);
    draws_ += active.size() > 1;
  }
  // Who may run: the designated thread, and every thread whose next event is not interesting.
  std::vector<ThreadId>& candidates = candidates_;
  candidates.clear();
  for (ThreadId t : active) {
    if (t == designated_ || !pending_is_interesting(point, t)) candidates.push_back(t);
  }
  const ThreadId chosen = candidates[rng_.below(candidates.size())];
  const bool interesting = pending_is_interesting(point, chosen);
  ++done_[chosen];
  revise(chosen);
  if (chosen == designated_ && interesting) designated_ = kNoThread;  // drawn again next time
  return chosen;
}

void SurwScheduler::end(Schedule& schedule) {
  schedule.scheduler = "surw";
  schedule.set_parameter("seed", std::to_string(options_.seed));
  schedule.set_parameter("n", std::to_string(estimate_.size()));
  std::string estimates;
  for (std::size_t t = 0; t < initial_estimate_.size(); ++t) {
    if (t) estimates += ",";
    estimates += std::to_string(initial_estimate_[t]);
  }
  schedule.set_parameter("est", estimates);
  if (!estimator_) schedule.set_parameter("epo", std::to_string(options_.events_per_operation));
  if (revisions_ > 0) schedule.set_parameter("rev", std::to_string(revisions_));
}

}  // namespace linfault::dpct
