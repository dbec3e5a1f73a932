// StackModel ("stack"): a LIFO stack.
//
// Methods: push(x), pop() -> x | nil (nil: the stack was empty), peek()/top() -> x | nil.
// Failed calls are left out; a pending pop removes the top (if any) when it takes effect; pending
// peeks are left out.
// State: the interned ids of the elements, bottom first.
//
// Thread-safety: immutable apart from the internally synchronized interner.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_SPEC_STACK_H_
#define LINFAULT_SPEC_STACK_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spec/model.h"
#include "spec/model_support.h"

namespace linfault::spec {

class StackModel {
 public:
  static constexpr bool kCallsNeverBlock = true;  // every call returns (spec/model.h)
  using State = std::vector<std::int32_t>;
  struct Op {
    enum class Kind : std::uint8_t { kPush, kPop, kPeek } kind;
    bool constrained = true;  // kPop: false when pending (any result)
    std::int32_t value = 0;   // push: the element; pop/peek: the result (kNil = empty)
  };

  StackModel() : values_(std::make_shared<ValueInterner>()) {}

  std::string_view name() const { return "stack"; }
  State initial() const { return {}; }
  Compiled<Op> compile(const history::Operation& op) const;
  bool step(State& state, const Op& op) const {
    if (op.kind == Op::Kind::kPush) {
      state.push_back(op.value);
      return true;
    }
    const std::int32_t top = state.empty() ? ValueInterner::kNil : state.back();
    if (op.constrained && top != op.value) return false;
    if (op.kind == Op::Kind::kPop && !state.empty()) state.pop_back();
    return true;
  }
  std::size_t hash(const State& state) const { return hash_ints(state); }
  std::size_t heap_bytes(const State& state) const {
    return state.capacity() * sizeof(std::int32_t);
  }
  std::string describe(const State& state) const { return describe_ids(*values_, state); }
  std::vector<history::Call> build(const State& state) const;
  std::vector<history::Call> reveal(const State& state) const;
  // Flow of elements (spec/model.h).
  std::optional<std::int64_t> element_added(const Op& op) const {
    if (op.kind == Op::Kind::kPush) return op.value;
    return std::nullopt;
  }
  std::optional<std::int64_t> element_taken(const Op& op) const {
    if (op.kind == Op::Kind::kPush || !op.constrained || op.value == ValueInterner::kNil)
      return std::nullopt;
    return op.value;
  }

 private:
  std::shared_ptr<ValueInterner> values_;
};

}  // namespace linfault::spec

#endif  // LINFAULT_SPEC_STACK_H_
