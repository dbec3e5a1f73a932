#include "bounded_queue_model.h"

namespace user {
namespace {

// compile()'s complaints: one line, naming the model and the call.
linfault::ModelError shape_error(const linfault::Operation& op, const std::string& problem) {
  return linfault::ModelError{"bounded-queue: " + op.call.to_string() + ": " + problem};
}

}  // namespace

BoundedQueueModel::BoundedQueueModel(linfault::ModelParams& params) {
  if (std::optional<linfault::Value> capacity = params.take("capacity")) {
    if (!capacity->is_int() || capacity->as_int() < 1) {
      throw linfault::ModelSpecError("bounded-queue: capacity must be an integer >= 1, not " +
                                     capacity->to_string());
    }
    capacity_ = static_cast<std::size_t>(capacity->as_int());
  }
}

linfault::Compiled<BoundedQueueModel::Op> BoundedQueueModel::compile(
    const linfault::Operation& op) const {
  const std::string& method = op.call.method;
  const auto& args = op.call.args;
  if (op.outcome == linfault::Outcome::kFail) return linfault::NoEffect{};
  const bool pending = op.outcome == linfault::Outcome::kPending;
  if (method == "try_push") {
    if (args.size() != 1 || !args[0].is_int()) {
      return shape_error(op, "try_push takes one integer argument");
    }
    Op push{.push = true, .value = args[0].as_int()};
    if (!pending) {
      if (!op.result.is_bool()) return shape_error(op, "try_push returns a bool");
      push.pushed = op.result.as_bool();
    }
    return push;
  }
  if (method == "try_pop") {
    if (!args.empty()) return shape_error(op, "try_pop takes no argument");
    Op pop{.push = false};
    if (!pending) {
      if (!op.result.is_nil() && !op.result.is_int()) {
        return shape_error(op, "try_pop returns an integer or nil");
      }
      pop.pop_known = true;
      pop.popped_nil = op.result.is_nil();
      if (!pop.popped_nil) pop.value = op.result.as_int();
    }
    return pop;
  }
  return linfault::ModelError{"bounded-queue has no method '" + method + "'"};
}

bool BoundedQueueModel::step(State& state, const Op& op) const {
  if (op.push) {
    const bool room = state.size() < capacity_;
    // try_push never waits: it succeeds exactly when there is room.
    if (op.pushed && *op.pushed != room) return false;
    if (room) state.push_back(op.value);
    return true;
  }
  if (op.pop_known) {
    if (op.popped_nil) return state.empty();
    if (state.empty() || state.front() != op.value) return false;
  }
  if (!state.empty()) state.erase(state.begin());
  return true;
}

std::size_t BoundedQueueModel::hash(const State& state) const {
  std::size_t h = state.size();
  for (std::int64_t v : state) {
    h ^= static_cast<std::size_t>(v) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  }
  return h;
}

std::string BoundedQueueModel::describe(const State& state) const {
  std::string out = "[";
  for (std::size_t i = 0; i < state.size(); ++i) {
    out += (i ? " " : "") + std::to_string(state[i]);
  }
  return out + "] of " + std::to_string(capacity_);
}

std::string BoundedQueueModel::describe_op(const Op& op) const {
  if (op.push) {
    return "try_push(" + std::to_string(op.value) + ")" +
           (op.pushed ? (*op.pushed ? " -> true" : " -> false") : " pending");
  }
  if (!op.pop_known) return "try_pop() pending";
  return "try_pop() -> " + (op.popped_nil ? std::string("nil") : std::to_string(op.value));
}

std::vector<linfault::Call> BoundedQueueModel::build(const State& state) const {
  std::vector<linfault::Call> calls;
  for (std::int64_t v : state) calls.push_back(linfault::Call{"try_push", {v}});
  return calls;
}

std::vector<linfault::Call> BoundedQueueModel::reveal(const State& state) const {
  return std::vector<linfault::Call>(state.size() + 1, linfault::Call{"try_pop", {}});
}

}  // namespace user

LINFAULT_REGISTER_MODEL("bounded-queue", user::BoundedQueueModel);
