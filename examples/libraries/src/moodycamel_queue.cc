#include "moodycamel_queue.h"

#include <new>

namespace libraries {

void MoodycamelQueue::enqueue(std::int64_t value) {
  // enqueue fails only when a block cannot be allocated.
  if (!queue_.enqueue(value)) throw std::bad_alloc();
}

std::optional<std::int64_t> MoodycamelQueue::try_dequeue() {
  std::int64_t value = 0;
  if (!queue_.try_dequeue(value)) return std::nullopt;
  return value;
}

}  // namespace libraries
