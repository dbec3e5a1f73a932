#include "targets/queues.h"

#include <algorithm>

namespace linfault::targets {

// ---------------------------------------------------------------------------------------------
// OptimisticQueue

OptimisticQueue::OptimisticQueue(Poll poll)
    : poll_(poll), head_(arena_.make(0)), tail_(head_.unsafe_peek()) {}

void OptimisticQueue::offer(std::int64_t value) {
  Node* node = arena_.make(value);
  while (true) {
    Node* tail = tail_.load();
    node->next.store(tail);
    Node* expected = tail;
    if (tail_.compare_exchange(expected, node)) {
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

// The `next` links run from the tail to the head's dummy node. Read without scheduling points, as
// TreiberStack::state.
std::vector<std::int64_t> OptimisticQueue::state() {
  std::vector<std::int64_t> items;
  const Node* head = head_.unsafe_peek();
  for (Node* node = tail_.unsafe_peek(); node != head; node = node->next.unsafe_peek()) {
    items.push_back(node->value);
  }
  std::reverse(items.begin(), items.end());
  return items;
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
    const std::int64_t item = first->value;
    Node* expected = head;
    if (head_.compare_exchange(expected, first)) {
      if (poll_ == Poll::kHeadReadAfterCas) return head_.load()->value;  // the injected bug
      return item;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// MichaelScottQueue

MichaelScottQueue::MichaelScottQueue(Consistency consistency)
    : consistency_(consistency), head_(arena_.make(0)), tail_(head_.unsafe_peek()) {}

void MichaelScottQueue::enq(std::int64_t value) {
  Node* node = arena_.make(value);
  while (true) {
    Node* last = tail_.load();
    Node* next = last->next.load();
    if (consistency_ == Consistency::kWithCheck && last != tail_.load()) continue;
    if (next == nullptr) {
      Node* expected = nullptr;
      if (last->next.compare_exchange(expected, node)) {
        expected = last;
        tail_.compare_exchange(expected, node);
        return;
      }
    } else {
      Node* expected = last;
      tail_.compare_exchange(expected, next);
    }
  }
}

std::optional<std::int64_t> MichaelScottQueue::deq() {
  while (true) {
    Node* first = head_.load();
    Node* last = tail_.load();
    Node* next = first->next.load();
    if (first != head_.load()) continue;
    if (first == last) {
      if (next == nullptr) return std::nullopt;
      Node* expected = last;
      tail_.compare_exchange(expected, next);
    } else {
      const std::int64_t value = next->value;
      Node* expected = first;
      if (head_.compare_exchange(expected, next)) return value;
    }
  }
}

// Items follow the dummy node at the head.
std::vector<std::int64_t> MichaelScottQueue::state() {
  std::vector<std::int64_t> items;
  for (Node* node = head_.unsafe_peek()->next.unsafe_peek(); node != nullptr;
       node = node->next.unsafe_peek()) {
    items.push_back(node->value);
  }
  return items;
}

}  // namespace linfault::targets
