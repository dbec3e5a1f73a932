// MinMax: the least and the greatest of the values recorded so far (1..999). record(v) adds v;
// bounds() returns min * 1000 + max, or 0 before any record. Written after linfault's split shapes
// gave their reading thread writes as well (the fifth held-out set); no scheduler or shape was
// chosen on it.
//
// PackedMinMax keeps both bounds in one word, updated by a compare-exchange loop (correct).
// SplitMinMax keeps each bound in a word of its own, each updated by a compare-exchange loop, and
// bounds() reads them one after the other (buggy): a bounds() that reads the minimum, then lets
// a record lower it and another raise the maximum, returns a pair that never was (or, on an
// empty object, a maximum without its minimum).
//
// Thread-safety: every method may be called concurrently (the claim under test).

#ifndef USER_PROJECT_MIN_MAX_H_
#define USER_PROJECT_MIN_MAX_H_

#include <algorithm>
#include <cstdint>

#include <linfault/target.h>

namespace user {

class PackedMinMax {
 public:
  void record(std::int64_t v) {
    std::int64_t seen = packed_.load();
    for (;;) {
      const std::int64_t low = seen == 0 ? v : std::min(seen / 1000, v);
      const std::int64_t high = seen == 0 ? v : std::max(seen % 1000, v);
      if (packed_.compare_exchange_strong(seen, low * 1000 + high)) return;
    }
  }
  std::int64_t bounds() const { return packed_.load(); }

 private:
  linfault::Atomic<std::int64_t> packed_{0};
};

class SplitMinMax {
 public:
  void record(std::int64_t v) {
    std::int64_t low = min_.load();
    while ((low == 0 || v < low) && !min_.compare_exchange_strong(low, v)) {
    }
    std::int64_t high = max_.load();
    while (v > high && !max_.compare_exchange_strong(high, v)) {
    }
  }
  std::int64_t bounds() const {
    const std::int64_t low = min_.load();
    const std::int64_t high = max_.load();  // the bug: records may have moved both since
    return low == 0 && high == 0 ? 0 : low * 1000 + high;
  }

 private:
  linfault::Atomic<std::int64_t> min_{0};  // 0: nothing recorded
  linfault::Atomic<std::int64_t> max_{0};
};

}  // namespace user

#endif  // USER_PROJECT_MIN_MAX_H_
