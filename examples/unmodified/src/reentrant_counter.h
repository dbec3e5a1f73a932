// ReentrantCounter: a counter under a reentrant spin lock that knows its owner by
// std::this_thread::get_id() and counts the owner's nesting in thread_local state. inc() takes
// the lock twice (as a method that calls another locked method would), loads and stores the
// value, and unlocks twice; get() reads it under the lock.
//
// Its correctness rests on thread identity: two threads that shared one id, or one
// thread_local depth, would both take the lock. linfault runs it with `t.thread_identity = true`
// (each logical thread an OS thread of its own); registered without it, every logical thread is
// the same OS thread, and the lock excludes nobody.
//
// Thread-safety: inc() and get() may be called concurrently (the claim under test).

#ifndef UNMODIFIED_REENTRANT_COUNTER_H_
#define UNMODIFIED_REENTRANT_COUNTER_H_

#include <atomic>
#include <cstdint>
#include <thread>

namespace unmodified {

class ReentrantSpinLock {
 public:
  void lock() noexcept;
  void unlock() noexcept;

 private:
  std::atomic<std::thread::id> owner_{std::thread::id()};
};

class ReentrantCounter {
 public:
  void inc();
  std::int64_t get();

 private:
  ReentrantSpinLock lock_;
  std::atomic<std::int64_t> value_{0};
};

}  // namespace unmodified

#endif  // UNMODIFIED_REENTRANT_COUNTER_H_
