#include "treiber_stack.h"

namespace ported {

void TreiberStack::push(std::int64_t value) {
  Node* node = pool_.make(value);
  while (true) {
    Node* old = top_.load();
    node->next.store(old);
    if (top_.compare_exchange_strong(old, node)) return;
  }
}

std::optional<std::int64_t> TreiberStack::pop() {
  Node* old = top_.load();
  if (old == nullptr) return std::nullopt;
  Node* next = old->next.load();
  Node* expected = old;
  top_.compare_exchange_strong(expected, next);  // the bug: the result is ignored
  return old->value;
}

}  // namespace ported
