#include <utility>

#include "history/readers.h"

namespace linfault::history {

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
                            std::string_view method, Value value, std::optional<Value> key) {
  const std::string who = "process " + std::to_string(process);
  if (type == "invoke") {
    if (auto retired = retired_.find(process); retired != retired_.end()) {
      fail(line, who + " invokes :" + std::string(method) + " after its :info on line " +
                     std::to_string(retired->second) +
                     " (Jepsen retires a process whose outcome is unknown and uses a new id)");
    }
    Call call{std::string(method), {}};
    if (key) {
      saw_key_ = true;
      call.args.push_back(*key);
    }
    if (!value.is_nil()) call.args.push_back(value);
    builder_.invoke(process, std::move(call), line, std::move(key));
    open_[process] = OpenCall{std::string(method), std::move(value), line};
    methods_.insert(std::string(method));
    return;
  }
  if (type != "ok" && type != "fail" && type != "info") {
    fail(line, "unknown :type :" + std::string(type) + " (expected :invoke, :ok, :fail or :info)");
  }
  auto open = open_.find(process);
  if (open == open_.end()) {
    std::string problem = "unmatched :" + std::string(type) + " for " + who;
    if (auto retired = retired_.find(process); retired != retired_.end()) {
      problem += " (retired by its :info on line " + std::to_string(retired->second) + ")";
    }
    fail(line, problem);
  }
  if (open->second.method != method) {
    fail(line, ":" + std::string(type) + " :" + std::string(method) + " for " + who +
                   " does not match its open call :" + open->second.method + " (line " +
                   std::to_string(open->second.line) + ")");
  }
  if (type == "info") {
    builder_.respond(process, Outcome::kPending, Value(), line);
    retired_[process] = line;
  } else {
    const bool failed = type == "fail";
    builder_.respond(process, failed ? Outcome::kFail : Outcome::kOk,
                     completion_result(open->second, std::move(value), failed), line);
  }
  open_.erase(open);
}

History JepsenRecorder::finish() && { return std::move(builder_).build(); }

std::optional<std::string> register_model_for(const std::set<std::string>& methods) {
  if (methods.empty()) return std::nullopt;
  for (const std::string& m : methods) {
    if (m != "read" && m != "write" && m != "cas") return std::nullopt;
  }
  return "cas-register";
}

}  // namespace linfault::history
