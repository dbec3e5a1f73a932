#include "ms_queue.h"

namespace unmodified {

MsQueue::MsQueue() : first_(new Node(0)), head_(first_), tail_(first_) {}

MsQueue::~MsQueue() {
  Node* node = first_;
  while (node != nullptr) {
    Node* next = node->next.load(std::memory_order_relaxed);
    delete node;
    node = next;
  }
}

void MsQueue::enq(std::int64_t value) {
  Node* node = new Node(value);
  while (true) {
    Node* tail = tail_.load(std::memory_order_acquire);
    Node* next = tail->next.load(std::memory_order_acquire);
    if (tail != tail_.load(std::memory_order_acquire)) continue;
    if (next != nullptr) {  // the tail lags: help it forward
      tail_.compare_exchange_weak(tail, next, std::memory_order_release, std::memory_order_relaxed);
      continue;
    }
    Node* expected = nullptr;
    if (tail->next.compare_exchange_weak(expected, node, std::memory_order_release,
                                         std::memory_order_relaxed)) {
      tail_.compare_exchange_weak(tail, node, std::memory_order_release, std::memory_order_relaxed);
      return;
    }
  }
}

std::optional<std::int64_t> MsQueue::deq() {
  while (true) {
    Node* head = head_.load(std::memory_order_acquire);
    Node* tail = tail_.load(std::memory_order_acquire);
    Node* next = head->next.load(std::memory_order_acquire);
    if (head != head_.load(std::memory_order_acquire)) continue;
    if (head == tail) {
      if (next == nullptr) return std::nullopt;
      tail_.compare_exchange_weak(tail, next, std::memory_order_release, std::memory_order_relaxed);
      continue;
    }
    const std::int64_t value = next->value;
    if (head_.compare_exchange_weak(head, next, std::memory_order_acq_rel,
                                    std::memory_order_relaxed)) {
      return value;
    }
  }
}

}  // namespace unmodified
