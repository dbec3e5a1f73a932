// QueueModel ("queue"): a FIFO queue.
//
// Methods: enq/offer/enqueue(x), deq/poll/dequeue() -> x | nil (nil: the queue was empty),
// peek() -> x | nil. Failed calls are left out; a pending deq removes the head (if any) when it
// takes effect; pending peeks are left out.
// State: the interned ids of the elements, head first.
//
// Parameter `fifo`: `global` (the default: this model, named "queue") or `per-producer` (FIFO
// only among the elements of one producer: PerProducerQueueModel, spec/per_producer_queue.h).
// spec::visit_model takes it with take_queue_fifo() and constructs the one it names.
//
// Thread-safety: immutable apart from the internally synchronized interner.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_SPEC_QUEUE_H_
#define LINFAULT_SPEC_QUEUE_H_

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

enum class QueueFifo : std::uint8_t { kGlobal, kPerProducer };

// Takes the queue's `fifo` parameter from `params`: kGlobal when it is absent or `global`,
// kPerProducer for `per-producer`; throws ModelSpecError for any other value.
QueueFifo take_queue_fifo(ModelParams& params);

class QueueModel {
 public:
  static constexpr bool kCallsNeverBlock = true;  // every call returns (spec/model.h)
  using State = std::vector<std::int32_t>;
  struct Op {
    enum class Kind : std::uint8_t { kEnq, kDeq, kPeek } kind;
    bool constrained = true;  // kDeq: false when pending (any result)
    std::int32_t value = 0;   // enq: the element; deq/peek: the result (kNil = empty)
  };

  QueueModel() : values_(std::make_shared<ValueInterner>()) {}

  std::string_view name() const { return "queue"; }
  State initial() const { return {}; }
  Compiled<Op> compile(const history::Operation& op) const;
  bool step(State& state, const Op& op) const {
    if (op.kind == Op::Kind::kEnq) {
      state.push_back(op.value);
      return true;
    }
    const std::int32_t head = state.empty() ? ValueInterner::kNil : state.front();
    if (op.constrained && head != op.value) return false;
    if (op.kind == Op::Kind::kDeq && !state.empty()) state.erase(state.begin());
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
    if (op.kind == Op::Kind::kEnq) return op.value;
    return std::nullopt;
  }
  std::optional<std::int64_t> element_taken(const Op& op) const {
    if (op.kind == Op::Kind::kEnq || !op.constrained || op.value == ValueInterner::kNil)
      return std::nullopt;
    return op.value;
  }

 private:
  std::shared_ptr<ValueInterner> values_;
};

}  // namespace linfault::spec

#endif  // LINFAULT_SPEC_QUEUE_H_
