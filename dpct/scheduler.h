// Scheduler: the strategy that picks which logical thread runs at each scheduling point of a
// controlled execution (dpct/executor.h).
//
// Scheduling points of the concurrent part (Pc) of a workload, in the order the executor asks:
//   - kStart: every thread has run up to its first shared access (that local prelude has no
//     visible effect) and waits there; the scheduler picks who goes first. `thread` is kNoThread.
//   - kAccess: `thread` is about to perform `access` (a load, store, RMW, lock, unlock, try_lock,
//     wait, notify or spin/yield hint). Returning another thread preempts it.
//   - kBlocked: `thread` tried to lock a mutex that is held and is now disabled until the holder
//     unlocks it, or waits (SharedMutex, RecursiveMutex, ConditionVariable::wait, Atomic::wait)
//     and is disabled until it can proceed; `access` is that lock or wait access.
//   - kFinished: `thread` has completed its last operation.
// `enabled` lists the threads that may run (sorted by id, never empty): the thread at the point
// is among them for kAccess only. The scheduler must return a member of `enabled`.
//
// choose() is called at EVERY scheduling point, so observers (step estimators, exhaustive
// search) see every access, unless the scheduler says it needs no point at which the running
// thread is the last unfinished one (sees_last_thread()): no decision can follow such a point, so
// the executor then skips the call; a 2 x 5 run spends about a third of its points there. A point
// with a single enabled thread has no choice to make; only points with at least two enabled threads
// are *decisions*: PCT counts only those as steps, and the executor records only those in the
// Schedule (dpct/schedule.h, docs/schedule-format.md).
//
// An operation's invocation event is recorded when its thread passes the operation's first
// scheduling point and its response right after its last access, with no scheduling point in
// between; see dpct/executor.h for why this loses no history.
//
// Lifecycle: begin() before each execution, choose() at each point, end() once the execution
// is over (also after a deadlock, livelock or crash), where the scheduler writes its name and
// parameters into the recorded schedule. With ExecutionOptions::describe_schedule off the executor
// does not call end(): the caller calls it itself, if at all, after the execution and before the
// next begin(), and its exceptions reach that caller. That is only for schedulers whose end()
// just describes the run: not the exhaustive explorer's (bookkeeping) nor a strict replay's (its
// divergence check). reseed() makes the next executions a pure function of the seed (run_many
// and detect's workers use it to run seed after seed on one scheduler object).
//
// Weak memory (dpct/memory_model.h): a scheduler whose memory_model() is kC11 makes the
// executor follow the C++20 model, and is asked at each load of the concurrent part that may
// read more than one store which of them it reads (choose_read, after the load's choose()). Those
// read decisions are recorded in the Schedule as the chosen stores' StoreIds. The others run
// sequentially consistent executions and are never asked.
//
// Exceptions thrown by choose(), or by end() when the executor calls it, abort the execution and
// propagate out of Executor::execute (the replay scheduler reports divergence this way).
//
// Thread-safety: a scheduler serves one execution at a time; give each worker its own.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_DPCT_SCHEDULER_H_
#define LINFAULT_DPCT_SCHEDULER_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>

#include "dpct/memory_model.h"
#include "dpct/shared.h"
#include "dpct/workload.h"

namespace linfault::dpct {

// A logical thread of the concurrent part: index i of Workload::threads.
using ThreadId = std::uint32_t;
inline constexpr ThreadId kNoThread = std::numeric_limits<ThreadId>::max();

enum class PointKind : std::uint8_t { kStart, kAccess, kBlocked, kFinished };
const char* point_kind_name(PointKind kind);

struct SchedulingPoint {
  PointKind kind = PointKind::kStart;
  ThreadId thread = kNoThread;  // the thread at the point; kNoThread for kStart
  Access access{AccessKind::kLoad, nullptr, SourceLocation()};  // kAccess and kBlocked only
  std::size_t op_index = 0;    // the operation of `thread` in progress (index in its call list)
  std::uint32_t op_step = 0;   // scheduling points that operation passed before this one
  std::uint64_t step = 0;      // index of this point among all points of the run
  std::uint64_t decision = 0;  // decisions (points with >= 2 enabled threads) before this one

  bool is_yield() const { return kind == PointKind::kAccess && access.kind == AccessKind::kYield; }
};

// A thread's next step as the executor knows it, for schedulers that reason about accesses
// (partial-order reduction, dpct/exhaustive.h).
struct PendingStep {
  // The access the thread performs when it is next scheduled: the one it waits at (at kStart,
  // after a preemption) or the lock or wait it is blocked on. nullptr once it has finished its
  // calls; a thread a crash or livelock cut short keeps its last access.
  const Access* access = nullptr;
  std::size_t op_index = 0;  // its operation (index in its call list)
  // Scheduling points that operation passed before: 0 means the access starts the operation, so
  // performing it records the operation's invocation.
  std::uint32_t op_step = 0;
};

// Read access to the threads of the execution in progress. Valid from begin() until end()
// returns when the executor calls end(), until the execution is over otherwise.
class RunView {
 public:
  virtual PendingStep pending(ThreadId thread) const = 0;

 protected:
  ~RunView() = default;
};

// What an execution is about to run, for begin().
struct RunInfo {
  std::size_t threads = 0;             // logical threads in the concurrent part
  const Workload* workload = nullptr;  // the calls each thread will make
  const RunView* view = nullptr;       // the threads' next steps while the run is in progress
};

// A load that may read more than one store (weak memory), for choose_read().
struct ReadPoint {
  ThreadId thread = kNoThread;
  const Access* access = nullptr;  // the load: a load, or a failed compare-exchange
  std::uint64_t read = 0;          // read decisions of this run before this one
  std::uint64_t decision = 0;      // thread decisions of this run before this one
};

struct Schedule;

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  virtual void begin(const RunInfo& info) = 0;
  virtual ThreadId choose(const SchedulingPoint& point, std::span<const ThreadId> enabled) = 0;
  // Writes the scheduler's name and this run's parameters into `schedule` (its decisions are
  // already there).
  virtual void end(Schedule& schedule) = 0;
  virtual void reseed(std::uint64_t /*seed*/) {}
  // Whether choose() must be called at points where every other thread has finished. Return
  // false only if such points change no later run: this run has no decision left there, and
  // what end() writes may then describe the plan as it stood at the last point asked (PCT's
  // `cp` and `epochs` with epochs).
  virtual bool sees_last_thread() const { return true; }
  // The memory model of this scheduler's executions (see above); asked once per run, before
  // begin().
  virtual MemoryModel memory_model() const { return MemoryModel::kSequential; }
  // Which of `candidates` (newest first, at least two) the load at `point` reads: an index into
  // `candidates`. Asked only when memory_model() is kC11.
  virtual std::size_t choose_read(const ReadPoint& /*point*/,
                                  std::span<const StoreId> /*candidates*/) {
    return 0;
  }
};

}  // namespace linfault::dpct

#endif  // LINFAULT_DPCT_SCHEDULER_H_
