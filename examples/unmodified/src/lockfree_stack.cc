#include "lockfree_stack.h"

namespace unmodified {

LockFreeStack::~LockFreeStack() {
  Node* node = allocated_.load(std::memory_order_relaxed);
  while (node != nullptr) {
    Node* before = node->allocated_before;
    delete node;
    node = before;
  }
}

void LockFreeStack::push(std::int64_t value) {
  Node* node = new Node(value);
  node->allocated_before = allocated_.exchange(node, std::memory_order_acq_rel);
  Node* expected = top_.load(std::memory_order_relaxed);
  node->next.store(expected, std::memory_order_relaxed);
  while (!top_.compare_exchange_weak(expected, node, std::memory_order_release,
                                     std::memory_order_relaxed)) {
#ifdef LOCKFREE_STACK_FIXED
    node->next.store(expected, std::memory_order_relaxed);
#endif
  }
}

std::optional<std::int64_t> LockFreeStack::pop() {
  Node* top = top_.load(std::memory_order_acquire);
  while (top != nullptr &&
         !top_.compare_exchange_weak(top, top->next.load(std::memory_order_relaxed),
                                     std::memory_order_acq_rel, std::memory_order_acquire)) {
  }
  if (top == nullptr) return std::nullopt;
  return top->value;
}

}  // namespace unmodified
