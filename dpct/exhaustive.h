// Exhaustive exploration: every schedule of a (tiny) workload up to equivalence, optionally
// bounded by the number of preemptions, by depth-first search that re-executes the workload from
// scratch per schedule.
//
// Used to verify minimal test cases and for bounded verification: "no schedule of this Pc (with
// at most P preemptions) yields a non-linearizable history" is exact when the result says
// `exhausted`.
//
// Schedules are the decision sequences of dpct/scheduler.h: one choice at every scheduling point
// where at least two threads are enabled. A preemption is a decision that switches away from a
// thread that could have continued (it is enabled at its own access point), except at a
// spin/yield hint; switching after a thread finished, blocked or spun, and the choice of the
// first thread, are free. Alternatives are tried "keep running" first, then by thread id, so the
// first execution is the round-robin-free one (each thread to completion in turn).
// Example: two threads of one operation with two accesses each have C(4,2) = 6 schedules: 2 with
// no preemption, 4 with at most one, 6 with at most two.
//
// Partial-order reduction (ExhaustiveOptions::reduce, on by default, ignored under a preemption
// bound): dynamic partial-order reduction (Flanagan and Godefroid's backtrack sets, computed from
// the races of each executed run with vector clocks) with sleep sets. Two steps of different
// threads commute unless they access the same location and one of them writes (two loads of one
// location commute), one is a wait or notify, one is a spin hint and the other writes, or one
// starts an operation and the other ends one (their order is the history's real-time order).
// The search then runs one execution per class of equivalent interleavings (Mazurkiewicz trace),
// plus runs cut short when every continuation is equivalent to one already run (sleep-set
// blocked; counted in `redundant`, never checked). Every history that full enumeration produces
// is produced, provided the object's data outside the instrumented locations (dpct/shared.h) is
// free of data races: a plain field written before an instrumented store publishes it and read
// after an instrumented load finds it is fine.
//
// Fair spinning: a thread at a spin hint (spin_hint, an instrumented yield) is held back when
// its spin iteration (its accesses since its previous hint) was a whole turn of one loop (that
// hint was at the same place in the same operation), read something, wrote nothing, and nobody
// wrote what it read since it read it: the next turn would read the same values and spin again.
// A write by another thread to one of those locations (or any wait or notify) releases it, and
// when every enabled thread is held they are all released. So a correct spin-waiting object (a
// ticket lock, a seqlock reader) terminates under every schedule explored, while a thread
// spinning on a condition that no other thread will change still runs into
// ExecutionOptions::max_steps and is reported as a livelock. Assumption: a loop turn that reads
// the same shared values does the same thing; code that spins a bounded number of times and then
// takes another path (a local counter) takes it only once no other thread can run. Failed
// compare-exchanges and try_locks count as writes, so waiters that spin on them are never held
// (more schedules, and possibly a livelock reported where two such waiters starve the holder).
//
// The workload must be deterministic (same decisions => same run); a replayed prefix that sees a
// different set of enabled threads is reported with std::runtime_error. At most 64 threads
// (std::invalid_argument otherwise).
//
// Thread-safety: uses the given Executor (one exploration at a time per Executor).
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_DPCT_EXHAUSTIVE_H_
#define LINFAULT_DPCT_EXHAUSTIVE_H_

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>

#include "dpct/executor.h"

namespace linfault::dpct {

struct ExhaustiveOptions {
  std::optional<unsigned> max_preemptions;  // nullopt: every schedule
  std::uint64_t max_executions = 0;         // 0: no limit (redundant runs count too)
  bool reduce = true;  // partial-order reduction; full enumeration under a preemption bound
  // kC11: every read decision of every interleaving too (dpct/memory_model.h). The
  // partial-order reduction does not cover read decisions yet: under c11 every interleaving is
  // enumerated (ExhaustiveResult::reduced says so).
  MemoryModel memory_model = MemoryModel::kSequential;
  // Stop (not exhausted) once this time has passed, checked after every run.
  std::optional<std::chrono::steady_clock::time_point> deadline;
  ExecutionOptions execution;
};

struct ExhaustiveResult {
  std::uint64_t executions = 0;  // complete runs, each given to the predicate
  std::uint64_t redundant = 0;   // runs cut short by the reduction (sleep-set blocked)
  bool reduced = false;          // the partial-order reduction was applied
  // Every schedule within the preemption bound was executed or shown equivalent to one that was
  // (false when stopped early by the predicate or by max_executions with schedules left).
  bool exhausted = false;
  bool timed_out = false;                   // stopped by ExhaustiveOptions::deadline
  std::optional<Run> found;                 // the run on which the stop predicate returned true
  std::array<std::uint64_t, 4> outcomes{};  // complete runs per RunOutcome
};

// Runs schedules until all are done or `stop` (if given) returns true for a run.
// The schedule of each run reads "exhaustive run=I preemptions=P bound=B|none".
ExhaustiveResult explore_exhaustively(Executor& executor, const ObjectFactory& factory,
                                      const Workload& workload, const ExhaustiveOptions& options,
                                      const std::function<bool(const Run&)>& stop = nullptr);

}  // namespace linfault::dpct

#endif  // LINFAULT_DPCT_EXHAUSTIVE_H_
