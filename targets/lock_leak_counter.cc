#include "targets/lock_leak_counter.h"

namespace linfault::targets {

void LockLeakCounter::inc() {
  lock_.lock();
  ++value_;
  lock_.unlock();
}

std::int64_t LockLeakCounter::get() {
  lock_.lock();
  return value_;  // the bug: no unlock
}

}  // namespace linfault::targets
