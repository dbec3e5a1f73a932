#include "spec/stack.h"

namespace linfault::spec {

Compiled<StackModel::Op> StackModel::compile(const history::Operation& recorded) const {
  return compile_guarded<Op>([&]() -> Compiled<Op> {
    OpShape op(name(), recorded);
    if (op.is({"push"})) {
      op.arity(1);
      if (op.failed()) return NoEffect{};
      return Op{.kind = Op::Kind::kPush, .value = values_->intern(op.non_nil_arg(0))};
    }
    const bool pop = op.is({"pop"});
    if (!pop && !op.is({"peek", "top"})) op.unknown_method();
    op.arity(0);
    if (op.failed() || (!pop && op.pending())) return NoEffect{};
    return Op{.kind = pop ? Op::Kind::kPop : Op::Kind::kPeek,
              .constrained = op.ok(),
              .value = op.ok() ? values_->intern(recorded.result) : ValueInterner::kNil};
  });
}

std::vector<history::Call> StackModel::build(const State& state) const {
  std::vector<history::Call> calls;
  for (std::int32_t id : state) calls.push_back(history::Call{"push", {values_->value(id)}});
  return calls;
}

std::vector<history::Call> StackModel::reveal(const State& state) const {
  // One pop per element, then one that shows the stack is empty.
  return std::vector<history::Call>(state.size() + 1, history::Call{"pop", {}});
}

}  // namespace linfault::spec
