// Concurrent LIFO stacks: Treiber's stack, correct and with CGVT's injected bugs.
//
// Values are int64; pop on an empty stack returns std::nullopt ("empty", nil in histories). The
// top pointer and node links are dpct::Atomic; nodes are never freed during a run
// (targets/arena.h), so pointer ABA cannot occur.
//
// Thread-safety: any number of threads may call any method concurrently.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_TARGETS_STACKS_H_
#define LINFAULT_TARGETS_STACKS_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "dpct/shared.h"
#include "targets/arena.h"

namespace linfault::targets {

struct StackNode {
  explicit StackNode(std::int64_t v) : value(v) {}
  const std::int64_t value;
  dpct::Atomic<StackNode*> next{nullptr};
};

// Treiber's stack.
//   kRetry (target treiber_stack, the prototype's LFTreiberStack): push and pop retry their CAS.
//   kNoRetry (target treiber_stack_buggy, TBStack): pop ignores its CAS result and returns the
//     item it read, so pop || pop returns the same item twice (type 1), and push || pop leaves a
//     popped item in the stack (type 2).
class TreiberStack {
 public:
  enum class Pop { kRetry, kNoRetry };
  explicit TreiberStack(Pop pop);

  void push(std::int64_t value);
  std::optional<std::int64_t> pop();
  // The items from the top down: the stack's state for the serial specification
  // (Binding::state), asked between the calls of a serial run only (it reads the links without
  // scheduling points).
  std::vector<std::int64_t> state();

 private:
  const Pop pop_;
  NodeArena<StackNode> arena_;
  dpct::Atomic<StackNode*> top_{nullptr};
};

// The prototype's "KStack" (target k_stack_buggy; not Scal's relaxed k-stack): a Treiber stack
// whose push loop is `do { old = top; n.next = old; CAS(top, old, n) } while (top.next != old)`,
// ignoring the CAS result. push || push from [1, 2] can build a cycle 10 <-> 20, after which pops
// never report empty (a reveal must be bounded); push || pop can push an item twice.
// Where Java would throw a NullPointerException (top read as null after the race on an empty
// stack), this loop treats the null top as "top changed" and goes round again, which re-pushes
// the node: the same duplicated push as push || pop. Retries call dpct::spin_hint.
class KStack {
 public:
  KStack() = default;

  void push(std::int64_t value);
  std::optional<std::int64_t> pop();
  // As TreiberStack::state (only concurrent pushes build a cycle; serial runs never do).
  std::vector<std::int64_t> state();

 private:
  NodeArena<StackNode> arena_;
  dpct::Atomic<StackNode*> top_{nullptr};
};

}  // namespace linfault::targets

#endif  // LINFAULT_TARGETS_STACKS_H_
