#include "spec/bag.h"

namespace linfault::spec {

Compiled<BagModel::Op> BagModel::compile(const history::Operation& recorded) const {
  return compile_guarded<Op>([&]() -> Compiled<Op> {
    OpShape op(name(), recorded);
    if (op.is({"add", "insert", "put"})) {
      op.arity(1);
      if (op.failed()) return NoEffect{};
      return Op{.kind = Op::Kind::kAdd, .value = values_->intern(op.non_nil_arg(0))};
    }
    if (!op.is({"take", "remove", "poll"})) op.unknown_method();
    op.arity(0);
    if (op.failed()) return NoEffect{};
    if (op.pending()) return Op{.kind = Op::Kind::kOwe};
    if (recorded.result.is_nil()) return Op{.kind = Op::Kind::kEmpty};
    return Op{.kind = Op::Kind::kTake, .value = values_->intern(recorded.result)};
  });
}

std::string BagModel::describe(const State& state) const {
  std::string out = describe_ids(*values_, state.items);
  if (state.owed > 0) {
    out += " less up to " + std::to_string(state.owed) +
           (state.owed == 1 ? " element" : " elements") + " (pending take)";
  }
  return out;
}

std::vector<history::Call> BagModel::build(const State& state) const {
  std::vector<history::Call> calls;
  for (std::int32_t id : state.items) calls.push_back(history::Call{"add", {values_->value(id)}});
  return calls;
}

std::vector<history::Call> BagModel::reveal(const State& state) const {
  return std::vector<history::Call>(state.items.size() + 1, history::Call{"take", {}});
}

}  // namespace linfault::spec
