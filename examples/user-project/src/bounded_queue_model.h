// BoundedQueueModel ("bounded-queue"): the sequential specification of a FIFO queue of at most
// `capacity` elements whose operations never wait, written by the project with <linfault/model.h>
// (no built-in linfault model has a capacity). docs/own-model.md in linfault walks through it.
//
//   try_push(x) -> bool   appends x and returns true, or returns false when the queue is full
//   try_pop() -> x | nil  removes and returns the head, or nil when the queue is empty
//
// Parameter: capacity (an integer >= 1, default 2): "bounded-queue(capacity=3)".
// Pending calls: a pending try_push appends x if there is room (a call that returns could only
// have returned true there) and changes nothing on a full queue; a pending try_pop removes the
// head, if any. Failed calls (Jepsen's :fail) took no effect and are left out.
// Pushed values are expected to be distinct, as the targets' generators make them; the model is
// still exact with repeated values, only slower to explain.
//
// Thread-safety: immutable after construction; every member is const (linfault may use one model
// from several threads).

#ifndef USER_PROJECT_BOUNDED_QUEUE_MODEL_H_
#define USER_PROJECT_BOUNDED_QUEUE_MODEL_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <linfault/model.h>

namespace user {

class BoundedQueueModel {
 public:
  static constexpr std::int64_t kDefaultCapacity = 2;

  using State = std::vector<std::int64_t>;  // the elements, head first
  struct Op {
    bool push = false;
    std::int64_t value = 0;      // try_push: the element; try_pop: the result
    std::optional<bool> pushed;  // try_push's result; nullopt while pending
    bool pop_known = false;      // try_pop: its result was recorded
    bool popped_nil = false;     // try_pop: it returned nil (empty)
  };

  BoundedQueueModel() = default;
  // Takes `capacity`; throws linfault::ModelSpecError for a value that is not an integer >= 1.
  explicit BoundedQueueModel(linfault::ModelParams& params);

  std::string_view name() const { return "bounded-queue"; }
  std::size_t capacity() const { return capacity_; }

  State initial() const { return {}; }
  linfault::Compiled<Op> compile(const linfault::Operation& op) const;
  bool step(State& state, const Op& op) const;
  std::size_t hash(const State& state) const;
  std::string describe(const State& state) const;
  std::string describe_op(const Op& op) const;
  // The pushes that build `state` from the empty queue.
  std::vector<linfault::Call> build(const State& state) const;
  // Pops that empty the queue and one more, whose nil shows it is empty.
  std::vector<linfault::Call> reveal(const State& state) const;

 private:
  std::size_t capacity_ = kDefaultCapacity;
};

}  // namespace user

#endif  // USER_PROJECT_BOUNDED_QUEUE_MODEL_H_
