// Target-level minimization: from a failing run of a concurrent object to the smallest test case
// (Ps, Pc, Pr) that still fails when re-executed on the object (Algorithm 1 of
// docs/algorithms.md and beyond; docs/minimization.md explains the stages).
//
// Unlike history-level minimization (history_minimizer.h), every candidate here is *executed*:
// the object runs Ps sequentially, Pc concurrently under dpct, then Pr, and the history is
// checked against the target's model. A candidate is buggy when some schedule of Pc gives a
// non-linearizable history (or the failing outcome of the original run: deadlock, livelock,
// crash). CHECK tries, in order and stopping at the first failure:
//   1. the reference schedule (at first the schedule recorded in detection) projected onto the
//      threads that remain, replayed leniently;
//   2. `sampled_schedules` fresh schedules (D-PCT when a step estimator is given, PCT otherwise,
//      alternating with a random walk);
//   3. an exhaustive enumeration of Pc's interleavings when Pc is small (at most
//      `exhaustive_executions` executions; unbounded first, then within `preemption_bound`
//      preemptions).
// So "not buggy" is exact when step 3 exhausted its space, and sampled otherwise.
// Every search is bounded by counts, never by the clock: executions, and work (the runs'
// scheduling points plus a fixed amount per recorded operation), which bounds the searches on
// objects whose runs are long. So one failing run gives the same test case and the same counts on
// every machine and build; only the whole minimization's time limit (`timeout_seconds`) depends
// on the clock, and `cut_by_time` says how often it cut a search.
//
// Stages (each keeps a candidate only if CHECK finds it buggy):
//   a. localize the failing history: shortest non-linearizable prefix H_p(b), OpOrder witnesses;
//   b. choose Ps: for each witness w (largest first), Ps := the model's shortest build of the
//      abstract state w leaves (spec/model.h build()), Pc := the other operations of H_p(b) on
//      their threads; fall back to the operations of H_p(b) as they ran;
//   c. shrink Pc to 1-minimality: ddmin over Pc's operations, shapes with a one-operation thread
//      first (heuristic H), plus Lincheck's moves (first op of a thread into Ps, last into Pr);
//   d. shrink Ps (rebuild its state by build(), then drop calls) and Pr (drop calls); when a
//      candidate with no Pr is not buggy, try a Pr made by the model's reveal();
//   e. verify the result: find a failing schedule exhaustively if possible, and for each one-op
//      removal from Pc enumerate its interleavings; the guarantee says what was exhaustive.
// The returned test case carries the failing schedule (strict-replayable), the observed results
// and the violation, so `linfault replay` and the emitted GoogleTest reproduce it exactly.
//
// Thread-safety: a pure function of its arguments (it runs on the calling thread with its own
// executor); several minimizations may run concurrently.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_MINIMIZE_TARGET_MINIMIZER_H_
#define LINFAULT_MINIMIZE_TARGET_MINIMIZER_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "detect/driver.h"
#include "detect/saved_run.h"
#include "detect/verdict.h"
#include "dpct/executor.h"
#include "dpct/schedule.h"
#include "dpct/workload.h"
#include "history/history.h"
#include "minimize/test_case.h"
#include "targets/registry.h"

namespace linfault::minimize {

struct TargetMinimizerOptions {
  detect::CheckOptions check;             // limits for each linearizability check
  double timeout_seconds = 120;           // the whole minimization; past it the best so far is kept
  std::uint64_t sampled_schedules = 400;  // sigma: fresh schedules per CHECK after the replay
  std::uint64_t exhaustive_executions = 100'000;  // budget of one exhaustive enumeration
  unsigned preemption_bound = 3;     // used when the unbounded enumeration does not finish
  std::uint64_t max_steps = 20'000;  // executor's livelock cap per run
  std::uint64_t seed = 1;
  // The memory model of every run (dpct/memory_model.h): the failing run's own when it has a
  // schedule, else this, else the target's. Under c11 the sampled schedules draw read decisions
  // (dpct::WeakReadScheduler), the enumerations enumerate them, and the final schedule is shrunk
  // to the fewest stale reads.
  std::optional<dpct::MemoryModel> memory_model;
  // Makes a D-PCT step estimator for one run (structure_tree/dpct_estimator.h); empty: PCT with
  // k taken from the candidate's first runs.
  detect::StepEstimatorFactory step_estimator;
  // Called with a one-line description of each stage as it starts (progress on a terminal).
  std::function<void(const std::string&)> progress;
};

// What the final verification established.
struct MinimalityProof {
  // A failing schedule of the final test case was found by exhaustive enumeration (else by
  // replay or sampling; it is a real failing run either way).
  bool failing_schedule_exhaustive = false;
  // Every one-operation removal from Pc was enumerated completely without a failure.
  bool minimal_exhaustive = false;
  // The bound under which the enumerations above were complete; nullopt: all interleavings.
  std::optional<unsigned> preemption_bound;
  // The reported schedule is the simplest failing one: every schedule with fewer preemptions,
  // and every one with as many and fewer context switches, was enumerated and passes.
  bool simplest_schedule = false;
  // Preemptions and context switches of the reported schedule, when found by enumeration.
  std::optional<unsigned> schedule_preemptions;
  std::size_t schedule_context_switches = 0;
  std::uint64_t executions = 0;  // executions spent on verification
  // Removals from Pc whose enumeration did not finish (checked by sampling only).
  std::size_t removals_sampled_only = 0;
};

struct TargetMinimization {
  TestCase test_case;       // target, model, Ps/Pc/Pr with observed results, schedule, guarantee
  dpct::Workload workload;  // the test case's calls (Pc thread i = process i)
  dpct::Run failing_run;    // the failing execution of the test case, with its access trace
  detect::Verdict verdict;  // of failing_run.history (kViolation unless the failure is an outcome)
  MinimalityProof proof;
  std::size_t original_operations = 0;  // operations of the input history
  std::size_t prefix_events = 0;        // |H_p(b)| of the input history
  std::size_t candidates = 0;           // candidates CHECKed
  std::uint64_t executions = 0;         // executions in all
  double localize_ms = 0;               // stage a
  double elapsed_ms = 0;                // all stages
  bool timed_out = false;
  // Searches the time limit cut short (`timeout_seconds`, or a third of it for the other
  // starting points). 0: nothing in the result depended on the machine's speed, and every
  // machine reports the same test case and counts.
  std::uint64_t cut_by_time = 0;
  std::vector<std::string> log;  // one line per stage: what it tried and kept
};

// The failing run did not fail again when re-executed (its schedule replayed, sampled schedules,
// a bounded enumeration): the object may not be deterministic under a replayed schedule. what()
// says both, as one clause for a message.
class FailureNotReproduced : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Minimizes a failing run saved by `linfault detect` (a violation, or a deadlock / livelock /
// crash outcome), re-executing with the run's own step cap (SavedScheduling::max_steps, when it has
// one) instead of options.max_steps: a livelock, or an operation that needs more steps than the
// default, means what it meant in the run. Throws FailureNotReproduced when the run does not
// fail on replay, std::invalid_argument when `target` is not the run's target.
TargetMinimization minimize_saved_run(const targets::Target& target, const detect::SavedRun& run,
                                      const TargetMinimizerOptions& options);

// Minimizes a non-linearizable history recorded from `target` some other way (no saved workload;
// the calls are read from the history, one thread per process; `schedule`, if any, is replayed
// first). Throws std::invalid_argument when the history is linearizable or its calls are not the
// target's.
TargetMinimization minimize_history_on_target(const targets::Target& target,
                                              const history::History& history,
                                              const std::optional<dpct::Schedule>& schedule,
                                              const TargetMinimizerOptions& options);

// The one-line guarantee of a minimization, as put in TestCase::guarantee.
std::string describe_guarantee(const TargetMinimization& minimization);

}  // namespace linfault::minimize

#endif  // LINFAULT_MINIMIZE_TARGET_MINIMIZER_H_
