#include "dpct/executor.h"

#include <algorithm>
#include <array>
#include <csetjmp>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <cxxabi.h>
#include <pthread.h>
#include <unistd.h>
#include <boost/context/fiber.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>

#if defined(__SANITIZE_ADDRESS__)
#define LINFAULT_FIBER_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__)
#define LINFAULT_FIBER_TSAN 1
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer) && !defined(LINFAULT_FIBER_ASAN)
#define LINFAULT_FIBER_ASAN 1
#endif
#if __has_feature(thread_sanitizer) && !defined(LINFAULT_FIBER_TSAN)
#define LINFAULT_FIBER_TSAN 1
#endif
#endif
#if defined(LINFAULT_FIBER_ASAN)
#include <sanitizer/asan_interface.h>
#include <sanitizer/lsan_interface.h>
#endif
#if defined(LINFAULT_FIBER_TSAN)
#include <sanitizer/tsan_interface.h>
#endif

#include "dpct/execution_graph.h"
#include "dpct/fork_server.h"
#include "dpct/watchdog.h"
#include "dpct/weak_memory.h"
#include "history/value.h"

namespace linfault::dpct {

namespace ctx = boost::context;

const char* run_outcome_name(RunOutcome outcome) {
  switch (outcome) {
    case RunOutcome::kOk:
      return "ok";
    case RunOutcome::kDeadlock:
      return "deadlock";
    case RunOutcome::kLivelock:
      return "livelock";
    case RunOutcome::kCrash:
      return "crash";
  }
  return "?";
}

const char* phase_name(Phase phase) {
  switch (phase) {
    case Phase::kSetup:
      return "setup";
    case Phase::kConcurrent:
      return "concurrent";
    case Phase::kReveal:
      return "reveal";
  }
  return "?";
}

const char* point_kind_name(PointKind kind) {
  switch (kind) {
    case PointKind::kStart:
      return "start";
    case PointKind::kAccess:
      return "access";
    case PointKind::kBlocked:
      return "blocked";
    case PointKind::kFinished:
      return "finished";
  }
  return "?";
}

namespace {

// Thrown into a logical thread (or a Ps/Pr call) to unwind it when the run is cut short.
struct AbortRun {};

void ensure_alternate_signal_stack();

// An object leaked on purpose (see Faults in executor.h), which LeakSanitizer need not report.
void ignore_leak(const void* object) {
#if defined(LINFAULT_FIBER_ASAN)
  if (object != nullptr) __lsan_ignore_object(object);
#else
  (void)object;
#endif
}

// Clears AddressSanitizer's marks on stack memory whose frames were left without returning.
void unpoison(const void* begin, std::size_t bytes) {
#if defined(LINFAULT_FIBER_ASAN)
  __asan_unpoison_memory_region(begin, bytes);
#else
  (void)begin;
  (void)bytes;
#endif
}

// Hands a fiber one of the Executor's stacks; the Executor frees them.
struct BorrowedStack {
  ctx::stack_context stack;
  ctx::stack_context allocate() { return stack; }
  void deallocate(ctx::stack_context&) noexcept {}
};

std::string location(const SourceLocation& where) {
  return std::string(base_name(where.file_name())) + ":" + std::to_string(where.line());
}

}  // namespace

class Executor::Impl final : public ExecutionContext, public RunView {
 public:
  explicit Impl(std::size_t stack_bytes) : allocator_(stack_bytes) {
    install_fault_handlers();
    progress_.interruptible.store(true, std::memory_order_relaxed);
    watch(&progress_);
  }
  ~Impl() override {
    unwatch(&progress_);
    for (ctx::stack_context& stack : stacks_) allocator_.deallocate(stack);
  }

  Run execute(const ObjectFactory& factory, const Workload& workload, Scheduler& scheduler,
              const ExecutionOptions& options);
  void recycle(Run&& spent) { spare_ = std::move(spent); }
  std::vector<std::string> weak_order_sites() const;

  // The object's constructor and destructor run natively (their locks and waits are the std
  // ones) under this observer context, which counts their accesses: a destructor that passes
  // its cap (a walk around a cycle of a corrupted structure) is abandoned at once, as the
  // watchdog abandons a stall after the stall limit. The cap grows with what the constructor
  // built (a pool it preallocated) and with the calls of the workload.
  class NativeWatch final : public ExecutionContext {
   public:
    NativeWatch(Impl& executor, bool destructor)
        : ExecutionContext(/*observer=*/true), executor_(executor), destructor_(destructor) {}
    void before_access(const Access& access) override {
      if (destructor_) {
        executor_.destructor_point(access);
      } else {
        ++executor_.constructor_steps_;
      }
    }
    // Never called: an observer's thread locks natively (shared.h checks observer()).
    void lock(const void*, bool&, const SourceLocation&) override { std::abort(); }
    bool try_lock(const void*, bool&, const SourceLocation&) override { std::abort(); }
    void unlock(const void*, bool&, const SourceLocation&) override { std::abort(); }

   private:
    Impl& executor_;
    bool destructor_;
  };
  void destructor_point(const Access& access);

  void before_access(const Access& access) override;
  bool want_values() const override { return options_->record_trace; }
  void after_access(const Access& access, const std::string& read, const std::string& written,
                    bool success) override;
  void lock(const void* mutex, bool& held, const SourceLocation& where) override;
  bool try_lock(const void* mutex, bool& held, const SourceLocation& where) override;
  void unlock(const void* mutex, bool& held, const SourceLocation& where) override;
  void block_until(const Access& access, const std::function<bool()>& ready) override;
  std::uint64_t enqueue_waiter(const void* address) override;
  void await_notify(const Access& access, std::uint64_t ticket) override;
  void notify(const void* address, bool all) override;
  bool notified(std::uint64_t ticket) override;
  void cancel_waiter(std::uint64_t ticket) override;
  std::uint64_t logical_thread() const override;
  void weak_load(const Access& access, std::size_t size, const void* current, void* out,
                 const void* expected) override;
  void weak_store(const Access& access, std::size_t size, const void* before,
                  const void* written) override;
  void weak_read_modify_write(const Access& access, std::size_t size, const void* before,
                              const void* written) override;
  void weak_construct(const void* address) override;
  // The trace step of each store (record_trace), for the reports of stale reads.
  void note_store(const void* address);
  std::string describe_store(const void* address, const StoreId& id) const;
  std::map<std::pair<const void*, StoreId>, std::size_t> store_steps_;
  // Weak memory, with the history: where each operation (in invocation order) was called and
  // returned in the run's memory events, for its happens-before clocks (history::
  // OperationClock) and the check of synchronisation requirements.
  struct OperationPoints {
    ClockPoint call, at_return;
    bool returned = false;
  };
  std::vector<OperationPoints> op_points_;
  void note_call(ThreadId thread, std::size_t started_at_event);
  void note_return(history::OpIndex op, ThreadId thread);
  std::vector<history::OperationClock> operation_clocks() const;
  void fence(std::memory_order order, const SourceLocation& where) override;
  void synchronize(const void* object, bool acquire) override;
  PendingStep pending(ThreadId thread) const override;
  std::string object_name(const void* address, const std::string& type) override;

 private:
  // kBlocked: waits for a Mutex (woken by its unlock); kWaiting: enabled when *ready holds.
  enum class Status : std::uint8_t { kRunnable, kBlocked, kWaiting, kFinished };
  struct Thread {
    const std::vector<history::Call>* calls = nullptr;
    std::size_t op = 0;           // the call in progress
    std::uint32_t op_points = 0;  // scheduling points it has passed
    bool invoked = false;         // its invocation event is recorded
    // Weak memory: the recorded memory events when the call in progress started (before any of
    // its events, a fence included: the history's call waits for its first access).
    std::size_t started_at_event = 0;
    Status status = Status::kRunnable;
    const void* waiting_for = nullptr;             // the mutex a blocked thread waits for
    const std::function<bool()>* ready = nullptr;  // when a waiting thread may proceed
    std::optional<Access> last;                    // its most recent scheduling point
    // Spin detection (spins()): the points this thread passed in its current operation since
    // another thread last changed shared state, and how often each.
    std::uint64_t own_writes = 0;     // accesses of this thread that may change shared state
    std::uint64_t window_others = 0;  // other threads' such accesses when the window opened
    std::size_t window_op = 0;
    std::uint8_t window_size = 0;
    std::array<std::uint64_t, 8> window_points{};
    std::array<std::uint16_t, 8> window_visits{};
  };
  // An execution context: a logical thread's fiber, or (the last slot) the caller's stack.
  struct Slot {
    ctx::fiber suspended;
    bool abandoned = false;  // left for good after a fault (see recover())
    void* asan_fake_stack = nullptr;
    const void* stack_bottom = nullptr;
    std::size_t stack_size = 0;
    void* tsan_fiber = nullptr;
  };

  std::size_t main_slot() const { return threads_.size(); }
  ThreadId running_thread() const { return static_cast<ThreadId>(running_); }

  // Fiber plumbing.
  void switch_to(std::size_t target);
  void on_resumed(ctx::fiber&& from);
  ctx::fiber leave(std::size_t target);
  ctx::fiber thread_main(ThreadId t, ctx::fiber&& from);
  // A logical thread's calls, then its finishing point: returns the slot to run next.
  std::size_t thread_body(ThreadId t);
  // The priming, the first decision and the unwinding of a concurrent part, on either backend.
  void schedule_threads();

  // OS-thread backend (ObjectUnderTest::needs_thread_identity): each logical thread on a
  // std::thread of its own, so thread_local state and thread ids are its own; one runs at a
  // time, handing a baton (a futex wait, a few microseconds) to the next.
  // Logical thread 0's OS thread lives from before Ps to after Pr: Ps and Pr are recorded as
  // thread 0's calls, so they run with its identity (a per-producer queue keeps them in one
  // producer's order, as the history says). The caller hands it each part as a job.
  enum class Job : std::uint8_t { kSequential, kConcurrent, kExit };
  void start_thread_zero(std::size_t threads);
  void stop_thread_zero();
  void thread_zero_main();
  // Ps or Pr: on the caller's stack, or on thread 0's OS thread (OS-thread backend).
  bool sequential(const std::vector<history::Call>& calls, Phase phase);
  void run_concurrent_on_os_threads();
  void os_thread_main(ThreadId t);
  void run_os_thread(ThreadId t);
  void give(std::size_t slot);
  void take(std::size_t slot);
  void release_workers();
  bool os_threads_ = false;
  std::vector<std::thread> workers_;  // logical threads 1.. (and 0 only without thread_zero_)
  std::thread thread_zero_;
  Job thread_zero_job_ = Job::kExit;
  const std::vector<history::Call>* job_calls_ = nullptr;
  bool job_completed_ = false;
  bool sequential_on_thread_zero_ = false;        // Ps or Pr runs there now
  bool thread_zero_abandoned_ = false;            // it faulted and waits for good
  bool sequential_fault_on_thread_zero_ = false;  // in Ps or Pr: the object is leaked
  bool ending_thread_zero_ = false;               // its thread_local objects are being destroyed
  pthread_t caller_thread_{};
  // Whether this OS thread holds the baton (OS-thread backend): a stall signal that reaches a
  // thread that has just handed it on is dropped, since the new holder beats at once.
  static inline thread_local bool holds_baton_ = false;
  std::size_t caller_slot_ = 0;                           // the caller's baton: the last slot
  std::unique_ptr<std::atomic<std::uint32_t>[]> batons_;  // one per slot, the caller's last
  std::size_t unwind_target() const;

  // Scheduling.
  void run_concurrent(const Workload& workload);
  void run_thread(ThreadId t);
  ThreadId decide(PointKind kind, ThreadId thread, const Access* access);
  // Waits at a scheduling point until the scheduler runs this thread again. Throws AbortRun when
  // the run is being cut short, unless `may_throw` is false (unlock, typically called from a
  // LockGuard destructor): then the thread unwinds at its next access.
  void arrive(const Access& access, bool may_throw = true);
  // Whether the running thread spins: it comes to the same point (file:line and address)
  // kSpinVisits times within one operation while no other thread changed shared state. Its next
  // turn can only read what it read before, so the scheduler sees a spin hint first (PCT and POS
  // demote the thread, SURW and exhaustive exploration hold it back): a correct spin-wait on
  // an unmodified class (no yield, or std::this_thread::yield, which is not instrumented) is not
  // a livelock under a priority scheduler. The thread's own writes do not reset the window: a
  // test-and-set spin writes at every turn.
  bool spins(Thread& th, const Access& access);
  // Visits of one point that make a spin. A bounded loop that re-reads one location (padding,
  // polling a few times before giving up) stays below it; a spin-wait passes it at once and then
  // wastes this many steps per hint, far below the step cap.
  static constexpr std::uint16_t kSpinVisits = 64;
  void pass(const Access& access);
  void sequential_point(const Access& access, bool may_throw = true);
  bool run_sequential(const std::vector<history::Call>& calls, Phase phase);
  std::uint32_t intern_file(const char* path);

  // Faults of the object under test: a signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT),
  // std::terminate, or the watchdog's stall signal, while this executor runs the object's code
  // on its OS thread. recover() leaves the faulting code for good: a logical thread's fiber is
  // abandoned (never resumed nor unwound; its stack is the executor's and is reused) and the
  // others are unwound as after any cut-short run; code on the caller's stack (the constructor,
  // Ps, Pr, the destructor) is left by siglongjmp back to execute(), and the object is leaked.
  // The run ends as a crash (a stall as a livelock) naming the signal; the campaign goes on.
  // Memory the abandoned code allocated is leaked, and a fault inside the allocator may leave it
  // locked: in-process recovery is sound only for faults that did not corrupt linfault's state.
  static void install_fault_handlers();
  static void on_signal(int signal, siginfo_t* info, void* context);
  static void on_terminate();
  // `signal` 0: a stopping run's unwinding reached a noexcept frame (std::terminate); the run
  // has its outcome already and the thread is only left.
  [[noreturn]] void recover(int signal);
  void settle_fault();
  void abandon(ctx::fiber&& continuation);
  void run_object(const ObjectFactory& factory, const Workload& workload, Scheduler& scheduler);
  static inline thread_local Impl* current_ = nullptr;  // running execute() on this OS thread
  struct Fault {
    int signal = -1;  // -1: none pending
    bool was_aborting = false;
    std::size_t slot = 0;
    Phase phase = Phase::kSetup;
    std::size_t op = 0;
  };
  Fault fault_;
  sigjmp_buf recovery_;
  bool recoverable_ = false;  // the object's code may run: from its construction to its end
  static constexpr int kMaxFaultsPerRun = 64;  // past it a fault is not recovered from
  int faults_in_run_ = 0;
  bool scheduler_begun_ = false;
  bool constructing_ = false;
  bool destroying_ = false;
  const ObjectUnderTest* destroyed_ = nullptr;  // the object whose destructor runs
  // Stacks whose fiber was abandoned: unpoisoned before they are used again (AddressSanitizer).
  std::vector<bool> stale_stacks_;
  static constexpr std::size_t kLeftFramesBytes = 1024 * 1024;
  // Continuations of abandoned fibers, never destroyed (destroying one would unwind it).
  alignas(ctx::fiber) unsigned char graveyard_[sizeof(ctx::fiber)];

  // Recording.
  void record_invoke(ThreadId t);
  void fail(RunOutcome outcome, std::string message);
  std::string thread_states() const;
  bool may_proceed(const Thread& th) const;

  // Wait on address: a waiter is woken by notify_all, or takes one notify_one offer made on its
  // address while it waited (the earliest it can take, so that later waiters keep theirs).
  struct Waiter {
    const void* address = nullptr;
    std::size_t first_offer = 0;  // offers before this one were made before it waited
    bool woken = false;
    bool active = true;  // still waiting (not woken and gone, not cancelled)
  };
  struct Offer {
    const void* address = nullptr;
    bool taken = false;
  };
  // The offer `ticket` may take, or nullopt.
  std::optional<std::size_t> offer_for(std::uint64_t ticket) const;
  bool wakeable(std::uint64_t ticket) const;
  std::vector<Waiter> waiters_;
  std::vector<Offer> offers_;

  ctx::protected_fixedsize_stack allocator_;
  std::vector<ctx::stack_context> stacks_;  // reused across executions

  // Per execution.
  const ExecutionOptions* options_ = nullptr;
  Scheduler* scheduler_ = nullptr;
  bool scheduler_sees_last_thread_ = true;  // its sees_last_thread(), asked once per run
  Run* run_ = nullptr;
  std::optional<history::HistoryBuilder> builder_;
  std::unique_ptr<ObjectUnderTest> object_;
  std::vector<Thread> threads_;
  std::vector<Slot> slots_;
  std::vector<ThreadId> enabled_;
  std::vector<std::pair<const char*, std::uint32_t>> file_cache_;
  Run spare_;  // a recycled run whose buffers the next execute() takes (Executor::recycle)
  std::vector<StoreId> spare_reads_;
  // Object names given so far ("node#2"), and how many objects of each type have one.
  std::unordered_map<const void*, std::string> object_names_;
  std::unordered_map<std::string, std::uint32_t> objects_of_type_;
  RunProgress progress_;  // for the stall watchdog (dpct/watchdog.h)
  Phase phase_ = Phase::kSetup;
  std::size_t sequential_op_ = 0;
  std::uint64_t sequential_steps_ = 0;
  std::uint64_t constructor_steps_ = 0;
  std::uint64_t destructor_steps_ = 0;
  std::uint64_t destructor_cap_ = 0;
  std::uint64_t steps_ = 0;
  std::uint64_t writes_ = 0;  // Pc accesses that may change shared state (spin detection)
  // Sites of accesses with an order weaker than seq_cst (weak_order_sites()), with a small
  // direct-mapped cache in front of the set: an object that is relaxed throughout hits it.
  void note_order(const Access& access);
  std::array<std::uint64_t, 32> weak_cache_{};
  std::unordered_set<std::uint64_t> weak_keys_;
  std::vector<std::pair<const char*, std::uint32_t>> weak_sites_;
  std::size_t decisions_hint_ = 0;  // decisions of the previous run (execute reserves room)
  // Weak memory (Scheduler::memory_model() kC11): the C++20 model of this run's atomics. Ps and
  // Pr run as its thread 0, after every earlier event (synchronize_all at each boundary).
  WeakMemory memory_{1};
  char returned_ = 0;  // the object operations return to (ExecutionOptions::synchronize_operations)
  WeakMemory::Thread model_thread() const {
    return phase_ == Phase::kConcurrent ? static_cast<WeakMemory::Thread>(running_) : 0;
  }
  std::size_t running_ = 0;
  std::size_t previous_ = 0;
  bool priming_ = false;
  bool aborting_ = false;
  std::exception_ptr error_;
};

// ---------------------------------------------------------------------------------------------
// Fiber plumbing. Threads switch to each other directly; whoever resumes a fiber receives the
// continuation of the context it left and stores it in that context's slot.

void Executor::Impl::switch_to(std::size_t target) {
  if (os_threads_) {
    const std::size_t self = running_;
    previous_ = running_;
    running_ = target;
    give(target);
    take(self);
    settle_fault();
    return;
  }
  Slot& to = slots_[target];
  previous_ = running_;
  running_ = target;
#if defined(LINFAULT_FIBER_ASAN)
  __sanitizer_start_switch_fiber(&slots_[previous_].asan_fake_stack, to.stack_bottom,
                                 to.stack_size);
#endif
#if defined(LINFAULT_FIBER_TSAN)
  __tsan_switch_to_fiber(to.tsan_fiber, 0);
#endif
  ctx::fiber from = std::move(to.suspended).resume();
  on_resumed(std::move(from));
}

void Executor::Impl::on_resumed(ctx::fiber&& from) {
  Slot& self = slots_[running_];
  Slot& left = slots_[previous_];
#if defined(LINFAULT_FIBER_ASAN)
  __sanitizer_finish_switch_fiber(self.asan_fake_stack, &left.stack_bottom, &left.stack_size);
#else
  (void)self;
#endif
  if (from) {  // empty when `left` has terminated
    if (left.abandoned) {
      abandon(std::move(from));
    } else {
      left.suspended = std::move(from);
    }
  }
  settle_fault();
}

void Executor::Impl::abandon(ctx::fiber&& continuation) {
  new (graveyard_) ctx::fiber(std::move(continuation));  // never destroyed: see graveyard_
}

ctx::fiber Executor::Impl::leave(std::size_t target) {
  Slot& to = slots_[target];
  previous_ = running_;
  running_ = target;
#if defined(LINFAULT_FIBER_ASAN)
  __sanitizer_start_switch_fiber(nullptr, to.stack_bottom, to.stack_size);
#endif
#if defined(LINFAULT_FIBER_TSAN)
  __tsan_switch_to_fiber(to.tsan_fiber, 0);
#endif
  return std::move(to.suspended);
}

std::size_t Executor::Impl::unwind_target() const {
  for (std::size_t t = 0; t < threads_.size(); ++t) {
    if (threads_[t].status != Status::kFinished) return t;
  }
  return main_slot();
}

ctx::fiber Executor::Impl::thread_main(ThreadId t, ctx::fiber&& from) {
  on_resumed(std::move(from));
  return leave(thread_body(t));
}

std::size_t Executor::Impl::thread_body(ThreadId t) {
  if (!aborting_) {
    try {
      run_thread(t);
    } catch (const AbortRun&) {
    } catch (const ctx::detail::forced_unwind&) {
      throw;
    } catch (const std::exception& e) {
      const Thread& th = threads_[t];
      if (!th.invoked) record_invoke(t);
      fail(RunOutcome::kCrash, "thread " + std::to_string(t) + ", call " + std::to_string(th.op) +
                                   " " + (*th.calls)[th.op].to_string() + ": " +
                                   history::printable(e.what()));
    } catch (...) {
      const Thread& th = threads_[t];
      if (!th.invoked) record_invoke(t);
      fail(RunOutcome::kCrash, "thread " + std::to_string(t) + ", call " + std::to_string(th.op) +
                                   " " + (*th.calls)[th.op].to_string() +
                                   ": an exception that is not a std::exception");
    }
  }
  threads_[t].status = Status::kFinished;
  std::size_t next = main_slot();
  if (aborting_) {
    next = unwind_target();
  } else if (!priming_) {
    ThreadId chosen = decide(PointKind::kFinished, t, nullptr);
    next = aborting_ ? unwind_target() : (chosen == kNoThread ? main_slot() : chosen);
  }
  return next;
}

// ---------------------------------------------------------------------------------------------
// OS threads (ObjectUnderTest::needs_thread_identity). Each logical thread is a std::thread of
// its own, made for the execution; exactly one runs at a time, the others wait for their baton.

void Executor::Impl::give(std::size_t slot) {
  holds_baton_ = false;
  batons_[slot].store(1, std::memory_order_release);
  batons_[slot].notify_one();
}

void Executor::Impl::take(std::size_t slot) {
  while (batons_[slot].exchange(0, std::memory_order_acquire) == 0) {
    batons_[slot].wait(0, std::memory_order_acquire);
  }
  holds_baton_ = true;
  // The stall watchdog signals the OS thread that holds the baton.
  progress_.os_thread.store(pthread_self(), std::memory_order_relaxed);
}

void Executor::Impl::os_thread_main(ThreadId t) {
  ScopedContext installed(this);
  current_ = this;
  ensure_alternate_signal_stack();
  take(t);
  run_os_thread(t);
  current_ = nullptr;
  // The thread ends here, and its thread_local objects are destroyed, as a real thread's are
  // when it returns: natively, while the next logical thread runs.
}

void Executor::Impl::run_os_thread(ThreadId t) {
  settle_fault();
  const std::size_t next = thread_body(t);
  previous_ = running_;
  running_ = next;
  give(next);
}

void Executor::Impl::start_thread_zero(std::size_t threads) {
  batons_ = std::make_unique<std::atomic<std::uint32_t>[]>(threads + 1);
  for (std::size_t slot = 0; slot <= threads; ++slot) {
    batons_[slot].store(0, std::memory_order_relaxed);
  }
  caller_slot_ = threads;
  thread_zero_abandoned_ = false;
  caller_thread_ = pthread_self();
  holds_baton_ = true;  // the caller runs until it hands thread 0 a job
  thread_zero_ = std::thread([this] { thread_zero_main(); });
}

void Executor::Impl::thread_zero_main() {
  ScopedContext installed(this);
  current_ = this;
  ensure_alternate_signal_stack();
  for (;;) {
    take(0);
    switch (thread_zero_job_) {
      case Job::kSequential:
        job_completed_ = run_sequential(*job_calls_, phase_);
        give(caller_slot_);
        break;
      case Job::kConcurrent:
        run_os_thread(0);
        break;
      case Job::kExit:
        // Its thread_local objects are destroyed now, before the object is, while the caller
        // waits in join(): a stall there is the caller's to recover from.
        progress_.os_thread.store(caller_thread_, std::memory_order_relaxed);
        holds_baton_ = false;
        current_ = nullptr;
        return;
    }
  }
}

void Executor::Impl::stop_thread_zero() {
  if (!thread_zero_.joinable()) return;
  if (thread_zero_abandoned_) {
    thread_zero_.detach();  // it waits for good where it faulted
    return;
  }
  thread_zero_job_ = Job::kExit;
  ending_thread_zero_ = true;
  give(0);
  holds_baton_ = true;
  thread_zero_.join();
  ending_thread_zero_ = false;
  progress_.os_thread.store(pthread_self(), std::memory_order_relaxed);
}

bool Executor::Impl::sequential(const std::vector<history::Call>& calls, Phase phase) {
  if (!thread_zero_.joinable()) return run_sequential(calls, phase);
  phase_ = phase;
  if (calls.empty()) return true;
  thread_zero_job_ = Job::kSequential;
  job_calls_ = &calls;
  job_completed_ = false;
  sequential_on_thread_zero_ = true;
  give(0);
  take(caller_slot_);
  sequential_on_thread_zero_ = false;
  settle_fault();
  return job_completed_;
}

// ---------------------------------------------------------------------------------------------
// Scheduling.

void Executor::Impl::run_concurrent(const Workload& workload) {
  const std::size_t n = workload.threads.size();
  if (n == 0) return;
  while (stacks_.size() < n) stacks_.push_back(allocator_.allocate());

  threads_.assign(n, Thread{});
  slots_.clear();
  slots_.resize(n + 1);
  for (std::size_t t = 0; t < n; ++t) threads_[t].calls = &workload.threads[t];
  if (os_threads_) {
    run_concurrent_on_os_threads();
    return;
  }
#if defined(LINFAULT_FIBER_TSAN)
  slots_[n].tsan_fiber = __tsan_get_current_fiber();
#endif
  if (stale_stacks_.size() < n) stale_stacks_.resize(n, false);
  for (std::size_t t = 0; t < n; ++t) {
    if (stale_stacks_[t]) {
      // A fiber left there after a fault: what its frames poisoned is not this fiber's.
      unpoison(static_cast<char*>(stacks_[t].sp) - stacks_[t].size, stacks_[t].size);
      stale_stacks_[t] = false;
    }
    Slot& slot = slots_[t];
    slot.stack_bottom = static_cast<char*>(stacks_[t].sp) - stacks_[t].size;
    slot.stack_size = stacks_[t].size;
#if defined(LINFAULT_FIBER_TSAN)
    slot.tsan_fiber = __tsan_create_fiber(0);
#endif
    slot.suspended =
        ctx::fiber(std::allocator_arg, BorrowedStack{stacks_[t]}, [this, t](ctx::fiber&& from) {
          return thread_main(static_cast<ThreadId>(t), std::move(from));
        });
  }
  running_ = main_slot();
  schedule_threads();
#if defined(LINFAULT_FIBER_TSAN)
  for (std::size_t t = 0; t < n; ++t) __tsan_destroy_fiber(slots_[t].tsan_fiber);
#endif
}

void Executor::Impl::schedule_threads() {
  // Run every thread's local prelude up to its first scheduling point.
  priming_ = true;
  for (std::size_t t = 0; t < threads_.size() && !aborting_; ++t) {
    if (threads_[t].status != Status::kFinished) switch_to(t);
  }
  priming_ = false;
  if (!aborting_) {
    ThreadId first = decide(PointKind::kStart, kNoThread, nullptr);
    if (!aborting_ && first != kNoThread) switch_to(first);
  }
  if (std::size_t target = unwind_target(); target != main_slot()) switch_to(target);
}

void Executor::Impl::run_concurrent_on_os_threads() {
  const std::size_t n = threads_.size();
  running_ = main_slot();
  workers_.clear();
  thread_zero_job_ = Job::kConcurrent;
  for (std::size_t t = 1; t < n; ++t) {
    workers_.emplace_back([this, t] { os_thread_main(static_cast<ThreadId>(t)); });
  }
  schedule_threads();
  progress_.os_thread.store(pthread_self(), std::memory_order_relaxed);
  release_workers();
}

void Executor::Impl::release_workers() {
  for (std::size_t i = 0; i < workers_.size(); ++i) {
    const std::size_t t = i + 1;
    if (!workers_[i].joinable()) continue;
    // A thread left after a fault never ends; one still waiting for its baton (the caller's
    // stack was left by siglongjmp) never gets it.
    if (slots_[t].abandoned || threads_[t].status != Status::kFinished) {
      workers_[i].detach();
    } else {
      workers_[i].join();
    }
  }
  workers_.clear();
  if (!threads_.empty() && slots_[0].abandoned) thread_zero_abandoned_ = true;
}

void Executor::Impl::run_thread(ThreadId t) {
  Thread& th = threads_[t];
  for (; th.op < th.calls->size(); ++th.op) {
    th.invoked = false;
    th.op_points = 0;
    if (weak_memory()) th.started_at_event = memory_.graph().events.size();
    progress_.beat(static_cast<std::int32_t>(t), &(*th.calls)[th.op], nullptr, 0);
    history::Value result = object_->invoke((*th.calls)[th.op]);
    if (!th.invoked) record_invoke(t);
    if (options_->record_history) {
      note_return(builder_->respond(t, history::Outcome::kOk, std::move(result)), t);
    }
    if (weak_memory() && options_->synchronize_operations) memory_.release_to(t, &returned_);
    if (aborting_) return;  // cut short at a point that could not throw (an unlock)
  }
}

ThreadId Executor::Impl::decide(PointKind kind, ThreadId thread, const Access* access) {
  enabled_.clear();
  bool any_blocked = false;
  for (std::size_t t = 0; t < threads_.size(); ++t) {
    const Thread& th = threads_[t];
    if (th.status == Status::kFinished) continue;
    if (may_proceed(th)) {
      enabled_.push_back(static_cast<ThreadId>(t));
    } else {
      any_blocked = true;
    }
  }
  if (enabled_.empty()) {
    if (any_blocked) {
      fail(RunOutcome::kDeadlock,
           "deadlock: every unfinished thread waits for a mutex or a notify (" + thread_states() +
               ")");
    }
    return kNoThread;
  }
  if (steps_ >= options_->max_steps) {
    fail(RunOutcome::kLivelock,
         "no termination after " + std::to_string(steps_) +
             " scheduling points (livelock or endless loop): " + thread_states());
    return kNoThread;
  }
  if (enabled_.size() == 1 && !any_blocked && !scheduler_sees_last_thread_) {
    ++steps_;  // the last unfinished thread: no decision can follow
    return enabled_[0];
  }

  SchedulingPoint point;
  point.kind = kind;
  point.thread = thread;
  if (access != nullptr) point.access = *access;
  if (thread != kNoThread) {
    point.op_index = threads_[thread].op;
    point.op_step = threads_[thread].op_points;
  }
  point.step = steps_++;
  point.decision = run_->schedule.decisions.size();

  ThreadId next = kNoThread;
  try {
    next = scheduler_->choose(point, enabled_);
    if (std::find(enabled_.begin(), enabled_.end(), next) == enabled_.end()) {
      throw std::logic_error("scheduler chose thread " + std::to_string(next) +
                             ", which is not enabled");
    }
  } catch (...) {
    error_ = std::current_exception();
    aborting_ = true;
    return kNoThread;
  }
  if (enabled_.size() >= 2) {
    Schedule& schedule = run_->schedule;
    schedule.decisions.push_back(next);
    if (options_->record_points) {
      PointTag tag;
      tag.kind = kind;
      tag.thread = thread;
      if (access != nullptr) {
        tag.file = intern_file(access->where.file_name());
        tag.line = access->where.line();
      }
      schedule.points.push_back(tag);
    }
  }
  return next;
}

std::uint32_t Executor::Impl::intern_file(const char* path) {
  for (const auto& [cached, index] : file_cache_) {
    if (cached == path) return index;
  }
  std::uint32_t index = run_->schedule.intern_file(base_name(path));
  file_cache_.emplace_back(path, index);
  return index;
}

void Executor::Impl::arrive(const Access& access, bool may_throw) {
  const ThreadId self = running_thread();
  threads_[self].last = access;
  if (priming_) {
    switch_to(main_slot());
  } else {
    ++run_->access_points;
    ThreadId next = decide(PointKind::kAccess, self, &access);
    if (!aborting_ && next != self) switch_to(next);
  }
  if (aborting_ && may_throw) throw AbortRun{};
}

void Executor::Impl::pass(const Access& access) {
  const ThreadId self = running_thread();
  Thread& th = threads_[self];
  progress_.beat(static_cast<std::int32_t>(self), &(*th.calls)[th.op], access.where.file_name(),
                 access.where.line());
  if (!th.invoked) record_invoke(self);
  ++th.op_points;
  if (options_->record_trace) {
    TraceStep step;
    step.phase = Phase::kConcurrent;
    step.thread = self;
    step.op_index = th.op;
    step.kind = access.kind;
    step.order = access.order;
    step.failure_order = access.failure_order;
    step.file = base_name(access.where.file_name());
    step.line = access.where.line();
    run_->trace.push_back(std::move(step));
  }
}

void Executor::Impl::sequential_point(const Access& access, bool may_throw) {
  progress_.beat(RunProgress::kSequential, progress_.call.load(std::memory_order_relaxed),
                 access.where.file_name(), access.where.line());
  if (++sequential_steps_ > options_->max_steps && may_throw) {
    fail(RunOutcome::kLivelock, std::string(phase_name(phase_)) + " call " +
                                    std::to_string(sequential_op_) + " did not terminate after " +
                                    std::to_string(options_->max_steps) + " accesses (last at " +
                                    location(access.where) + ")");
    throw AbortRun{};
  }
  if (options_->record_trace) {
    TraceStep step;
    step.phase = phase_;
    step.op_index = sequential_op_;
    step.kind = access.kind;
    step.order = access.order;
    step.failure_order = access.failure_order;
    step.file = base_name(access.where.file_name());
    step.line = access.where.line();
    run_->trace.push_back(std::move(step));
  }
}

// ---------------------------------------------------------------------------------------------
// ExecutionContext.

void Executor::Impl::before_access(const Access& access) {
  // An unlock typically runs in a destructor (a lock guard's), where AbortRun must not escape:
  // the thread unwinds at its next access instead.
  const bool may_throw =
      access.kind != AccessKind::kUnlock && access.kind != AccessKind::kUnlockShared;
  if (aborting_) {
    // Unwinding: destructors may still touch shared memory. Object code that swallowed the
    // unwinding exception gets it again.
    if (std::uncaught_exceptions() == 0 && may_throw) throw AbortRun{};
    return;
  }
  if ((access.order != std::memory_order_seq_cst ||
       access.failure_order != std::memory_order_seq_cst) &&
      !weak_memory()) {
    note_order(access);
  }
  if (phase_ != Phase::kConcurrent) {
    sequential_point(access, may_throw);
    return;
  }
  if (!priming_ && spins(threads_[running_thread()], access)) {
    const Access hint{AccessKind::kYield, nullptr, access.where};
    if (weak_memory()) memory_.spin_hint(model_thread());
    arrive(hint, may_throw);
    if (aborting_) return;
    pass(hint);
  }
  if (access.kind == AccessKind::kYield && weak_memory()) memory_.spin_hint(model_thread());
  arrive(access, may_throw);
  if (!aborting_) pass(access);
}

void Executor::Impl::note_order(const Access& access) {
  const std::uint64_t key = reinterpret_cast<std::uintptr_t>(access.where.file_name()) ^
                            (std::uint64_t{access.where.line()} << 48);
  std::uint64_t& cached = weak_cache_[(key ^ (key >> 29)) % weak_cache_.size()];
  if (cached == key) return;
  cached = key;
  if (weak_keys_.insert(key).second) {
    weak_sites_.emplace_back(access.where.file_name(), access.where.line());
  }
}

std::vector<std::string> Executor::Impl::weak_order_sites() const {
  std::vector<std::string> sites;
  for (const auto& [file, line] : weak_sites_) {
    sites.push_back(std::string(base_name(file)) + ":" + std::to_string(line));
  }
  std::sort(sites.begin(), sites.end());
  sites.erase(std::unique(sites.begin(), sites.end()), sites.end());
  return sites;
}

bool Executor::Impl::spins(Thread& th, const Access& access) {
  if (access.kind == AccessKind::kYield) {
    th.window_size = 0;  // an explicit spin hint: the scheduler knows already
    return false;
  }
  const std::uint64_t others = writes_ - th.own_writes;
  if (access.kind != AccessKind::kLoad) {
    ++writes_;
    ++th.own_writes;
  }
  // Most operations end long before a point could have been visited kSpinVisits times: the
  // window opens only past their first accesses, which keeps this off the common path.
  if (th.op_points < kSpinVisits / 2) return false;
  if (others != th.window_others || th.op != th.window_op) {
    th.window_others = others;
    th.window_op = th.op;
    th.window_size = 0;
  }
  const std::uint64_t point =
      (reinterpret_cast<std::uintptr_t>(access.where.file_name()) ^
       (std::uint64_t{access.where.line()} << 48)) +
      reinterpret_cast<std::uintptr_t>(access.address) * 0x9E3779B97F4A7C15ULL;
  for (std::uint8_t i = 0; i < th.window_size; ++i) {
    if (th.window_points[i] != point) continue;
    if (++th.window_visits[i] < kSpinVisits) return false;
    th.window_size = 0;
    return true;
  }
  if (th.window_size < th.window_points.size()) {
    th.window_points[th.window_size] = point;
    th.window_visits[th.window_size] = 1;
    ++th.window_size;
  }
  return false;
}

void Executor::Impl::after_access(const Access&, const std::string& read,
                                  const std::string& written, bool success) {
  if (aborting_ || run_->trace.empty()) return;
  TraceStep& step = run_->trace.back();
  step.read = read;
  step.written = written;
  step.success = success;
}

// Objects are numbered per type in the order values are rendered, Ps, Pc and Pr together, which
// is the execution order; an address keeps the first name it got, whatever type it is seen as.
std::string Executor::Impl::object_name(const void* address, const std::string& type) {
  auto [it, added] = object_names_.try_emplace(address);
  if (added) it->second = type + "#" + std::to_string(++objects_of_type_[type]);
  return it->second;
}

void Executor::Impl::lock(const void* mutex, bool& held, const SourceLocation& where) {
  const Access access{AccessKind::kLock, mutex, where};
  if (aborting_) {
    if (std::uncaught_exceptions() == 0) throw AbortRun{};
    held = true;
    return;
  }
  if (phase_ != Phase::kConcurrent) {
    sequential_point(access);
    if (held) {
      fail(RunOutcome::kDeadlock, std::string(phase_name(phase_)) + " call " +
                                      std::to_string(sequential_op_) +
                                      " waits forever for the mutex it locks at " +
                                      location(where) + ": nobody will unlock it");
      throw AbortRun{};
    }
    held = true;
    return;
  }
  arrive(access);
  pass(access);
  while (held) {
    const ThreadId self = running_thread();
    threads_[self].status = Status::kBlocked;
    threads_[self].waiting_for = mutex;
    ThreadId next = decide(PointKind::kBlocked, self, &access);
    if (!aborting_) switch_to(next);
    if (aborting_) throw AbortRun{};
  }
  held = true;
  if (weak_memory()) memory_.acquire_from(model_thread(), mutex);
}

bool Executor::Impl::try_lock(const void* mutex, bool& held, const SourceLocation& where) {
  const Access access{AccessKind::kTryLock, mutex, where};
  if (aborting_) {
    if (std::uncaught_exceptions() == 0) throw AbortRun{};
    return false;
  }
  if (phase_ != Phase::kConcurrent) {
    sequential_point(access);
  } else {
    arrive(access);
    pass(access);
  }
  if (options_->record_trace && !run_->trace.empty()) run_->trace.back().success = !held;
  if (held) return false;
  held = true;
  if (weak_memory()) memory_.acquire_from(model_thread(), mutex);
  return true;
}

void Executor::Impl::unlock(const void* mutex, bool& held, const SourceLocation& where) {
  if (aborting_) {
    held = false;
    return;
  }
  const Access access{AccessKind::kUnlock, mutex, where};
  if (phase_ != Phase::kConcurrent) {
    sequential_point(access, /*may_throw=*/false);
  } else {
    arrive(access, /*may_throw=*/false);
    if (!aborting_) pass(access);
  }
  if (!held)
    throw std::logic_error("unlock at " + location(where) + " of a mutex that is not locked");
  held = false;
  if (weak_memory()) memory_.release_to(model_thread(), mutex);
  for (Thread& th : threads_) {
    if (th.status == Status::kBlocked && th.waiting_for == mutex) {
      th.status = Status::kRunnable;
      th.waiting_for = nullptr;
    }
  }
}

bool Executor::Impl::may_proceed(const Thread& th) const {
  switch (th.status) {
    case Status::kRunnable:
      return true;
    case Status::kWaiting:
      return (*th.ready)();
    case Status::kBlocked:
    case Status::kFinished:
      break;
  }
  return false;
}

void Executor::Impl::block_until(const Access& access, const std::function<bool()>& ready) {
  if (aborting_) {
    if (std::uncaught_exceptions() == 0) throw AbortRun{};
    return;
  }
  if (ready()) return;
  if (phase_ != Phase::kConcurrent) {
    fail(RunOutcome::kDeadlock, std::string(phase_name(phase_)) + " call " +
                                    std::to_string(sequential_op_) + " waits forever at " +
                                    location(access.where) + " (" + access_kind_name(access.kind) +
                                    "): no other thread runs");
    throw AbortRun{};
  }
  const ThreadId self = running_thread();
  while (!ready()) {
    Thread& th = threads_[self];
    th.status = Status::kWaiting;
    th.ready = &ready;
    th.last = access;
    ThreadId next = decide(PointKind::kBlocked, self, &access);
    if (!aborting_) switch_to(next);
    threads_[self].status = Status::kRunnable;
    threads_[self].ready = nullptr;
    if (aborting_) throw AbortRun{};
  }
}

std::uint64_t Executor::Impl::enqueue_waiter(const void* address) {
  waiters_.push_back(Waiter{address, offers_.size()});
  return waiters_.size() - 1;
}

std::optional<std::size_t> Executor::Impl::offer_for(std::uint64_t ticket) const {
  const Waiter& w = waiters_[ticket];
  for (std::size_t k = w.first_offer; k < offers_.size(); ++k) {
    if (!offers_[k].taken && offers_[k].address == w.address) return k;
  }
  return std::nullopt;
}

bool Executor::Impl::wakeable(std::uint64_t ticket) const {
  const Waiter& w = waiters_[ticket];
  return w.woken || (w.active && offer_for(ticket).has_value());
}

bool Executor::Impl::notified(std::uint64_t ticket) {
  Waiter& w = waiters_[ticket];
  if (!w.woken && w.active) {
    if (const auto k = offer_for(ticket)) {
      offers_[*k].taken = true;
      w.woken = true;
    }
  }
  if (w.woken) w.active = false;
  return w.woken;
}

void Executor::Impl::cancel_waiter(std::uint64_t ticket) { waiters_[ticket].active = false; }

void Executor::Impl::await_notify(const Access& access, std::uint64_t ticket) {
  const std::function<bool()> ready = [this, ticket] { return wakeable(ticket); };
  block_until(access, ready);
  if (!aborting_) notified(ticket);
  waiters_[ticket].active = false;
}

void Executor::Impl::notify(const void* address, bool all) {
  if (aborting_) return;
  bool anyone = false;
  for (Waiter& w : waiters_) {
    if (!w.active || w.woken || w.address != address) continue;
    anyone = true;
    if (all) w.woken = true;
  }
  if (anyone && !all) offers_.push_back(Offer{address});
}

void Executor::Impl::weak_load(const Access& access, std::size_t size, const void* current,
                               void* out, const void* expected) {
  const WeakMemory::Thread thread = model_thread();
  const std::span<const StoreId> candidates =
      memory_.load_candidates(thread, access.address, size, access.order, current, expected);
  std::size_t choice = 0;
  // A wait's load reads the newest store (dpct/shared.h), and so do Ps, Pr and a run being cut
  // short, which have nothing to decide.
  if (candidates.size() > 1 && access.kind != AccessKind::kWait && phase_ == Phase::kConcurrent &&
      !aborting_) {
    Schedule& schedule = run_->schedule;
    try {
      choice = scheduler_->choose_read(
          ReadPoint{thread, &access, schedule.reads.size(), schedule.decisions.size()}, candidates);
      if (choice >= candidates.size()) {
        throw std::logic_error("scheduler chose read " + std::to_string(choice) + " of " +
                               std::to_string(candidates.size()) + " candidates");
      }
      schedule.reads.push_back(candidates[choice]);
      if (choice != 0) ++run_->stale_reads;
    } catch (...) {
      error_ = std::current_exception();
      aborting_ = true;
      choice = 0;
    }
  }
  // The trace's last step is this load's when it made a read decision (a wait's re-read after a
  // notify, or a load of a run being cut short, may follow another thread's step).
  if (options_->record_trace && candidates.size() > 1 && access.kind != AccessKind::kWait &&
      phase_ == Phase::kConcurrent && !aborting_ && !run_->trace.empty()) {
    TraceStep& step = run_->trace.back();
    step.read_from = candidates[choice];
    step.newer_stores = static_cast<std::uint32_t>(choice);
    if (choice != 0) {
      const std::string read = describe_store(access.address, candidates[choice]);
      step.stale =
          "read " + (read.empty() ? "the value it held before the run" : "the store of " + read) +
          "; " +
          (choice == 1
               ? "the newer store of "
               : "the newest of " + std::to_string(choice) + " newer stores, the store of ") +
          describe_store(access.address, candidates[0]) +
          " was not visible: nothing orders it before this load";
    }
  }
  std::memmove(out, memory_.commit_load(choice), size);
}

void Executor::Impl::weak_store(const Access& access, std::size_t size, const void* before,
                                const void* written) {
  memory_.store(model_thread(), access.address, size, access.order, before, written);
  note_store(access.address);
}

void Executor::Impl::weak_read_modify_write(const Access& access, std::size_t size,
                                            const void* before, const void* written) {
  memory_.read_modify_write(model_thread(), access.address, size, access.order, before, written);
  note_store(access.address);
}

void Executor::Impl::note_store(const void* address) {
  if (!options_->record_trace || run_->trace.empty()) return;
  if (const std::optional<StoreId> id = memory_.newest_store(address)) {
    store_steps_[{address, *id}] = run_->trace.size() - 1;
  }
}

// "step 12 (t0, ring.cc:23, relaxed)"; empty for the location's initial value.
std::string Executor::Impl::describe_store(const void* address, const StoreId& id) const {
  if (id.initial()) return "";
  const auto it = store_steps_.find({address, id});
  if (it == store_steps_.end()) return store_id_text(id);
  const TraceStep& step = run_->trace[it->second];
  const std::string who = step.phase == Phase::kConcurrent ? "t" + std::to_string(step.thread)
                          : step.phase == Phase::kSetup    ? "Ps"
                                                           : "Pr";
  return "step " + std::to_string(it->second + 1) + " (" + who + ", " + step.file + ":" +
         std::to_string(step.line) + ", " + memory_order_name(step.order) + ")";
}

void Executor::Impl::weak_construct(const void* address) { memory_.forget(address); }

void Executor::Impl::fence(std::memory_order order, const SourceLocation&) {
  if (weak_memory() && !aborting_) memory_.fence(model_thread(), order);
}

void Executor::Impl::synchronize(const void* object, bool acquire) {
  if (!weak_memory()) return;
  if (acquire) {
    memory_.acquire_from(model_thread(), object);
  } else {
    memory_.release_to(model_thread(), object);
  }
}

std::uint64_t Executor::Impl::logical_thread() const {
  return phase_ == Phase::kConcurrent ? running_thread() : std::numeric_limits<ThreadId>::max();
}

PendingStep Executor::Impl::pending(ThreadId thread) const {
  PendingStep step;
  if (thread >= threads_.size()) return step;
  const Thread& th = threads_[thread];
  // A thread cut short by a crash or livelock is unwound (kFinished) before the scheduler's end();
  // its calls left undone say it did not finish: it still waits at its last access.
  const bool done =
      th.status == Status::kFinished && th.calls != nullptr && th.op >= th.calls->size();
  if (!done && th.last) step.access = &*th.last;
  step.op_index = th.op;
  step.op_step = th.op_points;
  return step;
}

// ---------------------------------------------------------------------------------------------
// Recording.

void Executor::Impl::record_invoke(ThreadId t) {
  Thread& th = threads_[t];
  th.invoked = true;
  if (options_->record_history) builder_->invoke(t, (*th.calls)[th.op]);
  if (weak_memory() && options_->synchronize_operations) memory_.acquire_from(t, &returned_);
  if (options_->record_history) note_call(t, th.started_at_event);
}

void Executor::Impl::note_call(ThreadId thread, std::size_t started_at_event) {
  if (!weak_memory()) return;
  const ClockPoint point{static_cast<std::uint32_t>(thread), started_at_event};
  op_points_.push_back({point, point, false});
}

void Executor::Impl::note_return(history::OpIndex op, ThreadId thread) {
  if (!weak_memory() || op < 0 || static_cast<std::size_t>(op) >= op_points_.size()) return;
  OperationPoints& points = op_points_[static_cast<std::size_t>(op)];
  points.at_return = {static_cast<std::uint32_t>(thread), memory_.graph().events.size()};
  points.returned = true;
}

// Happens-before between operations is what the object's own synchronisation (and the start
// and end of the concurrent part) orders: the executor's ordering of a client's calls
// (ExecutionOptions::synchronize_operations) is left out, or a relaxed publish would always be
// ordered by it, the consumer's first access being the load that sees the publish. A call is
// the entry of the thread's first event after the operation started (a fence before its first
// access is one of its events).
std::vector<history::OperationClock> Executor::Impl::operation_clocks() const {
  std::vector<ClockPoint> points;
  points.reserve(2 * op_points_.size());
  for (const OperationPoints& op : op_points_) {
    points.push_back(op.call);
    points.push_back(op.at_return);
  }
  const auto clocks =
      happens_before_at(memory_.graph(), points, reinterpret_cast<std::uintptr_t>(&returned_));
  std::vector<history::OperationClock> out(op_points_.size());
  for (std::size_t i = 0; i < op_points_.size(); ++i) {
    out[i].thread = op_points_[i].call.thread;
    out[i].call = clocks[2 * i][op_points_[i].call.thread] + 1;
    if (op_points_[i].returned) out[i].at_return = clocks[2 * i + 1];
  }
  return out;
}

void Executor::Impl::fail(RunOutcome outcome, std::string message) {
  if (!aborting_) {
    run_->outcome = outcome;
    run_->message = std::move(message);
  }
  aborting_ = true;
}

std::string Executor::Impl::thread_states() const {
  std::string out;
  for (std::size_t t = 0; t < threads_.size(); ++t) {
    const Thread& th = threads_[t];
    if (!out.empty()) out += ", ";
    out += "thread " + std::to_string(t);
    switch (th.status) {
      case Status::kFinished:
        out += " finished";
        break;
      case Status::kBlocked:
        out += " waits for the mutex at " + location(th.last->where);
        break;
      case Status::kWaiting:
        out += std::string(" waits (") + access_kind_name(th.last->kind) + ") at " +
               location(th.last->where);
        break;
      case Status::kRunnable:
        out += th.last ? " at " + location(th.last->where) + " (" +
                             access_kind_name(th.last->kind) + ")"
                       : " runnable";
        break;
    }
  }
  return out;
}

bool Executor::Impl::run_sequential(const std::vector<history::Call>& calls, Phase phase) {
  phase_ = phase;
  for (sequential_op_ = 0; sequential_op_ < calls.size(); ++sequential_op_) {
    const history::Call& call = calls[sequential_op_];
    sequential_steps_ = 0;  // the cap is per call (ExecutionOptions::max_steps), not per phase
    progress_.beat(RunProgress::kSequential, &call, nullptr, 0);
    if (options_->record_history) {
      builder_->invoke(0, call);
      note_call(0, weak_memory() ? memory_.graph().events.size() : 0);
    }
    try {
      history::Value result = object_->invoke(call);
      if (options_->record_history) {
        note_return(builder_->respond(0, history::Outcome::kOk, std::move(result)), 0);
      }
    } catch (const AbortRun&) {
      return false;
    } catch (const std::exception& e) {
      fail(RunOutcome::kCrash, std::string(phase_name(phase)) + " call " +
                                   std::to_string(sequential_op_) + " " + call.to_string() + ": " +
                                   history::printable(e.what()));
      return false;
    }
  }
  return true;
}

Run Executor::Impl::execute(const ObjectFactory& factory, const Workload& workload,
                            Scheduler& scheduler, const ExecutionOptions& options) {
  Run run;
  options_ = &options;
  scheduler_ = &scheduler;
  scheduler_sees_last_thread_ = scheduler.sees_last_thread();
  run_ = &run;
  builder_.emplace(options.origin);
  // Room for about as many decisions as the previous run of this executor took: the runs of a
  // campaign are alike, and growing the vectors decision by decision costs more than the run.
  // Capped: a livelock runs to the step cap, and a kept run would keep its unused room.
  constexpr std::size_t kMaxReservedDecisions = 4096;
  // Only the buffers of a recycled run are taken, emptied (and not past the cap above, for the
  // same reason); every other field starts fresh.
  builder_->reuse(std::move(spare_.history));
  if (spare_.schedule.decisions.capacity() <= kMaxReservedDecisions &&
      spare_.schedule.points.capacity() <= kMaxReservedDecisions) {
    run.schedule.decisions = std::move(spare_.schedule.decisions);
    run.schedule.decisions.clear();
    run.schedule.points = std::move(spare_.schedule.points);
    run.schedule.points.clear();
  }
  spare_reads_ = std::move(spare_.schedule.reads);
  spare_ = Run{};
  const std::size_t expected_decisions =
      std::min(decisions_hint_ + decisions_hint_ / 4, kMaxReservedDecisions);
  run.schedule.decisions.reserve(expected_decisions);
  if (options.record_points) run.schedule.points.reserve(expected_decisions);
  if (options.record_history) {
    std::size_t calls = workload.setup.size() + workload.reveal.size();
    for (const auto& thread : workload.threads) calls += thread.size();
    builder_->reserve(calls, 2 * calls);  // no regrowth of the history while it is recorded
  }
  threads_.clear();
  slots_.clear();
  file_cache_.clear();
  object_names_.clear();
  objects_of_type_.clear();
  waiters_.clear();
  offers_.clear();
  forget_lock_states();
  const bool weak = scheduler.memory_model() == MemoryModel::kC11;
  set_weak_memory(weak);
  run.schedule.memory_model = scheduler.memory_model();
  if (spare_reads_.capacity() <= kMaxReservedDecisions)
    run.schedule.reads = std::move(spare_reads_);
  run.schedule.reads.clear();
  if (weak) {
    memory_.reset(std::max<std::size_t>(1, workload.threads.size()));
    // The history's happens-before clocks come from the recorded events.
    memory_.record(options.check_memory_model || options.record_history);
  }
  store_steps_.clear();
  op_points_.clear();
  holds_baton_ = true;  // the caller runs the object's code until it hands a thread a baton
  sequential_fault_on_thread_zero_ = false;
  ending_thread_zero_ = false;
  sequential_steps_ = 0;
  steps_ = 0;
  writes_ = 0;
  aborting_ = false;
  priming_ = false;
  error_ = nullptr;
  phase_ = Phase::kSetup;
  running_ = 0;  // the caller's stack (main_slot() while there are no threads)
  fault_ = Fault{};
  faults_in_run_ = 0;
  scheduler_begun_ = false;

  // Watched from the constructor to the end of the destructor (also when it throws).
  progress_.beat(RunProgress::kConstructor, nullptr, nullptr, 0);
  progress_.os_thread.store(pthread_self(), std::memory_order_relaxed);
  progress_.start(options.history_seed);
  struct NotRunning {
    RunProgress& progress;
    ~NotRunning() { progress.running.store(false, std::memory_order_relaxed); }
  } not_running_after{progress_};

  ensure_alternate_signal_stack();
  // Nothing below is changed between sigsetjmp and a siglongjmp back to it but members.
  struct Recoverable {
    Impl& executor;
    Impl* outer;
    ExecutionContext* context;
    ~Recoverable() {
      executor.recoverable_ = false;
      current_ = outer;
    }
  } recoverable{*this, current_, detail::current_context};
  current_ = this;
  recoverable_ = true;
  // Without the signal mask: saving it is a system call per run; recover() unblocks the signal.
  if (sigsetjmp(recovery_, 0) == 0) {
    run_object(factory, workload, scheduler);
  } else {
    // Back from code on this stack that faulted (or stalled): whatever ran there is left as it
    // is. The object is leaked: its state may be corrupt, and its destructor may be what failed.
    // The frames left below this one may have left their poison (AddressSanitizer).
    unpoison(static_cast<char*>(__builtin_frame_address(0)) - kLeftFramesBytes, kLeftFramesBytes);
    detail::current_context = recoverable.context;
    for (Slot& slot : slots_) {
      if (slot.suspended) abandon(std::move(slot.suspended));
    }
    for (std::thread& worker : workers_) {
      if (worker.joinable()) worker.detach();  // waits for a baton that never comes
    }
    workers_.clear();
    if (thread_zero_.joinable()) thread_zero_.detach();
    ignore_leak(destroying_ ? destroyed_ : object_.release());
    settle_fault();
    constructing_ = false;
    destroying_ = false;
    ending_thread_zero_ = false;
    if (!scheduler_begun_) {
      scheduler.begin(RunInfo{workload.threads.size(), &workload, this});
      scheduler_begun_ = true;
    }
  }
  recoverable_ = false;
  if (error_) std::rethrow_exception(error_);
  if (options.describe_schedule) scheduler.end(run.schedule);
  decisions_hint_ = run.schedule.decisions.size();
  run.steps = steps_;
  if (options.record_history) {
    run.history = std::move(*builder_).build();
    if (weak_memory() && op_points_.size() == run.history.size()) {
      run.history.set_clocks(operation_clocks());
    }
    op_points_.clear();
  }
  return run;
}

void Executor::Impl::run_object(const ObjectFactory& factory, const Workload& workload,
                                Scheduler& scheduler) {
  // The object's constructor is the user's code: its exception is a problem of the target, said
  // as such, not an internal error of the executor.
  constructing_ = true;
  constructor_steps_ = 0;
  try {
    NativeWatch watch(*this, /*destructor=*/false);
    ScopedContext installed(&watch);
    object_ = factory();
  } catch (const std::exception& e) {
    constructing_ = false;
    throw std::invalid_argument(std::string("the object's constructor threw: ") +
                                history::printable(e.what()));
  }
  constructing_ = false;
  if (!object_) throw std::invalid_argument("the object factory returned no object");
  os_threads_ = object_->needs_thread_identity();
  scheduler.begin(RunInfo{workload.threads.size(), &workload, this});
  scheduler_begun_ = true;
  if (os_threads_ && !workload.threads.empty()) start_thread_zero(workload.threads.size());
  // An internal error thrown out of the run (or a thread that could not be started) may leave
  // the OS threads anywhere in their calls: they are left waiting for a baton that never comes,
  // not resumed.
  struct LeftOnThrow {
    Impl& executor;
    ~LeftOnThrow() {
      if (executor.thread_zero_.joinable()) executor.thread_zero_.detach();
      for (std::thread& worker : executor.workers_) {
        if (worker.joinable()) worker.detach();
      }
      executor.workers_.clear();
    }
  } left_on_throw{*this};
  {
    ScopedContext installed(this);
    if (sequential(workload.setup, Phase::kSetup)) {
      if (weak_memory()) memory_.synchronize_all();
      phase_ = Phase::kConcurrent;
      run_concurrent(workload);
      if (weak_memory()) memory_.synchronize_all();
      if (!aborting_) sequential(workload.reveal, Phase::kReveal);
    }
  }
  if (weak_memory() && options_->check_memory_model) {
    if (auto violation = find_axiom_violation(memory_.graph())) {
      run_->memory_model_violation = std::move(*violation);
    }
  }
  stop_thread_zero();
  if (sequential_fault_on_thread_zero_) {
    // As after a fault in Ps or Pr on the caller's stack: the object's state may be corrupt, and
    // thread 0, parked for good in the middle of a call, may hold its locks.
    ignore_leak(object_.release());
    return;
  }
  destroying_ = true;
  destroyed_ = object_.get();  // leaked, not freed, if its destructor never returns
  std::size_t calls = workload.setup.size() + workload.reveal.size();
  for (const auto& thread : workload.threads) calls += thread.size();
  // Room for a structure as large as the constructor and the calls can have made it, walked a
  // few times.
  destructor_cap_ = options_->max_steps + 64 * calls + 4 * constructor_steps_;
  destructor_steps_ = 0;
  {
    NativeWatch watch(*this, /*destructor=*/true);
    ScopedContext installed(&watch);
    object_.reset();  // natively: its destructor may walk its shared structure
  }
  destroying_ = false;
}

void Executor::Impl::destructor_point(const Access& access) {
  progress_.beat(RunProgress::kSequential, nullptr, access.where.file_name(), access.where.line());
  if (++destructor_steps_ <= destructor_cap_) return;
  if (run_->outcome == RunOutcome::kOk) {
    run_->outcome = RunOutcome::kLivelock;
    run_->message = "the object's destructor did not return after " +
                    std::to_string(destructor_cap_) + " accesses (last at " +
                    location(access.where) +
                    "): it loops, as over a corrupted structure, and was abandoned";
  }
  siglongjmp(recovery_, 1);  // as after a stall: the object is leaked
}

// ---------------------------------------------------------------------------------------------
// Faults of the object under test.

namespace {

constexpr int kFaultSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
constexpr int kTerminated = -2;  // Fault::signal for std::terminate
struct sigaction previous_actions[NSIG];
std::terminate_handler previous_terminate = nullptr;

const char* fault_name(int signal) {
  switch (signal) {
    case SIGSEGV:
      return "SIGSEGV (segmentation fault: an invalid memory access)";
    case SIGBUS:
      return "SIGBUS (bus error: an invalid memory access)";
    case SIGFPE:
      return "SIGFPE (arithmetic fault: a division by zero or overflow)";
    case SIGILL:
      return "SIGILL (illegal instruction)";
    case SIGABRT:
      return "SIGABRT (abort: a failed assertion or std::abort)";
    case kTerminated:
      return "std::terminate (an exception left a noexcept function, or nothing caught it)";
    default:
      return "a signal";
  }
}

// This thread's alternate signal stack, once ensure_alternate_signal_stack() ran.
thread_local std::pair<void*, std::size_t> signal_stack{nullptr, 0};

// Signal handlers run on an alternate stack, so that a logical thread that overflows its stack
// can be recovered from. Kept for the thread's life; one that another runtime (a sanitizer)
// installed is used as it is.
void ensure_alternate_signal_stack() {
  struct AlternateStack {
    std::unique_ptr<char[]> memory;
    bool checked = false;
    ~AlternateStack() {
      if (!memory) return;
      stack_t off{};
      off.ss_flags = SS_DISABLE;
      sigaltstack(&off, nullptr);
    }
  };
  static thread_local AlternateStack alternate;
  if (alternate.checked) return;
  alternate.checked = true;
  constexpr std::size_t kBytes = 256 * 1024;
  stack_t current{};
  if (sigaltstack(nullptr, &current) == 0 && (current.ss_flags & SS_DISABLE) == 0 &&
      current.ss_size >= 64 * 1024) {
    signal_stack = {current.ss_sp, current.ss_size};
    return;
  }
  alternate.memory = std::make_unique<char[]>(kBytes);
  stack_t stack{};
  stack.ss_sp = alternate.memory.get();
  stack.ss_size = kBytes;
  if (sigaltstack(&stack, nullptr) != 0) {
    alternate.memory.reset();
  } else {
    signal_stack = {stack.ss_sp, stack.ss_size};
  }
}

}  // namespace

void Executor::Impl::install_fault_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action {};
    action.sa_sigaction = &Impl::on_signal;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    for (int signal : kFaultSignals) sigaction(signal, &action, &previous_actions[signal]);
    sigaction(stall_signal(), &action, &previous_actions[stall_signal()]);
    previous_terminate = std::set_terminate(&Impl::on_terminate);
  });
}

void Executor::Impl::on_signal(int signal, siginfo_t* info, void* context) {
  Impl* self = current_;
  const bool ours = self != nullptr && self->recoverable_ && self->fault_.signal == -1 &&
                    self->faults_in_run_ < kMaxFaultsPerRun;
  if (signal == stall_signal()) {
    // Only for the run the watchdog saw stall: a late signal finds the beats moved on. On OS
    // threads, only for the thread that holds the baton: one that has just handed it on must not
    // leave its stack while the next runs.
    if (ours && (!self->os_threads_ || holds_baton_) && info != nullptr &&
        reinterpret_cast<std::uintptr_t>(info->si_value.sival_ptr) ==
            self->progress_.beats.load(std::memory_order_relaxed)) {
      unpoison(signal_stack.first, signal_stack.second);
      self->recover(signal);
    }
    return;
  }
  if (ours) {
    // Handlers of earlier faults never returned: their frames' marks are stale.
    unpoison(signal_stack.first, signal_stack.second);
    self->recover(signal);
  }
  // Not the object's fault in a run: what was there before handles it.
  const struct sigaction& previous = previous_actions[signal];
  if ((previous.sa_flags & SA_SIGINFO) != 0 && previous.sa_sigaction != nullptr) {
    previous.sa_sigaction(signal, info, context);
    return;
  }
  if (previous.sa_handler == SIG_IGN) return;
  if (previous.sa_handler != SIG_DFL && previous.sa_handler != nullptr) {
    previous.sa_handler(signal);
    return;
  }
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  sigaction(signal, &fallback, nullptr);
  raise(signal);  // delivered once this handler returns (a fault recurs at once anyway)
}

void Executor::Impl::on_terminate() {
  Impl* self = current_;
  if (self != nullptr && self->recoverable_ && self->fault_.signal == -1 &&
      self->faults_in_run_ < kMaxFaultsPerRun) {
    bool stopping = false;
    if (std::exception_ptr exception = std::current_exception()) {
      try {
        std::rethrow_exception(exception);
      } catch (const AbortRun&) {
        stopping = true;
      } catch (...) {
      }
      exception = nullptr;
      // std::terminate took the exception as caught; the frames that would end that are left.
      abi::__cxa_end_catch();
    }
    self->recover(stopping ? 0 : kTerminated);
  }
  if (previous_terminate != nullptr) previous_terminate();
  std::abort();
}

void Executor::Impl::recover(int signal) {
  // Under detect --isolate: the caller then gives this history only a while to answer (code
  // left by siglongjmp may hold a lock the rest needs, the allocator's).
  if (signal != 0) tell_fork_server_of_fault(signal == kTerminated ? SIGABRT : signal);
  ++faults_in_run_;
  fault_.signal = signal;
  fault_.was_aborting = aborting_;
  fault_.slot = running_;
  fault_.phase = phase_;
  fault_.op = sequential_op_;
  aborting_ = true;
  if (signal > 0) {
    // Left without returning from the handler: the signal would stay blocked on this thread.
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, signal);
    pthread_sigmask(SIG_UNBLOCK, &mask, nullptr);
  }
  if (sequential_on_thread_zero_ && std::this_thread::get_id() == thread_zero_.get_id()) {
    // Ps or Pr on thread 0's OS thread: it waits here for good; the caller goes on.
    thread_zero_abandoned_ = true;
    sequential_fault_on_thread_zero_ = true;
    give(caller_slot_);
    for (;;) pause();
  }
  if (phase_ == Phase::kConcurrent && running_ < threads_.size() && os_threads_) {
    // A logical thread on an OS thread of its own: that thread waits here for good (it is
    // detached), and the run goes on to unwind the others.
    threads_[running_].status = Status::kFinished;
    slots_[running_].abandoned = true;
    const std::size_t next = unwind_target();
    previous_ = running_;
    running_ = next;
    give(next);
    for (;;) pause();
  }
  if (phase_ == Phase::kConcurrent && running_ < threads_.size()) {
    // A logical thread: its fiber is left for good, and the run goes on to unwind the others.
    threads_[running_].status = Status::kFinished;
    slots_[running_].abandoned = true;
    stale_stacks_[running_] = true;  // sized by run_concurrent: no allocation in a handler
    (void)leave(unwind_target()).resume();
    std::abort();  // unreachable: nothing resumes an abandoned fiber
  }
  siglongjmp(recovery_, 1);
}

void Executor::Impl::settle_fault() {
  if (fault_.signal == -1) return;
  const Fault fault = fault_;
  fault_ = Fault{};
  if (fault.signal == 0 || fault.was_aborting) return;  // the run has its outcome already
  std::string who;
  if (fault.phase == Phase::kConcurrent && fault.slot < threads_.size()) {
    const Thread& th = threads_[fault.slot];
    const auto t = static_cast<ThreadId>(fault.slot);
    if (!th.invoked && th.op < th.calls->size()) record_invoke(t);
    who = "thread " + std::to_string(t) + ", call " + std::to_string(th.op) + " " +
          (th.op < th.calls->size() ? (*th.calls)[th.op].to_string() : std::string("?"));
  } else if (constructing_) {
    who = "the object's constructor";
  } else if (ending_thread_zero_) {
    who = "the destructors of thread 0's thread_local objects";
  } else if (destroying_) {
    who = "the object's destructor";
  } else {
    who = std::string(phase_name(fault.phase)) + " call " + std::to_string(fault.op);
  }
  if (fault.signal == stall_signal()) {
    const double seconds = static_cast<double>(stall_limit().count()) / 1000;
    char limit[32];
    std::snprintf(limit, sizeof limit, "%g", seconds);
    run_->outcome = RunOutcome::kLivelock;
    run_->message = who + " reached no scheduling point for " + limit +
                    " s (it loops on state linfault does not control, or never returns) and was "
                    "abandoned. LINFAULT_STALL_SECONDS sets the limit";
  } else {
    run_->outcome = RunOutcome::kCrash;
    run_->message = who + ": the object crashed with " + fault_name(fault.signal);
  }
}

Executor::Executor(std::size_t stack_bytes) : impl_(std::make_unique<Impl>(stack_bytes)) {}
Executor::~Executor() = default;

void Executor::recycle(Run&& spent) { impl_->recycle(std::move(spent)); }
std::vector<std::string> Executor::weak_order_sites() const { return impl_->weak_order_sites(); }

Run Executor::execute(const ObjectFactory& factory, const Workload& workload, Scheduler& scheduler,
                      const ExecutionOptions& options) {
  return impl_->execute(factory, workload, scheduler, options);
}

Run execute(const ObjectFactory& factory, const Workload& workload, Scheduler& scheduler,
            const ExecutionOptions& options) {
  Executor executor;
  return executor.execute(factory, workload, scheduler, options);
}

}  // namespace linfault::dpct
