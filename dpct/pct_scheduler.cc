#include "dpct/pct_scheduler.h"

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <string>
#include <string_view>

#include "dpct/schedule.h"

namespace linfault::dpct {

namespace {
template <class T>
std::string join(const std::vector<T>& values) {
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) out += ",";
    out += std::to_string(values[i]);
  }
  return out;
}
}  // namespace

PctScheduler::PctScheduler(const PctOptions& options)
    : PctScheduler(options, std::make_unique<FixedSteps>(options.steps)) {}

PctScheduler::PctScheduler(const PctOptions& options, std::unique_ptr<StepEstimator> estimator)
    : options_(options), estimator_(std::move(estimator)) {
  if (options_.depth < 1) throw std::invalid_argument("PCT depth must be at least 1");
  if (!estimator_) throw std::invalid_argument("PCT needs a step estimator");
  revises_ = estimator_->revises();
}

void PctScheduler::begin(const RunInfo& info) {
  rng_ = SplitMix64(options_.seed);
  k_ = estimator_->estimate(info);
  initial_k_ = k_;
  decisions_ = 0;
  next_lowest_ = 0;
  revisions_.clear();

  priority_.resize(info.threads);
  draw_priorities();
  initial_priority_ = priority_;

  total_operations_ = 0;
  if (info.workload != nullptr) {
    for (const auto& thread : info.workload->threads) total_operations_ += thread.size();
  }
  operations_done_ = 0;
  epoch_start_ = 0;
  epochs_ = 1;
  op_index_.assign(info.threads, 0);
  change_points_.assign(options_.depth - 1, 0);
  deferred_priority_ = 0;
  deferred_thread_ = kNoThread;
  deferred_ = 0;
  method_of_.resize(info.threads);
  for (std::vector<std::uint32_t>& methods : method_of_) methods.clear();
  method_writes_.clear();
  method_names_.clear();
  if (options_.defer_to_write > 0 && info.workload != nullptr) {
    // Objects have a handful of methods: a linear search beats a map here (runs are ~1 us).
    for (std::size_t t = 0; t < info.threads && t < info.workload->threads.size(); ++t) {
      for (const history::Call& call : info.workload->threads[t]) {
        auto it = std::find(method_names_.begin(), method_names_.end(), call.method);
        if (it == method_names_.end()) {
          method_names_.push_back(call.method);
          method_writes_.push_back(false);
          it = method_names_.end() - 1;
        }
        method_of_[t].push_back(static_cast<std::uint32_t>(it - method_names_.begin()));
      }
    }
  }
  method_names_.clear();  // they point into the workload, which may not outlive the run
  draw_pending_change_points(1, epoch_steps());
}

namespace {
bool is_write_like(AccessKind kind) {
  return kind != AccessKind::kLoad && kind != AccessKind::kUnlock && kind != AccessKind::kYield &&
         kind != AccessKind::kWait && kind != AccessKind::kUnlockShared;
}
}  // namespace

std::uint64_t PctScheduler::epoch_steps() const {
  if (options_.epoch_operations == 0 || total_operations_ <= options_.epoch_operations) return k_;
  // Rounded up, and at least 2: a span of one step puts every change point on the epoch's first
  // decision, in every run, and operations of one or two accesses (k below the operation count)
  // rounded down to it and could never be preempted inside.
  const std::uint64_t share =
      (k_ * options_.epoch_operations + total_operations_ - 1) / total_operations_;
  return std::max<std::uint64_t>(2, share);
}

void PctScheduler::draw_priorities() {
  const auto n = static_cast<std::int64_t>(priority_.size());
  for (std::int64_t t = 0; t < n; ++t) priority_[t] = options_.depth + 1 + t;
  for (std::size_t i = priority_.size(); i > 1; --i) {  // Fisher-Yates
    std::swap(priority_[i - 1], priority_[rng_.below(i)]);
  }
}

bool PctScheduler::epoch_ends(const SchedulingPoint& point) {
  if (options_.epoch_operations == 0 || point.thread >= op_index_.size()) return false;
  if (point.kind == PointKind::kFinished) {
    ++operations_done_;  // the thread's last operation
  } else if (point.op_index > op_index_[point.thread]) {
    operations_done_ += point.op_index - op_index_[point.thread];
    op_index_[point.thread] = point.op_index;
  }
  return operations_done_ - epoch_start_ >= options_.epoch_operations;
}

void PctScheduler::draw_pending_change_points(std::uint64_t first, std::uint64_t span) {
  pending_.clear();
  for (std::size_t i = 0; i < change_points_.size(); ++i) {
    if (change_points_[i] == 0 || change_points_[i] >= first) pending_.push_back(i);
  }
  for (std::size_t i : pending_) change_points_[i] = 0;
  // With fewer steps than change points, only the first `span` priorities get a step.
  std::size_t drawn = std::min<std::uint64_t>(pending_.size(), span);
  for (std::size_t j = 0; j < drawn; ++j) {
    std::uint64_t step;
    do {
      step = first + rng_.below(span);
    } while (std::find(change_points_.begin(), change_points_.end(), step) != change_points_.end());
    change_points_[pending_[j]] = step;
  }
}

ThreadId PctScheduler::choose(const SchedulingPoint& point, std::span<const ThreadId> enabled) {
  const bool is_decision = enabled.size() >= 2;
  const std::uint64_t left = k_ > decisions_ ? k_ - decisions_ : 0;
  if (std::optional<std::uint64_t> revised =
          revises_ ? estimator_->revise(point, left) : std::nullopt) {
    revisions_.emplace_back(decisions_, *revised);
    k_ = decisions_ + *revised;
    if (options_.epoch_operations == 0) {
      draw_pending_change_points(decisions_ + 1, std::max<std::uint64_t>(*revised, 1));
    }
  }
  if (epoch_ends(point)) {
    epoch_start_ = operations_done_;
    ++epochs_;
    next_lowest_ = 0;
    deferred_priority_ = 0;
    deferred_thread_ = kNoThread;
    draw_priorities();
    change_points_.assign(options_.depth - 1, 0);
    draw_pending_change_points(decisions_ + 1, epoch_steps());
  }
  // Whether this thread's current operation may write, for the write bias (the table is empty
  // without it).
  bool method_writes = false;
  if (point.kind == PointKind::kAccess && point.thread < method_of_.size() &&
      point.op_index < method_of_[point.thread].size()) {
    const std::uint32_t method = method_of_[point.thread][point.op_index];
    if (is_write_like(point.access.kind)) method_writes_[method] = true;
    method_writes = method_writes_[method];
  }
  if (point.is_yield() && point.thread < priority_.size()) {
    priority_[point.thread] = next_lowest_--;
  }
  if (!is_decision) return enabled[0];

  ++decisions_;
  auto highest = [&] {
    ThreadId best = enabled[0];
    for (ThreadId t : enabled) {
      if (priority_[t] > priority_[best]) best = t;
    }
    return best;
  };
  ThreadId best = highest();
  const bool at_access_of_best = point.kind == PointKind::kAccess && point.thread == best;
  if (deferred_priority_ != 0 && deferred_thread_ == best && at_access_of_best &&
      is_write_like(point.access.kind)) {
    priority_[best] = deferred_priority_;
    deferred_priority_ = 0;
    deferred_thread_ = kNoThread;
    return highest();
  }
  for (std::size_t i = 0; i < change_points_.size(); ++i) {
    if (change_points_[i] == decisions_) {
      const auto priority = static_cast<std::int64_t>(i) + 1;
      if (options_.defer_to_write > 0 && deferred_priority_ == 0 && at_access_of_best &&
          method_writes && point.access.kind == AccessKind::kLoad &&
          rng_.unit() < options_.defer_to_write) {
        deferred_priority_ = priority;
        deferred_thread_ = best;
        ++deferred_;
        break;
      }
      priority_[best] = priority;
      best = highest();
      break;
    }
  }
  return best;
}

void PctScheduler::end(Schedule& schedule) {
  schedule.scheduler = "pct";
  schedule.parameters.reserve(schedule.parameters.size() + 12);  // one allocation per run
  schedule.set_parameter("seed", std::to_string(options_.seed));
  schedule.set_parameter("n", std::to_string(priority_.size()));
  schedule.set_parameter("k", std::to_string(initial_k_));
  schedule.set_parameter("d", std::to_string(options_.depth));
  schedule.set_parameter("prio", join(initial_priority_));
  schedule.set_parameter("cp", join(change_points_));
  if (!revisions_.empty()) {
    std::string text;
    for (const auto& [at, remaining] : revisions_) {
      if (!text.empty()) text += ",";
      text += std::to_string(at) + ":" + std::to_string(remaining);
    }
    schedule.set_parameter("kre", text);
  }
  if (options_.epoch_operations > 0) {
    schedule.set_parameter("epoch", std::to_string(options_.epoch_operations));
    schedule.set_parameter("epochs", std::to_string(epochs_));
  }
  if (options_.defer_to_write > 0) {
    // As a stream writes it (%g), without a stream's locale set-up in every run.
    char bias[32];
    const auto written = std::to_chars(bias, bias + sizeof bias, options_.defer_to_write,
                                       std::chars_format::general, 6);
    schedule.set_parameter("wb", std::string(bias, written.ptr));
    schedule.set_parameter("deferred", std::to_string(deferred_));
  }
}

}  // namespace linfault::dpct
