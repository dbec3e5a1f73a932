// TtasCounter: a counter whose updates run under a test-and-test-and-set spin lock. lock() and
// unlock() are noexcept, as spin locks usually are; lock() spins on a plain load (with
// std::this_thread::yield()) until the lock looks free, then takes it with an exchange, and starts
// over when another thread took it first. inc() and dec() load and store the value under the lock;
// get() reads it without the lock, which is why the value is an atomic.
//
// With `split_test_and_set` (target ttas_counter_buggy) lock() takes the lock with a store once
// its load saw it free: two threads that both see it free both enter, and one of their two
// updates is lost. (A wrong memory order alone would not do: linfault's controlled runs are
// sequentially consistent.)
//
// Thread-safety: inc(), dec() and get() may be called concurrently (the claim under test).

#ifndef UNMODIFIED_TTAS_COUNTER_H_
#define UNMODIFIED_TTAS_COUNTER_H_

#include <atomic>
#include <cstdint>

namespace unmodified {

class TtasSpinLock {
 public:
  explicit TtasSpinLock(bool split_test_and_set = false)
      : split_test_and_set_(split_test_and_set) {}
  TtasSpinLock(const TtasSpinLock&) = delete;
  TtasSpinLock& operator=(const TtasSpinLock&) = delete;

  void lock() noexcept;
  void unlock() noexcept;

 private:
  const bool split_test_and_set_;
  std::atomic<bool> locked_{false};
};

class TtasCounter {
 public:
  explicit TtasCounter(bool split_test_and_set = false) : lock_(split_test_and_set) {}

  void inc();
  void dec();
  std::int64_t get() const;

 private:
  TtasSpinLock lock_;
  std::atomic<std::int64_t> value_{0};  // written under lock_, read without it
};

}  // namespace unmodified

#endif  // UNMODIFIED_TTAS_COUNTER_H_
