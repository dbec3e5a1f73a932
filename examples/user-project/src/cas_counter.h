// CasCounter: a lock-free counter whose updates are compare-and-swap loops. Correct: the check
// finds nothing.
//
// Thread-safety: every method may be called concurrently from any number of threads.

#ifndef USER_PROJECT_CAS_COUNTER_H_
#define USER_PROJECT_CAS_COUNTER_H_

#include <cstdint>

#include <linfault/target.h>

namespace user {

class CasCounter {
 public:
  void add(std::int64_t amount);
  void increment() { add(1); }
  std::int64_t get() const { return value_.load(); }

 private:
  linfault::Atomic<std::int64_t> value_{0};
};

}  // namespace user

#endif  // USER_PROJECT_CAS_COUNTER_H_
