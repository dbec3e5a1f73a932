#include "spec/priority_queue.h"

namespace linfault::spec {

Compiled<PriorityQueueModel::Op> PriorityQueueModel::compile(
    const history::Operation& recorded) const {
  return compile_guarded<Op>([&]() -> Compiled<Op> {
    OpShape op(name(), recorded);
    if (op.is({"insert", "add", "offer"})) {
      op.arity(1);
      if (op.failed()) return NoEffect{};
      return Op{.kind = Op::Kind::kInsert, .value = op.int_arg(0)};
    }
    const bool poll = op.is({"poll", "pop", "remove_max"});
    if (!poll && !op.is({"peek"})) op.unknown_method();
    op.arity(0);
    if (op.failed() || (!poll && op.pending())) return NoEffect{};
    return Op{.kind = poll ? Op::Kind::kPoll : Op::Kind::kPeek,
              .constrained = op.ok(),
              .value = op.int_result()};
  });
}

std::string PriorityQueueModel::describe(const State& state) const {
  std::string out = "[";
  for (std::size_t i = state.size(); i-- > 0;) {
    out += std::to_string(state[i]);
    if (i) out += ' ';
  }
  return out + "]";
}

std::vector<history::Call> PriorityQueueModel::build(const State& state) const {
  std::vector<history::Call> calls;
  for (std::int64_t v : state) calls.push_back(history::Call{"insert", {v}});
  return calls;
}

std::vector<history::Call> PriorityQueueModel::reveal(const State& state) const {
  return std::vector<history::Call>(state.size() + 1, history::Call{"poll", {}});
}

}  // namespace linfault::spec
