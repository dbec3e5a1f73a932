#include "ring_queue.h"

namespace user {

void RingQueue::enq(std::int64_t value) {
  linfault::LockGuard guard(lock_);
  const std::int64_t tail = tail_.load();
  slots_[static_cast<std::size_t>(tail % kCapacity)].store(value);
  tail_.store(tail + 1);
}

std::optional<std::int64_t> RingQueue::deq() {
#ifndef RING_QUEUE_FIXED
  if (head_.load() == tail_.load()) return std::nullopt;  // fast path, without the lock
  linfault::LockGuard guard(lock_);
#else
  linfault::LockGuard guard(lock_);
  if (head_.load() == tail_.load()) return std::nullopt;
#endif
  const std::int64_t head = head_.load();
  const std::int64_t value = slots_[static_cast<std::size_t>(head % kCapacity)].load();
  head_.store(head + 1);
  return value;
}

}  // namespace user
