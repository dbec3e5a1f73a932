// DequeModel ("deque"): a double-ended queue.
//
// Methods: push_left/push_front(x), push_right/push_back(x), pop_left/pop_front() -> x | nil,
// pop_right/pop_back() -> x | nil, peek_left/peek_right() -> x | nil. Failed calls are left out;
// a pending pop removes its end (if any) when it takes effect; pending peeks are left out.
// State: the interned ids of the elements, left end first.
//
// Thread-safety: immutable apart from the internally synchronized interner.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_SPEC_DEQUE_H_
#define LINFAULT_SPEC_DEQUE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spec/model.h"
#include "spec/model_support.h"

namespace linfault::spec {

class DequeModel {
 public:
  static constexpr bool kCallsNeverBlock = true;  // every call returns (spec/model.h)
  using State = std::vector<std::int32_t>;
  struct Op {
    enum class Kind : std::uint8_t { kPush, kPop, kPeek } kind;
    bool left = false;
    bool constrained = true;  // kPop: false when pending (any result)
    std::int32_t value = 0;   // push: the element; pop/peek: the result (kNil = empty)
  };

  DequeModel() : values_(std::make_shared<ValueInterner>()) {}

  std::string_view name() const { return "deque"; }
  State initial() const { return {}; }
  Compiled<Op> compile(const history::Operation& op) const;
  bool step(State& state, const Op& op) const {
    if (op.kind == Op::Kind::kPush) {
      if (op.left) {
        state.insert(state.begin(), op.value);
      } else {
        state.push_back(op.value);
      }
      return true;
    }
    const std::int32_t end =
        state.empty() ? ValueInterner::kNil : (op.left ? state.front() : state.back());
    if (op.constrained && end != op.value) return false;
    if (op.kind == Op::Kind::kPop && !state.empty()) {
      if (op.left) {
        state.erase(state.begin());
      } else {
        state.pop_back();
      }
    }
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

#endif  // LINFAULT_SPEC_DEQUE_H_
