#include <algorithm>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "history/readers.h"

namespace linfault::history {
namespace {

// Whether a completion's `value` agrees with the invoke's `argument`: equal, or the same shape
// with the argument's nils filled in. Visits each element once, so it is linear in the values.
bool completes(const Value& argument, const Value& value) {
  if (argument.is_nil() || argument == value) return true;
  if (!argument.is_list() || !value.is_list()) return false;
  const Value::List& asked = argument.as_list();
  const Value::List& answered = value.as_list();
  if (asked.size() != answered.size()) return false;
  for (std::size_t i = 0; i < asked.size(); ++i) {
    if (!completes(asked[i], answered[i])) return false;
  }
  return true;
}

bool is_keyword(const Value& value) {
  return value.is_string() && value.as_string().size() > 1 && value.as_string()[0] == ':';
}

std::string shown(const Value& value) {
  std::string text = value.to_string();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

}  // namespace

void JepsenRecorder::fail(std::uint32_t line, const std::string& problem) const {
  throw InputError(origin_, line, problem);
}

Value JepsenRecorder::completion_result(const OpenCall& call, Value value, bool failed) const {
  if (!call.argument.is_nil() && value == call.argument) {
    if (!failed && call.method == "cas") return Value(true);
    return Value();
  }
  return value;
}

void JepsenRecorder::record(std::uint32_t line, ProcessId process, std::string_view type,
                            std::string_view method, Value value, std::optional<Value> key,
                            std::optional<Value> error) {
  // Messages are built only on failure: record() runs once per line of a large history.
  auto who = [process] { return "process " + std::to_string(process); };
  if (type == "invoke") {
    if (auto retired = retired_.find(process); retired != retired_.end()) {
      fail(line, who() + " invokes :" + std::string(method) + " after its :info on line " +
                     std::to_string(retired->second) +
                     " (Jepsen retires a process whose outcome is unknown and uses a new id)");
    }
    Call call{std::string(method), {}};
    if (key) {
      saw_key_ = true;
      call.args.push_back(*key);
    }
    if (!value.is_nil()) call.args.push_back(value);
    builder_.invoke(process, std::move(call), line, key);
    open_[process] = OpenCall{std::string(method), std::move(value), std::move(key), line};
    methods_.insert(std::string(method));
    return;
  }
  if (type != "ok" && type != "fail" && type != "info") {
    fail(line, "unknown :type :" + std::string(type) + " (expected :invoke, :ok, :fail or :info)");
  }
  auto open = open_.find(process);
  if (open == open_.end()) {
    std::string problem = "unmatched :" + std::string(type) + " for " + who();
    if (auto retired = retired_.find(process); retired != retired_.end()) {
      problem += " (retired by its :info on line " + std::to_string(retired->second) + ")";
    }
    fail(line, problem);
  }
  if (open->second.method != method) {
    fail(line, ":" + std::string(type) + " :" + std::string(method) + " for " + who() +
                   " does not match its open call :" + open->second.method + " (line " +
                   std::to_string(open->second.line) + ")");
  }
  const OpenCall& call = open->second;
  auto against = [&] {
    return " for " + who() + " contradicts its :invoke on line " + std::to_string(call.line);
  };
  if (key && (!call.key || !(*key == *call.key))) {
    fail(line, ":" + std::string(type) + " :key " + shown(*key) + against() +
                   (call.key ? " (:key " + shown(*call.key) + ")" : " (no :key)"));
  }
  const bool detail = type != "ok" && is_keyword(value);
  if (!value.is_nil() && !detail && !completes(call.argument, value)) {
    fail(line, ":" + std::string(type) + " :" + std::string(method) + " " + shown(value) +
                   against() + " (:" + call.method + " " + shown(call.argument) + ")");
  }
  if (type == "info") {
    builder_.respond(process, Outcome::kPending, Value(), line);
    retired_[process] = line;
  } else {
    const bool failed = type == "fail";
    Value result = completion_result(open->second, std::move(value), failed);
    if (failed && error) result = std::move(*error);
    builder_.respond(process, failed ? Outcome::kFail : Outcome::kOk, std::move(result), line);
  }
  open_.erase(open);
}

History JepsenRecorder::finish() && { return std::move(builder_).build(); }

std::optional<std::string> register_model_for(const std::set<std::string>& methods) {
  if (methods.empty()) return std::nullopt;
  const auto all_in = [&](std::initializer_list<std::string_view> allowed) {
    for (const std::string& m : methods) {
      if (std::find(allowed.begin(), allowed.end(), m) == allowed.end()) return false;
    }
    return true;
  };
  if (all_in({"read", "write", "cas"})) return "cas-register";
  if (all_in({"acquire", "release"})) return "mutex";
  if (all_in({"txn"})) return "multi-register";
  return std::nullopt;
}

}  // namespace linfault::history
