// CappedSet: a set of small keys (0 <= key < kKeys) that holds at most kCapacity of them. add(k)
// refuses a key when the set is full or holds it already; remove(k) and size() as usual. Written
// before linfault's window scheduler changed where it pauses operations by default (the sixth
// held-out set, bench/schedulers/README.md); no scheduler was chosen on it.
//
// Each key has its own lock, and a shared counter holds the size. LockedCappedSet (correct)
// takes the key's lock, then reserves a place in the counter with a compare-exchange.
// RacyCappedSet (buggy) reads the counter, and if there is room takes the key's lock and adds:
// two adds of different keys into the last place both succeed (a check-then-act race on a
// global bound, not on the key), and size() then exceeds the capacity.
//
// Thread-safety: every method may be called concurrently (the claim under test). Keys outside
// [0, kKeys) are a precondition violation (std::out_of_range).

#ifndef USER_PROJECT_CAPPED_SET_H_
#define USER_PROJECT_CAPPED_SET_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include <linfault/target.h>

namespace user {

template <bool kReserveFirst>
class CappedSet {
 public:
  static constexpr std::int64_t kKeys = 4;
  static constexpr std::int64_t kCapacity = 2;

  bool add(std::int64_t key) {
    const std::size_t k = index(key);
    if constexpr (kReserveFirst) {
      linfault::LockGuard guard(locks_[k]);
      if (present_[k].load()) return false;
      std::int64_t size = size_.load();
      do {
        if (size >= kCapacity) return false;
      } while (!size_.compare_exchange_weak(size, size + 1));
      present_[k].store(true);
      return true;
    } else {
      if (size_.load() >= kCapacity) return false;
      linfault::LockGuard guard(locks_[k]);
      if (present_[k].load()) return false;
      present_[k].store(true);
      size_.fetch_add(1);  // the bug: the room seen above may be gone
      return true;
    }
  }

  bool remove(std::int64_t key) {
    const std::size_t k = index(key);
    linfault::LockGuard guard(locks_[k]);
    if (!present_[k].load()) return false;
    present_[k].store(false);
    size_.fetch_sub(1);
    return true;
  }

  std::int64_t size() const { return size_.load(); }

 private:
  static std::size_t index(std::int64_t key) {
    if (key < 0 || key >= kKeys) throw std::out_of_range("CappedSet: key out of range");
    return static_cast<std::size_t>(key);
  }

  std::array<linfault::Mutex, kKeys> locks_;
  std::array<linfault::Atomic<bool>, kKeys> present_{};
  linfault::Atomic<std::int64_t> size_{0};
};

using LockedCappedSet = CappedSet<true>;
using RacyCappedSet = CappedSet<false>;

}  // namespace user

#endif  // USER_PROJECT_CAPPED_SET_H_
