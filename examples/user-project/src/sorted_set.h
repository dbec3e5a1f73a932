// SortedSet: a set of small keys kept sorted in a fixed array, so that contains() can scan it
// without taking the writers' lock. add(k) and remove(k) shift the keys after k one place under
// the lock, one store at a time. Written before linfault's window scheduler changed where it
// pauses operations by default (the sixth held-out set, bench/schedulers/README.md); no scheduler
// was chosen on it.
//
// ScanningSortedSet (buggy) scans without the lock. A scan that reads a slot before a shift and
// the next slot after it skips the key that moved between them: with [a, b, c], remove(a) stores
// b, then c, one place to the left, and a contains(b) that read a, then c, says false although b
// was present all along (an add shifting to the right hides keys the same way). LockedSortedSet
// (correct) scans under the lock.
//
// Thread-safety: every method may be called concurrently (the claim under test). Keys outside
// [0, kKeys) are a precondition violation (std::out_of_range).

#ifndef USER_PROJECT_SORTED_SET_H_
#define USER_PROJECT_SORTED_SET_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include <linfault/target.h>

namespace user {

template <bool kScanUnderLock>
class SortedSet {
 public:
  static constexpr std::int64_t kKeys = 5;

  bool add(std::int64_t key) {
    check(key);
    linfault::LockGuard guard(lock_);
    const std::int64_t size = size_.load();
    const std::int64_t at = position(key, size);
    if (at < size && keys_[slot(at)].load() == key) return false;
    for (std::int64_t i = size; i > at; --i) keys_[slot(i)].store(keys_[slot(i - 1)].load());
    keys_[slot(at)].store(key);
    size_.store(size + 1);
    return true;
  }

  bool remove(std::int64_t key) {
    check(key);
    linfault::LockGuard guard(lock_);
    const std::int64_t size = size_.load();
    const std::int64_t at = position(key, size);
    if (at == size || keys_[slot(at)].load() != key) return false;
    for (std::int64_t i = at; i + 1 < size; ++i) keys_[slot(i)].store(keys_[slot(i + 1)].load());
    size_.store(size - 1);
    return true;
  }

  bool contains(std::int64_t key) {
    check(key);
    if constexpr (kScanUnderLock) {
      linfault::LockGuard guard(lock_);
      return scan(key);
    } else {
      return scan(key);  // the bug: the writers shift keys under the scan
    }
  }

 private:
  static void check(std::int64_t key) {
    if (key < 0 || key >= kKeys) throw std::out_of_range("SortedSet: key out of range");
  }
  static std::size_t slot(std::int64_t i) { return static_cast<std::size_t>(i); }

  // The first of the `size` keys that is not below `key` (`size` if none); under the lock.
  std::int64_t position(std::int64_t key, std::int64_t size) const {
    std::int64_t at = 0;
    while (at < size && keys_[slot(at)].load() < key) ++at;
    return at;
  }

  bool scan(std::int64_t key) const {
    const std::int64_t size = size_.load();
    for (std::int64_t i = 0; i < size && i < kKeys; ++i) {
      const std::int64_t found = keys_[slot(i)].load();
      if (found == key) return true;
      if (found > key) return false;
    }
    return false;
  }

  linfault::Mutex lock_;
  std::array<linfault::Atomic<std::int64_t>, kKeys> keys_{};
  linfault::Atomic<std::int64_t> size_{0};
};

using LockedSortedSet = SortedSet<true>;
using ScanningSortedSet = SortedSet<false>;

}  // namespace user

#endif  // USER_PROJECT_SORTED_SET_H_
