#include "spec/counter.h"

#include <limits>

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

std::string CounterModel::describe(const State& state) const {
  if (state >= std::numeric_limits<std::int64_t>::min() &&
      state <= std::numeric_limits<std::int64_t>::max()) {
    return std::to_string(static_cast<std::int64_t>(state));
  }
  auto magnitude = static_cast<unsigned __int128>(state < 0 ? -state : state);
  std::string digits;
  while (magnitude != 0) {
    digits.push_back(static_cast<char>('0' + static_cast<int>(magnitude % 10)));
    magnitude /= 10;
  }
  if (state < 0) digits.push_back('-');
  return {digits.rbegin(), digits.rend()};
}

std::vector<history::Call> CounterModel::build(const State& state) const {
  if (state == 0) return {};
  if (state == 1) return {history::Call{"inc", {}}};
  if (state == -1) return {history::Call{"dec", {}}};
  // A value beyond int64 takes several adds, each of an amount an int64 argument can hold.
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  std::vector<history::Call> calls;
  State rest = state;
  while (rest > kMax || rest < -kMax) {
    const std::int64_t step = rest > 0 ? kMax : -kMax;
    calls.push_back(history::Call{"add", {step}});
    rest -= step;
  }
  if (rest != 0) calls.push_back(history::Call{"add", {static_cast<std::int64_t>(rest)}});
  return calls;
}

std::vector<history::Call> CounterModel::reveal(const State&) const {
  return {history::Call{"get", {}}};
}

}  // namespace linfault::spec
