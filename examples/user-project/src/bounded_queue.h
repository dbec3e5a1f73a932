// Two bounded FIFO queues whose operations never wait: try_push(v) returns false when the queue
// is full, try_pop() returns std::nullopt when it is empty. Capacity 2 unless given. Their model
// is the project's own "bounded-queue" (bounded_queue_model.h).
//
//   BoundedQueue (target bounded_queue): a ring under one lock (correct).
//   RingBufferQueue (target bounded_queue_buggy): a lock-free ring written for one producer and
//     used by several. try_pop is a compare-and-swap on head (safe for many consumers), but
//     try_push checks for room, writes the slot at tail and publishes tail + 1 as three separate
//     steps: two producers that read the same tail both write one slot and both return true, and
//     one of the two values is lost (try_push(1) || try_push(2); then two try_pops find one).
//
// Thread-safety: try_push() and try_pop() may be called from any number of threads at once
// (that is the claim under test; RingBufferQueue only keeps it with a single producer).

#ifndef USER_PROJECT_BOUNDED_QUEUE_H_
#define USER_PROJECT_BOUNDED_QUEUE_H_

#include <cstdint>
#include <memory>
#include <optional>

#include <linfault/target.h>

namespace user {

class BoundedQueue {
 public:
  explicit BoundedQueue(std::int64_t capacity = 2);

  bool try_push(std::int64_t value);
  std::optional<std::int64_t> try_pop();

 private:
  const std::int64_t capacity_;
  linfault::Mutex lock_;
  std::int64_t head_ = 0;                  // guarded by lock_: index of the next pop
  std::int64_t size_ = 0;                  // guarded by lock_
  std::unique_ptr<std::int64_t[]> slots_;  // guarded by lock_
};

class RingBufferQueue {
 public:
  explicit RingBufferQueue(std::int64_t capacity = 2);

  bool try_push(std::int64_t value);
  std::optional<std::int64_t> try_pop();

 private:
  const std::int64_t capacity_;
  linfault::Atomic<std::int64_t> head_{0};  // pops so far
  linfault::Atomic<std::int64_t> tail_{0};  // pushes published so far
  std::unique_ptr<linfault::Atomic<std::int64_t>[]> slots_;
};

}  // namespace user

#endif  // USER_PROJECT_BOUNDED_QUEUE_H_
