#include "vyukov_queue.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#else
#include <thread>
#endif

namespace unmodified {

namespace {

constexpr std::size_t kMask = VyukovQueue::kCapacity - 1;

// The distance between a cell's sequence number and the one a thread waits for.
std::ptrdiff_t distance(std::size_t sequence, std::size_t wanted) {
  return static_cast<std::ptrdiff_t>(sequence - wanted);
}

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

}  // namespace

VyukovQueue::VyukovQueue(bool store_claim) : store_claim_(store_claim) {
  for (std::size_t i = 0; i < kCapacity; ++i) cells_.emplace_back(i);
}

void VyukovQueue::enq(std::int64_t value) {
  std::size_t pos = enqueue_pos_.load(std::memory_order_relaxed);
  while (true) {
    Cell& cell = cells_[pos & kMask];
    const std::size_t sequence = cell.sequence.load(std::memory_order_acquire);
    const std::ptrdiff_t dif = distance(sequence, pos);
    if (dif == 0) {
      if (store_claim_) {
        enqueue_pos_.store(pos + 1, std::memory_order_relaxed);
        break;
      }
      if (enqueue_pos_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed,
                                             std::memory_order_relaxed)) {
        break;
      }
    } else if (dif < 0) {  // full: the cell still holds the element of the previous lap
      cpu_relax();
      pos = enqueue_pos_.load(std::memory_order_relaxed);
    } else {  // another enqueuer took pos
      pos = enqueue_pos_.load(std::memory_order_relaxed);
    }
  }
  Cell& cell = cells_[pos & kMask];
  cell.value = value;
  cell.sequence.store(pos + 1, std::memory_order_release);
}

std::optional<std::int64_t> VyukovQueue::deq() {
  std::size_t pos = dequeue_pos_.load(std::memory_order_relaxed);
  while (true) {
    Cell& cell = cells_[pos & kMask];
    const std::size_t sequence = cell.sequence.load(std::memory_order_acquire);
    const std::ptrdiff_t dif = distance(sequence, pos + 1);
    if (dif == 0) {
      if (dequeue_pos_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed,
                                             std::memory_order_relaxed)) {
        const std::int64_t value = cell.value;
        cell.sequence.store(pos + kMask + 1, std::memory_order_release);
        return value;
      }
    } else if (dif < 0) {  // not filled for this lap yet
      if (enqueue_pos_.load(std::memory_order_acquire) == pos) return std::nullopt;  // empty
      cpu_relax();  // an enqueuer claimed pos and is writing the cell
      pos = dequeue_pos_.load(std::memory_order_relaxed);
    } else {  // another dequeuer took pos
      pos = dequeue_pos_.load(std::memory_order_relaxed);
    }
  }
}

}  // namespace unmodified
