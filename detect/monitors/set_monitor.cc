#include "detect/monitors/set_monitor.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <span>

#include "detect/monitors/value_ids.h"

namespace linfault::detect::internal {
namespace {

using history::Value;

std::optional<bool> as_bool(const Value& v) {
  if (v.is_bool()) return v.as_bool();
  if (v.is_int() && (v.as_int() == 0 || v.as_int() == 1)) return v.as_int() == 1;
  return std::nullopt;
}

constexpr std::int64_t kInfinity = std::numeric_limits<std::int64_t>::max() / 4;

// A completed ok op's observation: add -> true and remove -> true change the set; add -> false
// and contains -> true see the value present; remove -> false and contains -> false see it absent.
bool sees_present(const SetOp& op) {
  return op.kind == SetOp::Kind::kAdd ? !op.result : op.kind == SetOp::Kind::kContains && op.result;
}
bool true_op(const SetOp& op) {  // takes effect while the value is present, or makes it so
  return op.result || sees_present(op);
}

}  // namespace

std::variant<SetOps, std::string> compile_set_ops(const history::History& history) {
  SetOps out;
  out.events = static_cast<std::int32_t>(history.events().size());
  out.ops.resize(history.size());
  ValueIds ids;
  for (std::size_t i = 0; i < history.size(); ++i) {
    const history::Operation& op = history.operations()[i];
    SetOp& s = out.ops[i];
    const std::string& m = op.call.method;
    auto where = [&] {
      return "operation " + std::to_string(i) + " (" + op.call.to_string() + "): ";
    };
    if (m == "add" || m == "insert") {
      s.kind = SetOp::Kind::kAdd;
    } else if (m == "remove" || m == "delete") {
      s.kind = SetOp::Kind::kRemove;
    } else if (m == "contains") {
      s.kind = SetOp::Kind::kContains;
    } else if (m == "size") {
      return std::string("the set monitor does not support size()");
    } else {
      return "set has no method '" + m + "'";
    }
    if (op.call.args.size() != 1 || op.call.args[0].is_nil()) {
      return where() + "expected one non-nil argument";
    }
    s.call = op.call_event;
    s.ret = op.return_event == history::kNoEvent ? kNoReturn : op.return_event;
    s.failed = op.outcome == history::Outcome::kFail;
    if (op.outcome == history::Outcome::kOk) {
      const std::optional<bool> result = as_bool(op.result);
      if (!result) return where() + "the result is not a boolean";
      s.result = *result;
    }
    ids.note(&op.call.args[0]);
  }
  const std::vector<std::int32_t> assigned = ids.assign(out.values);
  for (std::size_t i = 0; i < out.ops.size(); ++i) out.ops[i].value = assigned[i];
  return out;
}

SetValueIndex index_set_values(const SetOps& ops) {
  SetValueIndex index;
  index.begin.assign(static_cast<std::size_t>(ops.values) + 1, 0);
  for (const SetOp& op : ops.ops) ++index.begin[static_cast<std::size_t>(op.value) + 1];
  for (std::size_t v = 0; v < static_cast<std::size_t>(ops.values); ++v) {
    index.begin[v + 1] += index.begin[v];
  }
  index.ops.resize(ops.ops.size());
  std::vector<std::int32_t> fill(index.begin.begin(), index.begin.end() - 1);
  for (std::size_t i = 0; i < ops.ops.size(); ++i) {
    const auto v = static_cast<std::size_t>(ops.ops[i].value);
    index.ops[static_cast<std::size_t>(fill[v]++)] = static_cast<std::int32_t>(i);
  }
  return index;
}

PrefixDecision decide_set_value(const SetOps& ops, std::span<const std::int32_t> value_ops,
                                std::int32_t cut) {
  struct Window {
    std::int64_t inv, res;
  };
  auto in_cut = [&](const SetOp& op) {
    if (op.call >= cut) return false;
    const bool completed = op.ret != kNoReturn && op.ret < cut;
    if (completed && op.failed) return false;
    return completed || op.kind != SetOp::Kind::kContains;  // pending contains are dropped
  };
  auto completed = [&](const SetOp& op) { return op.ret != kNoReturn && op.ret < cut; };
  std::optional<Window> add, remove;
  int adds = 0, removes = 0, pending_adds = 0;
  std::optional<std::int64_t> pending_add_call, pending_remove_call;
  bool true_facts = false;
  for (std::int32_t i : value_ops) {
    const SetOp& op = ops.ops[static_cast<std::size_t>(i)];
    if (!in_cut(op)) continue;
    if (!completed(op)) {
      if (op.kind == SetOp::Kind::kAdd) ++pending_adds;
      auto& earliest = op.kind == SetOp::Kind::kAdd ? pending_add_call : pending_remove_call;
      if (!earliest || op.call < *earliest) earliest = op.call;
      continue;
    }
    if (true_op(op)) true_facts = true;
    if (op.result && op.kind == SetOp::Kind::kAdd) {
      ++adds;
      add = Window{op.call, op.ret};
    }
    if (op.result && op.kind == SetOp::Kind::kRemove) {
      ++removes;
      remove = Window{op.call, op.ret};
    }
  }
  if (adds > 1) return {Decision::kUnsupported, "a value is added successfully twice"};
  if (!true_facts) return {Decision::kLinearizable, ""};  // pending ops need not take effect
  if (pending_add_call && pending_remove_call) {
    return {Decision::kUncertain, "pending adds and removes of an observed value"};
  }
  if (pending_add_call) {
    // Two adds may succeed (a completed one and a pending one, or two pending ones): with a
    // removal between them the value is present in two windows, which this check cannot place.
    if (adds + pending_adds > 1 && removes > 0) {
      return {Decision::kUncertain, "a pending add of a value that may be added and removed"};
    }
    if (!add) add = Window{*pending_add_call, kInfinity};
  }
  if (pending_remove_call && add && removes == 0) {
    remove = Window{*pending_remove_call, kInfinity};
  }
  if (!add) return {Decision::kViolation, "a value is observed in the set but never added"};
  if (removes > 1) return {Decision::kViolation, "a value is removed twice"};
  const std::int64_t end_time = cut;  // after every event of the prefix
  const Window removal = remove ? *remove : Window{end_time, kInfinity};
  // lo: earliest response of a true op; hi: latest call of one (the removal's included).
  std::int64_t lo = std::min(add->res, removal.res);
  std::int64_t hi = std::max(add->inv, removal.inv);
  for (std::int32_t i : value_ops) {
    const SetOp& op = ops.ops[static_cast<std::size_t>(i)];
    if (!in_cut(op) || !completed(op) || !true_op(op)) continue;
    lo = std::min<std::int64_t>(lo, op.ret);
    hi = std::max<std::int64_t>(hi, op.call);
  }
  if (add->inv > lo) return {Decision::kViolation, "a value is observed before it is added"};
  if (removal.res < hi) return {Decision::kViolation, "a value is observed after it is removed"};
  for (std::int32_t i : value_ops) {
    const SetOp& op = ops.ops[static_cast<std::size_t>(i)];
    if (!in_cut(op) || !completed(op) || true_op(op)) continue;
    if (op.call > lo && op.ret < hi) {
      return {Decision::kViolation, "a value is reported absent while certainly present"};
    }
  }
  return {Decision::kLinearizable, ""};
}

}  // namespace linfault::detect::internal
