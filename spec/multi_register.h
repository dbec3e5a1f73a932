// MultiRegisterModel ("multi-register"): named registers read and written by atomic transactions,
// Knossos's multi-register (Jepsen's `:f :txn`).
//
// Method: txn(ops) where ops is a list of micro-operations, each [f key] or [f key value] with f
// one of :r/:read (also r/read) or :w/:write (w/write): [[:r :x 1] [:w :y 2]]. The micro-ops run
// in order and all at once: a read sees the current value of its register, including the writes
// before it in the same transaction. Keys are any non-nil values.
// Results: an :ok txn's result is the list with its reads' values filled in ([[:r :x nil]] ->
// [[:r :x 3]], as Jepsen's completion carries it); a nil result means the argument list itself
// (a completion equal to its invocation), so a read written nil there read nil. A result of
// another shape (length, f or key differing from the argument) is a model error. A failed txn
// took no effect; a pending one may take effect with its writes, its reads unknown (a pending txn
// that only reads constrains nothing and is left out).
// Parameter `init`: every register's initial value (default nil): "multi-register(init=0)".
// Partitionable by key: a txn whose micro-ops all touch one key is checked with the other
// operations on that key (each key is an independent register, so P-compositionality holds);
// a txn touching several keys (or none) disables partitioning for its history.
// State: per key (dense interned ids) the interned value; trailing registers at their initial
// value are trimmed, so that equal stores have equal states.
//
// Thread-safety: immutable apart from the internally synchronized interners.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_SPEC_MULTI_REGISTER_H_
#define LINFAULT_SPEC_MULTI_REGISTER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spec/model.h"
#include "spec/model_params.h"
#include "spec/model_support.h"

namespace linfault::spec {

class MultiRegisterModel {
 public:
  static constexpr bool kCallsNeverBlock = true;  // every call returns (spec/model.h)
  struct State {
    std::vector<std::int32_t> slots;  // slots[k - 1]: the value id of key id k
    friend bool operator==(const State&, const State&) = default;
  };
  struct Micro {
    enum class Kind : std::uint8_t { kRead, kUnknownRead, kWrite } kind;
    std::int32_t key;    // interned key id, from 1
    std::int32_t value;  // read: observed; write: written
  };
  struct Op {
    std::vector<Micro> micros;
  };

  MultiRegisterModel();
  // Parameters: init (any value; default nil).
  explicit MultiRegisterModel(ModelParams& params);

  std::string_view name() const { return name_; }
  State initial() const { return {}; }
  Compiled<Op> compile(const history::Operation& op) const;
  bool step(State& state, const Op& op) const {
    for (const Micro& m : op.micros) {
      const auto slot = static_cast<std::size_t>(m.key - 1);
      if (m.kind == Micro::Kind::kWrite) {
        if (slot >= state.slots.size()) state.slots.resize(slot + 1, initial_value_);
        state.slots[slot] = m.value;
      } else if (m.kind == Micro::Kind::kRead) {
        const std::int32_t current = slot < state.slots.size() ? state.slots[slot] : initial_value_;
        if (current != m.value) return false;
      }
    }
    while (!state.slots.empty() && state.slots.back() == initial_value_) state.slots.pop_back();
    return true;
  }
  std::size_t hash(const State& state) const { return hash_ints(state.slots); }
  std::size_t heap_bytes(const State& state) const {
    return state.slots.capacity() * sizeof(std::int32_t);
  }
  std::string describe(const State& state) const;
  std::string describe_op(const Op& op) const;
  std::optional<history::Value> partition_key(const history::Operation& op) const;
  std::vector<history::Call> build(const State& state) const;

 private:
  std::shared_ptr<ValueInterner> keys_;
  std::shared_ptr<ValueInterner> values_;
  std::int32_t initial_value_ = ValueInterner::kNil;
  std::string name_;  // the model spec, with its parameters
};

}  // namespace linfault::spec

#endif  // LINFAULT_SPEC_MULTI_REGISTER_H_
