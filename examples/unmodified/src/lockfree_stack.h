// LockFreeStack: a Treiber stack, in plain std::atomic with explicit memory orders. Its push has
// a classic retry bug: when the compare-and-swap fails, `expected` is refreshed but the new
// node's `next` is not, so the node is published pointing at a stale top and the nodes pushed
// meanwhile are lost. LOCKFREE_STACK_FIXED refreshes it.
//
// Thread-safety: push() and pop() may be called concurrently (the claim under test). Nodes are
// freed by the destructor only, so a pop never reads a freed node.

#ifndef UNMODIFIED_LOCKFREE_STACK_H_
#define UNMODIFIED_LOCKFREE_STACK_H_

#include <atomic>
#include <cstdint>
#include <optional>

namespace unmodified {

class LockFreeStack {
 public:
  LockFreeStack() = default;
  ~LockFreeStack();
  LockFreeStack(const LockFreeStack&) = delete;
  LockFreeStack& operator=(const LockFreeStack&) = delete;

  void push(std::int64_t value);
  std::optional<std::int64_t> pop();

 private:
  struct Node {
    explicit Node(std::int64_t v) : value(v) {}
    const std::int64_t value;
    std::atomic<Node*> next{nullptr};
    Node* allocated_before = nullptr;  // every node ever made, for the destructor
  };

  std::atomic<Node*> top_{nullptr};
  std::atomic<Node*> allocated_{nullptr};
};

}  // namespace unmodified

#endif  // UNMODIFIED_LOCKFREE_STACK_H_
