// PctScheduler: probabilistic concurrency testing (Burckhardt et al., ASPLOS 2010), with the
// D-PCT hook for a k that is estimated and revised during the run (dpct/step_estimator.h).
//
// Per run, for n threads, depth d and k estimated steps:
//   1. the threads get distinct random priorities d+1 ... d+n (higher runs first);
//   2. d-1 change points are drawn uniformly (distinct) among steps 1..k; change point i has
//      priority i (i = 1 .. d-1), below every initial priority;
//   3. at every decision the highest-priority enabled thread runs; when decision number c is
//      change point i, the thread that would run gets priority i and the choice is made again.
// Steps are decisions: scheduling points where at least two threads are enabled. A thread at a
// spin/yield hint drops below everyone (each yield gets a fresh lowest priority, so spinning
// threads take turns). When the estimator revises k at decision c to r more steps, the change
// points not yet passed are redrawn uniformly among decisions c+1 .. c+r.
// Guarantee: a bug of depth <= d is found in one run with probability >= 1/(n*k^(d-1)) when k
// bounds the run's decisions.
//
// Epochs (PctOptions::epoch_operations = E > 0): a long run (a detection history of hundreds of
// operations) gets only d-1 preemptions in all, so a bug that needs two particular operations
// to overlap is rarely hit even though the run passes through many such windows. With epochs the
// plan is redrawn every time E more operations have completed: fresh random priorities, and d-1
// change points among the next k_E decisions, where k_E is the run's k (estimated, and revised)
// times E over the run's operation count, rounded up and at least 2. Each epoch then carries PCT's
// guarantee for the bugs whose operations lie within it, with k_E in place of k. Revisions of k
// take effect at the next epoch.
//
// Write bias (PctOptions::defer_to_write = p > 0): most atomicity violations are check-then-act
// windows, a thread that reads shared state and later writes (CAS, store, lock) on the strength
// of what it read. A traversal makes most decisions loads, so a uniformly drawn change point
// rarely lands in the short window before the write. With the bias, a change point that falls on
// a load of the running thread is, with probability p, deferred to that thread's next write-like
// access (store, exchange, CAS, fetch-add/sub, lock, try_lock): the thread is preempted right
// before acting. Only operations of methods seen writing earlier in the run are deferred, so a
// read-only method (size, contains, a snapshot read), whose bugs need a preemption between two
// loads, keeps PCT's plain change points; elsewhere a preemption between loads keeps probability
// 1-p. Measured on Table II with p = 0.5 (bench/table2/README.md): CGList 7/20 -> 13/20
// histories, BUList2 19/20 -> 20/20, snark_deque 0/20 -> 2/20; no target clearly worse.
//
// Schedule parameters: "pct seed=S n=N k=K d=D prio=P0,P1,.. cp=C1,..,C(d-1) [kre=c:r,..]
// [epoch=E epochs=X] [wb=p deferred=Y]" (prio: initial priority of thread 0, 1, ...; cp: final
// change points of the last plan, 0 = none; kre: each revision of k as decision:remaining;
// epochs: plans drawn; deferred: change points moved to a write).
//
// Thread-safety: see dpct/scheduler.h (one execution at a time).
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_DPCT_PCT_SCHEDULER_H_
#define LINFAULT_DPCT_PCT_SCHEDULER_H_

#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "dpct/rng.h"
#include "dpct/scheduler.h"
#include "dpct/step_estimator.h"

namespace linfault::dpct {

struct PctOptions {
  std::uint64_t seed = 0;
  unsigned depth = 3;  // d >= 1
  // k when no estimator is given.
  std::uint64_t steps = 100;
  // Redraw the plan every this many completed operations (see above); 0: one plan per run.
  std::uint64_t epoch_operations = 0;
  // Write-biased change points: when a change point falls on a load of the running thread, with
  // this probability the preemption is deferred to that thread's next write-like access (store,
  // read-modify-write, lock), i.e. into the window between what it read and what it writes.
  double defer_to_write = 0;
};

class PctScheduler final : public Scheduler {
 public:
  // Plain PCT with the fixed k = options.steps.
  explicit PctScheduler(const PctOptions& options);
  // D-PCT: k comes from `estimator` (must not be null).
  PctScheduler(const PctOptions& options, std::unique_ptr<StepEstimator> estimator);

  void begin(const RunInfo& info) override;
  ThreadId choose(const SchedulingPoint& point, std::span<const ThreadId> enabled) override;
  void end(Schedule& schedule) override;
  void reseed(std::uint64_t seed) override { options_.seed = seed; }
  // The points of the last unfinished thread change no decision, unless the estimator follows
  // every point; with epochs, the plan in the schedule's parameters (cp, epochs) is then the one
  // drawn last while another thread was unfinished.
  bool sees_last_thread() const override { return revises_; }

  // The current run's plan, for tests and reports.
  std::uint64_t steps() const { return k_; }
  const std::vector<std::uint64_t>& change_points() const { return change_points_; }
  const std::vector<std::int64_t>& initial_priorities() const { return initial_priority_; }
  const std::vector<std::pair<std::uint64_t, std::uint64_t>>& revisions() const {
    return revisions_;
  }

 private:
  // Draws the change points that are still ahead among decisions first .. first + span - 1.
  void draw_pending_change_points(std::uint64_t first, std::uint64_t span);
  // k_E of the current epoch (k itself without epochs).
  std::uint64_t epoch_steps() const;
  // Fresh random priorities d+1 .. d+n.
  void draw_priorities();
  // Counts the operations completed at `point`; true when a new epoch starts here.
  bool epoch_ends(const SchedulingPoint& point);

  PctOptions options_;
  std::unique_ptr<StepEstimator> estimator_;
  bool revises_ = true;  // estimator_->revises(), asked once
  SplitMix64 rng_;
  std::uint64_t initial_k_ = 0;
  std::uint64_t k_ = 0;
  std::uint64_t decisions_ = 0;  // decisions made so far in this run
  std::int64_t next_lowest_ = 0;
  std::vector<std::int64_t> priority_;
  std::vector<std::int64_t> initial_priority_;
  std::vector<std::uint64_t> change_points_;  // [i] has priority i + 1; 0 = none
  std::vector<std::pair<std::uint64_t, std::uint64_t>> revisions_;
  // Epochs.
  std::uint64_t total_operations_ = 0;
  std::uint64_t operations_done_ = 0;
  std::uint64_t epoch_start_ = 0;  // operations_done_ when the current plan was drawn
  std::uint64_t epochs_ = 0;
  std::vector<std::size_t> op_index_;  // last operation index seen per thread
  // Which methods wrote: method_of_[t][i] indexes method_writes_ for call i of thread t.
  std::vector<std::vector<std::uint32_t>> method_of_;
  std::vector<bool> method_writes_;
  // Scratch kept between runs, so that a run allocates nothing once the first runs are done.
  std::vector<std::string_view> method_names_;  // method_writes_'s methods, during begin()
  std::vector<std::size_t> pending_;            // draw_pending_change_points' priorities
  // A deferred change point: its priority (0 = none) and the thread it waits on.
  std::int64_t deferred_priority_ = 0;
  ThreadId deferred_thread_ = kNoThread;
  std::uint64_t deferred_ = 0;  // change points deferred in this run
};

}  // namespace linfault::dpct

#endif  // LINFAULT_DPCT_PCT_SCHEDULER_H_
