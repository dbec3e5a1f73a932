// StripedSet: a set of small keys (0 <= key < kKeys) with one membership flag per key and a lock
// per stripe of keys; contains() reads the flag without locking.
//
// add() has a fast path: a key already present is refused before the stripe lock is taken. With
// `recheck_under_lock` false (the buggy configuration) add() does not look again once it holds
// the lock, so two adds of the same absent key both pass the fast path and both return true: a
// check-then-act race, found with one preemption between the check and the lock. With
// `recheck_under_lock` true (the control) the check is repeated under the lock and the set is
// linearizable.
//
// Thread-safety: every method may be called concurrently (the claim under test). Keys outside
// [0, kKeys) are a precondition violation (std::out_of_range).

#ifndef USER_PROJECT_STRIPED_SET_H_
#define USER_PROJECT_STRIPED_SET_H_

#include <array>
#include <cstddef>
#include <cstdint>

#include <linfault/target.h>

namespace user {

class StripedSet {
 public:
  static constexpr std::int64_t kKeys = 16;
  static constexpr std::size_t kStripes = 4;

  explicit StripedSet(bool recheck_under_lock) : recheck_under_lock_(recheck_under_lock) {}

  bool add(std::int64_t key);
  bool remove(std::int64_t key);
  bool contains(std::int64_t key) const;

 private:
  static std::size_t slot(std::int64_t key);
  linfault::Mutex& stripe_lock(std::int64_t key) { return stripes_[slot(key) % kStripes]; }

  const bool recheck_under_lock_;
  std::array<linfault::Mutex, kStripes> stripes_;
  std::array<linfault::Atomic<bool>, kKeys> present_{};
};

}  // namespace user

#endif  // USER_PROJECT_STRIPED_SET_H_
