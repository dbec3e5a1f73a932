#include "bounded_queue.h"

namespace user {

BoundedQueue::BoundedQueue(std::int64_t capacity)
    : capacity_(capacity), slots_(std::make_unique<std::int64_t[]>(capacity)) {}

bool BoundedQueue::try_push(std::int64_t value) {
  linfault::LockGuard guard(lock_);
  if (size_ == capacity_) return false;
  slots_[(head_ + size_) % capacity_] = value;
  ++size_;
  return true;
}

std::optional<std::int64_t> BoundedQueue::try_pop() {
  linfault::LockGuard guard(lock_);
  if (size_ == 0) return std::nullopt;
  const std::int64_t value = slots_[head_];
  head_ = (head_ + 1) % capacity_;
  --size_;
  return value;
}

RingBufferQueue::RingBufferQueue(std::int64_t capacity)
    : capacity_(capacity), slots_(std::make_unique<linfault::Atomic<std::int64_t>[]>(capacity)) {}

bool RingBufferQueue::try_push(std::int64_t value) {
  const std::int64_t tail = tail_.load();
  if (tail - head_.load() == capacity_) return false;
  // The bug: between the check above and the store of tail below, another producer may read the
  // same tail and write the same slot. A single producer never races here.
  slots_[tail % capacity_].store(value);
  tail_.store(tail + 1);
  return true;
}

std::optional<std::int64_t> RingBufferQueue::try_pop() {
  std::int64_t head = head_.load();
  while (true) {
    if (head == tail_.load()) return std::nullopt;
    // Read before claiming: once head moves past this slot a producer may reuse it.
    const std::int64_t value = slots_[head % capacity_].load();
    if (head_.compare_exchange_strong(head, head + 1)) return value;
  }
}

}  // namespace user
