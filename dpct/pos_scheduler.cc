#include "dpct/pos_scheduler.h"

#include <string>

#include "dpct/schedule.h"

namespace linfault::dpct {

namespace {
bool affects_everything(AccessKind kind) {
  return kind == AccessKind::kWait || kind == AccessKind::kNotifyOne ||
         kind == AccessKind::kNotifyAll;
}
}  // namespace

bool accesses_race(const Access& a, const Access& b) {
  if (a.kind == AccessKind::kYield || b.kind == AccessKind::kYield) return false;
  if (affects_everything(a.kind) || affects_everything(b.kind)) return true;
  if (a.address == nullptr || a.address != b.address) return false;
  return a.kind != AccessKind::kLoad || b.kind != AccessKind::kLoad;
}

void PosScheduler::begin(const RunInfo& info) {
  rng_ = SplitMix64(seed_);
  view_ = info.view;
  priority_.resize(info.threads);
  for (auto& p : priority_) p = static_cast<std::int64_t>(fresh_priority());
  next_lowest_ = 0;
  last_ = kNoThread;
  last_had_access_ = false;
  redraws_ = 0;
}

void PosScheduler::redraw_after_last_step() {
  if (last_ == kNoThread) return;
  auto redraw = [&](ThreadId t) {
    priority_[t] = static_cast<std::int64_t>(fresh_priority());
    ++redraws_;
  };
  redraw(last_);  // its next event is a new one
  for (ThreadId t = 0; t < priority_.size(); ++t) {
    if (t == last_) continue;
    if (view_ == nullptr) {
      redraw(t);
      continue;
    }
    const Access* pending = view_->pending(t).access;
    if (pending != nullptr && last_had_access_ && accesses_race(last_access_, *pending)) redraw(t);
  }
}

ThreadId PosScheduler::choose(const SchedulingPoint& point, std::span<const ThreadId> enabled) {
  redraw_after_last_step();
  // A thread at a spin/yield hint waits for the others (yield priorities are <= 0).
  for (ThreadId t : enabled) {
    const bool at_yield = (point.is_yield() && point.thread == t) ||
                          (view_ != nullptr && view_->pending(t).access != nullptr &&
                           view_->pending(t).access->kind == AccessKind::kYield);
    if (at_yield && priority_[t] > 0) priority_[t] = next_lowest_--;
  }
  ThreadId best = enabled[0];
  for (ThreadId t : enabled) {
    if (priority_[t] > priority_[best]) best = t;
  }
  last_ = best;
  last_had_access_ = false;
  if (view_ != nullptr) {
    if (const Access* access = view_->pending(best).access) {
      last_access_ = *access;
      last_had_access_ = true;
    }
  } else if (point.kind == PointKind::kAccess && point.thread == best) {
    last_access_ = point.access;
    last_had_access_ = true;
  }
  return best;
}

void PosScheduler::end(Schedule& schedule) {
  schedule.scheduler = "pos";
  schedule.set_parameter("seed", std::to_string(seed_));
  schedule.set_parameter("n", std::to_string(priority_.size()));
}

}  // namespace linfault::dpct
