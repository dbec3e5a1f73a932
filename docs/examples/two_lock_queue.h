// TwoLockQueue: Michael & Scott's two-lock FIFO queue, the worked example of
// docs/adding-a-target.md -- a user's own concurrent object made a linfault target.
//
// enq holds the tail lock, deq the head lock, so one enqueuer and one dequeuer can run at once;
// they meet only at a node's `next` link, which is therefore a dpct::Atomic. head_ and tail_ are
// only touched under their lock, so they are dpct::Var. Nodes are never freed during a run.
//
// Locking::kEnqueueOnly is a deliberately broken variant for the walkthrough: deq forgets its
// lock, so two dequeuers can return the same value.
//
// Thread-safety: any number of threads may call enq and deq concurrently.

#ifndef LINFAULT_DOCS_EXAMPLES_TWO_LOCK_QUEUE_H_
#define LINFAULT_DOCS_EXAMPLES_TWO_LOCK_QUEUE_H_

#include <cstdint>
#include <optional>

#include "dpct/shared.h"
#include "targets/arena.h"
#include "targets/registry.h"

namespace linfault::examples {

class TwoLockQueue {
 public:
  enum class Locking { kBoth, kEnqueueOnly };
  explicit TwoLockQueue(Locking locking = Locking::kBoth);

  void enq(std::int64_t value);
  std::optional<std::int64_t> deq();  // std::nullopt when empty

 private:
  struct Node {
    explicit Node(std::int64_t v) : value(v) {}
    const std::int64_t value;
    dpct::Atomic<Node*> next{nullptr};
  };
  std::optional<std::int64_t> deq_locked();

  const Locking locking_;
  targets::NodeArena<Node> arena_;
  dpct::Var<Node*> head_;  // guarded by head_lock_
  dpct::Var<Node*> tail_;  // guarded by tail_lock_
  dpct::Mutex head_lock_;
  dpct::Mutex tail_lock_;
};

// The queue as a target: model "queue", enq with unique values, deq.
targets::Target two_lock_queue_target(TwoLockQueue::Locking locking);

}  // namespace linfault::examples

#endif  // LINFAULT_DOCS_EXAMPLES_TWO_LOCK_QUEUE_H_
