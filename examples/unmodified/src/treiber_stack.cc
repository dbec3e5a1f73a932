#include "treiber_stack.h"

namespace unmodified {

TreiberStack::~TreiberStack() {
  for (Node* node = newest_.load(std::memory_order_acquire); node != nullptr;) {
    Node* const older = node->older;
    delete node;
    node = older;
  }
}

void TreiberStack::push(std::int64_t value) {
  Node* const node = new Node(value);
  node->older = newest_.exchange(node, std::memory_order_acq_rel);
  Node* top = top_.load(std::memory_order_relaxed);
  do {
    node->next.store(top, std::memory_order_relaxed);
  } while (
      !top_.compare_exchange_weak(top, node, std::memory_order_release, std::memory_order_relaxed));
}

std::optional<std::int64_t> TreiberStack::pop() {
  Node* top = top_.load(std::memory_order_acquire);
  if (top == nullptr) return std::nullopt;
  while (true) {
    Node* const next = top->next.load(std::memory_order_relaxed);
    if (top_.compare_exchange_weak(top, next, std::memory_order_acquire,
                                   std::memory_order_acquire)) {
      return top->value;
    }
    // The failed compare-and-swap reloaded top: another pop may have taken the last node.
    if (top == nullptr && !check_empty_once_) return std::nullopt;
  }
}

}  // namespace unmodified
