// The bundled optimistic_queue_buggy (targets/queues.h: Ladan-Mozes and Shavit's optimistic
// queue with the prototype's injected bug), ported back to plain std::atomic: poll returns the
// item of head read *after* its compare-and-swap on head.
//
// Thread-safety: offer() and poll() may be called concurrently (the claim under test).
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_TARGETS_PORTED_OPTIMISTIC_QUEUE_H_
#define LINFAULT_TARGETS_PORTED_OPTIMISTIC_QUEUE_H_

#include <atomic>
#include <cstdint>
#include <optional>

#include "node_pool.h"

namespace ported {

class OptimisticQueue {
 public:
  OptimisticQueue();

  void offer(std::int64_t value);
  std::optional<std::int64_t> poll();

 private:
  struct Node {
    explicit Node(std::int64_t v) : value(v) {}
    const std::int64_t value;
    std::atomic<Node*> next{nullptr};  // toward the head
    std::atomic<Node*> prev{nullptr};  // toward the tail
  };
  void fix_list(Node* tail, Node* head);

  NodePool<Node> pool_;
  Node* const dummy_;
  std::atomic<Node*> head_;
  std::atomic<Node*> tail_;
};

}  // namespace ported

#endif  // LINFAULT_TARGETS_PORTED_OPTIMISTIC_QUEUE_H_
