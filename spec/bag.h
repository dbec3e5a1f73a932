// BagModel ("bag"): a multiset, with no order between its elements.
//
// Methods: add/insert/put(x) (its result, if any, is ignored), take/remove/poll() -> x | nil.
// take() returns an element the bag holds, any one, and removes one copy of it; nil means the bag
// was empty, and only then: a take() that returns nil while the bag holds an element is illegal.
// No size(): see "pending takes" below. Failed calls are left out.
//
// Pending takes: a take() whose result is unknown removes, when it takes effect, an element nobody
// saw, and which one it was changes what later calls may return. Instead of trying every element,
// the state keeps the pending takes that took effect as `owed` removals, each of which may remove
// any one element at any later point, or nothing: removing it later is the same as the pending
// take taking effect later, which a pending call may (it has no response), and nothing is the same
// as its never taking effect. So take() -> x needs x in the bag (the owed removals take others),
// and take() -> nil needs the owed removals to cover every element: it spends that many of them
// and empties the bag. The verdicts are the same as trying every element, with one state per
// step. (A size() would fix how many owed removals happened by then, but not which elements they
// took, so the bag leaves it out.)
//
// State: the sorted interned ids of the elements (an element added twice is there twice), and the
// owed removals; it stands for every bag those elements make with up to `owed` of them removed.
// build() adds all the elements, which builds one of those bags (none removed); reveal() takes
// once more than there are elements.
//
// Thread-safety: immutable apart from the internally synchronized interner.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_SPEC_BAG_H_
#define LINFAULT_SPEC_BAG_H_

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

class BagModel {
 public:
  static constexpr bool kCallsNeverBlock = true;  // every call returns (spec/model.h)
  struct State {
    std::vector<std::int32_t> items;  // sorted interned ids, with repeats
    std::int32_t owed = 0;            // removals owed by pending take()s (see above)
    friend bool operator==(const State&, const State&) = default;
  };
  struct Op {
    // kTake: take() -> value; kEmpty: take() -> nil; kOwe: a pending take().
    enum class Kind : std::uint8_t { kAdd, kTake, kEmpty, kOwe } kind;
    std::int32_t value = 0;  // kAdd: the element; kTake: the result
  };

  BagModel() : values_(std::make_shared<ValueInterner>()) {}

  std::string_view name() const { return "bag"; }
  State initial() const { return {}; }
  Compiled<Op> compile(const history::Operation& op) const;
  bool step(State& state, const Op& op) const {
    std::vector<std::int32_t>& items = state.items;
    switch (op.kind) {
      case Op::Kind::kAdd:
        items.insert(std::upper_bound(items.begin(), items.end(), op.value), op.value);
        return true;
      case Op::Kind::kTake: {
        const auto it = std::lower_bound(items.begin(), items.end(), op.value);
        if (it == items.end() || *it != op.value) return false;
        items.erase(it);
        return true;
      }
      case Op::Kind::kEmpty:
        if (items.size() > static_cast<std::size_t>(state.owed)) return false;
        state.owed -= static_cast<std::int32_t>(items.size());
        items.clear();
        return true;
      case Op::Kind::kOwe:
        ++state.owed;
        return true;
    }
    return false;
  }
  std::size_t hash(const State& state) const {
    return hash_mix(hash_ints(state.items), static_cast<std::uint64_t>(state.owed));
  }
  std::size_t heap_bytes(const State& state) const {
    return state.items.capacity() * sizeof(std::int32_t);
  }
  std::string describe(const State& state) const;
  std::vector<history::Call> build(const State& state) const;
  std::vector<history::Call> reveal(const State& state) const;
  // Flow of elements (spec/model.h).
  std::optional<std::int64_t> element_added(const Op& op) const {
    if (op.kind == Op::Kind::kAdd) return op.value;
    return std::nullopt;
  }
  std::optional<std::int64_t> element_taken(const Op& op) const {
    if (op.kind == Op::Kind::kTake) return op.value;
    return std::nullopt;
  }

 private:
  std::shared_ptr<ValueInterner> values_;
};

}  // namespace linfault::spec

#endif  // LINFAULT_SPEC_BAG_H_
