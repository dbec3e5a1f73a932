// The bundled treiber_stack_buggy (targets/stacks.h, CGVT's TBStack), ported back to plain
// std::atomic: pop ignores the result of its compare-and-swap and returns the item it read.
// Built with linfault_add_target(... INSTRUMENT), it must behave exactly as the hand-instrumented
// original (bench/ported compares them).
//
// Thread-safety: push() and pop() may be called concurrently (the claim under test).
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_TARGETS_PORTED_TREIBER_STACK_H_
#define LINFAULT_TARGETS_PORTED_TREIBER_STACK_H_

#include <atomic>
#include <cstdint>
#include <optional>

#include "node_pool.h"

namespace ported {

class TreiberStack {
 public:
  void push(std::int64_t value);
  std::optional<std::int64_t> pop();

 private:
  struct Node {
    explicit Node(std::int64_t v) : value(v) {}
    const std::int64_t value;
    std::atomic<Node*> next{nullptr};
  };

  NodePool<Node> pool_;
  std::atomic<Node*> top_{nullptr};
};

}  // namespace ported

#endif  // LINFAULT_TARGETS_PORTED_TREIBER_STACK_H_
