// FutexQueue: a FIFO queue (a std::deque) under a futex-style lock built on std::atomic<int>::wait
// and notify_one, in the manner of Drepper's "Futexes Are Tricky" (mutex 2). The lock word is 0
// when free, 1 when held, 2 when held and someone may be waiting: lock() takes a free lock with a
// compare-and-swap; otherwise it marks the lock contended (exchange 2) and waits on the word until
// an exchange finds it free. unlock() frees the word and, when it was contended, wakes one waiter.
// No call waits forever: every thread that holds the lock releases it before its call returns.
//
// With `forget_notify` (target futex_queue_buggy) unlock() frees a contended lock without waking
// anybody: a thread that went to sleep on the lock word sleeps forever (a deadlock).
//
// Thread-safety: enq() and deq() may be called concurrently (the claim under test).

#ifndef UNMODIFIED_FUTEX_QUEUE_H_
#define UNMODIFIED_FUTEX_QUEUE_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <optional>

namespace unmodified {

class FutexLock {
 public:
  explicit FutexLock(bool forget_notify = false) : forget_notify_(forget_notify) {}
  FutexLock(const FutexLock&) = delete;
  FutexLock& operator=(const FutexLock&) = delete;

  void lock();
  void unlock();

 private:
  static constexpr int kFree = 0;
  static constexpr int kHeld = 1;
  static constexpr int kContended = 2;

  const bool forget_notify_;
  std::atomic<int> word_{kFree};
};

class FutexQueue {
 public:
  explicit FutexQueue(bool forget_notify = false) : lock_(forget_notify) {}

  void enq(std::int64_t value);
  std::optional<std::int64_t> deq();

 private:
  FutexLock lock_;
  std::deque<std::int64_t> items_;  // guarded by lock_
};

}  // namespace unmodified

#endif  // UNMODIFIED_FUTEX_QUEUE_H_
