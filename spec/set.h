// SetModel ("set"): a set of values.
//
// Methods: add/insert(x) -> bool (true iff x was absent), remove/delete(x) -> bool (true iff x was
// present), contains(x) -> bool, size() -> int. A boolean result may be recorded as true/false or
// 1/0; a missing result (nil or pending) accepts either. Failed calls are left out, as are
// pending contains/size calls.
// State: the sorted interned ids of the members. Partitionable by element when the history has
// no size() call.
//
// Thread-safety: immutable apart from the internally synchronized interner.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_SPEC_SET_H_
#define LINFAULT_SPEC_SET_H_

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spec/model.h"
#include "spec/model_support.h"

namespace linfault::spec {

class SetModel {
 public:
  static constexpr bool kCallsNeverBlock = true;  // every call returns (spec/model.h)
  using State = std::vector<std::int32_t>;
  struct Op {
    enum class Kind : std::uint8_t { kAdd, kRemove, kContains, kSize } kind;
    enum class Expect : std::uint8_t { kAny, kTrue, kFalse } expect = Expect::kAny;
    std::int32_t element = 0;
    std::int64_t size = 0;  // kSize: the recorded size
  };

  SetModel() : values_(std::make_shared<ValueInterner>()) {}

  std::string_view name() const { return "set"; }
  State initial() const { return {}; }
  Compiled<Op> compile(const history::Operation& op) const;
  bool step(State& state, const Op& op) const {
    if (op.kind == Op::Kind::kSize) return static_cast<std::int64_t>(state.size()) == op.size;
    auto it = std::lower_bound(state.begin(), state.end(), op.element);
    const bool present = it != state.end() && *it == op.element;
    const bool answer = op.kind == Op::Kind::kAdd ? !present : present;
    if (op.expect == Op::Expect::kTrue && !answer) return false;
    if (op.expect == Op::Expect::kFalse && answer) return false;
    if (op.kind == Op::Kind::kAdd && !present) state.insert(it, op.element);
    if (op.kind == Op::Kind::kRemove && present) state.erase(it);
    return true;
  }
  std::size_t hash(const State& state) const { return hash_ints(state); }
  std::size_t heap_bytes(const State& state) const {
    return state.capacity() * sizeof(std::int32_t);
  }
  std::string describe(const State& state) const { return describe_ids(*values_, state); }
  std::optional<history::Value> partition_key(const history::Operation& op) const;
  std::vector<history::Call> build(const State& state) const;
  std::vector<history::Call> reveal(const State& state) const;
  // Flow of elements (spec/model.h).
  std::optional<std::int64_t> element_added(const Op& op) const {
    if (op.kind == Op::Kind::kAdd && op.expect == Op::Expect::kTrue) return op.element;
    return std::nullopt;
  }
  std::optional<std::int64_t> element_taken(const Op& op) const {
    const bool found = op.kind == Op::Kind::kRemove || op.kind == Op::Kind::kContains;
    if (found && op.expect == Op::Expect::kTrue) return op.element;
    return std::nullopt;
  }

 private:
  std::shared_ptr<ValueInterner> values_;
};

}  // namespace linfault::spec

#endif  // LINFAULT_SPEC_SET_H_
