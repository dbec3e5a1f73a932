// Concurrent FIFO queues: the queue benchmarks of CGVT (OPQueue, BUQueue) and their controls.
//
// Values are int64; an empty poll/deq returns std::nullopt ("empty", nil in histories). Shared
// links are dpct::Atomic; nodes are never freed during a run (targets/arena.h), so pointer ABA
// cannot occur.
//
// Thread-safety: any number of threads may call any method concurrently.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_TARGETS_QUEUES_H_
#define LINFAULT_TARGETS_QUEUES_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "dpct/shared.h"
#include "targets/arena.h"

namespace linfault::targets {

// Ladan-Mozes & Shavit's optimistic queue: a doubly-linked list whose `next` pointers run from
// the tail toward the head and whose `prev` pointers are set optimistically after enqueue and
// repaired by fixList when found missing.
//   kHeadReadAfterCas (target optimistic_queue_buggy, the prototype's injected bug): poll returns
//     head.item read *after* its CAS on head, so poll || poll from [1, 2] can return 2 twice.
//   kCorrect (target optimistic_queue): poll reads first.item before the CAS.
// The prototype clears the old head's links after a dequeue to help Java's GC; nodes are never
// freed here, so that is left out (it has no effect on the algorithm's results).
class OptimisticQueue {
 public:
  enum class Poll { kHeadReadAfterCas, kCorrect };
  explicit OptimisticQueue(Poll poll);

  void offer(std::int64_t value);
  std::optional<std::int64_t> poll();
  // The items from the head on: the queue's state for the serial specification
  // (Binding::state), asked between the calls of a serial run only (it reads the links without
  // scheduling points).
  std::vector<std::int64_t> state();

 private:
  struct Node {
    explicit Node(std::int64_t v) : value(v) {}
    const std::int64_t value;
    dpct::Atomic<Node*> next{nullptr};  // toward the head
    dpct::Atomic<Node*> prev{nullptr};  // toward the tail
  };
  void fix_list(Node* tail, Node* head);

  const Poll poll_;
  NodeArena<Node> arena_;
  dpct::Atomic<Node*> head_;
  dpct::Atomic<Node*> tail_;
};

// The Michael-Scott queue as in Herlihy & Shavit (AMP), with tail-lag helping.
//   kWithCheck (target ms_queue): enq re-checks `last == tail` before acting, as published.
//   kWithoutCheck (target ms_queue_nocheck, CGVT's "BUQueue"): that re-check is removed. This is
//     only an optimization loss: the CAS on last.next from null still guarantees last is the end,
//     so the queue stays linearizable and serves as a control.
class MichaelScottQueue {
 public:
  enum class Consistency { kWithCheck, kWithoutCheck };
  explicit MichaelScottQueue(Consistency consistency);

  void enq(std::int64_t value);
  std::optional<std::int64_t> deq();
  // As OptimisticQueue::state.
  std::vector<std::int64_t> state();

 private:
  struct Node {
    explicit Node(std::int64_t v) : value(v) {}
    const std::int64_t value;
    dpct::Atomic<Node*> next{nullptr};
  };

  const Consistency consistency_;
  NodeArena<Node> arena_;
  dpct::Atomic<Node*> head_;
  dpct::Atomic<Node*> tail_;
};

}  // namespace linfault::targets

#endif  // LINFAULT_TARGETS_QUEUES_H_
