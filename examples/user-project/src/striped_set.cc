#include "striped_set.h"

#include <stdexcept>
#include <string>

namespace user {

std::size_t StripedSet::slot(std::int64_t key) {
  if (key < 0 || key >= kKeys) {
    throw std::out_of_range("StripedSet: key " + std::to_string(key) + " is out of range");
  }
  return static_cast<std::size_t>(key);
}

bool StripedSet::add(std::int64_t key) {
  if (present_[slot(key)].load()) return false;  // fast path: already a member
  linfault::LockGuard guard(stripe_lock(key));
  if (recheck_under_lock_ && present_[slot(key)].load()) return false;
  present_[slot(key)].store(true);
  return true;
}

bool StripedSet::remove(std::int64_t key) {
  linfault::LockGuard guard(stripe_lock(key));
  if (!present_[slot(key)].load()) return false;
  present_[slot(key)].store(false);
  return true;
}

bool StripedSet::contains(std::int64_t key) const { return present_[slot(key)].load(); }

}  // namespace user
