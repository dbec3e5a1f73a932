// LazyValue: a value set once, by whoever asks for it first. get(v) returns the value, setting it
// to v if nobody had; peek() returns it, or 0 while it is unset. Written after linfault's split
// shapes gave their reading thread writes as well (the fifth held-out set,
// bench/schedulers/README.md); no scheduler or shape was chosen on it.
//
// CasLazyValue sets the value with one compare-exchange (correct). RacyLazyValue checks that it is
// unset, then stores (buggy, check-then-act): two gets that both check before either stores both
// return their own argument, and a later peek agrees with only one of them.
//
// Thread-safety: every method may be called concurrently (the claim under test).

#ifndef USER_PROJECT_LAZY_VALUE_H_
#define USER_PROJECT_LAZY_VALUE_H_

#include <cstdint>

#include <linfault/target.h>

namespace user {

class CasLazyValue {
 public:
  std::int64_t get(std::int64_t v) {
    std::int64_t seen = 0;
    return value_.compare_exchange_strong(seen, v) ? v : seen;
  }
  std::int64_t peek() const { return value_.load(); }

 private:
  linfault::Atomic<std::int64_t> value_{0};
};

class RacyLazyValue {
 public:
  std::int64_t get(std::int64_t v) {
    const std::int64_t seen = value_.load();
    if (seen != 0) return seen;
    value_.store(v);  // the bug: another get may have stored its value since the load
    return v;
  }
  std::int64_t peek() const { return value_.load(); }

 private:
  linfault::Atomic<std::int64_t> value_{0};
};

}  // namespace user

#endif  // USER_PROJECT_LAZY_VALUE_H_
