#include "spec/deque.h"

namespace linfault::spec {

Compiled<DequeModel::Op> DequeModel::compile(const history::Operation& recorded) const {
  return compile_guarded<Op>([&]() -> Compiled<Op> {
    OpShape op(name(), recorded);
    Op compiled{};
    if (op.is({"push_left", "push_front", "push_right", "push_back"})) {
      op.arity(1);
      if (op.failed()) return NoEffect{};
      compiled.kind = Op::Kind::kPush;
      compiled.left = op.is({"push_left", "push_front"});
      compiled.value = values_->intern(op.non_nil_arg(0));
      return compiled;
    }
    if (op.is({"pop_left", "pop_front", "pop_right", "pop_back"})) {
      compiled.kind = Op::Kind::kPop;
      compiled.left = op.is({"pop_left", "pop_front"});
    } else if (op.is({"peek_left", "peek_front", "peek_right", "peek_back"})) {
      compiled.kind = Op::Kind::kPeek;
      compiled.left = op.is({"peek_left", "peek_front"});
    } else {
      op.unknown_method();
    }
    op.arity(0);
    if (op.failed() || (compiled.kind == Op::Kind::kPeek && op.pending())) return NoEffect{};
    compiled.constrained = op.ok();
    compiled.value = op.ok() ? values_->intern(recorded.result) : ValueInterner::kNil;
    return compiled;
  });
}

std::vector<history::Call> DequeModel::build(const State& state) const {
  std::vector<history::Call> calls;
  for (std::int32_t id : state) calls.push_back(history::Call{"push_right", {values_->value(id)}});
  return calls;
}

std::vector<history::Call> DequeModel::reveal(const State& state) const {
  return std::vector<history::Call>(state.size() + 1, history::Call{"pop_left", {}});
}

}  // namespace linfault::spec
