#include "spec/model_support.h"

namespace linfault::spec {

ValueInterner::ValueInterner() {
  values_.emplace_back();
  ids_.emplace(history::Value(), kNil);
}

std::atomic<std::int32_t>* ValueInterner::small_int_slot(const history::Value& value) {
  if (!value.is_int()) return nullptr;
  // In uint64: v - kSmallIntMin overflows int64 for v near INT64_MAX.
  const std::uint64_t offset =
      static_cast<std::uint64_t>(value.as_int()) - static_cast<std::uint64_t>(kSmallIntMin);
  if (offset >= kSmallInts) return nullptr;
  return &small_int_ids_[static_cast<std::size_t>(offset)];
}

std::int32_t ValueInterner::intern(const history::Value& value) {
  std::atomic<std::int32_t>* slot = small_int_slot(value);
  if (slot != nullptr) {
    if (const std::int32_t id = slot->load(std::memory_order_acquire); id != kNil) return id;
  }
  std::lock_guard lock(mutex_);
  auto [it, inserted] = ids_.emplace(value, static_cast<std::int32_t>(values_.size()));
  if (inserted) values_.push_back(value);
  if (slot != nullptr) slot->store(it->second, std::memory_order_release);
  return it->second;
}

history::Value ValueInterner::value(std::int32_t id) const {
  std::lock_guard lock(mutex_);
  return values_.at(static_cast<std::size_t>(id));
}

namespace {
// Set by method_aliases() while it compiles a probe: the names of the matching is() call.
thread_local std::vector<std::string>* captured_aliases = nullptr;
}  // namespace

bool OpShape::is(std::initializer_list<std::string_view> names) const {
  for (std::string_view name : names) {
    if (method() != name) continue;
    if (captured_aliases != nullptr && captured_aliases->empty()) {
      captured_aliases->assign(names.begin(), names.end());
    }
    return true;
  }
  return false;
}

AliasCapture::AliasCapture(std::vector<std::string>& into) : saved_(captured_aliases) {
  captured_aliases = &into;
}
AliasCapture::~AliasCapture() { captured_aliases = saved_; }

void OpShape::arity(std::size_t count) const {
  std::size_t given = op_.call.args.size();
  while (given > count && op_.call.args[given - 1].is_nil()) --given;
  if (given != count) {
    fail(method() + " expects " + std::to_string(count) +
         (count == 1 ? " argument" : " arguments") + ", got " + std::to_string(given));
  }
}

std::int64_t OpShape::int_arg(std::size_t i) const {
  const history::Value& v = arg(i);
  if (!v.is_int()) {
    fail(method() + " argument " + std::to_string(i + 1) + " must be an integer, got " +
         v.to_string());
  }
  return v.as_int();
}

const history::Value& OpShape::non_nil_arg(std::size_t i) const {
  const history::Value& v = arg(i);
  if (v.is_nil()) fail(method() + " argument " + std::to_string(i + 1) + " must not be nil");
  return v;
}

std::optional<bool> OpShape::bool_result() const {
  if (!ok() || op_.result.is_nil()) return std::nullopt;
  if (op_.result.is_bool()) return op_.result.as_bool();
  if (op_.result.is_int() && (op_.result.as_int() == 0 || op_.result.as_int() == 1)) {
    return op_.result.as_int() == 1;
  }
  fail(method() + " must return a boolean, got " + op_.result.to_string());
}

std::optional<std::int64_t> OpShape::int_result() const {
  if (!ok() || op_.result.is_nil()) return std::nullopt;
  if (!op_.result.is_int()) {
    fail(method() + " must return an integer, got " + op_.result.to_string());
  }
  return op_.result.as_int();
}

void OpShape::unknown_method() const {
  throw ShapeError{std::string(model_) + " has no method '" + method() + "'"};
}

void OpShape::fail(const std::string& problem) const {
  throw ShapeError{std::string(model_) + ": " + problem};
}

std::string describe_ids(const ValueInterner& interner, const std::vector<std::int32_t>& ids) {
  std::string out = "[";
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i) out += ' ';
    out += interner.value(ids[i]).to_string();
  }
  return out + "]";
}

}  // namespace linfault::spec
