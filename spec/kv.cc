#include "spec/kv.h"

#include <stdexcept>

namespace linfault::spec {
namespace {

constexpr std::uint64_t kBase =
    1'000'003;  // any base in [256, 2^61-1) works; fixed for determinism

std::string text_of(const OpShape& op, const history::Value& v, bool nil_is_empty) {
  if (v.is_string()) return v.as_string();
  if (v.is_int()) return std::to_string(v.as_int());
  if (v.is_nil() && nil_is_empty) return "";
  op.fail(op.method() + " values must be strings, got " + v.to_string());
}

}  // namespace

KvModel::KvModel()
    : keys_(std::make_shared<ValueInterner>()), dictionary_(std::make_shared<Dictionary>()) {}

KvModel::Fingerprint KvModel::fingerprint(std::string_view text) {
  Fingerprint f;
  for (unsigned char c : text) f.hash = add_mod(mul_mod(f.hash, kBase), c + 1u);
  f.length = text.size();
  return f;
}

std::uint64_t KvModel::power(std::uint64_t exponent) {
  std::uint64_t result = 1;
  std::uint64_t base = kBase;
  for (; exponent; exponent >>= 1) {
    if (exponent & 1) result = mul_mod(result, base);
    base = mul_mod(base, base);
  }
  return result;
}

Compiled<KvModel::Op> KvModel::compile(const history::Operation& recorded) const {
  return compile_guarded<Op>([&]() -> Compiled<Op> {
    OpShape op(name(), recorded);
    const bool get = op.is({"get", "read"});
    const bool put = op.is({"put", "write", "set"});
    const bool append = op.is({"append"});
    if (!get && !put && !append) op.unknown_method();

    // The key comes from Operation::key when present, otherwise from the first argument.
    const std::size_t value_args = get ? 0 : 1;
    std::size_t given = recorded.call.args.size();
    while (given > value_args && recorded.call.args[given - 1].is_nil()) --given;
    history::Value key;
    std::size_t first_value = 0;
    if (given == value_args + 1) {
      key = op.arg(0);
      first_value = 1;
      // partition_key() takes the operation key first: the two must agree.
      if (recorded.key && !(*recorded.key == key)) {
        op.fail(op.method() + "'s key " + key.to_string() + " is not its operation key " +
                recorded.key->to_string());
      }
    } else if (given == value_args && recorded.key) {
      key = *recorded.key;
    } else {
      op.fail(op.method() + " expects " + std::to_string(value_args + 1) +
              " arguments (key first) or an operation key, got " + recorded.call.to_string());
    }
    if (key.is_nil()) op.fail(op.method() + " key must not be nil");
    const std::int32_t key_id = keys_->intern(key);

    auto remember = [&](const std::string& text) {
      Fingerprint f = fingerprint(text);
      std::lock_guard lock(dictionary_->mutex);
      dictionary_->texts.emplace(f, text);
      return f;
    };
    if (get) {
      if (!op.ok()) return NoEffect{};
      return Op{Op::Kind::kGet, key_id, remember(text_of(op, recorded.result, true))};
    }
    if (op.failed()) return NoEffect{};
    const std::string text = text_of(op, op.arg(first_value), false);
    if (put) return Op{Op::Kind::kPut, key_id, remember(text)};
    const Fingerprint suffix = fingerprint(text);
    return Op{Op::Kind::kAppend, key_id, suffix, power(suffix.length)};
  });
}

std::size_t KvModel::hash(const State& state) const {
  std::size_t seed = state.slots.size();
  for (const Fingerprint& f : state.slots) seed = hash_mix(hash_mix(seed, f.hash), f.length);
  return seed;
}

std::string KvModel::describe(const State& state) const {
  std::string out = "{";
  bool first = true;
  std::lock_guard lock(dictionary_->mutex);
  for (std::size_t i = 0; i < state.slots.size(); ++i) {
    if (state.slots[i] == Fingerprint{}) continue;
    if (!first) out += ", ";
    first = false;
    out += keys_->value(static_cast<std::int32_t>(i + 1)).to_string() + " ";
    auto it = dictionary_->texts.find(state.slots[i]);
    out += it != dictionary_->texts.end()
               ? history::Value(it->second).to_string()
               : "<" + std::to_string(state.slots[i].length) + " characters>";
  }
  return out + "}";
}

std::string KvModel::describe_op(const Op& op) const {
  const std::string key = keys_->value(op.key).to_string();
  switch (op.kind) {
    case Op::Kind::kGet:
      return "get(" + key + ")";
    case Op::Kind::kPut:
      return "put(" + key + ", ...)";
    case Op::Kind::kAppend:
      return "append(" + key + ", ...)";
  }
  return "?";
}

std::optional<history::Value> KvModel::partition_key(const history::Operation& op) const {
  if (op.key) return op.key;
  if (!op.call.args.empty()) return op.call.args.front();
  return std::nullopt;
}

std::vector<history::Call> KvModel::build(const State& state) const {
  std::vector<history::Call> calls;
  std::lock_guard lock(dictionary_->mutex);
  for (std::size_t i = 0; i < state.slots.size(); ++i) {
    if (state.slots[i] == Fingerprint{}) continue;
    const history::Value key = keys_->value(static_cast<std::int32_t>(i + 1));
    auto it = dictionary_->texts.find(state.slots[i]);
    if (it == dictionary_->texts.end()) {
      throw std::invalid_argument("kv: cannot rebuild the value of key " + key.to_string() +
                                  ": it was never observed whole");
    }
    calls.push_back(history::Call{"put", {key, it->second}});
  }
  return calls;
}

std::vector<history::Call> KvModel::reveal(const State& state) const {
  std::vector<history::Call> calls;
  for (std::size_t i = 0; i < state.slots.size(); ++i) {
    if (state.slots[i] == Fingerprint{}) continue;
    calls.push_back(history::Call{"get", {keys_->value(static_cast<std::int32_t>(i + 1))}});
  }
  return calls;
}

}  // namespace linfault::spec
