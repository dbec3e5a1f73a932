// VyukovQueue: Dmitry Vyukov's bounded multi-producer multi-consumer queue, in plain std::atomic.
// Each cell has a sequence number that says whose turn it is: for position p (cell p % capacity),
// sequence p means the cell is free for the enqueuer of p, p + 1 that it holds the element of p
// for the dequeuer of p, and p + capacity that it is free again for the next lap. Enqueuers and
// dequeuers claim positions with a compare-and-swap on their own counter, then write or read the
// cell and publish its next sequence number.
//
// Two changes make it linearizable as the unbounded "queue" model sees it:
//   - enq() waits (spins with _mm_pause()) while the queue is full, instead of returning false:
//     the model has no failed enqueue. The capacity is 32, more than any workload of the checks
//     holds at once; a workload that holds more would spin and show as a livelock.
//   - deq() returns std::nullopt only when no enqueuer has claimed its position. Vyukov's
//     original also says "empty" when the cell at the head is claimed by an enqueuer that has not
//     published it yet, even if a later enqueue has already returned; this deq() spins until the
//     element is published instead.
//
// With `store_claim` (target vyukov_queue_buggy) enq() claims its position by storing pos + 1
// where it must compare-and-swap: two enqueuers that read the same position both take it, write
// the same cell, and one of the two elements is lost.
//
// Thread-safety: enq() and deq() may be called concurrently (the claim under test).

#ifndef UNMODIFIED_VYUKOV_QUEUE_H_
#define UNMODIFIED_VYUKOV_QUEUE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>

namespace unmodified {

class VyukovQueue {
 public:
  static constexpr std::size_t kCapacity = 32;  // a power of two

  explicit VyukovQueue(bool store_claim = false);
  VyukovQueue(const VyukovQueue&) = delete;
  VyukovQueue& operator=(const VyukovQueue&) = delete;

  void enq(std::int64_t value);
  std::optional<std::int64_t> deq();

 private:
  struct Cell {
    explicit Cell(std::size_t first) : sequence(first) {}
    std::atomic<std::size_t> sequence;
    std::int64_t value = 0;  // written by the enqueuer that claimed the cell, before it publishes
  };

  const bool store_claim_;
  std::deque<Cell> cells_;  // a deque: cells cannot move, and are built in place
  alignas(64) std::atomic<std::size_t> enqueue_pos_{0};
  alignas(64) std::atomic<std::size_t> dequeue_pos_{0};
};

}  // namespace unmodified

#endif  // UNMODIFIED_VYUKOV_QUEUE_H_
