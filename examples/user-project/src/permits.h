// Permits: a counting semaphore that starts with one permit: try_acquire takes one if any is
// left, release adds one (no cap), available reports the count. Written before linfault's
// portfolio got its opening of random walks (the third held-out set).
//
// CasPermits::try_acquire takes a permit with a compare-exchange loop (correct). RacyPermits
// checks that a permit is left and then takes it with fetch_sub (buggy, check-then-act): two
// try_acquires that both check before either takes succeed with one permit, and the count goes
// below zero.
//
// Thread-safety: every method may be called concurrently (the claim under test).

#ifndef USER_PROJECT_PERMITS_H_
#define USER_PROJECT_PERMITS_H_

#include <cstdint>

#include <linfault/target.h>

namespace user {

class CasPermits {
 public:
  bool try_acquire() {
    std::int64_t left = permits_.load();
    while (left > 0 && !permits_.compare_exchange_strong(left, left - 1)) {
    }
    return left > 0;
  }
  void release() { permits_.fetch_add(1); }
  std::int64_t available() const { return permits_.load(); }

 private:
  linfault::Atomic<std::int64_t> permits_{1};
};

class RacyPermits {
 public:
  bool try_acquire() {
    if (permits_.load() <= 0) return false;
    permits_.fetch_sub(1);  // the bug: another acquire may have taken the last permit meanwhile
    return true;
  }
  void release() { permits_.fetch_add(1); }
  std::int64_t available() const { return permits_.load(); }

 private:
  linfault::Atomic<std::int64_t> permits_{1};
};

}  // namespace user

#endif  // USER_PROJECT_PERMITS_H_
