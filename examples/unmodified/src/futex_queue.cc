#include "futex_queue.h"

#include <mutex>

namespace unmodified {

void FutexLock::lock() {
  int seen = kFree;
  if (word_.compare_exchange_strong(seen, kHeld, std::memory_order_acquire,
                                    std::memory_order_relaxed)) {
    return;  // it was free
  }
  // Held: say that somebody waits, then sleep until an exchange finds the lock free.
  if (seen != kContended) seen = word_.exchange(kContended, std::memory_order_acquire);
  while (seen != kFree) {
    word_.wait(kContended, std::memory_order_relaxed);
    seen = word_.exchange(kContended, std::memory_order_acquire);
  }
}

void FutexLock::unlock() {
  if (word_.exchange(kFree, std::memory_order_release) == kContended && !forget_notify_) {
    word_.notify_one();
  }
}

void FutexQueue::enq(std::int64_t value) {
  std::lock_guard<FutexLock> guard(lock_);
  items_.push_back(value);
}

std::optional<std::int64_t> FutexQueue::deq() {
  std::lock_guard<FutexLock> guard(lock_);
  if (items_.empty()) return std::nullopt;
  const std::int64_t value = items_.front();
  items_.pop_front();
  return value;
}

}  // namespace unmodified
