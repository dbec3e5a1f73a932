// SurwScheduler: selectively uniform random walk (SURW; "Selectively Uniform Concurrency
// Testing", ASPLOS 2025).
//
// What we took from the paper: a random walk that draws thread t with probability proportional
// to the number of events t has left (URW) samples the interleavings of a run uniformly, where
// drawing uniformly among the enabled threads favours the interleavings in which the short
// threads finish early. The selective variant draws only at *interesting* events, so the walk
// is uniform over the interleavings of those events and every interleaving stays possible.
//
// Here: interesting events are the accesses other than loads and spin/yield hints (stores,
// read-modify-writes, lock, try_lock and unlock, wait and notify). One enabled thread is
// *designated*: drawn with weight r_t, its estimated remaining events. At each point the next
// thread is picked uniformly among the designated thread and every enabled thread whose next
// event is a load; so only the designated thread may perform an interesting event, and once it
// has, the next designated thread is drawn (also when it blocks or finishes first). The order
// of the interesting events is thus the sequence of draws (uniform with exact counts: URW over
// them), while loads interleave freely, so every interleaving stays possible (a read-read
// atomicity violation needs a write between two loads of another thread). With every event
// interesting this is URW exactly. A thread at a spin/yield hint waits for the others: it is
// neither designated nor picked while a thread that does not spin is enabled.
//
// Remaining events: each thread's events (scheduling points) are estimated in begin() and
// revised during the run, as D-PCT does for k. With a StepEstimator (the structure-tree one of
// D-PCT) thread t's estimate is estimator.estimate() of a run of two copies of t's calls; the
// tree estimator counts a run's decisions as its summed per-operation estimates minus the
// largest thread's share, which for two equal threads is exactly t's own sum. Without one, each
// operation is assumed to take SurwOptions::events_per_operation events. When a thread that has
// not finished reaches its estimate, the estimate is revised to what it has done plus its mean
// events per operation so far times the operations it has left (at least one more event).
// Deviation from the paper: the weights count all remaining events, not only interesting ones
// (the estimators count scheduling points; the two agree when every event is interesting).
//
// Schedule parameters: "surw seed=S n=N est=E0,E1,.. [epo=P] [rev=R]" (est: each thread's
// initial estimate; epo: the per-operation fallback when no estimator is used; rev: revisions).
// The run is a pure function of the seed and the workload.
//
// Thread-safety: see dpct/scheduler.h (one execution at a time).
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_DPCT_SURW_SCHEDULER_H_
#define LINFAULT_DPCT_SURW_SCHEDULER_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "dpct/rng.h"
#include "dpct/scheduler.h"
#include "dpct/step_estimator.h"

namespace linfault::dpct {

struct SurwOptions {
  std::uint64_t seed = 0;
  // Events per operation assumed when no estimator is given (>= 1).
  std::uint64_t events_per_operation = 8;
};

// Whether an access is one SURW draws at (see above).
bool is_interesting(AccessKind kind);

class SurwScheduler final : public Scheduler {
 public:
  explicit SurwScheduler(const SurwOptions& options);
  // Per-thread estimates from `estimator` (must not be null).
  SurwScheduler(const SurwOptions& options, std::unique_ptr<StepEstimator> estimator);

  void begin(const RunInfo& info) override;
  ThreadId choose(const SchedulingPoint& point, std::span<const ThreadId> enabled) override;
  void end(Schedule& schedule) override;
  void reseed(std::uint64_t seed) override { options_.seed = seed; }

  // This run's state, for tests and reports.
  const std::vector<std::uint64_t>& initial_estimates() const { return initial_estimate_; }
  std::uint64_t draws() const { return draws_; }
  std::uint64_t revisions() const { return revisions_; }

 private:
  std::uint64_t remaining(ThreadId t) const;
  // Revises t's estimate when it has run out while t still has events.
  void revise(ThreadId t);
  // A thread drawn with probability proportional to its remaining events.
  ThreadId draw(std::span<const ThreadId> enabled);
  bool pending_is_interesting(const SchedulingPoint& point, ThreadId t) const;
  // Whether t's next step is a spin/yield hint.
  bool spinning(const SchedulingPoint& point, ThreadId t) const;

  SurwOptions options_;
  std::unique_ptr<StepEstimator> estimator_;
  SplitMix64 rng_;
  const RunView* view_ = nullptr;
  std::vector<std::uint64_t> operations_;  // calls per thread
  std::vector<std::uint64_t> estimate_;    // events per thread, revised
  std::vector<std::uint64_t> initial_estimate_;
  std::vector<std::uint64_t> done_;    // events each thread performed
  std::vector<std::size_t> op_index_;  // operation in progress per thread
  // The thread whose next interesting event is the next one of the run; kNoThread: draw.
  ThreadId designated_ = kNoThread;
  std::vector<ThreadId> active_;      // scratch space of choose(): enabled, not spinning
  std::vector<ThreadId> candidates_;  // scratch space of choose(): may run now
  // begin()'s scratch: one thread's calls twice, whose estimate is that thread's (in the
  // estimator's unit); kept so that each run copies the calls into the same buffers.
  Workload twins_;
  std::uint64_t draws_ = 0;
  std::uint64_t revisions_ = 0;
};

}  // namespace linfault::dpct

#endif  // LINFAULT_DPCT_SURW_SCHEDULER_H_
