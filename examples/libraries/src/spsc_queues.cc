#include "spsc_queues.h"

#include <new>
#include <stdexcept>

namespace libraries {

void BoostSpscQueue::enq(std::int64_t value) {
  // A workload enqueues fewer elements than the ring holds.
  if (!queue_.push(value)) throw std::length_error("spsc_queue full");
}

std::optional<std::int64_t> BoostSpscQueue::deq() {
  std::int64_t value = 0;
  if (!queue_.pop(value)) return std::nullopt;
  return value;
}

void ReaderWriterQueue::enq(std::int64_t value) {
  // enqueue fails only when a block cannot be allocated.
  if (!queue_.enqueue(value)) throw std::bad_alloc();
}

std::optional<std::int64_t> ReaderWriterQueue::deq() {
  std::int64_t value = 0;
  if (!queue_.try_dequeue(value)) return std::nullopt;
  return value;
}

}  // namespace libraries
