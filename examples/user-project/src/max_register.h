// MaxRegister: a register that keeps the largest value written (write_max) and reports it
// (read). Written after linfault's window scheduler and its current portfolio were designed, to
// measure them on code they were not shaped on (bench/schedulers/README.md, "second held-out
// set").
//
// MaxRegister::write_max is a compare-exchange loop (correct). RacyMaxRegister::write_max loads
// the maximum, compares, and stores (buggy): a larger value stored between its load and its store
// is overwritten by a smaller one, so a later read returns less than a completed write_max.
//
// Thread-safety: every method may be called concurrently (the claim under test).

#ifndef USER_PROJECT_MAX_REGISTER_H_
#define USER_PROJECT_MAX_REGISTER_H_

#include <cstdint>

#include <linfault/target.h>

namespace user {

class MaxRegister {
 public:
  void write_max(std::int64_t value) {
    std::int64_t seen = max_.load();
    while (seen < value && !max_.compare_exchange_strong(seen, value)) {
    }
  }
  std::int64_t read() const { return max_.load(); }

 private:
  linfault::Atomic<std::int64_t> max_{0};
};

class RacyMaxRegister {
 public:
  void write_max(std::int64_t value) {
    if (max_.load() < value) max_.store(value);  // the bug: not one atomic step
  }
  std::int64_t read() const { return max_.load(); }

 private:
  linfault::Atomic<std::int64_t> max_{0};
};

}  // namespace user

#endif  // USER_PROJECT_MAX_REGISTER_H_
