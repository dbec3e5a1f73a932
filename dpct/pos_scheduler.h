// PosScheduler: partial order sampling (POS; Yuan, Yang and Gu, "Partial Order Aware Concurrency
// Sampling", CAV 2018).
//
// What we took from the paper: every pending event (here: the access a thread performs when it
// is next scheduled, RunView::pending) carries a random priority; at each step the enabled
// thread whose pending event has the highest priority runs. After an event e executes, the
// executing thread's new pending event gets a fresh priority, and so does every other thread's
// pending event that *races* with e; the priorities of the events independent of e are kept.
// Keeping those priorities is what makes the sampling partial-order aware: reordering
// independent events does not change the drawn behaviour, so unlike a plain random walk the
// probability of a partial order does not shrink with the number of independent interleavings
// that realize it (the paper shows each partial order of a run is sampled with probability at
// least 1/N! in the number N of racing event pairs, in place of a bound in all events).
//
// Races: two accesses race when they touch the same address and at least one of them is not a
// load; a wait or notify races with everything (its effect is not tied to one address). A spin/
// yield hint touches nothing: the thread at it drops below every priority until it runs again,
// so spinning threads let the others progress (as RandomScheduler and PctScheduler do).
// Without a RunView (RunInfo::view == nullptr, e.g. a scheduler driven by hand) every pending
// priority is redrawn at every step, which is a random walk.
//
// Schedule parameters: "pos seed=S n=N". The run is a pure function of the seed and the workload.
//
// Thread-safety: see dpct/scheduler.h (one execution at a time).
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_DPCT_POS_SCHEDULER_H_
#define LINFAULT_DPCT_POS_SCHEDULER_H_

#include <cstdint>
#include <vector>

#include "dpct/rng.h"
#include "dpct/scheduler.h"

namespace linfault::dpct {

// Whether two accesses race in POS's sense (see above).
bool accesses_race(const Access& a, const Access& b);

class PosScheduler final : public Scheduler {
 public:
  explicit PosScheduler(std::uint64_t seed) : seed_(seed) {}

  void begin(const RunInfo& info) override;
  ThreadId choose(const SchedulingPoint& point, std::span<const ThreadId> enabled) override;
  void end(Schedule& schedule) override;
  void reseed(std::uint64_t seed) override { seed_ = seed; }

  // Priority redraws of this run beyond the initial ones, for tests and reports.
  std::uint64_t redraws() const { return redraws_; }

 private:
  // Fresh priorities after `last_` performed `last_access_`.
  void redraw_after_last_step();
  std::uint64_t fresh_priority() { return (rng_.next() >> 1) + 1; }  // above every yield value

  std::uint64_t seed_;
  SplitMix64 rng_;
  const RunView* view_ = nullptr;
  std::vector<std::int64_t> priority_;  // as unsigned draws shifted into the positive range
  std::int64_t next_lowest_ = 0;        // yield priorities: 0, -1, -2, ...
  ThreadId last_ = kNoThread;
  bool last_had_access_ = false;
  Access last_access_{AccessKind::kYield, nullptr, SourceLocation()};
  std::uint64_t redraws_ = 0;
};

}  // namespace linfault::dpct

#endif  // LINFAULT_DPCT_POS_SCHEDULER_H_
