#include "spec/multi_register.h"

namespace linfault::spec {
namespace {

enum class MicroKind { kRead, kWrite, kInvalid };

MicroKind micro_kind(const history::Value& f) {
  if (!f.is_string()) return MicroKind::kInvalid;
  std::string_view name = f.as_string();
  if (name.starts_with(':')) name.remove_prefix(1);
  if (name == "r" || name == "read") return MicroKind::kRead;
  if (name == "w" || name == "write") return MicroKind::kWrite;
  return MicroKind::kInvalid;
}

// The micro-op list of a txn call: its one argument, when that is a list.
const history::Value::List* micro_list(const history::Operation& op) {
  if (op.call.args.size() != 1 || !op.call.args[0].is_list()) return nullptr;
  return &op.call.args[0].as_list();
}

}  // namespace

MultiRegisterModel::MultiRegisterModel()
    : keys_(std::make_shared<ValueInterner>()),
      values_(std::make_shared<ValueInterner>()),
      name_("multi-register") {}

MultiRegisterModel::MultiRegisterModel(ModelParams& params) : MultiRegisterModel() {
  if (std::optional<history::Value> init = params.take("init")) {
    initial_value_ = values_->intern(*init);
    name_ = canonical_spec("multi-register", "init", *init);
  }
}

Compiled<MultiRegisterModel::Op> MultiRegisterModel::compile(
    const history::Operation& recorded) const {
  return compile_guarded<Op>([&]() -> Compiled<Op> {
    OpShape op(name(), recorded);
    if (!op.is({"txn"})) op.unknown_method();
    const history::Value::List* asked = micro_list(recorded);
    if (!asked) {
      op.fail("txn expects one list of micro-operations such as [[:r :x nil] [:w :y 2]], got " +
              recorded.call.to_string());
    }
    const history::Value::List* answered = asked;
    if (op.ok() && !recorded.result.is_nil()) {
      if (!recorded.result.is_list() || recorded.result.as_list().size() != asked->size()) {
        op.fail("txn result " + recorded.result.to_string() +
                " is not its micro-operations with the reads filled in");
      }
      answered = &recorded.result.as_list();
    }
    Op compiled;
    bool writes = false;
    for (std::size_t i = 0; i < asked->size(); ++i) {
      const history::Value& micro = (*asked)[i];
      const std::string where = "micro-operation " + std::to_string(i + 1) + " ";
      if (!micro.is_list() || micro.as_list().size() < 2 || micro.as_list().size() > 3) {
        op.fail(where + micro.to_string() + " is not [f key] or [f key value]");
      }
      const history::Value::List& parts = micro.as_list();
      const MicroKind kind = micro_kind(parts[0]);
      if (kind == MicroKind::kInvalid) {
        op.fail(where + micro.to_string() + ": f must be :r or :w");
      }
      if (parts[1].is_nil()) op.fail(where + micro.to_string() + ": the key must not be nil");
      if (kind == MicroKind::kWrite && parts.size() != 3) {
        op.fail(where + micro.to_string() + ": a write needs a value");
      }
      const history::Value& result = (*answered)[i];
      if (answered != asked) {
        const bool same_shape = result.is_list() && result.as_list().size() >= 2 &&
                                result.as_list().size() <= 3 && result.as_list()[0] == parts[0] &&
                                result.as_list()[1] == parts[1];
        // A write's answer, when it repeats the value, must repeat the value written.
        const bool same_write = kind != MicroKind::kWrite || !same_shape ||
                                result.as_list().size() < 3 || result.as_list()[2] == parts[2];
        if (!same_shape || !same_write) {
          op.fail("txn result " + result.to_string() + " does not answer " + where +
                  micro.to_string());
        }
      }
      const history::Value observed =
          result.as_list().size() == 3 ? result.as_list()[2] : history::Value();
      Micro m{Micro::Kind::kWrite, keys_->intern(parts[1]), 0};
      if (kind == MicroKind::kWrite) {
        m.value = values_->intern(parts[2]);
        writes = true;
      } else if (op.ok()) {
        m.kind = Micro::Kind::kRead;
        m.value = values_->intern(observed);
      } else {
        m.kind = Micro::Kind::kUnknownRead;
      }
      compiled.micros.push_back(m);
    }
    if (op.failed() || (op.pending() && !writes)) return NoEffect{};
    return compiled;
  });
}

std::string MultiRegisterModel::describe(const State& state) const {
  std::string out = "{";
  for (std::size_t i = 0; i < state.slots.size(); ++i) {
    if (state.slots[i] == initial_value_) continue;
    if (out.size() > 1) out += ", ";
    out += keys_->value(static_cast<std::int32_t>(i + 1)).to_string() + " " +
           values_->value(state.slots[i]).to_string();
  }
  return out + "}";
}

std::string MultiRegisterModel::describe_op(const Op& op) const {
  std::string out = "txn([";
  for (std::size_t i = 0; i < op.micros.size(); ++i) {
    const Micro& m = op.micros[i];
    if (i) out += ' ';
    out += m.kind == Micro::Kind::kWrite ? "[:w " : "[:r ";
    out += keys_->value(m.key).to_string();
    out += m.kind == Micro::Kind::kUnknownRead ? " nil]"
                                               : " " + values_->value(m.value).to_string() + "]";
  }
  return out + "])";
}

std::optional<history::Value> MultiRegisterModel::partition_key(
    const history::Operation& op) const {
  const history::Value::List* micros = micro_list(op);
  if (!micros || micros->empty()) return std::nullopt;
  std::optional<history::Value> key;
  for (const history::Value& micro : *micros) {
    if (!micro.is_list() || micro.as_list().size() < 2) return std::nullopt;
    const history::Value& k = micro.as_list()[1];
    if (key && !(*key == k)) return std::nullopt;
    key = k;
  }
  return key;
}

std::vector<history::Call> MultiRegisterModel::build(const State& state) const {
  history::Value::List writes;
  for (std::size_t i = 0; i < state.slots.size(); ++i) {
    if (state.slots[i] == initial_value_) continue;
    writes.push_back(history::Value::List{history::Value(":w"),
                                          keys_->value(static_cast<std::int32_t>(i + 1)),
                                          values_->value(state.slots[i])});
  }
  if (writes.empty()) return {};
  return {history::Call{"txn", {history::Value(std::move(writes))}}};
}

}  // namespace linfault::spec
