// Instrumented shared memory: the API concurrent objects under test are written against.
//
// Every access to a dpct::Atomic, dpct::AtomicFlag, dpct::Var, a lock or a condition variable is
// a *scheduling point* that carries the caller's source location. The same object source runs in
// two modes, chosen at run time per OS thread:
//   - native: no execution context is installed on the calling thread; each access is the plain
//     std::atomic operation with the memory order the caller gave (Var is a relaxed atomic so
//     that racy-by-design objects stay free of undefined behaviour), the locks are std::mutex,
//     std::shared_mutex and std::recursive_mutex, the condition variable is
//     std::condition_variable_any and Atomic::wait is std::atomic::wait. Real threads, real speed.
//     With native noise (dpct/noise.h) an observer context is installed instead: it sees each
//     access first (and may delay the thread), then the access runs natively as above.
//   - controlled: the dpct executor (dpct/executor.h) installs an ExecutionContext on the thread
//     running a logical thread; before each access the context may switch to another logical
//     thread, so a scheduler decides the interleaving. Exactly one logical thread runs at a
//     time, so by default controlled execution is SEQUENTIALLY CONSISTENT: memory orders are
//     recorded in the trace (Access::order), not simulated, and a bug that needs a weaker order
//     to show (a relaxed store seen late) is not found. Under the C++20 model (memory model
//     c11, dpct/memory_model.h) the context keeps every store of each Atomic and AtomicFlag and
//     a load may return an older one that the orders allow (ExecutionContext::weak_load): the
//     load returns that store's bytes, while memory keeps the newest. Var, the locks and the
//     condition variables order threads (lock, unlock, notify, wait) but their data reads the
//     newest value, which is what a race-free program sees.
//
// Drop-in use: Atomic and AtomicFlag have the whole interface of std::atomic<T> and
// std::atomic_flag (C++20), the locks meet Lockable / SharedLockable so std::lock_guard,
// std::unique_lock, std::scoped_lock and std::shared_lock work with them, and ConditionVariable
// is condition_variable_any-like. So an object written for std can switch with aliases:
//
//   template <class T> using atomic = linfault::dpct::Atomic<T>;
//   using mutex = linfault::dpct::Mutex;
//
//   struct Node { int value; atomic<Node*> next{nullptr}; };
//   atomic<Node*> top{nullptr};
//   void push(Node* n) {
//     Node* old = top.load(std::memory_order_relaxed);
//     do { n->next.store(old, std::memory_order_relaxed); }
//     while (!top.compare_exchange_weak(old, n, std::memory_order_release,
//                                       std::memory_order_relaxed));
//   }
//
// Source locations are captured by a trailing `SourceLocation where = SourceLocation::current()`
// default argument after the std parameters, so objects never pass them explicitly. Limitations:
//   - An operator (`x = v`, `T v = x`, `++x`, `x += d`, ...) cannot take a default argument: it
//     is still a scheduling point with the right access kind and order, but its location is the
//     member call inside the operator, in this header. A source rewriter that turns operator uses
//     into member calls restores the caller's line.
//   - A lock taken through std::lock_guard & co. records the line in the standard header that
//     calls lock()/unlock(); dpct::LockGuard records the caller's line.
//
// Controlled-mode semantics of the blocking members (see dpct/executor.h):
//   - A thread that cannot take a lock is disabled until it can; if every unfinished thread is
//     disabled the executor reports a deadlock.
//   - compare_exchange_weak never fails spuriously: it behaves like compare_exchange_strong.
//     Under the C++20 model a failed compare-exchange may read an older store, never one equal to
//     `expected`; a successful one reads the newest (a compare-exchange that could succeed never
//     fails by reading an older store: an outcome not explored).
//   - Atomic::wait(old) and AtomicFlag::wait(old) return at once when the value differs from
//     `old`; otherwise the thread is disabled until a notify_one/notify_all on the same object
//     wakes it, and then re-checks the value (waiting again while it still equals `old`). A store
//     without a notify wakes nobody, as with std (a missing notify is a deadlock). There are no
//     spurious wake-ups.
//   - ConditionVariable::wait releases the lock, is disabled until notified, and re-locks. No
//     spurious wake-ups. notify_one wakes ONE of the threads waiting at the time of the call, and
//     which one is a schedule choice: every such waiter is enabled until one of them runs.
//     wait_for/wait_until never block: the timeout may expire at any scheduling point, so
//     whether the waiter times out or is notified first is a schedule choice.
//
// The structure-tree extractor (structure_tree/) recognizes exactly the members declared here
// as shared-memory instructions; keep that list and this header in step.
//
// Thread-safety: Atomic, AtomicFlag, the locks and ConditionVariable are safe to use from several
// threads in both modes. Var is meant for fields written under a lock or racy by design; in
// native mode it is a relaxed atomic.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_DPCT_SHARED_H_
#define LINFAULT_DPCT_SHARED_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <mutex>
#include <shared_mutex>
#include <source_location>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>

namespace linfault::dpct {

using SourceLocation = std::source_location;

enum class AccessKind : std::uint8_t {
  kLoad,
  kStore,
  kExchange,
  kCompareExchange,
  kFetchAdd,
  kFetchSub,
  kLock,
  kTryLock,
  kUnlock,
  kYield,  // a spin/yield hint: the thread waits for others to make progress
  kFetchAnd,
  kFetchOr,
  kFetchXor,
  kWait,  // Atomic/AtomicFlag::wait, ConditionVariable::wait*
  kNotifyOne,
  kNotifyAll,
  kLockShared,
  kTryLockShared,
  kUnlockShared,
};
const char* access_kind_name(AccessKind kind);

// Whether an access can change shared memory: a store, exchange, compare-exchange (which may
// fail: the kind alone cannot tell) or fetch-and-modify. Locks, waits and notifications only
// order threads.
constexpr bool modifies_memory(AccessKind kind) {
  switch (kind) {
    case AccessKind::kStore:
    case AccessKind::kExchange:
    case AccessKind::kCompareExchange:
    case AccessKind::kFetchAdd:
    case AccessKind::kFetchSub:
    case AccessKind::kFetchAnd:
    case AccessKind::kFetchOr:
    case AccessKind::kFetchXor:
      return true;
    default:
      return false;
  }
}

// Whether an access takes (or tries to take) a lock, exclusive or shared.
constexpr bool acquires_lock(AccessKind kind) {
  return kind == AccessKind::kLock || kind == AccessKind::kTryLock ||
         kind == AccessKind::kLockShared || kind == AccessKind::kTryLockShared;
}
// "relaxed", "consume", "acquire", "release", "acq_rel", "seq_cst".
const char* memory_order_name(std::memory_order order);

// The failure order std gives a compare-exchange called with the single order `success`.
constexpr std::memory_order failure_order_of(std::memory_order success) {
  if (success == std::memory_order_acq_rel) return std::memory_order_acquire;
  if (success == std::memory_order_release) return std::memory_order_relaxed;
  return success;
}

// One instrumented access as the executor sees it.
struct Access {
  AccessKind kind;
  const void* address;  // the shared variable, lock or condition; nullptr for kYield
  SourceLocation where;
  // The memory order the caller gave (seq_cst for locks, Var and members without one); for a
  // compare-exchange, the success order, and `failure_order` the order of a failed one.
  std::memory_order order = std::memory_order_seq_cst;
  std::memory_order failure_order = std::memory_order_seq_cst;
};

// Implemented by the controlled executor. Installed per OS thread while a logical thread runs.
// An *observer* context (dpct/noise.h) is installed on a native thread instead: it is told of
// every access through before_access, but the thread keeps running natively (its locks, waits
// and notifications are the std ones) and none of the blocking members below is called.
class ExecutionContext {
 public:
  ExecutionContext() = default;
  virtual ~ExecutionContext() = default;
  bool observer() const { return observer_; }
  // A scheduling point, called before the access executes. May switch logical threads.
  virtual void before_access(const Access& access) = 0;
  // Called after a load/store/RMW executed, with the value read and the value written rendered
  // as text (only when want_values() is true), for step-by-step interleaving reports.
  virtual bool want_values() const { return false; }
  virtual void after_access(const Access& /*access*/, const std::string& /*read*/,
                            const std::string& /*written*/, bool /*success*/) {}
  // Controlled-mode state of the lock at `mutex` (Mutex: held; SharedMutex: writer, readers;
  // RecursiveMutex: owner, depth), zero for a lock not seen before. It lives here, not in the
  // lock, so that each lock type has its std type's size and bytes (std::mutex is all a Mutex
  // holds). The executor forgets every state when an execution begins: a run cut short may
  // leave a lock held at an address the next execution's object reuses.
  struct LockState {
    bool held = false;
    bool writer = false;
    std::uint32_t readers = 0;
    std::uint64_t owner = 0;  // logical_thread() + 1 of a recursive mutex's holder
    std::uint32_t depth = 0;
  };
  LockState& lock_state(const void* mutex) { return lock_states_[mutex]; }
  // Blocks the current logical thread until `mutex` is free, then takes it (controlled mode).
  virtual void lock(const void* mutex, bool& held, const SourceLocation& where) = 0;
  virtual bool try_lock(const void* mutex, bool& held, const SourceLocation& where) = 0;
  virtual void unlock(const void* mutex, bool& held, const SourceLocation& where) = 0;

  // Blocking primitives for the other lock and wait types. `access` is the point the thread
  // blocks at; it has passed before_access already. Contexts without other threads (this
  // default) return when nothing would block and throw std::logic_error otherwise.
  //
  // Disables the current logical thread until `ready()` is true. The executor evaluates `ready`
  // (which must only read controlled-mode state) at every scheduling decision.
  virtual void block_until(const Access& access, const std::function<bool()>& ready);
  // Wait on address: registers the current logical thread as a waiter on `address` and returns
  // its ticket. Registering is separate from blocking so that a condition variable can register
  // before it releases its lock (no lost wake-up).
  virtual std::uint64_t enqueue_waiter(const void* address);
  // Disables the current logical thread until `ticket` is woken by notify().
  virtual void await_notify(const Access& access, std::uint64_t ticket);
  // Wakes every waiter on `address` (all) or one of them, chosen by the schedule.
  virtual void notify(const void* /*address*/, bool /*all*/) {}
  // True once `ticket` was woken (for timed waits, which never block).
  virtual bool notified(std::uint64_t /*ticket*/) { return false; }
  // Leaves the wait queue without having been woken (a timed wait that timed out).
  virtual void cancel_waiter(std::uint64_t /*ticket*/) {}
  // An id of the running logical thread, unique within an execution (recursive locks).
  virtual std::uint64_t logical_thread() const { return 0; }

  // Weak memory (dpct/memory_model.h): whether this context runs a C++20-model execution. Then
  // Atomic<T> and AtomicFlag tell it every access after it executed in memory, with the
  // location's bytes, through the three members below; otherwise they never call them.
  bool weak_memory() const { return weak_memory_; }
  // A load of `size` bytes at access.address (a load, a wait's load, a failed compare-exchange)
  // whose bytes in memory are `current`: writes into `out` (which may be `current`) the bytes of
  // the store it reads, a schedule decision. For a failed compare-exchange, `expected` holds the
  // bytes it compared with (a stale store holding them cannot be read).
  virtual void weak_load(const Access& access, std::size_t size, const void* current, void* out,
                         const void* expected = nullptr);
  // A store of `written` that replaced `before`, and a read-modify-write that read `before` (the
  // newest store) and wrote `written`.
  virtual void weak_store(const Access& access, std::size_t size, const void* before,
                          const void* written);
  virtual void weak_read_modify_write(const Access& access, std::size_t size, const void* before,
                                      const void* written);
  // An atomic object is constructed at `address`: a new location, which must not offer the
  // stores of a dead object the memory held before.
  virtual void weak_construct(const void* address);
  // std::atomic_thread_fence(order) (dpct::atomic_thread_fence); called in every mode, and
  // ignored outside the C++20 model.
  virtual void fence(std::memory_order /*order*/, const SourceLocation& /*where*/) {}
  // A lock type that took (`acquire`) or is releasing the lock at `object`: under the C++20 model
  // every unlock synchronizes with the next lock of the same object. Ignored outside it.
  virtual void synchronize(const void* /*object*/, bool /*acquire*/) {}
  // The name a report gives the object at `address` (never null), whose type render_value
  // names `type` ("node"). Called only while values are rendered (want_values()). The executor
  // numbers objects in the order it first sees them in an execution, so that two executions of
  // one schedule print the same names; this default is native_object_name.
  virtual std::string object_name(const void* address, const std::string& type);

 protected:
  explicit ExecutionContext(bool observer) : observer_(observer) {}
  void forget_lock_states() { lock_states_.clear(); }
  void set_weak_memory(bool on) { weak_memory_ = on; }

 private:
  bool observer_ = false;
  bool weak_memory_ = false;
  // Node-based: a LockState& stays valid while other locks are added (block_until's predicates
  // hold one).
  std::unordered_map<const void*, LockState> lock_states_;
};

// The short lower-case name of the type whose pointer type is `pointer_type`, for object
// names: the last component of the demangled pointee name, template arguments and qualifiers
// dropped, CamelCase turned into snake_case ("linfault::targets::StackNode<int>*" ->
// "stack_node"); "obj" for void and when nothing usable is left.
std::string object_type_name(const std::type_info& pointer_type);

// The name of an object outside a controlled execution: its type and address ("node@0x5581e0"),
// readable but different from process to process.
std::string native_object_name(const void* address, const std::string& type);

namespace detail {
// The context installed on this OS thread, or nullptr in native mode.
inline thread_local ExecutionContext* current_context = nullptr;

// object_type_name of T*, computed once per T. typeid of a pointer is valid for incomplete T.
template <class T>
const std::string& object_type_label() {
  static const std::string label = object_type_name(typeid(std::remove_cv_t<T>*));
  return label;
}
}  // namespace detail

// A value as the interleaving reports print it: true/false, integers in decimal, a null pointer
// "null", any other object pointer the name of its object, given by the execution context
// (ExecutionContext::object_name: "node#2" under the controlled executor), or natively
// native_object_name. A type of the object under test may define
// `std::string linfault_render(const T&)`, found by argument-dependent lookup (a hidden friend), to
// show its values, typically by calling render_value on its parts; anything else is "?".
template <class T>
std::string render_value(const T& v) {
  if constexpr (requires { linfault_render(v); }) {
    return linfault_render(v);
  } else if constexpr (std::is_same_v<T, bool>) {
    return v ? "true" : "false";
  } else if constexpr (std::is_integral_v<T>) {
    return std::to_string(v);
  } else if constexpr (std::is_pointer_v<T> && !std::is_function_v<std::remove_pointer_t<T>>) {
    if (v == nullptr) return "null";
    const void* address = const_cast<const void*>(static_cast<const volatile void*>(v));
    const std::string& type = detail::object_type_label<std::remove_pointer_t<T>>();
    if (ExecutionContext* c = detail::current_context) return c->object_name(address, type);
    return native_object_name(address, type);
  } else {
    return "?";
  }
}

namespace detail {

// A scheduling point in controlled mode; nothing natively.
inline void point(AccessKind kind, const void* address, const SourceLocation& where,
                  std::memory_order order = std::memory_order_seq_cst) {
  if (ExecutionContext* c = current_context) c->before_access({kind, address, where, order});
}

// For the members that block or wake (locks, waits, notifications): the context that schedules
// this thread, or nullptr when it runs natively. An observer is told of `access` here and
// nullptr is returned, so the caller then takes the native path.
inline ExecutionContext* controller(const Access& access) {
  ExecutionContext* c = current_context;
  if (c != nullptr && c->observer()) {
    c->before_access(access);
    return nullptr;
  }
  return c;
}

// The context of a C++20-model execution, or nullptr (sequentially consistent or native).
inline ExecutionContext* weak_context() {
  ExecutionContext* c = current_context;
  return c != nullptr && c->weak_memory() ? c : nullptr;
}

// Under a C++20-model execution: a new atomic object lives at `address`, so memory reused for it
// must not offer the stores of the dead object, even when the new one starts with the old bytes.
constexpr void new_location(const void* address) {
  if (!std::is_constant_evaluated()) {
    if (ExecutionContext* c = weak_context()) c->weak_construct(address);
  }
}

// Records the outcome of a lock-like access (try_lock's success) in controlled mode.
inline void point_done(AccessKind kind, const void* address, const SourceLocation& where,
                       bool success) {
  if (ExecutionContext* c = current_context; c && c->want_values()) {
    c->after_access({kind, address, where}, "", "", success);
  }
}
}  // namespace detail

// Installs `context` on the calling OS thread for the lifetime of the guard.
class ScopedContext {
 public:
  explicit ScopedContext(ExecutionContext* context) : saved_(detail::current_context) {
    detail::current_context = context;
  }
  ~ScopedContext() { detail::current_context = saved_; }
  ScopedContext(const ScopedContext&) = delete;
  ScopedContext& operator=(const ScopedContext&) = delete;

 private:
  ExecutionContext* saved_;
};

// A shared atomic variable with the interface of std::atomic<T> (C++20). T must be trivially
// copyable (pointers, integers, floating point, small structs). Arithmetic members exist for
// integers (fetch_add/sub/and/or/xor), floating point (fetch_add/sub) and object pointers
// (fetch_add/sub by std::ptrdiff_t), as for std::atomic. Every member is a scheduling point.
template <class T>
class Atomic {
  static_assert(std::is_trivially_copyable_v<T>);
  static constexpr bool kIntegral = std::is_integral_v<T> && !std::is_same_v<T, bool>;
  static constexpr bool kFloating = std::is_floating_point_v<T>;
  static constexpr bool kPointer =
      std::is_pointer_v<T> && std::is_object_v<std::remove_pointer_t<T>>;
  static constexpr bool kArithmetic = kIntegral || kFloating || kPointer;
  static constexpr std::memory_order kSeqCst = std::memory_order_seq_cst;

 public:
  using value_type = T;
  // std::atomic has it for integers, floating point and pointers only; here it always exists.
  using difference_type = std::conditional_t<std::is_pointer_v<T>, std::ptrdiff_t, T>;

  static constexpr bool is_always_lock_free = std::atomic<T>::is_always_lock_free;

  // Construction leaves the value's bytes as std::atomic<T>'s does: `Atomic<T> a;` and
  // `Atomic<T> a{};` run std::atomic<T>'s default member initializer, T() in place (zero for a
  // trivial T, padding included; a user-provided constructor that sets nothing keeps the bytes
  // already there, as Boost.Lockfree's tagged pointers over recycled nodes expect). Not a
  // scheduling point. Under the C++20 model the address becomes a location never seen before
  // (detail::new_location). User-provided, not defaulted: a defaulted one cannot tell the model,
  // and an empty base that does makes GCC zero a value-initialized T's fields before T() runs,
  // unlike std::atomic.
  constexpr Atomic() noexcept { detail::new_location(this); }
  // Implicit, like std::atomic's, so `Atomic<int> x = 0;` compiles. Not a scheduling point.
  constexpr Atomic(T initial) noexcept : value_(initial) {  // NOLINT(google-explicit-constructor)
    detail::new_location(this);
  }
  Atomic(const Atomic&) = delete;
  Atomic& operator=(const Atomic&) = delete;

  bool is_lock_free() const noexcept { return value_.is_lock_free(); }

  T load(std::memory_order order = kSeqCst,
         SourceLocation where = SourceLocation::current()) const {
    before(AccessKind::kLoad, where, order);
    T v = value_.load(order);
    if (ExecutionContext* c = detail::weak_context()) {
      c->weak_load({AccessKind::kLoad, this, where, order}, sizeof(T), &v, &v);
    }
    after(AccessKind::kLoad, where, v, v, true);
    return v;
  }
  T load(SourceLocation where) const { return load(kSeqCst, where); }

  void store(T desired, std::memory_order order = kSeqCst,
             SourceLocation where = SourceLocation::current()) {
    before(AccessKind::kStore, where, order);
    if (ExecutionContext* c = detail::weak_context()) {
      T old = value_.exchange(desired, order);
      c->weak_store({AccessKind::kStore, this, where, order}, sizeof(T), &old, &desired);
      after(AccessKind::kStore, where, old, desired, true);
    } else if (wants_values()) {
      T old = value_.exchange(desired, order);
      after(AccessKind::kStore, where, old, desired, true);
    } else {
      value_.store(desired, order);
    }
  }
  void store(T desired, SourceLocation where) { store(desired, kSeqCst, where); }

  T exchange(T desired, std::memory_order order = kSeqCst,
             SourceLocation where = SourceLocation::current()) {
    before(AccessKind::kExchange, where, order);
    T old = value_.exchange(desired, order);
    modified(AccessKind::kExchange, where, order, old, desired);
    return old;
  }
  T exchange(T desired, SourceLocation where) { return exchange(desired, kSeqCst, where); }

  // Never fails spuriously (see the header comment): the same as compare_exchange_strong.
  bool compare_exchange_weak(T& expected, T desired, std::memory_order success,
                             std::memory_order failure,
                             SourceLocation where = SourceLocation::current()) {
    return cas(expected, desired, success, failure, where);
  }
  bool compare_exchange_weak(T& expected, T desired, std::memory_order order = kSeqCst,
                             SourceLocation where = SourceLocation::current()) {
    return cas(expected, desired, order, failure_order_of(order), where);
  }
  // Fails only when the value differs from `expected`, which then receives it.
  bool compare_exchange_strong(T& expected, T desired, std::memory_order success,
                               std::memory_order failure,
                               SourceLocation where = SourceLocation::current()) {
    return cas(expected, desired, success, failure, where);
  }
  bool compare_exchange_strong(T& expected, T desired, std::memory_order order = kSeqCst,
                               SourceLocation where = SourceLocation::current()) {
    return cas(expected, desired, order, failure_order_of(order), where);
  }
  // linfault's original spelling of compare_exchange_strong.
  bool compare_exchange(T& expected, T desired, SourceLocation where = SourceLocation::current()) {
    return cas(expected, desired, kSeqCst, kSeqCst, where);
  }

  T fetch_add(difference_type delta, std::memory_order order = kSeqCst,
              SourceLocation where = SourceLocation::current()) requires kArithmetic {
    before(AccessKind::kFetchAdd, where, order);
    T old = value_.fetch_add(delta, order);
    modified(AccessKind::kFetchAdd, where, order, old, plus(old, delta));
    return old;
  }
  T fetch_add(difference_type delta, SourceLocation where) requires kArithmetic {
    return fetch_add(delta, kSeqCst, where);
  }
  T fetch_sub(difference_type delta, std::memory_order order = kSeqCst,
              SourceLocation where = SourceLocation::current()) requires kArithmetic {
    before(AccessKind::kFetchSub, where, order);
    T old = value_.fetch_sub(delta, order);
    modified(AccessKind::kFetchSub, where, order, old, minus(old, delta));
    return old;
  }
  T fetch_sub(difference_type delta, SourceLocation where) requires kArithmetic {
    return fetch_sub(delta, kSeqCst, where);
  }
  T fetch_and(T mask, std::memory_order order = kSeqCst,
              SourceLocation where = SourceLocation::current()) requires kIntegral {
    before(AccessKind::kFetchAnd, where, order);
    T old = value_.fetch_and(mask, order);
    modified(AccessKind::kFetchAnd, where, order, old, static_cast<T>(old & mask));
    return old;
  }
  T fetch_or(T mask, std::memory_order order = kSeqCst,
             SourceLocation where = SourceLocation::current()) requires kIntegral {
    before(AccessKind::kFetchOr, where, order);
    T old = value_.fetch_or(mask, order);
    modified(AccessKind::kFetchOr, where, order, old, static_cast<T>(old | mask));
    return old;
  }
  T fetch_xor(T mask, std::memory_order order = kSeqCst,
              SourceLocation where = SourceLocation::current()) requires kIntegral {
    before(AccessKind::kFetchXor, where, order);
    T old = value_.fetch_xor(mask, order);
    modified(AccessKind::kFetchXor, where, order, old, static_cast<T>(old ^ mask));
    return old;
  }

  // Blocks while the value equals `old` (compared as bytes, like std). Controlled mode: see the
  // header comment; natively std::atomic::wait.
  void wait(T old, std::memory_order order = kSeqCst,
            SourceLocation where = SourceLocation::current()) const {
    const Access access{AccessKind::kWait, this, where, order};
    ExecutionContext* c = detail::controller(access);
    if (c == nullptr) {
      value_.wait(old, order);
      return;
    }
    c->before_access(access);
    // Under the C++20 model a wait's load reads the newest store: a stale read equal to `old`
    // after the notify would block for ever, which std::atomic::wait does not.
    auto read = [&] {
      T v = value_.load(order);
      if (c->weak_memory()) c->weak_load(access, sizeof(T), &v, &v);
      return v;
    };
    T now = read();
    while (same_bytes(now, old)) {
      c->await_notify(access, c->enqueue_waiter(this));
      now = read();
    }
    after(AccessKind::kWait, where, now, now, true);
  }
  void notify_one(SourceLocation where = SourceLocation::current()) {
    notify(AccessKind::kNotifyOne, where);
  }
  void notify_all(SourceLocation where = SourceLocation::current()) {
    notify(AccessKind::kNotifyAll, where);
  }

  // Operators: scheduling points whose location is the member call inside them (see above).
  T operator=(T desired) {  // NOLINT(misc-unconventional-assign-operator): std's signature
    store(desired);
    return desired;
  }
  operator T() const { return load(); }  // NOLINT(google-explicit-constructor)
  T operator++() requires kArithmetic { return plus(fetch_add(1), 1); }
  T operator++(int) requires kArithmetic { return fetch_add(1); }
  T operator--() requires kArithmetic { return minus(fetch_sub(1), 1); }
  T operator--(int) requires kArithmetic { return fetch_sub(1); }
  T operator+=(difference_type delta) requires kArithmetic { return plus(fetch_add(delta), delta); }
  T operator-=(difference_type delta) requires kArithmetic {
    return minus(fetch_sub(delta), delta);
  }
  T operator&=(T mask) requires kIntegral { return static_cast<T>(fetch_and(mask) & mask); }
  T operator|=(T mask) requires kIntegral { return static_cast<T>(fetch_or(mask) | mask); }
  T operator^=(T mask) requires kIntegral { return static_cast<T>(fetch_xor(mask) ^ mask); }

  // Not a scheduling point: for construction and single-threaded inspection (tests, setup).
  T unsafe_peek() const { return value_.load(std::memory_order_relaxed); }

 private:
  // old + delta and old - delta as the atomic computes them (integers wrap around).
  static T plus(T old, difference_type delta) {
    if constexpr (kIntegral) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(old) + static_cast<U>(delta));
    } else {
      return old + delta;
    }
  }
  static T minus(T old, difference_type delta) {
    if constexpr (kIntegral) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(old) - static_cast<U>(delta));
    } else {
      return old - delta;
    }
  }
  static bool same_bytes(const T& a, const T& b) { return std::memcmp(&a, &b, sizeof(T)) == 0; }

  bool cas(T& expected, T desired, std::memory_order success, std::memory_order failure,
           const SourceLocation& where) {
    if (ExecutionContext* c = detail::current_context) {
      c->before_access({AccessKind::kCompareExchange, this, where, success, failure});
    }
    const T wanted = expected;
    bool ok = value_.compare_exchange_strong(expected, desired, success, failure);
    if (ExecutionContext* c = detail::weak_context()) {
      // A success reads the newest store; a failure is a load that may read an older one, but
      // not a stale store holding `wanted` (that read would have succeeded).
      if (ok) {
        c->weak_read_modify_write({AccessKind::kCompareExchange, this, where, success, failure},
                                  sizeof(T), &wanted, &desired);
      } else {
        c->weak_load({AccessKind::kCompareExchange, this, where, failure, failure}, sizeof(T),
                     &expected, &expected, &wanted);
      }
    }
    after(AccessKind::kCompareExchange, where, ok ? wanted : expected, ok ? desired : expected, ok);
    return ok;
  }
  void notify(AccessKind kind, const SourceLocation& where) {
    if (ExecutionContext* c = detail::controller({kind, this, where})) {
      c->before_access({kind, this, where});
      c->notify(this, kind == AccessKind::kNotifyAll);
    } else if (kind == AccessKind::kNotifyAll) {
      value_.notify_all();
    } else {
      value_.notify_one();
    }
  }
  void before(AccessKind kind, const SourceLocation& where, std::memory_order order) const {
    if (ExecutionContext* c = detail::current_context) c->before_access({kind, this, where, order});
  }
  static bool wants_values() {
    ExecutionContext* c = detail::current_context;
    return c != nullptr && c->want_values();
  }
  // After a read-modify-write that read `old` and wrote `written`.
  void modified(AccessKind kind, const SourceLocation& where, std::memory_order order, const T& old,
                const T& written) {
    if (ExecutionContext* c = detail::weak_context()) {
      c->weak_read_modify_write({kind, this, where, order}, sizeof(T), &old, &written);
    }
    after(kind, where, old, written, true);
  }
  void after(AccessKind kind, const SourceLocation& where, const T& read, const T& written,
             bool success) const {
    if (ExecutionContext* c = detail::current_context; c && c->want_values()) {
      c->after_access({kind, this, where}, render_value(read), render_value(written), success);
    }
  }

  std::atomic<T> value_;
};

// A shared flag with the interface of std::atomic_flag (C++20). Every member is a scheduling
// point: test_and_set is an exchange, clear a store, test a load.
class AtomicFlag {
 public:
  // A clear flag; under the C++20 model a location never seen before (detail::new_location).
  constexpr AtomicFlag() noexcept { detail::new_location(this); }
  // For `AtomicFlag f = ATOMIC_FLAG_INIT;` (libstdc++ spells it `{ 0 }`): a clear flag.
  constexpr AtomicFlag(int clear) noexcept {  // NOLINT(google-explicit-constructor)
    (void)clear;
    detail::new_location(this);
  }
  AtomicFlag(const AtomicFlag&) = delete;
  AtomicFlag& operator=(const AtomicFlag&) = delete;

  bool test(std::memory_order order = std::memory_order_seq_cst,
            SourceLocation where = SourceLocation::current()) const {
    detail::point(AccessKind::kLoad, this, where, order);
    bool v = flag_.test(order);
    if (ExecutionContext* c = detail::weak_context()) {
      c->weak_load({AccessKind::kLoad, this, where, order}, sizeof(bool), &v, &v);
    }
    after(AccessKind::kLoad, where, v, v);
    return v;
  }
  bool test_and_set(std::memory_order order = std::memory_order_seq_cst,
                    SourceLocation where = SourceLocation::current()) {
    detail::point(AccessKind::kExchange, this, where, order);
    const bool old = flag_.test_and_set(order);
    if (ExecutionContext* c = detail::weak_context()) {
      const bool set = true;
      c->weak_read_modify_write({AccessKind::kExchange, this, where, order}, sizeof(bool), &old,
                                &set);
    }
    after(AccessKind::kExchange, where, old, true);
    return old;
  }
  void clear(std::memory_order order = std::memory_order_seq_cst,
             SourceLocation where = SourceLocation::current()) {
    detail::point(AccessKind::kStore, this, where, order);
    const bool old = flag_.test(std::memory_order_relaxed);
    flag_.clear(order);
    if (ExecutionContext* c = detail::weak_context()) {
      const bool cleared = false;
      c->weak_store({AccessKind::kStore, this, where, order}, sizeof(bool), &old, &cleared);
    }
    after(AccessKind::kStore, where, old, false);
  }
  // Blocks while the flag equals `old` (see the header comment for controlled mode).
  void wait(bool old, std::memory_order order = std::memory_order_seq_cst,
            SourceLocation where = SourceLocation::current()) const {
    const Access access{AccessKind::kWait, this, where, order};
    ExecutionContext* c = detail::controller(access);
    if (c == nullptr) {
      flag_.wait(old, order);
      return;
    }
    c->before_access(access);
    auto read = [&] {
      bool v = flag_.test(order);
      if (c->weak_memory()) c->weak_load(access, sizeof(bool), &v, &v);
      return v;
    };
    while (read() == old) c->await_notify(access, c->enqueue_waiter(this));
    after(AccessKind::kWait, where, !old, !old);
  }
  void notify_one(SourceLocation where = SourceLocation::current()) {
    if (ExecutionContext* c = detail::controller({AccessKind::kNotifyOne, this, where})) {
      c->before_access({AccessKind::kNotifyOne, this, where});
      c->notify(this, false);
    } else {
      flag_.notify_one();
    }
  }
  void notify_all(SourceLocation where = SourceLocation::current()) {
    if (ExecutionContext* c = detail::controller({AccessKind::kNotifyAll, this, where})) {
      c->before_access({AccessKind::kNotifyAll, this, where});
      c->notify(this, true);
    } else {
      flag_.notify_all();
    }
  }

 private:
  void after(AccessKind kind, const SourceLocation& where, bool read, bool written) const {
    if (ExecutionContext* c = detail::current_context; c && c->want_values()) {
      c->after_access({kind, this, where}, render_value(read), render_value(written), true);
    }
  }

  std::atomic_flag flag_;
};

// A plain shared variable: a field that is written under a lock, or read racily by design (the
// bug being studied). Each access is still a scheduling point in controlled mode.
template <class T>
class Var {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  Var() : value_(T{}) {}
  explicit Var(T initial) : value_(initial) {}
  Var(const Var&) = delete;
  Var& operator=(const Var&) = delete;

  T load(SourceLocation where = SourceLocation::current()) const {
    if (ExecutionContext* c = detail::current_context)
      c->before_access({AccessKind::kLoad, this, where});
    T v = value_.load(std::memory_order_relaxed);
    if (ExecutionContext* c = detail::current_context; c && c->want_values()) {
      c->after_access({AccessKind::kLoad, this, where}, render_value(v), render_value(v), true);
    }
    return v;
  }
  void store(T desired, SourceLocation where = SourceLocation::current()) {
    if (ExecutionContext* c = detail::current_context)
      c->before_access({AccessKind::kStore, this, where});
    T old = value_.exchange(desired, std::memory_order_relaxed);
    if (ExecutionContext* c = detail::current_context; c && c->want_values()) {
      c->after_access({AccessKind::kStore, this, where}, render_value(old), render_value(desired),
                      true);
    }
  }
  T unsafe_peek() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<T> value_;
};

// A mutex (Lockable: std::lock_guard, std::unique_lock, std::scoped_lock work with it). In
// controlled mode, a thread blocked on it is disabled until the holder unlocks; if every thread
// is blocked the executor reports a deadlock.
class Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void lock(SourceLocation where = SourceLocation::current()) {
    if (ExecutionContext* c = detail::controller({AccessKind::kLock, this, where})) {
      c->lock(this, c->lock_state(this).held, where);
    } else {
      native_.lock();
    }
  }
  bool try_lock(SourceLocation where = SourceLocation::current()) {
    if (ExecutionContext* c = detail::controller({AccessKind::kTryLock, this, where})) {
      return c->try_lock(this, c->lock_state(this).held, where);
    }
    return native_.try_lock();
  }
  void unlock(SourceLocation where = SourceLocation::current()) {
    if (ExecutionContext* c = detail::controller({AccessKind::kUnlock, this, where})) {
      c->unlock(this, c->lock_state(this).held, where);
    } else {
      native_.unlock();
    }
  }

 private:
  std::mutex native_;  // all it holds: controlled mode keeps its state in the context
};

// A readers-writer lock with std::shared_mutex's interface (SharedLockable: std::shared_lock
// works with it). In controlled mode a writer waits until no thread holds the lock and a reader
// until no writer holds it; a blocked thread is disabled until it can proceed. Waiting writers
// do not hold readers back (no writer preference), which std leaves unspecified.
class SharedMutex {
 public:
  SharedMutex() = default;
  SharedMutex(const SharedMutex&) = delete;
  SharedMutex& operator=(const SharedMutex&) = delete;

  void lock(SourceLocation where = SourceLocation::current());
  bool try_lock(SourceLocation where = SourceLocation::current());
  void unlock(SourceLocation where = SourceLocation::current());
  void lock_shared(SourceLocation where = SourceLocation::current());
  bool try_lock_shared(SourceLocation where = SourceLocation::current());
  void unlock_shared(SourceLocation where = SourceLocation::current());

 private:
  std::shared_mutex native_;  // all it holds (ExecutionContext::lock_state)
};

// A mutex its holder may lock again (std::recursive_mutex's interface); each lock needs its
// unlock. Every call is a scheduling point; in controlled mode a thread waiting for another
// holder is disabled until the lock is free.
class RecursiveMutex {
 public:
  RecursiveMutex() = default;
  RecursiveMutex(const RecursiveMutex&) = delete;
  RecursiveMutex& operator=(const RecursiveMutex&) = delete;

  void lock(SourceLocation where = SourceLocation::current());
  bool try_lock(SourceLocation where = SourceLocation::current());
  void unlock(SourceLocation where = SourceLocation::current());

 private:
  std::recursive_mutex native_;  // all it holds (ExecutionContext::lock_state)
};

// RAII lock that records the caller's line (std::lock_guard would record <mutex>'s).
class LockGuard {
 public:
  explicit LockGuard(Mutex& m, SourceLocation where = SourceLocation::current())
      : mutex_(m), where_(where) {
    mutex_.lock(where_);
  }
  ~LockGuard() { mutex_.unlock(where_); }
  LockGuard(const LockGuard&) = delete;
  LockGuard& operator=(const LockGuard&) = delete;

 private:
  Mutex& mutex_;
  SourceLocation where_;
};

// A condition variable for any BasicLockable lock (std::condition_variable_any's interface:
// std::unique_lock<dpct::Mutex> is the usual one). Controlled-mode semantics are in the header
// comment: no spurious wake-ups, notify_one's choice of waiter and timeouts are schedule choices.
// wait/notify are scheduling points (kind kWait, kNotifyOne, kNotifyAll), and so are the
// unlock and re-lock inside a wait.
class ConditionVariable {
 public:
  ConditionVariable() = default;
  ConditionVariable(const ConditionVariable&) = delete;
  ConditionVariable& operator=(const ConditionVariable&) = delete;

  void notify_one(SourceLocation where = SourceLocation::current()) {
    notify(AccessKind::kNotifyOne, where);
  }
  void notify_all(SourceLocation where = SourceLocation::current()) {
    notify(AccessKind::kNotifyAll, where);
  }

  template <class Lock>
  void wait(Lock& lock, SourceLocation where = SourceLocation::current()) {
    const Access access{AccessKind::kWait, this, where};
    ExecutionContext* c = detail::controller(access);
    if (c == nullptr) {
      native_.wait(lock);
      return;
    }
    c->before_access(access);
    const std::uint64_t ticket = c->enqueue_waiter(this);
    unlock_at(lock, where);
    c->await_notify(access, ticket);
    lock_at(lock, where);
  }
  template <class Lock, class Predicate>
  void wait(Lock& lock, Predicate stop_waiting, SourceLocation where = SourceLocation::current()) {
    while (!stop_waiting()) wait(lock, where);
  }

  template <class Lock, class Clock, class Duration>
  std::cv_status wait_until(Lock& lock, const std::chrono::time_point<Clock, Duration>& deadline,
                            SourceLocation where = SourceLocation::current()) {
    if (detail::controller({AccessKind::kWait, this, where}) == nullptr) {
      return native_.wait_until(lock, deadline);
    }
    return timed_wait(lock, where);
  }
  template <class Lock, class Clock, class Duration, class Predicate>
  bool wait_until(Lock& lock, const std::chrono::time_point<Clock, Duration>& deadline,
                  Predicate stop_waiting, SourceLocation where = SourceLocation::current()) {
    while (!stop_waiting()) {
      if (wait_until(lock, deadline, where) == std::cv_status::timeout) return stop_waiting();
    }
    return true;
  }
  template <class Lock, class Rep, class Period>
  std::cv_status wait_for(Lock& lock, const std::chrono::duration<Rep, Period>& timeout,
                          SourceLocation where = SourceLocation::current()) {
    if (detail::controller({AccessKind::kWait, this, where}) == nullptr) {
      return native_.wait_for(lock, timeout);
    }
    return timed_wait(lock, where);
  }
  template <class Lock, class Rep, class Period, class Predicate>
  bool wait_for(Lock& lock, const std::chrono::duration<Rep, Period>& timeout,
                Predicate stop_waiting, SourceLocation where = SourceLocation::current()) {
    return wait_until(lock, std::chrono::steady_clock::now() + timeout, std::move(stop_waiting),
                      where);
  }

 private:
  // Controlled mode: the waiter stays enabled (the timeout may expire at any point); it returns
  // no_timeout when a notify woke it before it was scheduled again.
  template <class Lock>
  std::cv_status timed_wait(Lock& lock, const SourceLocation& where) {
    ExecutionContext& c = *detail::current_context;
    c.before_access({AccessKind::kWait, this, where});
    const std::uint64_t ticket = c.enqueue_waiter(this);
    unlock_at(lock, where);
    c.before_access({AccessKind::kYield, nullptr, where});
    const bool woken = c.notified(ticket);
    if (!woken) c.cancel_waiter(ticket);
    lock_at(lock, where);
    return woken ? std::cv_status::no_timeout : std::cv_status::timeout;
  }
  // The lock released and taken again inside a wait, at the wait's place when the lock records
  // places (a dpct lock passed directly; std::unique_lock records its own header's).
  template <class Lock>
  static void unlock_at(Lock& lock, const SourceLocation& where) {
    if constexpr (requires { lock.unlock(where); }) {
      lock.unlock(where);
    } else {
      lock.unlock();
    }
  }
  template <class Lock>
  static void lock_at(Lock& lock, const SourceLocation& where) {
    if constexpr (requires { lock.lock(where); }) {
      lock.lock(where);
    } else {
      lock.lock();
    }
  }
  void notify(AccessKind kind, const SourceLocation& where) {
    if (ExecutionContext* c = detail::controller({kind, this, where})) {
      c->before_access({kind, this, where});
      c->notify(this, kind == AccessKind::kNotifyAll);
    } else if (kind == AccessKind::kNotifyAll) {
      native_.notify_all();
    } else {
      native_.notify_one();
    }
  }

  std::condition_variable_any native_;
};

// std::atomic_thread_fence and std::atomic_signal_fence (the rewriter turns calls of those into
// these). Not scheduling points. Under the C++20 model (dpct/memory_model.h) a thread fence
// orders as docs/weak-memory.md says; a signal fence orders nothing between threads. Natively
// they are the std fences.
void atomic_thread_fence(std::memory_order order,
                         SourceLocation where = SourceLocation::current()) noexcept;
void atomic_signal_fence(std::memory_order order) noexcept;

// A spin-wait / yield hint: call it in busy-wait loops. In controlled mode the thread drops to
// the lowest priority so the others can make progress; natively it is std::this_thread::yield.
void spin_hint(SourceLocation where = SourceLocation::current());

}  // namespace linfault::dpct

#endif  // LINFAULT_DPCT_SHARED_H_
