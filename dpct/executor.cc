#include "dpct/executor.h"

#include <algorithm>
#include <exception>
#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>
#include <unordered_map>
#include <utility>

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
#endif
#if defined(LINFAULT_FIBER_TSAN)
#include <sanitizer/tsan_interface.h>
#endif

#include "dpct/watchdog.h"
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
  explicit Impl(std::size_t stack_bytes) : allocator_(stack_bytes) { watch(&progress_); }
  ~Impl() override {
    unwatch(&progress_);
    for (ctx::stack_context& stack : stacks_) allocator_.deallocate(stack);
  }

  Run execute(const ObjectFactory& factory, const Workload& workload, Scheduler& scheduler,
              const ExecutionOptions& options);
  void recycle(Run&& spent) { spare_ = std::move(spent); }

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
    Status status = Status::kRunnable;
    const void* waiting_for = nullptr;             // the mutex a blocked thread waits for
    const std::function<bool()>* ready = nullptr;  // when a waiting thread may proceed
    std::optional<Access> last;                    // its most recent scheduling point
  };
  // An execution context: a logical thread's fiber, or (the last slot) the caller's stack.
  struct Slot {
    ctx::fiber suspended;
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
  std::size_t unwind_target() const;

  // Scheduling.
  void run_concurrent(const Workload& workload);
  void run_thread(ThreadId t);
  ThreadId decide(PointKind kind, ThreadId thread, const Access* access);
  // Waits at a scheduling point until the scheduler runs this thread again. Throws AbortRun when
  // the run is being cut short, unless `may_throw` is false (unlock, typically called from a
  // LockGuard destructor): then the thread unwinds at its next access.
  void arrive(const Access& access, bool may_throw = true);
  void pass(const Access& access);
  void sequential_point(const Access& access, bool may_throw = true);
  bool run_sequential(const std::vector<history::Call>& calls, Phase phase);
  std::uint32_t intern_file(const char* path);

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
  // Object names given so far ("node#2"), and how many objects of each type have one.
  std::unordered_map<const void*, std::string> object_names_;
  std::unordered_map<std::string, std::uint32_t> objects_of_type_;
  RunProgress progress_;  // for the stall watchdog (dpct/watchdog.h)
  Phase phase_ = Phase::kSetup;
  std::size_t sequential_op_ = 0;
  std::uint64_t sequential_steps_ = 0;
  std::uint64_t steps_ = 0;
  std::size_t decisions_hint_ = 0;  // decisions of the previous run (execute reserves room)
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
  if (from) left.suspended = std::move(from);  // empty when `left` has terminated
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
  return leave(next);
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
#if defined(LINFAULT_FIBER_TSAN)
  slots_[n].tsan_fiber = __tsan_get_current_fiber();
#endif
  for (std::size_t t = 0; t < n; ++t) {
    threads_[t].calls = &workload.threads[t];
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

  // Run every thread's local prelude up to its first scheduling point.
  priming_ = true;
  for (std::size_t t = 0; t < n && !aborting_; ++t) {
    if (threads_[t].status != Status::kFinished) switch_to(t);
  }
  priming_ = false;
  if (!aborting_) {
    ThreadId first = decide(PointKind::kStart, kNoThread, nullptr);
    if (!aborting_ && first != kNoThread) switch_to(first);
  }
  if (std::size_t target = unwind_target(); target != main_slot()) switch_to(target);

#if defined(LINFAULT_FIBER_TSAN)
  for (std::size_t t = 0; t < n; ++t) __tsan_destroy_fiber(slots_[t].tsan_fiber);
#endif
}

void Executor::Impl::run_thread(ThreadId t) {
  Thread& th = threads_[t];
  for (; th.op < th.calls->size(); ++th.op) {
    th.invoked = false;
    th.op_points = 0;
    progress_.beat(static_cast<std::int32_t>(t), &(*th.calls)[th.op], nullptr, 0);
    history::Value result = object_->invoke((*th.calls)[th.op]);
    if (!th.invoked) record_invoke(t);
    if (options_->record_history) builder_->respond(t, history::Outcome::kOk, std::move(result));
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
  if (phase_ != Phase::kConcurrent) {
    sequential_point(access, may_throw);
    return;
  }
  arrive(access, may_throw);
  if (!aborting_) pass(access);
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
    if (options_->record_history) builder_->invoke(0, call);
    try {
      history::Value result = object_->invoke(call);
      if (options_->record_history) builder_->respond(0, history::Outcome::kOk, std::move(result));
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
  file_cache_.clear();
  object_names_.clear();
  objects_of_type_.clear();
  waiters_.clear();
  offers_.clear();
  sequential_steps_ = 0;
  steps_ = 0;
  aborting_ = false;
  priming_ = false;
  error_ = nullptr;

  // The object's constructor is the user's code: its exception is a problem of the target, said
  // as such, not an internal error of the executor.
  // Watched from the constructor to the end of Pr (also when it throws).
  progress_.beat(RunProgress::kConstructor, nullptr, nullptr, 0);
  progress_.start(options.history_seed);
  struct NotRunning {
    RunProgress& progress;
    ~NotRunning() { progress.running.store(false, std::memory_order_relaxed); }
  } not_running_after{progress_};
  try {
    object_ = factory();
  } catch (const std::exception& e) {
    throw std::invalid_argument(std::string("the object's constructor threw: ") +
                                history::printable(e.what()));
  }
  if (!object_) throw std::invalid_argument("the object factory returned no object");
  scheduler.begin(RunInfo{workload.threads.size(), &workload, this});
  {
    ScopedContext installed(this);
    if (run_sequential(workload.setup, Phase::kSetup)) {
      phase_ = Phase::kConcurrent;
      run_concurrent(workload);
      if (!aborting_) run_sequential(workload.reveal, Phase::kReveal);
    }
  }
  object_.reset();  // natively: its destructor may walk its shared structure
  if (error_) std::rethrow_exception(error_);
  if (options.describe_schedule) scheduler.end(run.schedule);
  decisions_hint_ = run.schedule.decisions.size();
  run.steps = steps_;
  if (options.record_history) run.history = std::move(*builder_).build();
  return run;
}

Executor::Executor(std::size_t stack_bytes) : impl_(std::make_unique<Impl>(stack_bytes)) {}
Executor::~Executor() = default;

void Executor::recycle(Run&& spent) { impl_->recycle(std::move(spent)); }

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
