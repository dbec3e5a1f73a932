#include "optimistic_queue.h"

namespace ported {

// No scheduling point in the constructor: both ends start at the dummy node.
OptimisticQueue::OptimisticQueue() : dummy_(pool_.make(0)), head_(dummy_), tail_(dummy_) {}

void OptimisticQueue::offer(std::int64_t value) {
  Node* node = pool_.make(value);
  while (true) {
    Node* tail = tail_.load();
    node->next.store(tail);
    Node* expected = tail;
    if (tail_.compare_exchange_strong(expected, node)) {
      tail->prev.store(node);  // optimistic: another thread may see prev still missing
      return;
    }
  }
}

void OptimisticQueue::fix_list(Node* tail, Node* head) {
  Node* curr = tail;
  while (head == head_.load() && curr != head) {
    Node* curr_next = curr->next.load();
    curr_next->prev.store(curr);
    curr = curr->next.load();
  }
}

std::optional<std::int64_t> OptimisticQueue::poll() {
  while (true) {
    Node* head = head_.load();
    Node* tail = tail_.load();
    Node* first = head->prev.load();
    if (head != head_.load()) continue;
    if (head == tail) return std::nullopt;
    if (first == nullptr) {
      fix_list(tail, head);
      continue;
    }
    Node* expected = head;
    if (head_.compare_exchange_strong(expected, first)) {
      return head_.load()->value;  // the injected bug: head is read again after the CAS
    }
  }
}

}  // namespace ported
