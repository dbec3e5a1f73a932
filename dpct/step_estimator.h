// StepEstimator: how PCT learns k, the number of steps of a run, and revises it during the run.
//
// This is the D-PCT hook. PCT's guarantee (a depth-d bug is hit with probability at least
// 1/(n*k^(d-1))) needs k, the number of *decisions* of the run (scheduling points where at least
// two threads are enabled, see dpct/scheduler.h); an overestimate costs a factor (k_est/k)^(d-1),
// an underestimate leaves the last part of the run without change points.
//
// PctScheduler (dpct/pct_scheduler.h) calls:
//   - estimate(info) once in begin(): the k of the run about to start. The workload (which calls
//     each thread makes) is in `info.workload`; a structure-tree estimator sums SUM(op) over them
//     (docs/algorithms.md, section 4).
//   - revise(point, decisions_left) at EVERY scheduling point of the concurrent part, before the
//     decision is made, with the thread, its operation index, how many points that operation has
//     passed and the access location (dpct::SchedulingPoint). `decisions_left` is what PCT
//     currently assumes remains, counting this point if it is a decision. Return a new estimate
//     of the decisions still to come (including this one) to make PCT redraw its remaining change
//     points uniformly over that many steps, or std::nullopt to keep the plan. Return a revision
//     only when the run has gone beyond the assumption (a loop iterated more often, a longer
//     branch taken): every redraw is recorded in the schedule's parameters.
// Ps and Pr (Workload::setup/reveal) run sequentially and are not reported.
//
// Thread-safety: an estimator serves one PctScheduler (one execution at a time); it may keep
// per-run state, reset in estimate().
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_DPCT_STEP_ESTIMATOR_H_
#define LINFAULT_DPCT_STEP_ESTIMATOR_H_

#include <cstdint>
#include <optional>

#include "dpct/scheduler.h"

namespace linfault::dpct {

class StepEstimator {
 public:
  virtual ~StepEstimator() = default;
  virtual std::uint64_t estimate(const RunInfo& info) = 0;
  virtual std::optional<std::uint64_t> revise(const SchedulingPoint& /*point*/,
                                              std::uint64_t /*decisions_left*/) {
    return std::nullopt;
  }
  // False when revise() never revises (a fixed k): PCT then neither calls it nor needs the points
  // where every other thread has finished (Scheduler::sees_last_thread()).
  virtual bool revises() const { return true; }
};

// A fixed k, never revised: plain PCT.
class FixedSteps final : public StepEstimator {
 public:
  explicit FixedSteps(std::uint64_t steps) : steps_(steps) {}
  std::uint64_t estimate(const RunInfo&) override { return steps_; }
  bool revises() const override { return false; }

 private:
  std::uint64_t steps_;
};

}  // namespace linfault::dpct

#endif  // LINFAULT_DPCT_STEP_ESTIMATOR_H_
