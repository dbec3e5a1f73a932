#include "spec/set.h"

namespace linfault::spec {

Compiled<SetModel::Op> SetModel::compile(const history::Operation& recorded) const {
  return compile_guarded<Op>([&]() -> Compiled<Op> {
    OpShape op(name(), recorded);
    if (op.failed()) {
      if (!op.is({"add", "insert", "remove", "delete", "contains", "size"})) op.unknown_method();
      return NoEffect{};
    }
    if (op.is({"size"})) {
      op.arity(0);
      const std::optional<std::int64_t> size = op.int_result();
      if (!size) return NoEffect{};
      return Op{.kind = Op::Kind::kSize, .size = *size};
    }
    Op compiled{};
    if (op.is({"add", "insert"})) {
      compiled.kind = Op::Kind::kAdd;
    } else if (op.is({"remove", "delete"})) {
      compiled.kind = Op::Kind::kRemove;
    } else if (op.is({"contains"})) {
      compiled.kind = Op::Kind::kContains;
    } else {
      op.unknown_method();
    }
    op.arity(1);
    compiled.element = values_->intern(op.non_nil_arg(0));
    const std::optional<bool> result = op.bool_result();
    if (result) compiled.expect = *result ? Op::Expect::kTrue : Op::Expect::kFalse;
    if (compiled.kind == Op::Kind::kContains && !result) return NoEffect{};
    return compiled;
  });
}

std::optional<history::Value> SetModel::partition_key(const history::Operation& op) const {
  if (op.call.method == "size" || op.call.args.empty()) return std::nullopt;
  return op.call.args.front();
}

std::vector<history::Call> SetModel::build(const State& state) const {
  std::vector<history::Call> calls;
  for (std::int32_t id : state) calls.push_back(history::Call{"add", {values_->value(id)}});
  return calls;
}

std::vector<history::Call> SetModel::reveal(const State& state) const {
  std::vector<history::Call> calls{history::Call{"size", {}}};
  for (std::int32_t id : state) calls.push_back(history::Call{"contains", {values_->value(id)}});
  return calls;
}

}  // namespace linfault::spec
