// SeqlockPair: a value of two words under a sequence lock. write(v) makes the sequence odd,
// stores both words, and makes it even again (writers take a mutex between them); read() reads
// the sequence, both words and the sequence again, and retries unless the reading was clean. It
// returns both words joined (hi << 32 | lo, both v for a whole write). Written before linfault's
// window scheduler changed where it pauses operations by default (the sixth held-out set,
// bench/schedulers/README.md); no scheduler was chosen on it.
//
// UncheckedSeqlockPair (buggy) only checks that the sequence did not change: a reader that
// starts while a writer is between its two stores reads an odd sequence twice and returns the
// new first word with the old second one. CheckedSeqlockPair (correct) also retries on an odd
// sequence. Each 32-bit half of a value must fit in 31 bits.
//
// Thread-safety: every method may be called concurrently (the claim under test).

#ifndef USER_PROJECT_SEQLOCK_PAIR_H_
#define USER_PROJECT_SEQLOCK_PAIR_H_

#include <cstdint>

#include <linfault/target.h>

namespace user {

template <bool kChecksParity>
class SeqlockPair {
 public:
  void write(std::int64_t value) {
    linfault::LockGuard guard(writers_);
    const std::int64_t sequence = sequence_.load();
    sequence_.store(sequence + 1);
    hi_.store(value >> 32);
    lo_.store(value & 0xffffffff);
    sequence_.store(sequence + 2);
  }

  std::int64_t read() {
    for (;;) {
      const std::int64_t before = sequence_.load();
      if (kChecksParity && before % 2 != 0) {
        linfault::spin_hint();  // a writer is in the middle: wait for it
        continue;
      }
      const std::int64_t hi = hi_.load();
      const std::int64_t lo = lo_.load();
      if (sequence_.load() == before) return (hi << 32) | lo;  // unchecked: before may be odd
    }
  }

 private:
  linfault::Mutex writers_;
  linfault::Atomic<std::int64_t> sequence_{0};
  linfault::Atomic<std::int64_t> hi_{0};
  linfault::Atomic<std::int64_t> lo_{0};
};

using CheckedSeqlockPair = SeqlockPair<true>;
using UncheckedSeqlockPair = SeqlockPair<false>;

}  // namespace user

#endif  // USER_PROJECT_SEQLOCK_PAIR_H_
