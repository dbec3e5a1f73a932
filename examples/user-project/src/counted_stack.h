// CountedStack: a Treiber stack that also keeps its size in a counter, for a cheap size().
// Written after linfault's window scheduler and its current portfolio were designed (the second
// held-out set).
//
// The bug: push links its node and only then counts it, pop unlinks and then uncounts. A pop of a
// node whose push has not counted it yet takes the count below the number of nodes, and size()
// can return -1, a size no serial order gives. (Nodes are never freed: no ABA.)
//
// Thread-safety: every method may be called concurrently (the claim under test).

#ifndef USER_PROJECT_COUNTED_STACK_H_
#define USER_PROJECT_COUNTED_STACK_H_

#include <cstdint>
#include <optional>

#include <linfault/target.h>

namespace user {

class CountedStack {
 public:
  void push(std::int64_t value) {
    Node* node = nodes_.make(value);
    Node* top = top_.load();
    do {
      node->next.store(top);
    } while (!top_.compare_exchange_strong(top, node));
    size_.fetch_add(1);  // after the link: a pop may take the node first
  }
  std::optional<std::int64_t> pop() {
    Node* top = top_.load();
    while (top != nullptr && !top_.compare_exchange_strong(top, top->next.load())) {
    }
    if (top == nullptr) return std::nullopt;
    size_.fetch_sub(1);
    return top->value;
  }
  std::int64_t size() const { return size_.load(); }

 private:
  struct Node {
    explicit Node(std::int64_t v) : value(v) {}
    std::int64_t value;
    linfault::Atomic<Node*> next{nullptr};
  };
  linfault::NodeArena<Node> nodes_;  // nodes live as long as the stack
  linfault::Atomic<Node*> top_{nullptr};
  linfault::Atomic<std::int64_t> size_{0};
};

}  // namespace user

#endif  // USER_PROJECT_COUNTED_STACK_H_
