#include "reserve_queue.h"

#include <cstddef>
#include <stdexcept>

namespace user {

void ReserveQueue::enq(std::int64_t value) {
  const std::int64_t slot = tail_.fetch_add(1);
  if (slot >= kCapacity) throw std::length_error("ReserveQueue: capacity exhausted");
  slots_[static_cast<std::size_t>(slot)].store(value);
}

std::optional<std::int64_t> ReserveQueue::deq() {
  std::int64_t head = head_.load();
  for (;;) {
    if (head == tail_.load()) return std::nullopt;
    if (head_.compare_exchange(head, head + 1)) {
      return slots_[static_cast<std::size_t>(head)].load();
    }
    // `head` now holds the current head: another dequeuer claimed the slot; try the next one.
  }
}

}  // namespace user
