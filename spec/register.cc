#include "spec/register.h"

namespace linfault::spec {

RegisterModel::RegisterModel(ModelParams& params) : RegisterModel() {
  if (std::optional<history::Value> init = params.take("init")) {
    initial_ = values_->intern(*init);
    name_ = canonical_spec("register", "init", *init);
  }
}

Compiled<RegisterModel::Op> RegisterModel::compile(const history::Operation& recorded) const {
  return compile_guarded<Op>([&]() -> Compiled<Op> {
    OpShape op(name(), recorded);
    if (op.is({"read", "get"})) {
      op.arity(0);
      if (!op.ok()) return NoEffect{};
      return Op{Op::Kind::kRead, values_->intern(recorded.result)};
    }
    if (op.is({"write", "set", "put"})) {
      op.arity(1);
      if (op.failed()) return NoEffect{};
      return Op{Op::Kind::kWrite, values_->intern(op.arg(0))};
    }
    op.unknown_method();
  });
}

std::string RegisterModel::describe_op(const Op& op) const {
  const std::string value = values_->value(op.value).to_string();
  return op.kind == Op::Kind::kRead ? "read() -> " + value : "write(" + value + ")";
}

std::vector<history::Call> RegisterModel::build(const State& state) const {
  if (state == initial_) return {};
  return {history::Call{"write", {values_->value(state)}}};
}

std::vector<history::Call> RegisterModel::reveal(const State&) const {
  return {history::Call{"read", {}}};
}

}  // namespace linfault::spec
