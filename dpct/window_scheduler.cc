#include "dpct/window_scheduler.h"

#include <algorithm>
#include <array>
#include <string>
#include <utility>

#include "dpct/schedule.h"

namespace linfault::dpct {

namespace {

// Accesses that act on what an operation read: the end of a check-then-act window.
bool acts(AccessKind kind) { return modifies_memory(kind) || acquires_lock(kind); }

// (p_act, p_inside), one drawn per operation: see the header.
constexpr std::array<std::pair<double, double>, 5> kProbabilities = {
    {{1.0, 0.0}, {0.75, 0.25}, {0.5, 0.5}, {0.25, 0.75}, {0.0, 1.0}}};

// Accesses per operation assumed before any operation of the run has completed.
constexpr double kAssumedAccesses = 4;
// A pause lasts until the others complete 1..kMaxWait updating operations (1/2, 1/4, ...).
constexpr std::uint32_t kMaxWait = 4;
// ... and at most this many decisions per awaited operation and access of an average operation.
constexpr std::uint64_t kStepsPerWaitedAccess = 4;

}  // namespace

void WindowScheduler::begin(const RunInfo& info) {
  rng_ = SplitMix64(seed_);
  view_ = info.view;
  threads_.assign(info.threads, ThreadState{});
  for (ThreadState& state : threads_) draw_windows(state);
  completed_ops_ = 0;
  completed_accesses_ = 0;
  decisions_ = 0;
  pauses_ = 0;
  candidates_.reserve(info.threads);
  paused_.reserve(info.threads);
}

double WindowScheduler::accesses_per_operation() const {
  return completed_ops_ > 0
             ? static_cast<double>(completed_accesses_) / static_cast<double>(completed_ops_)
             : kAssumedAccesses;
}

const char* window_pauses_name(WindowPauses pauses) {
  switch (pauses) {
    case WindowPauses::kMixed:
      return "mixed";
    case WindowPauses::kAct:
      return "act";
    case WindowPauses::kInside:
      return "inside";
  }
  return "?";
}

std::optional<WindowPauses> parse_window_pauses(std::string_view name) {
  for (WindowPauses pauses : {WindowPauses::kMixed, WindowPauses::kAct, WindowPauses::kInside}) {
    if (name == window_pauses_name(pauses)) return pauses;
  }
  return std::nullopt;
}

void WindowScheduler::draw_windows(ThreadState& state) {
  if (where_ != WindowPauses::kMixed) {
    state.act_window = where_ == WindowPauses::kAct;
    state.inside_window = where_ == WindowPauses::kInside;
    return;
  }
  const auto& [p_act, p_inside] = kProbabilities[rng_.below(kProbabilities.size())];
  state.act_window = rng_.unit() < p_act;
  state.inside_window = rng_.unit() < p_inside;
}

void WindowScheduler::operation_completed(ThreadId thread) {
  ThreadState& done = threads_[thread];
  ++completed_ops_;
  completed_accesses_ += done.accesses;
  if (done.op_updated) {
    for (ThreadId u = 0; u < threads_.size(); ++u) {
      if (u != thread && threads_[u].waiting > 0) --threads_[u].waiting;
    }
  }
  const std::size_t op_index = done.op_index;
  done = ThreadState{};
  done.op_index = op_index;
  draw_windows(done);
}

bool WindowScheduler::pause_before(ThreadId thread, const Access& access) {
  ThreadState& state = threads_[thread];
  // Never before an operation's first access: there is no window yet.
  if (state.accesses == 0 || access.kind == AccessKind::kYield) return false;
  if (state.act_window && acts(access.kind)) {
    state.act_window = false;  // the first act after the operation's first access ends it
    return true;
  }
  if (!state.inside_window) return false;
  // One access in about (accesses per operation - 1) after the first.
  if (rng_.unit() * std::max(1.0, accesses_per_operation() - 1) >= 1) return false;
  state.inside_window = false;
  return true;
}

void WindowScheduler::performed(ThreadId thread, const SchedulingPoint& point) {
  const Access* access = nullptr;
  if (point.thread == thread &&
      (point.kind == PointKind::kAccess || point.kind == PointKind::kBlocked)) {
    access = &point.access;
  } else if (view_ != nullptr) {
    access = view_->pending(thread).access;
  }
  if (access == nullptr) return;
  ThreadState& state = threads_[thread];
  if (state.blocked) {
    state.blocked = false;  // the lock or wait it blocked on, counted when it first tried
    return;
  }
  ++state.accesses;
  if (modifies_memory(access->kind)) state.op_updated = true;
}

ThreadId WindowScheduler::choose(const SchedulingPoint& point, std::span<const ThreadId> enabled) {
  const ThreadId at = point.thread;
  if (at < threads_.size()) {
    ThreadState& state = threads_[at];
    if (point.kind == PointKind::kFinished) {
      operation_completed(at);
    } else if (point.op_index != state.op_index) {
      operation_completed(at);
      threads_[at].op_index = point.op_index;
    }
    if (point.kind == PointKind::kBlocked) threads_[at].blocked = true;
  }
  const bool decision = enabled.size() >= 2;
  if (decision) ++decisions_;
  // Pause the thread at the point if it is in its window and another thread is enabled (that one
  // may be paused too: then one of them goes on, see below).
  if (decision && point.kind == PointKind::kAccess && pause_before(at, point.access)) {
    ThreadState& state = threads_[at];
    state.waiting = 1;
    while (state.waiting < kMaxWait && rng_.below(2) == 0) ++state.waiting;
    // A bound in steps too: a thread that waits for it in a loop without a spin hint must not
    // turn a pause into a livelock.
    state.resume_at = decisions_ + state.waiting * kStepsPerWaitedAccess *
                                       static_cast<std::uint64_t>(accesses_per_operation() + 1);
    ++pauses_;
  }
  // A random walk over the threads that are not paused; a thread at a spin/yield hint waits for
  // the others. When nobody else can run, one of the paused goes on.
  candidates_.clear();
  paused_.clear();
  for (ThreadId t : enabled) {
    ThreadState& state = threads_[t];
    if (state.waiting > 0 && decisions_ >= state.resume_at) state.waiting = 0;
    if (state.waiting > 0) {
      paused_.push_back(t);
    } else if (!(point.is_yield() && t == at)) {
      candidates_.push_back(t);
    }
  }
  ThreadId chosen;
  if (!candidates_.empty()) {
    chosen = candidates_[rng_.below(candidates_.size())];
  } else if (!paused_.empty()) {
    // Resuming the first paused gives read A, read B, act A, act B (lost updates); resuming the
    // last keeps the first one's window open until the other completes its update.
    chosen = paused_[rng_.below(paused_.size())];
    threads_[chosen].waiting = 0;
  } else {
    chosen = at;  // only the yielding thread can run
  }
  performed(chosen, point);
  return chosen;
}

void WindowScheduler::end(Schedule& schedule) {
  schedule.scheduler = "window";
  schedule.set_parameter("seed", std::to_string(seed_));
  schedule.set_parameter("n", std::to_string(threads_.size()));
  schedule.set_parameter("pauses", std::to_string(pauses_));
  if (where_ != WindowPauses::kMixed) schedule.set_parameter("windows", window_pauses_name(where_));
}

}  // namespace linfault::dpct
