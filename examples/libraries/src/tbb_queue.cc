#include "tbb_queue.h"

namespace libraries {

void TbbQueue::enq(std::int64_t value) { queue_.push(value); }

std::optional<std::int64_t> TbbQueue::deq() {
  std::int64_t value = 0;
  if (!queue_.try_pop(value)) return std::nullopt;
  return value;
}

}  // namespace libraries
