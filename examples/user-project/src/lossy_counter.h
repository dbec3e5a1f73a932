// LossyCounter: a counter whose add() reads the value and stores the sum, two atomic accesses
// that are not one atomic update.
//
// The bug: two adds that both load before either stores lose one of the updates (a later get()
// misses it). One preemption between an add's load and its store exposes it; the fix is
// fetch_add or a compare-and-swap loop (the project's CasCounter).
//
// Thread-safety: every method may be called concurrently (the claim under test).

#ifndef USER_PROJECT_LOSSY_COUNTER_H_
#define USER_PROJECT_LOSSY_COUNTER_H_

#include <cstdint>

#include <linfault/target.h>

namespace user {

class LossyCounter {
 public:
  void add(std::int64_t amount) { value_.store(value_.load() + amount); }
  void increment() { add(1); }
  std::int64_t get() const { return value_.load(); }

 private:
  linfault::Atomic<std::int64_t> value_{0};
};

}  // namespace user

#endif  // USER_PROJECT_LOSSY_COUNTER_H_
