// Sequential models: what an object is supposed to do when its operations run one at a time.
//
// A model is a small C++ type (no base class, no virtual calls) that satisfies the
// SequentialModel concept below. Checkers, monitors and the minimizer are templates over it, so
// a model's step() is inlined into the search loop; spec/registry.h maps command-line names
// ("stack", "cas-register", ...) to the built-in models by static dispatch.
//
// To check your own object, write a model:
//
//   struct CounterModel {
//     using State = std::int64_t;
//     struct Op { bool increment; std::optional<std::int64_t> observed; };
//     std::string_view name() const { return "my-counter"; }
//     State initial() const { return 0; }
//     spec::Compiled<Op> compile(const history::Operation& op) const;  // see below
//     bool step(State& s, const Op& op) const;                          // see below
//     std::size_t hash(const State& s) const { return std::hash<State>{}(s); }
//     std::string describe(const State& s) const { return std::to_string(s); }
//   };
//
// Contract:
//   - compile(op) is called once per recorded operation before checking. It returns the model's
//     compact Op, or NoEffect (the call did not take effect: e.g. a Jepsen :fail, which the
//     checker then leaves out), or ModelError with a one-line reason when the operation does not
//     belong to this model (unknown method, wrong argument count or type). For a pending op
//     (outcome kPending) the result is unknown and step() must accept any result.
//   - step(state, op) applies op to state and returns true iff the op's recorded result is legal
//     in that state. On false, `state` may have been modified; callers discard it.
//   - State is copyable and equality-comparable; hash() and operator== must agree.
//   - Everything is const and deterministic: the same model may be used from several threads.
//
// Optional members, detected with `requires`:
//   - std::optional<history::Value> partition_key(const history::Operation&) const: models whose
//     operations on different keys are independent (set, kv) return the key; a history whose
//     every op has a key can then be checked one key at a time (P-compositionality). An op that
//     returns nullopt (e.g. a set's size()) disables partitioning for that history.
//   - std::string describe_op(const Op&) const: for messages.
//   - std::vector<history::Call> build(const State&) const: a shortest sequence of calls that
//     builds `state` from initial(); used to synthesize a test case's sequential prefix (Ps).
//   - std::vector<history::Call> reveal(const State&) const: calls whose results expose the
//     whole state (drain a queue, contains(k) per key); used to synthesize Pr.
//   - std::optional<std::int64_t> element_added(const Op&) const and element_taken(const Op&)
//     const: for containers, the element an op puts in (a push, an add that succeeded, a write)
//     and the element an op returned from the object (a pop, a peek, a contains that found it, a
//     read of a written value), by one identity for both (an interned id); nullopt otherwise. An
//     element taken must have been put in: the initial state holds none. They let the checker
//     demand synchronisation (detect::CheckOptions::synchronization): an element is taken only
//     by an operation that the call putting it in happens-before.
//   - static constexpr bool kCallsNeverBlock = true: every call returns, in every state (every
//     built-in model but mutex). A run that ended stuck (deadlock, or the step cap) with an
//     operation pending then violates the model by Line-Up's rule for stuck histories
//     (detect::CheckOptions::stuck): the operation never returned, and no serial order makes it
//     block. Without it, the checkers cannot tell blocking and do not apply that rule.
//
// Thread-safety: models are immutable after construction; all members are const.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_SPEC_MODEL_H_
#define LINFAULT_SPEC_MODEL_H_

#include <concepts>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "history/history.h"

namespace linfault::spec {

// compile() results other than an Op.
struct NoEffect {};
struct ModelError {
  std::string message;  // e.g. "stack has no method 'enq'"
};

template <class Op>
using Compiled = std::variant<Op, NoEffect, ModelError>;

template <class M>
concept SequentialModel = std::copy_constructible<M> && std::copyable<typename M::State> &&
    std::equality_comparable<typename M::State> &&
    requires(const M& model, typename M::State& state, const typename M::State& cstate,
             const typename M::Op& op, const history::Operation& recorded) {
  { model.name() } -> std::convertible_to<std::string_view>;
  { model.initial() } -> std::same_as<typename M::State>;
  { model.compile(recorded) } -> std::same_as<Compiled<typename M::Op>>;
  { model.step(state, op) } -> std::same_as<bool>;
  { model.hash(cstate) } -> std::convertible_to<std::size_t>;
  { model.describe(cstate) } -> std::convertible_to<std::string>;
};

template <class M>
concept NeverBlockingModel = SequentialModel<M> && requires {
  requires M::kCallsNeverBlock;
};

template <class M>
concept PartitionableModel = SequentialModel<M> &&
    requires(const M& model, const history::Operation& recorded) {
  { model.partition_key(recorded) } -> std::same_as<std::optional<history::Value>>;
};

template <class M>
concept FlowModel = SequentialModel<M> && requires(const M& model, const typename M::Op& op) {
  { model.element_added(op) } -> std::same_as<std::optional<std::int64_t>>;
  { model.element_taken(op) } -> std::same_as<std::optional<std::int64_t>>;
};

template <class M>
concept BuildableModel = SequentialModel<M> &&
    requires(const M& model, const typename M::State& state) {
  { model.build(state) } -> std::same_as<std::vector<history::Call>>;
};

template <class M>
concept RevealableModel = SequentialModel<M> &&
    requires(const M& model, const typename M::State& state) {
  { model.reveal(state) } -> std::same_as<std::vector<history::Call>>;
};

}  // namespace linfault::spec

#endif  // LINFAULT_SPEC_MODEL_H_
