#include "spec/cas_register.h"

namespace linfault::spec {

CasRegisterModel::CasRegisterModel(ModelParams& params) : CasRegisterModel() {
  if (std::optional<history::Value> init = params.take("init")) {
    initial_ = values_->intern(*init);
    name_ = canonical_spec("cas-register", "init", *init);
  }
}

Compiled<CasRegisterModel::Op> CasRegisterModel::compile(const history::Operation& recorded) const {
  return compile_guarded<Op>([&]() -> Compiled<Op> {
    OpShape op(name(), recorded);
    if (op.is({"read", "get"})) {
      op.arity(0);
      if (!op.ok()) return NoEffect{};
      return Op{.kind = Op::Kind::kRead, .value = values_->intern(recorded.result)};
    }
    if (op.is({"write", "set", "put"})) {
      op.arity(1);
      if (op.failed()) return NoEffect{};
      return Op{.kind = Op::Kind::kWrite, .value = values_->intern(op.arg(0))};
    }
    if (op.is({"cas", "compare-and-set", "compare_and_set"})) {
      history::Value from, to;
      if (recorded.call.args.size() == 1 && op.arg(0).is_list() &&
          op.arg(0).as_list().size() == 2) {
        from = op.arg(0).as_list()[0];
        to = op.arg(0).as_list()[1];
      } else if (recorded.call.args.size() == 2) {
        from = op.arg(0);
        to = op.arg(1);
      } else {
        op.fail("cas expects [from to] or (from, to), got " + recorded.call.to_string());
      }
      Op compiled{
          .kind = Op::Kind::kCas, .value = values_->intern(to), .expected = values_->intern(from)};
      if (op.failed()) {
        compiled.outcome = Op::Outcome::kNotSwapped;
      } else if (op.ok()) {
        // A boolean says whether it swapped; an ok cas without a result, or echoing its [from
        // to] (Jepsen's completions), swapped. Anything else is no answer a cas gives.
        const history::Value& result = recorded.result;
        const bool echoed = result.is_list() && result.as_list().size() == 2 &&
                            result.as_list()[0] == from && result.as_list()[1] == to;
        if (!result.is_bool() && !result.is_nil() && !echoed) {
          op.fail("cas returns true, false or nothing, got " + result.to_string());
        }
        const bool swapped = !result.is_bool() || result.as_bool();
        compiled.outcome = swapped ? Op::Outcome::kSwapped : Op::Outcome::kNotSwapped;
      }
      return compiled;
    }
    op.unknown_method();
  });
}

std::string CasRegisterModel::describe_op(const Op& op) const {
  const std::string value = values_->value(op.value).to_string();
  switch (op.kind) {
    case Op::Kind::kRead:
      return "read() -> " + value;
    case Op::Kind::kWrite:
      return "write(" + value + ")";
    case Op::Kind::kCas:
      break;
  }
  std::string out = "cas(" + values_->value(op.expected).to_string() + ", " + value + ")";
  if (op.outcome == Op::Outcome::kSwapped) out += " -> true";
  if (op.outcome == Op::Outcome::kNotSwapped) out += " -> false";
  return out;
}

std::vector<history::Call> CasRegisterModel::build(const State& state) const {
  if (state == initial_) return {};
  return {history::Call{"write", {values_->value(state)}}};
}

std::vector<history::Call> CasRegisterModel::reveal(const State&) const {
  return {history::Call{"read", {}}};
}

}  // namespace linfault::spec
