// TreiberStack: Treiber's lock-free stack, in plain std::atomic. pop() loads the top, reads its
// next and swings the top to it with a compare-and-swap; a failed compare-and-swap reloads the
// top, which another pop may meanwhile have made null, so the loop checks for an empty stack
// again before it reads the next node. Nodes are kept, on a list of every node made, until the
// destructor: a pop may still read a node another pop unlinked.
//
// With `check_empty_once` (target treiber_std_buggy) pop() checks for an empty stack only
// before the loop. When its compare-and-swap fails because another pop took the last node, it
// reads `top->next` through a null pointer: the process gets SIGSEGV. Only schedules that make
// two pops race for the last node reach it.
//
// Thread-safety: push() and pop() may be called concurrently (the claim under test).

#ifndef UNMODIFIED_TREIBER_STACK_H_
#define UNMODIFIED_TREIBER_STACK_H_

#include <atomic>
#include <cstdint>
#include <optional>

namespace unmodified {

class TreiberStack {
 public:
  explicit TreiberStack(bool check_empty_once = false) : check_empty_once_(check_empty_once) {}
  ~TreiberStack();
  TreiberStack(const TreiberStack&) = delete;
  TreiberStack& operator=(const TreiberStack&) = delete;

  void push(std::int64_t value);
  std::optional<std::int64_t> pop();

 private:
  struct Node {
    explicit Node(std::int64_t v) : value(v) {}
    const std::int64_t value;
    std::atomic<Node*> next{nullptr};
    Node* older = nullptr;  // the node made before this one: every node stays listed
  };

  const bool check_empty_once_;
  std::atomic<Node*> top_{nullptr};
  std::atomic<Node*> newest_{nullptr};
};

}  // namespace unmodified

#endif  // UNMODIFIED_TREIBER_STACK_H_
