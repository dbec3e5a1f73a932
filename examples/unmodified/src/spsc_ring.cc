#include "spsc_ring.h"

namespace unmodified {

bool SpscRing::enq(std::int64_t value) {
  const std::uint64_t tail = tail_.load(std::memory_order_relaxed);
  if (tail - head_.load(std::memory_order_acquire) == kSlots) return false;
  if (variant_ == Variant::kPublishFirst) {
    tail_.store(tail + 1, std::memory_order_release);  // the bug: too early
  }
  slots_[tail % kSlots].store(value, std::memory_order_relaxed);
  if (variant_ == Variant::kCorrect) tail_.store(tail + 1, std::memory_order_release);
  if (variant_ == Variant::kRelaxedPublish) {
    tail_.store(tail + 1, std::memory_order_relaxed);  // the bug: the slot is not published
  }
  return true;
}

std::optional<std::int64_t> SpscRing::deq() {
  const std::uint64_t head = head_.load(std::memory_order_relaxed);
  if (head == tail_.load(std::memory_order_acquire)) return std::nullopt;
  const std::int64_t value = slots_[head % kSlots].load(std::memory_order_relaxed);
  head_.store(head + 1, std::memory_order_release);
  return value;
}

}  // namespace unmodified
