// PriorityQueueModel ("priorityqueue"): a max-priority queue of integers (a larger value has a
// higher priority, as in fastlin's data).
//
// Methods: insert/add/offer(x), poll() -> x | nil (the largest; nil: empty), peek() -> x | nil.
// Failed calls are left out; a pending poll removes the largest (if any) when it takes effect;
// pending peeks are left out.
// State: the multiset of elements, sorted ascending (the largest is last).
//
// Thread-safety: immutable; usable from several threads.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_SPEC_PRIORITY_QUEUE_H_
#define LINFAULT_SPEC_PRIORITY_QUEUE_H_

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spec/model.h"
#include "spec/model_support.h"

namespace linfault::spec {

class PriorityQueueModel {
 public:
  static constexpr bool kCallsNeverBlock = true;  // every call returns (spec/model.h)
  using State = std::vector<std::int64_t>;
  struct Op {
    enum class Kind : std::uint8_t { kInsert, kPoll, kPeek } kind;
    bool constrained = true;  // kPoll: false when pending (any result)
    std::optional<std::int64_t>
        value;  // insert: the element; poll/peek: the result (nullopt = empty)
  };

  std::string_view name() const { return "priorityqueue"; }
  State initial() const { return {}; }
  Compiled<Op> compile(const history::Operation& op) const;
  bool step(State& state, const Op& op) const {
    if (op.kind == Op::Kind::kInsert) {
      state.insert(std::upper_bound(state.begin(), state.end(), *op.value), *op.value);
      return true;
    }
    const std::optional<std::int64_t> top =
        state.empty() ? std::nullopt : std::optional<std::int64_t>(state.back());
    if (op.constrained && top != op.value) return false;
    if (op.kind == Op::Kind::kPoll && !state.empty()) state.pop_back();
    return true;
  }
  std::size_t hash(const State& state) const { return hash_ints(state); }
  std::size_t heap_bytes(const State& state) const {
    return state.capacity() * sizeof(std::int64_t);
  }
  std::string describe(const State& state) const;
  std::vector<history::Call> build(const State& state) const;
  std::vector<history::Call> reveal(const State& state) const;
  // Flow of elements (spec/model.h).
  std::optional<std::int64_t> element_added(const Op& op) const {
    if (op.kind == Op::Kind::kInsert) return op.value;
    return std::nullopt;
  }
  std::optional<std::int64_t> element_taken(const Op& op) const {
    if (op.kind == Op::Kind::kInsert || !op.constrained) return std::nullopt;
    return op.value;
  }
};

}  // namespace linfault::spec

#endif  // LINFAULT_SPEC_PRIORITY_QUEUE_H_
