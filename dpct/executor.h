// Executor: runs a workload on an object under test in controlled mode, one logical thread at a
// time, with a Scheduler choosing the interleaving, and records what happened.
//
// An execution:
//   1. builds a fresh object with the factory;
//   2. runs Workload::setup (Ps) sequentially, then the concurrent part (Pc: threads[i] on
//      logical thread i, each a fiber), then Workload::reveal (Pr) sequentially once every
//      thread has finished;
//   3. returns a Run: the History, the Schedule, the outcome and (optionally) an access trace.
// Process ids in the History: Pc thread i is process i; Ps and Pr calls are on process 0 (they
// run before/after everything else, so sharing thread 0's id never creates overlap).
//
// Scheduling points (dpct/scheduler.h) are the instrumented accesses of dpct/shared.h. Before
// the first decision every thread runs its local prelude up to its first access; an operation's
// invocation event is recorded when its thread passes that operation's first access, and its
// response right after the operation returns. Delaying an invocation up to the first shared
// access, and emitting a response right after the last, gives the most constrained history
// consistent with what the threads observed, so no violation is lost and no point is wasted on
// operation boundaries. An operation with no shared access is atomic.
//
// Blocking: a thread that waits for a lock (Mutex, SharedMutex, RecursiveMutex), for a notify
// (ConditionVariable::wait, Atomic/AtomicFlag::wait: "wait on address", woken by notify_one or
// notify_all on the same object) is disabled, not spinning, until it can proceed; its blocking is
// a kBlocked scheduling point. notify_one offers its wake-up to every thread waiting at that
// moment and the first of them to be scheduled takes it, so which waiter wakes is a schedule
// choice. There are no spurious wake-ups.
//
// Outcomes: kOk; kDeadlock when every unfinished thread is blocked on a lock or a wait (or a Ps/Pr
// call waits for a lock left locked or for a notify); kLivelock when the run passes
// ExecutionOptions::max_steps scheduling points (or a Ps/Pr call that many accesses) — a livelock
// or non-termination turned into a report, never a hang, provided the object keeps making
// instrumented accesses; kCrash when an operation throws, or the object's code faults (a signal
// such as SIGSEGV, or std::terminate: see Faults below); Run::message says which. A cut-short
// run's unfinished operations stay pending in the History, and Pr is skipped. When the run is
// aborted, suspended threads are unwound (their destructors run; their accesses no longer switch
// threads).
//
// Faults: while an execution runs the object's code (its constructor, Ps, Pc, Pr, its
// destructor), a SIGSEGV, SIGBUS, SIGFPE, SIGILL or SIGABRT on the executor's OS thread, or
// std::terminate, ends the run as kCrash naming the signal and the call, instead of ending the
// process; code that makes no scheduling point for the stall limit (dpct/watchdog.h) ends it as
// kLivelock. The faulting code is abandoned, never resumed or unwound: a logical thread's fiber
// is left (the other threads are unwound as in any cut-short run), code on the caller's stack is
// left by siglongjmp, and the object is then leaked, not destroyed. A run that is being stopped
// and whose unwinding reaches a noexcept frame (a spin lock's noexcept lock()) is left the same
// way, and keeps the outcome it had. The executor installs handlers for these signals and for
// std::terminate once per process; outside its runs they defer to what was installed before.
// Recovery is in-process: memory the abandoned code allocated is leaked, and an object that
// corrupted the heap may still bring the process down later.
//
// Object names (ExecutionOptions::record_trace): TraceStep::read/written show a pointer to an
// object as "<type>#<k>" (dpct::render_value): <type> the pointee's short lower-case name
// ("stack_node", "box"; "obj" for void*), k counting the distinct objects of that type in the
// order their pointers are first rendered in the execution, Ps, Pc and Pr together, from 1. So
// "node#2" is the second node the run touched, and two executions of one schedule, in one
// process or in two, print the same names, whatever addresses the allocator hands out. An address
// keeps its first name for the whole execution (memory freed and reused within a run, as the
// targets' arenas never do, would show the reuse under the old name). Names cost nothing when
// the trace is off.
//
// Errors of the scheduler itself (ScheduleDivergence from a strict replay, a scheduler choosing
// a thread that is not enabled) abort the run and are rethrown by execute().
//
// Fibers: Boost.Context fibers on stacks the Executor owns and reuses (guard page below each).
// A switch costs a few nanoseconds and happens only when the scheduler picks another thread.
// The fibers are annotated for AddressSanitizer and ThreadSanitizer when those are enabled.
//
// Thread-safety: an Executor runs one execution at a time on the calling OS thread (it installs
// itself as that thread's ExecutionContext during execute()). Use one Executor per worker.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_DPCT_EXECUTOR_H_
#define LINFAULT_DPCT_EXECUTOR_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dpct/memory_model.h"
#include "dpct/schedule.h"
#include "dpct/scheduler.h"
#include "dpct/shared.h"
#include "dpct/workload.h"
#include "history/history.h"

namespace linfault::dpct {

enum class RunOutcome : std::uint8_t { kOk, kDeadlock, kLivelock, kCrash };
const char* run_outcome_name(RunOutcome outcome);  // "ok", "deadlock", "livelock", "crash"
// A deadlocked run: its pending operations can never finish (a stuck history,
// detect::CheckOptions::stuck). A livelock is not one: the run passed the step cap, which a
// scheduler that starves a thread (PCT's strict priorities) can cause although every pending
// operation could still finish; livelocks stay failures of their own kind.
inline bool ended_stuck(RunOutcome outcome) { return outcome == RunOutcome::kDeadlock; }

enum class Phase : std::uint8_t { kSetup, kConcurrent, kReveal };
const char* phase_name(Phase phase);  // "setup", "concurrent", "reveal"

struct ExecutionOptions {
  bool record_history = true;
  // Record where each decision was taken (Schedule::points) so replays detect divergence.
  bool record_points = true;
  // Record every access with the values read and written (Run::trace).
  bool record_trace = false;
  // Scheduling points in the concurrent part (and accesses per call of a sequential part) before
  // the run is stopped as a livelock.
  std::uint64_t max_steps = 1'000'000;
  std::string origin = "dpct";  // History::origin()
  // The seed of the history this run is (detect's), which the stall watchdog names
  // (dpct/watchdog.h) if the run stalls; none for runs that are not a campaign's history.
  std::optional<std::uint64_t> history_seed = std::nullopt;
  // Weak memory (memory model c11): the return of each operation of the concurrent part
  // synchronizes with the start (its first access) of every operation that starts after it, as
  // a client that orders its threads' calls would (a flag, a mutex, a join). Execution order
  // between operations that do not overlap is then happens-before, so checking linearizability
  // against it reports only what such a client can observe; operations that overlap stay
  // unordered. Off (litmus programs, which are no objects), only the object's own accesses
  // synchronize.
  bool synchronize_operations = true;
  // Weak memory: record the run's memory events and check them against the C++20 axioms
  // (dpct/execution_graph.h), independently of the model that produced them; a violation goes to
  // Run::memory_model_violation. For tests and benchmarks of linfault itself: it costs about as
  // much as the run.
  bool check_memory_model = false;
  // Have the scheduler write its name and parameters into Run::schedule (Scheduler::end). A
  // caller that keeps few of its runs turns it off and calls scheduler.end(run.schedule) itself
  // for those it keeps, before the scheduler's next begin(): formatting the parameters of every
  // run costs about a twentieth of a small run.
  bool describe_schedule = true;
};

// One executed access (ExecutionOptions::record_trace), in execution order.
struct TraceStep {
  Phase phase = Phase::kConcurrent;
  ThreadId thread = 0;       // logical thread; 0 for Ps and Pr
  std::size_t op_index = 0;  // index of the call in its list (setup, threads[thread], reveal)
  AccessKind kind = AccessKind::kLoad;
  // The memory order the access was called with (Access::order): a sequentially consistent run
  // records it only; a C++20-model run follows it. For a compare-exchange, `order` is the success
  // order and `failure_order` the order of a failed one.
  std::memory_order order = std::memory_order_seq_cst;
  std::memory_order failure_order = std::memory_order_seq_cst;
  std::string file;  // base name
  std::uint32_t line = 0;
  // Values as text (dpct::render_value): "3", "true", "null", "node#2" (see Object names).
  std::string read;     // value read (loads, RMWs); empty when not applicable
  std::string written;  // value written (stores, RMWs)
  bool success = true;  // false for a failed compare-exchange or try_lock
  // Weak memory (memory model c11), for loads of the concurrent part: the store the load read,
  // and how many newer stores of the location it did not see (0: it read the newest).
  std::optional<StoreId> read_from;
  std::uint32_t newer_stores = 0;
  // For a load that read an older store: which store it read and which newer one it did not see,
  // by their steps ("the store of step 7 (T0, ring.cc:21, relaxed); the newer store of step 12
  // (T1, ring.cc:23, relaxed) was not visible"); empty otherwise.
  std::string stale;
};

struct Run {
  history::History history;  // empty unless ExecutionOptions::record_history
  Schedule schedule;
  RunOutcome outcome = RunOutcome::kOk;
  std::string message;      // what went wrong, for every outcome but kOk
  std::uint64_t steps = 0;  // scheduling points of the concurrent part
  // Scheduling points at shared accesses (loads, stores, locks, ...) of the concurrent part. 0
  // means its calls ran without one: nothing could be interleaved (uninstrumented shared state).
  std::uint64_t access_points = 0;
  // Weak memory: the read decisions that read an older store than the newest.
  std::uint64_t stale_reads = 0;
  // ExecutionOptions::check_memory_model: the axiom the run's memory events break (a bug in
  // linfault's model), empty when none or unchecked.
  std::string memory_model_violation;
  std::vector<TraceStep> trace;
};

class Executor {
 public:
  // Each logical thread's stack. Reserved, not committed: only the pages a thread touches cost
  // memory, so it is large enough for what real code puts on a stack (a thread that overflows it
  // ends its run as a crash).
  static constexpr std::size_t kDefaultStackBytes = 1024 * 1024;

  explicit Executor(std::size_t stack_bytes = kDefaultStackBytes);
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Throws what the scheduler throws (e.g. ScheduleDivergence), and std::invalid_argument when
  // the factory returns no object. A workload with no concurrent threads is fine (Ps and Pr run).
  Run execute(const ObjectFactory& factory, const Workload& workload, Scheduler& scheduler,
              const ExecutionOptions& options = {});
  // The access sites ("file.cc:12", sorted) whose memory order was weaker than seq_cst in any
  // execution of this executor so far (a compare-exchange's failure order included). Controlled
  // execution is sequentially consistent, so what such orders allow was not explored there.
  std::vector<std::string> weak_order_sites() const;
  // Gives back a run no longer needed: the next execute() records into its buffers (history,
  // decisions, points) instead of allocating new ones. Optional; for callers running many.
  void recycle(Run&& spent);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// One execution on a temporary Executor (convenient; reuse an Executor for many runs).
Run execute(const ObjectFactory& factory, const Workload& workload, Scheduler& scheduler,
            const ExecutionOptions& options = {});

}  // namespace linfault::dpct

#endif  // LINFAULT_DPCT_EXECUTOR_H_
