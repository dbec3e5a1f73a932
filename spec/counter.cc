#include "spec/counter.h"

namespace linfault::spec {

Compiled<CounterModel::Op> CounterModel::compile(const history::Operation& recorded) const {
  return compile_guarded<Op>([&]() -> Compiled<Op> {
    OpShape op(name(), recorded);
    if (op.is({"get", "read"})) {
      op.arity(0);
      const std::optional<std::int64_t> value = op.int_result();
      if (!value) return NoEffect{};
      return Op{.read = true, .amount = *value};
    }
    Op compiled{};
    if (op.is({"inc", "increment"})) {
      op.arity(0);
      compiled.amount = 1;
    } else if (op.is({"dec", "decrement"})) {
      op.arity(0);
      compiled.amount = -1;
    } else if (op.is({"add"})) {
      op.arity(1);
      compiled.amount = op.int_arg(0);
    } else {
      op.unknown_method();
    }
    if (op.failed()) return NoEffect{};
    return compiled;
  });
}

std::vector<history::Call> CounterModel::build(const State& state) const {
  if (state == 0) return {};
  if (state == 1) return {history::Call{"inc", {}}};
  if (state == -1) return {history::Call{"dec", {}}};
  return {history::Call{"add", {state}}};
}

std::vector<history::Call> CounterModel::reveal(const State&) const {
  return {history::Call{"get", {}}};
}

}  // namespace linfault::spec
