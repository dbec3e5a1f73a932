// LockLeakCounter (target lock_leak_counter, model counter): Line-Up's "Counter2". inc() and
// get() take the counter's lock, and get() forgets to release it. The lock is owned by a thread
// and reentrant (dpct::RecursiveMutex, like the C# Monitor of Line-Up's example), so the thread
// that called get() keeps working, while any other thread's next inc() or get() waits forever.
//
// Every history of this object is linearizable in the classic sense: each operation runs whole
// under the lock, and the blocked call is simply pending. Only a check of stuck histories (a
// deadlocked run whose pending call would never block in a serial order of the model) reports
// it. Run by one thread it behaves exactly like a counter.
//
// Natively a leaked lock blocks the other threads for good, so native stress runs must not mix
// get() with calls on other threads (targets_native_test.cc uses increments only).
//
// Thread-safety: any number of threads may call any method; that is the point of the bug.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_TARGETS_LOCK_LEAK_COUNTER_H_
#define LINFAULT_TARGETS_LOCK_LEAK_COUNTER_H_

#include <cstdint>

#include "dpct/shared.h"

namespace linfault::targets {

class LockLeakCounter {
 public:
  void inc();
  std::int64_t get();  // leaves the lock held by the calling thread

 private:
  dpct::RecursiveMutex lock_;
  std::int64_t value_ = 0;  // guarded by lock_
};

}  // namespace linfault::targets

#endif  // LINFAULT_TARGETS_LOCK_LEAK_COUNTER_H_
