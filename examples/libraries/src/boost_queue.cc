#include "boost_queue.h"

#include <new>

namespace libraries {

void BoostQueue::enq(std::int64_t value) {
  // push fails only when a node cannot be allocated.
  if (!queue_.push(value)) throw std::bad_alloc();
}

std::optional<std::int64_t> BoostQueue::deq() {
  std::int64_t value = 0;
  if (!queue_.pop(value)) return std::nullopt;
  return value;
}

}  // namespace libraries
