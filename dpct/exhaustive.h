// Exhaustive exploration: every schedule of a (tiny) workload, optionally bounded by the number
// of preemptions, by depth-first search that re-executes the workload from scratch per schedule.
//
// Used to verify minimal test cases: "no schedule of this Pc with at most P preemptions yields a
// non-linearizable history" is exact when the result says `exhausted`.
//
// Schedules are the decision sequences of dpct/scheduler.h: one choice at every scheduling point
// where at least two threads are enabled. A preemption is a decision that switches away from a
// thread that could have continued (it is enabled at its own access point), except at a
// spin/yield hint; switching after a thread finished or blocked, and the choice of the first
// thread, are free. Alternatives are tried "keep running" first, then by thread id, so the first
// execution is the round-robin-free one (each thread to completion in turn).
// Example: two threads of one operation with two accesses each have C(4,2) = 6 schedules: 2 with
// no preemption, 4 with at most one, 6 with at most two.
//
// The workload must be deterministic (same decisions => same run); a replayed prefix that sees a
// different set of enabled threads is reported with std::runtime_error.
//
// Thread-safety: uses the given Executor (one exploration at a time per Executor).
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_DPCT_EXHAUSTIVE_H_
#define LINFAULT_DPCT_EXHAUSTIVE_H_

#include <array>
#include <cstdint>
#include <functional>
#include <optional>

#include "dpct/executor.h"

namespace linfault::dpct {

struct ExhaustiveOptions {
  std::optional<unsigned> max_preemptions;  // nullopt: every schedule
  std::uint64_t max_executions = 0;         // 0: no limit
  ExecutionOptions execution;
};

struct ExhaustiveResult {
  std::uint64_t executions = 0;
  // Every schedule within the preemption bound was executed (false when stopped early by the
  // predicate or by max_executions with schedules left).
  bool exhausted = false;
  std::optional<Run> found;                 // the run on which the stop predicate returned true
  std::array<std::uint64_t, 4> outcomes{};  // executions per RunOutcome
};

// Runs schedules until all are done or `stop` (if given) returns true for a run.
// The schedule of each run reads "exhaustive run=I preemptions=P bound=B|none".
ExhaustiveResult explore_exhaustively(Executor& executor, const ObjectFactory& factory,
                                      const Workload& workload, const ExhaustiveOptions& options,
                                      const std::function<bool(const Run&)>& stop = nullptr);

}  // namespace linfault::dpct

#endif  // LINFAULT_DPCT_EXHAUSTIVE_H_
