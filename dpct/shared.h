// Instrumented shared memory: the API concurrent objects under test are written against.
//
// Every access to a dpct::Atomic, dpct::Var or dpct::Mutex is a *scheduling point* that carries
// the caller's source location. The same object source runs in two modes, chosen at run time per
// OS thread:
//   - native: no execution context is installed on the calling thread; each access is a plain
//     std::atomic operation (Var is a relaxed atomic so that racy-by-design objects stay free of
//     undefined behaviour) and Mutex is a std::mutex. Real threads, real speed.
//   - controlled: the dpct executor (dpct/executor.h) installs an ExecutionContext on the thread
//     running a logical thread; before each access the context may switch to another logical
//     thread, so a scheduler decides the interleaving. Exactly one logical thread runs at a
//     time, so accesses then execute under sequential consistency.
//
// Writing an object (see docs/adding-a-target.md):
//
//   struct Node { int value; dpct::Atomic<Node*> next{nullptr}; };
//   class Stack {
//     dpct::Atomic<Node*> top_{nullptr};
//    public:
//     void push(int v) {
//       Node* n = new Node{v};
//       Node* old = top_.load();
//       do { n->next.store(old); } while (!top_.compare_exchange_strong(old, n));
//     }
//   };
//
// Source locations are captured by default arguments, so objects never pass them explicitly.
// The structure-tree extractor (structure_tree/) recognizes exactly the member calls declared
// here as shared-memory instructions; keep that list and this header in step.
//
// Thread-safety: Atomic and Mutex are safe to use from several threads in both modes. Var is
// meant for fields written under a lock or racy by design; in native mode it is a relaxed atomic.

#ifndef LINFAULT_DPCT_SHARED_H_
#define LINFAULT_DPCT_SHARED_H_

#include <atomic>
#include <cstdint>
#include <mutex>
#include <source_location>
#include <string>
#include <type_traits>

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
};
const char* access_kind_name(AccessKind kind);

// One instrumented access as the executor sees it.
struct Access {
  AccessKind kind;
  const void* address;  // the shared variable or mutex; nullptr for kYield
  SourceLocation where;
};

// Implemented by the controlled executor. Installed per OS thread while a logical thread runs.
class ExecutionContext {
 public:
  virtual ~ExecutionContext() = default;
  // A scheduling point, called before the access executes. May switch logical threads.
  virtual void before_access(const Access& access) = 0;
  // Called after a load/store/RMW executed, with the value read and the value written rendered
  // as text (only when want_values() is true), for step-by-step interleaving reports.
  virtual bool want_values() const { return false; }
  virtual void after_access(const Access& /*access*/, const std::string& /*read*/,
                            const std::string& /*written*/, bool /*success*/) {}
  // Blocks the current logical thread until `mutex` is free, then takes it (controlled mode).
  virtual void lock(const void* mutex, bool& held, const SourceLocation& where) = 0;
  virtual bool try_lock(const void* mutex, bool& held, const SourceLocation& where) = 0;
  virtual void unlock(const void* mutex, bool& held, const SourceLocation& where) = 0;
};

namespace detail {
// The context installed on this OS thread, or nullptr in native mode.
inline thread_local ExecutionContext* current_context = nullptr;

template <class T>
std::string render(const T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? "true" : "false";
  } else if constexpr (std::is_integral_v<T>) {
    return std::to_string(v);
  } else if constexpr (std::is_pointer_v<T>) {
    return v == nullptr ? "null"
                        : "@" + std::to_string(reinterpret_cast<std::uintptr_t>(v) % 100000);
  } else {
    return "?";
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

// A shared atomic variable. T must be trivially copyable (pointers, integers, small structs).
template <class T>
class Atomic {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  Atomic() : value_(T{}) {}
  explicit Atomic(T initial) : value_(initial) {}
  Atomic(const Atomic&) = delete;
  Atomic& operator=(const Atomic&) = delete;

  T load(SourceLocation where = SourceLocation::current()) const {
    point(AccessKind::kLoad, where);
    T v = value_.load();
    after(AccessKind::kLoad, where, v, v, true);
    return v;
  }
  void store(T desired, SourceLocation where = SourceLocation::current()) {
    point(AccessKind::kStore, where);
    T old = value_.exchange(desired);
    after(AccessKind::kStore, where, old, desired, true);
  }
  T exchange(T desired, SourceLocation where = SourceLocation::current()) {
    point(AccessKind::kExchange, where);
    T old = value_.exchange(desired);
    after(AccessKind::kExchange, where, old, desired, true);
    return old;
  }
  // Strong CAS: fails only when the value differs from `expected` (which then receives it).
  bool compare_exchange(T& expected, T desired, SourceLocation where = SourceLocation::current()) {
    point(AccessKind::kCompareExchange, where);
    const T wanted = expected;
    bool ok = value_.compare_exchange_strong(expected, desired);
    after(AccessKind::kCompareExchange, where, ok ? wanted : expected, ok ? desired : expected, ok);
    return ok;
  }
  T fetch_add(T delta,
              SourceLocation where = SourceLocation::current()) requires std::is_integral_v<T> {
    point(AccessKind::kFetchAdd, where);
    T old = value_.fetch_add(delta);
    after(AccessKind::kFetchAdd, where, old, static_cast<T>(old + delta), true);
    return old;
  }
  T fetch_sub(T delta,
              SourceLocation where = SourceLocation::current()) requires std::is_integral_v<T> {
    point(AccessKind::kFetchSub, where);
    T old = value_.fetch_sub(delta);
    after(AccessKind::kFetchSub, where, old, static_cast<T>(old - delta), true);
    return old;
  }

  // Not a scheduling point: for construction and single-threaded inspection (tests, setup).
  T unsafe_peek() const { return value_.load(std::memory_order_relaxed); }

 private:
  void point(AccessKind kind, const SourceLocation& where) const {
    if (ExecutionContext* c = detail::current_context) c->before_access({kind, this, where});
  }
  void after(AccessKind kind, const SourceLocation& where, const T& read, const T& written,
             bool success) const {
    if (ExecutionContext* c = detail::current_context; c && c->want_values()) {
      c->after_access({kind, this, where}, detail::render(read), detail::render(written), success);
    }
  }

  std::atomic<T> value_;
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
      c->after_access({AccessKind::kLoad, this, where}, detail::render(v), detail::render(v), true);
    }
    return v;
  }
  void store(T desired, SourceLocation where = SourceLocation::current()) {
    if (ExecutionContext* c = detail::current_context)
      c->before_access({AccessKind::kStore, this, where});
    T old = value_.exchange(desired, std::memory_order_relaxed);
    if (ExecutionContext* c = detail::current_context; c && c->want_values()) {
      c->after_access({AccessKind::kStore, this, where}, detail::render(old),
                      detail::render(desired), true);
    }
  }
  T unsafe_peek() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<T> value_;
};

// A mutex. In controlled mode, a thread blocked on it is disabled until the holder unlocks; if
// every thread is blocked the executor reports a deadlock.
class Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void lock(SourceLocation where = SourceLocation::current()) {
    if (ExecutionContext* c = detail::current_context) {
      c->lock(this, held_, where);
    } else {
      native_.lock();
    }
  }
  bool try_lock(SourceLocation where = SourceLocation::current()) {
    if (ExecutionContext* c = detail::current_context) return c->try_lock(this, held_, where);
    return native_.try_lock();
  }
  void unlock(SourceLocation where = SourceLocation::current()) {
    if (ExecutionContext* c = detail::current_context) {
      c->unlock(this, held_, where);
    } else {
      native_.unlock();
    }
  }

 private:
  std::mutex native_;
  bool held_ = false;  // controlled mode only; one logical thread runs at a time
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

// A spin-wait / yield hint: call it in busy-wait loops. In controlled mode the thread drops to
// the lowest priority so the others can make progress; natively it is std::this_thread::yield.
void spin_hint(SourceLocation where = SourceLocation::current());

}  // namespace linfault::dpct

#endif  // LINFAULT_DPCT_SHARED_H_
