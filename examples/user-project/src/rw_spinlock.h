// A pair of words guarded by a reader-writer spinlock: update(v) writes both words under the
// write lock, read() returns them joined (hi << 32 | lo, both v for a whole update) under the
// read lock. Written before linfault's mixed shapes pitted whole threads of readers against
// threads of writers (the fourth held-out set, bench/schedulers/README.md).
//
// A writer takes the writer flag with an exchange, then waits for the readers to leave. A reader
// in RwSpinlockPair waits for the flag to clear, announces itself, then checks the flag again and
// backs off if a writer came in between (correct). RacyRwSpinlockPair's reader does not check
// again (buggy): a writer that sets the flag after the reader's check and sees no reader yet
// updates the words while the reader reads them. Values must fit in 31 bits.
//
// Thread-safety: every method may be called concurrently (the claim under test).

#ifndef USER_PROJECT_RW_SPINLOCK_H_
#define USER_PROJECT_RW_SPINLOCK_H_

#include <cstdint>

#include <linfault/target.h>

namespace user {

template <bool kRecheck>
class BasicRwSpinlockPair {
 public:
  void update(std::int64_t value) {
    while (writer_.exchange(true)) linfault::spin_hint();
    while (readers_.load() > 0) linfault::spin_hint();
    hi_.store(value);
    lo_.store(value);
    writer_.store(false);
  }
  std::int64_t read() {
    for (;;) {
      while (writer_.load()) linfault::spin_hint();
      readers_.fetch_add(1);
      if (!kRecheck || !writer_.load()) break;
      readers_.fetch_sub(1);  // a writer came in: let it finish
    }
    const std::int64_t hi = hi_.load();
    const std::int64_t lo = lo_.load();
    readers_.fetch_sub(1);
    return (hi << 32) | lo;
  }

 private:
  linfault::Atomic<bool> writer_{false};
  linfault::Atomic<std::int64_t> readers_{0};
  linfault::Atomic<std::int64_t> hi_{0};
  linfault::Atomic<std::int64_t> lo_{0};
};

using RwSpinlockPair = BasicRwSpinlockPair<true>;
using RacyRwSpinlockPair = BasicRwSpinlockPair<false>;

}  // namespace user

#endif  // USER_PROJECT_RW_SPINLOCK_H_
