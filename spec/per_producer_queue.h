// PerProducerQueueModel ("queue(fifo=per-producer)", canonically queue(fifo="per-producer")): a
// queue that is FIFO only among the elements one producer enqueued, the contract that
// moodycamel::ConcurrentQueue documents.
//
// The contract, from its README and concurrentqueue.h: the queue is a collection of sub-queues,
// one per producer thread; elements "come out in the order they were put in by any individual
// producer", while "if two producers enqueue at the same time, there is no defined ordering
// between the elements when they're later dequeued" (nor when one producer's enqueue finished
// before the other's began: the README says so of producers that co-ordinate). try_dequeue
// "Returns false if all producer streams appeared empty at the time they were checked (so, the
// queue is likely but not guaranteed to be empty)": each sub-queue is looked at once, at its own
// moment, so a false says nothing about the queue as a whole at any one moment.
//
// The model, exactly:
//   - A producer is the process (history::Operation::process) that called the enqueue; a process
//     is one thread of the run (a Jepsen client that crashed and came back as a new process is a
//     new producer). The state is one FIFO per producer.
//   - enq/offer/enqueue(x) appends x to its process's FIFO. The result, if any, is ignored.
//   - deq/poll/dequeue() -> x removes x from the head of some producer's FIFO: legal iff x is at
//     the head of one of them. -> nil: legal iff every FIFO is empty (strict, as the queue model:
//     the library has no dequeue that may not fail, so these names keep the linearizable
//     contract).
//   - try_dequeue/try_deq() -> x: as deq. -> nil: legal in every state, and removes nothing (the
//     documented false that does not mean empty). It is left out of the check (NoEffect).
//   - A pending dequeue of either kind (result unknown) may remove the head of any FIFO when it
//     takes effect, or nothing.
//   - No peek and no size: ConcurrentQueue has neither (size_approx is documented as an estimate).
//   - Failed calls (outcome fail) are left out.
// The model has no notion of tokens: a binding that enqueues through a producer token shared by
// several threads must record those enqueues under one process.
//
// Choices the model leaves open are tracked without guessing. A pending dequeue that takes effect
// becomes an owed removal, which may remove the head of any FIFO at any later point, or nothing
// (taking effect later, or never, which a pending call may). So deq -> x is also legal when x is
// the (k+1)-th element of a FIFO and k owed removals are left: they took the k before it. Within
// one FIFO the first such x is taken: every state reachable by taking a later copy is reachable
// from there too. When x can come from the FIFOs of two producers (the same value enqueued by
// both), the state becomes the set of both outcomes; a state is in general a set of alternatives,
// each with its FIFOs and owed removals, and a step is legal iff it is legal in one of them.
// Values enqueued once each (the usual workload) keep one alternative.
//
// State: the alternatives, sorted, each encoded as
//   [length, owed, producer_1, n_1, x_1 ... x_n1, producer_2, n_2, ...]
// with `length` the number of integers after it, producers (interned process ids) ascending and
// only non-empty FIFOs listed, head first.
//
// build() enqueues the first alternative's elements, producer by producer, all from one process:
// the state exactly when its elements come from one producer (as a Ps on thread 0 leaves it);
// otherwise a single FIFO holding one of the orders the state allows, whose behaviours are a
// subset of the state's. Owed removals are left out (none removed is one of the states they
// allow). reveal() calls deq() and then try_dequeue() once more than the largest alternative
// holds (the minimizer keeps the methods the target has).
//
// Thread-safety: immutable apart from the internally synchronized interners.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_SPEC_PER_PRODUCER_QUEUE_H_
#define LINFAULT_SPEC_PER_PRODUCER_QUEUE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spec/model.h"
#include "spec/model_support.h"

namespace linfault::spec {

class PerProducerQueueModel {
 public:
  static constexpr bool kCallsNeverBlock = true;  // every call returns (spec/model.h)
  static constexpr std::string_view kName = "queue(fifo=\"per-producer\")";
  using State = std::vector<std::int32_t>;  // see above
  struct Op {
    // kDeq: a dequeue -> value; kEmpty: deq() -> nil; kOwe: a pending dequeue.
    enum class Kind : std::uint8_t { kEnq, kDeq, kEmpty, kOwe } kind;
    std::int32_t producer = 0;  // kEnq: the interned process
    std::int32_t value = 0;     // kEnq: the element; kDeq: the result
  };

  PerProducerQueueModel()
      : values_(std::make_shared<ValueInterner>()), producers_(std::make_shared<ValueInterner>()) {}

  std::string_view name() const { return kName; }
  State initial() const { return {1, 0}; }
  Compiled<Op> compile(const history::Operation& op) const;
  bool step(State& state, const Op& op) const;
  std::size_t hash(const State& state) const { return hash_ints(state); }
  std::size_t heap_bytes(const State& state) const {
    return state.capacity() * sizeof(std::int32_t);
  }
  std::string describe(const State& state) const;
  std::vector<history::Call> build(const State& state) const;
  std::vector<history::Call> reveal(const State& state) const;
  // Flow of elements (spec/model.h).
  std::optional<std::int64_t> element_added(const Op& op) const {
    if (op.kind == Op::Kind::kEnq) return op.value;
    return std::nullopt;
  }
  std::optional<std::int64_t> element_taken(const Op& op) const {
    if (op.kind == Op::Kind::kDeq) return op.value;
    return std::nullopt;
  }

 private:
  std::shared_ptr<ValueInterner> values_;
  std::shared_ptr<ValueInterner> producers_;  // process ids
};

}  // namespace linfault::spec

#endif  // LINFAULT_SPEC_PER_PRODUCER_QUEUE_H_
