#include "minimize/test_case.h"

#include <algorithm>
#include <limits>
#include <map>
#include <stdexcept>

#include "dpct/schedule.h"
#include "history/atomic_file.h"
#include "history/formats.h"
#include "history/json_format.h"
#include "spec/registry.h"

namespace linfault::minimize {
namespace {

using history::Event;
using history::History;
using history::OpIndex;
using nlohmann::json;

constexpr const char* kKind = "test-case";
constexpr int kVersion = 1;

Step step_of(const History& h, OpIndex i, OpIndex culprit) {
  const history::Operation& op = h.op(i);
  return Step{op.process, op.call, op.result, op.outcome, i == culprit};
}

// True when events[e] and events[e + 1] are one operation's call and return: it ran alone.
bool ran_alone_at(const std::vector<Event>& events, std::size_t e) {
  return e + 1 < events.size() && events[e].kind == Event::Kind::kCall &&
         events[e + 1].kind == Event::Kind::kReturn && events[e].op == events[e + 1].op;
}

nlohmann::json step_to_json(const Step& step) {
  nlohmann::json args = nlohmann::json::array();
  for (const history::Value& v : step.call.args) args.push_back(history::value_to_json(v));
  nlohmann::json out = {{"process", step.process},
                        {"method", step.call.method},
                        {"args", args},
                        {"outcome", history::outcome_name(step.outcome)},
                        {"result", history::value_to_json(step.result)}};
  if (step.culprit) out["culprit"] = true;
  return out;
}

// Reads a test-case document; `where` paths name the field in messages ("pc[1][0].args").
class Reader {
 public:
  explicit Reader(const std::string& origin) : origin_(origin) {}

  [[noreturn]] void fail(const std::string& where, const std::string& problem) const {
    throw history::InputError(origin_, 0, "test case: " + where + ": " + problem);
  }

  const json* optional_field(const json& object, const char* name) const {
    auto it = object.find(name);
    return it == object.end() ? nullptr : &*it;
  }

  const json& field(const json& object, const char* name, const std::string& where) const {
    const json* value = optional_field(object, name);
    if (value == nullptr) fail(where, std::string("missing field \"") + name + "\"");
    return *value;
  }

  std::string string(const json& object, const char* name, const std::string& where) const {
    const json& value = field(object, name, where);
    if (!value.is_string()) fail(join(where, name), "expected a string");
    return value.get<std::string>();
  }

  // A string or null; an absent field counts as null.
  std::optional<std::string> nullable_string(const json& object, const char* name,
                                             const std::string& where) const {
    const json* value = optional_field(object, name);
    if (value == nullptr || value->is_null()) return std::nullopt;
    if (!value->is_string()) fail(join(where, name), "expected a string or null");
    return value->get<std::string>();
  }

  std::uint64_t unsigned_number(const json& value, const std::string& where) const {
    const bool negative =
        value.is_number_integer() && !value.is_number_unsigned() && value.get<std::int64_t>() < 0;
    if (!value.is_number_integer() || negative) fail(where, "expected a non-negative integer");
    return value.get<std::uint64_t>();
  }

  history::Value value(const json& value, const std::string& where) const {
    try {
      return history::value_from_json(value);
    } catch (const std::invalid_argument& e) {
      fail(where, e.what());
    }
  }

  Step step(const json& object, const std::string& where,
            history::ProcessId default_process) const {
    if (!object.is_object()) fail(where, "expected an object (a step: method, args, result)");
    if (const auto name = history::unknown_field(
            object, {"process", "method", "args", "outcome", "result", "culprit"})) {
      fail(where, "unknown field \"" + *name + "\"");
    }
    Step step;
    step.process = default_process;
    if (const json* process = optional_field(object, "process")) {
      const std::uint64_t p = unsigned_number(*process, where + ".process");
      if (p > static_cast<std::uint64_t>(std::numeric_limits<history::ProcessId>::max())) {
        fail(where + ".process", "out of range");
      }
      step.process = static_cast<history::ProcessId>(p);
    }
    step.call.method = string(object, "method", where);
    if (step.call.method.empty()) fail(where + ".method", "empty method name");
    if (const json* args = optional_field(object, "args")) {
      if (!args->is_array()) fail(where + ".args", "expected an array");
      for (std::size_t i = 0; i < args->size(); ++i) {
        step.call.args.push_back(value((*args)[i], where + ".args[" + std::to_string(i) + "]"));
      }
    }
    if (const json* result = optional_field(object, "result")) {
      step.result = value(*result, where + ".result");
    }
    if (const json* outcome = optional_field(object, "outcome")) {
      if (!outcome->is_string()) fail(where + ".outcome", "expected a string");
      step.outcome = parse_outcome(outcome->get<std::string>(), where + ".outcome");
    }
    if (const json* culprit = optional_field(object, "culprit")) {
      if (!culprit->is_boolean()) fail(where + ".culprit", "expected true or false");
      step.culprit = culprit->get<bool>();
    }
    return step;
  }

  std::vector<Step> steps(const json& list, const std::string& where,
                          history::ProcessId default_process) const {
    if (!list.is_array()) fail(where, "expected an array of steps");
    std::vector<Step> out;
    for (std::size_t i = 0; i < list.size(); ++i) {
      out.push_back(step(list[i], where + "[" + std::to_string(i) + "]", default_process));
    }
    return out;
  }

 private:
  static std::string join(const std::string& where, const char* name) {
    return where == "document" ? std::string(name) : where + "." + name;
  }

  history::Outcome parse_outcome(const std::string& name, const std::string& where) const {
    for (history::Outcome o :
         {history::Outcome::kOk, history::Outcome::kFail, history::Outcome::kPending}) {
      if (name == history::outcome_name(o)) return o;
    }
    fail(where, "unknown outcome \"" + name + "\" (expected ok, fail or pending)");
  }

  const std::string& origin_;
};

std::vector<history::Call> calls_of(const std::vector<Step>& steps) {
  std::vector<history::Call> calls;
  calls.reserve(steps.size());
  for (const Step& step : steps) calls.push_back(step.call);
  return calls;
}

}  // namespace

TestCase test_case_from_history(const std::string& model, const History& history, OpIndex culprit) {
  TestCase tc;
  tc.model = model;
  tc.history = history;
  const std::vector<Event>& events = history.events();
  std::vector<OpIndex> head;  // in order
  std::size_t head_end = 0;
  for (; ran_alone_at(events, head_end); head_end += 2) head.push_back(events[head_end].op);
  std::vector<OpIndex> tail;  // last first
  if (head_end == events.size() && !head.empty()) {
    tail.push_back(head.back());  // a sequential history: its last call reveals the fault
    head.pop_back();
  } else {
    for (std::size_t e = events.size(); e >= head_end + 2 && ran_alone_at(events, e - 2); e -= 2) {
      tail.push_back(events[e - 2].op);
    }
  }
  std::vector<bool> placed(history.size(), false);
  for (OpIndex i : head) {
    tc.ps.push_back(step_of(history, i, culprit));
    placed[static_cast<std::size_t>(i)] = true;
  }
  for (auto it = tail.rbegin(); it != tail.rend(); ++it) {
    if (placed[static_cast<std::size_t>(*it)]) continue;
    tc.pr.push_back(step_of(history, *it, culprit));
    placed[static_cast<std::size_t>(*it)] = true;
  }
  std::map<history::ProcessId, std::vector<Step>> by_process;
  for (const Event& e : events) {
    if (e.kind != Event::Kind::kCall || placed[static_cast<std::size_t>(e.op)]) continue;
    by_process[history.op(e.op).process].push_back(step_of(history, e.op, culprit));
  }
  for (auto& [process, steps] : by_process) tc.pc.push_back(std::move(steps));
  if (culprit >= 0) {
    tc.violation = "no linearization explains " + history.op(culprit).to_string();
  }
  return tc;
}

std::vector<CallPosition> call_positions(const dpct::Workload& workload, const History& history) {
  std::vector<CallPosition> positions(history.size());
  std::map<history::ProcessId, std::size_t> seen;
  const std::size_t thread0_calls = workload.threads.empty() ? 0 : workload.threads[0].size();
  for (const Event& event : history.events()) {
    if (event.kind != Event::Kind::kCall) continue;
    const history::ProcessId process = history.op(event.op).process;
    std::size_t k = seen[process]++;
    CallPosition position;
    if (process > 0) {
      position = {dpct::Phase::kConcurrent, static_cast<dpct::ThreadId>(process), k};
    } else if (k < workload.setup.size()) {
      position = {dpct::Phase::kSetup, 0, k};
    } else if ((k -= workload.setup.size()) < thread0_calls) {
      position = {dpct::Phase::kConcurrent, 0, k};
    } else {
      position = {dpct::Phase::kReveal, 0, k - thread0_calls};
    }
    positions[static_cast<std::size_t>(event.op)] = position;
  }
  return positions;
}

std::string stuck_violation(const dpct::Run& run, OpIndex culprit) {
  const history::Operation& op = run.history.op(culprit);
  return "stuck: " + op.call.to_string() + " of p" + std::to_string(op.process) +
         " blocks forever (" + dpct::run_outcome_name(run.outcome) +
         "), and no serial order of the operations makes it block";
}

std::string violation_reason(const dpct::Run& run, const detect::Verdict& verdict) {
  if (verdict.stuck) return stuck_violation(run, verdict.culprit);
  const std::string culprit = run.history.op(verdict.culprit).to_string();
  if (verdict.unsynchronized) {
    return "unsynchronized: " + culprit + " took the element of " +
           run.history.op(verdict.source).to_string() +
           ", whose call does not happen-before its return (a missing release or acquire)";
  }
  return "not linearizable: no linearization explains " + culprit;
}

TestCase test_case_from_run(const std::string& target, const std::string& model,
                            const dpct::Workload& workload, const dpct::Run& run,
                            const detect::Verdict& verdict, std::uint64_t max_steps,
                            const std::string& guarantee) {
  TestCase tc;
  tc.target = target;
  tc.model = model;
  tc.schedule = run.schedule.to_text();
  tc.guarantee = guarantee;
  tc.max_steps = max_steps;
  tc.history = run.history;
  auto unreached = [](history::ProcessId process, const std::vector<history::Call>& calls) {
    std::vector<Step> steps;
    for (const history::Call& call : calls) {
      steps.push_back(Step{process, call, history::Value(), history::Outcome::kPending, false});
    }
    return steps;
  };
  tc.ps = unreached(0, workload.setup);
  for (std::size_t t = 0; t < workload.threads.size(); ++t) {
    tc.pc.push_back(unreached(static_cast<history::ProcessId>(t), workload.threads[t]));
  }
  tc.pr = unreached(0, workload.reveal);
  const OpIndex culprit = verdict.result == detect::Result::kViolation ? verdict.culprit : -1;
  const std::vector<CallPosition> positions = call_positions(workload, run.history);
  for (std::size_t i = 0; i < positions.size(); ++i) {
    const CallPosition& at = positions[i];
    std::vector<Step>* list = at.phase == dpct::Phase::kSetup    ? &tc.ps
                              : at.phase == dpct::Phase::kReveal ? &tc.pr
                              : at.thread < tc.pc.size()         ? &tc.pc[at.thread]
                                                                 : nullptr;
    if (list == nullptr || at.index >= list->size()) continue;
    (*list)[at.index] = step_of(run.history, static_cast<OpIndex>(i), culprit);
  }
  if (culprit >= 0 && (verdict.stuck || verdict.unsynchronized)) {
    tc.violation = violation_reason(run, verdict);
  } else if (culprit >= 0) {
    tc.violation = "no linearization explains " + run.history.op(culprit).to_string();
  } else if (run.outcome != dpct::RunOutcome::kOk) {
    tc.violation = std::string(dpct::run_outcome_name(run.outcome)) + ": " + run.message;
  }
  return tc;
}

nlohmann::json test_case_to_json(const TestCase& tc) {
  auto steps = [](const std::vector<Step>& list) {
    nlohmann::json out = nlohmann::json::array();
    for (const Step& s : list) out.push_back(step_to_json(s));
    return out;
  };
  nlohmann::json pc = nlohmann::json::array();
  for (const std::vector<Step>& thread : tc.pc) pc.push_back(steps(thread));
  nlohmann::json doc = {{"linfault", "test-case"},
                        {"version", 1},
                        {"target", tc.target ? nlohmann::json(*tc.target) : nlohmann::json()},
                        {"model", tc.model},
                        {"ps", steps(tc.ps)},
                        {"pc", pc},
                        {"pr", steps(tc.pr)},
                        {"schedule", tc.schedule ? nlohmann::json(*tc.schedule) : nlohmann::json()},
                        {"violation", tc.violation},
                        {"guarantee", tc.guarantee},
                        {"max_steps", tc.max_steps},
                        {"history", history::history_to_json(tc.history, tc.model)}};
  if (!tc.tool.empty()) doc["tool"] = tc.tool;
  return doc;
}

bool is_test_case_document(const nlohmann::json& doc) {
  return history::is_document_kind(doc, kKind);
}

TestCase test_case_from_json(const nlohmann::json& doc, const std::string& origin) {
  const Reader reader(origin);
  if (!is_test_case_document(doc)) {
    reader.fail("document", "not a test case (expected \"linfault\": \"test-case\")");
  }
  if (reader.unsigned_number(reader.field(doc, "version", "document"), "version") != kVersion) {
    reader.fail("version", "unsupported version (this linfault reads version 1)");
  }
  // "minimization", "detection" and "known_scenario" are written by --json for people; readers
  // ignore them.
  if (const auto name =
          history::unknown_field(doc, {"linfault", "version", "target", "model", "ps", "pc", "pr",
                                       "schedule", "violation", "guarantee", "max_steps", "history",
                                       "tool", "minimization", "detection", "known_scenario"})) {
    reader.fail("document", "unknown field \"" + *name + "\"");
  }
  TestCase tc;
  tc.target = reader.nullable_string(doc, "target", "document");
  if (tc.target && tc.target->empty()) reader.fail("target", "empty target name");
  tc.model = reader.string(doc, "model", "document");
  try {
    spec::canonical_model_spec(tc.model);
  } catch (const spec::ModelSpecError& e) {
    reader.fail("model", e.what());
  }
  tc.ps = reader.steps(reader.field(doc, "ps", "document"), "ps", 0);
  const json& pc = reader.field(doc, "pc", "document");
  if (!pc.is_array()) reader.fail("pc", "expected an array of threads (arrays of steps)");
  for (std::size_t t = 0; t < pc.size(); ++t) {
    const std::string where = "pc[" + std::to_string(t) + "]";
    tc.pc.push_back(reader.steps(pc[t], where, static_cast<history::ProcessId>(t)));
    for (std::size_t i = 1; i < tc.pc.back().size(); ++i) {
      if (tc.pc.back()[i].process != tc.pc.back().front().process) {
        reader.fail(where + "[" + std::to_string(i) + "].process",
                    "a thread's steps must share one process");
      }
    }
  }
  tc.pr = reader.steps(reader.field(doc, "pr", "document"), "pr", 0);
  if (tc.target) {
    // Re-execution runs Ps and Pr on process 0 and thread t of Pc on process t, whatever the steps
    // say: steps that say otherwise describe another run.
    auto expect_process = [&](const std::vector<Step>& steps, const std::string& where,
                              history::ProcessId process, const std::string& runs) {
      for (std::size_t i = 0; i < steps.size(); ++i) {
        if (steps[i].process != process) {
          reader.fail(where + "[" + std::to_string(i) + "].process",
                      std::to_string(steps[i].process) + ", but " + runs +
                          " of a target-level test case runs on process " +
                          std::to_string(process));
        }
      }
    };
    expect_process(tc.ps, "ps", 0, "Ps");
    for (std::size_t t = 0; t < tc.pc.size(); ++t) {
      expect_process(tc.pc[t], "pc[" + std::to_string(t) + "]", static_cast<history::ProcessId>(t),
                     "thread " + std::to_string(t));
    }
    expect_process(tc.pr, "pr", 0, "Pr");
  }
  tc.schedule = reader.nullable_string(doc, "schedule", "document");
  if (tc.schedule) {
    if (!tc.target) reader.fail("schedule", "a test case without a target has no schedule");
    try {
      dpct::Schedule::from_text(*tc.schedule);
    } catch (const dpct::ScheduleFormatError& e) {
      reader.fail("schedule", e.what());
    }
  }
  if (reader.optional_field(doc, "violation")) {
    tc.violation = reader.string(doc, "violation", "document");
  }
  if (reader.optional_field(doc, "guarantee")) {
    tc.guarantee = reader.string(doc, "guarantee", "document");
  }
  if (const json* max_steps = reader.optional_field(doc, "max_steps")) {
    tc.max_steps = reader.unsigned_number(*max_steps, "max_steps");
    if (tc.max_steps == 0) reader.fail("max_steps", "must be positive");
  }
  if (const json* history = reader.optional_field(doc, "history")) {
    if (!history->is_null()) {
      tc.history = history::history_from_json(*history, origin);
      const auto model = history->find("model");
      if (model != history->end() && model->is_string() &&
          !spec::same_model(model->get<std::string>(), tc.model)) {
        reader.fail("history.model", "\"" + model->get<std::string>() +
                                         "\" is not the test case's model \"" + tc.model + "\"");
      }
    }
  }
  if (reader.optional_field(doc, "tool")) tc.tool = reader.string(doc, "tool", "document");
  return tc;
}

dpct::Workload workload_of(const TestCase& tc) {
  dpct::Workload workload;
  workload.setup = calls_of(tc.ps);
  for (const std::vector<Step>& thread : tc.pc) workload.threads.push_back(calls_of(thread));
  workload.reveal = calls_of(tc.pr);
  return workload;
}

TestCase read_test_case(const std::string& path) {
  return test_case_from_json(history::read_json_file(path), path);
}

void write_test_case(const TestCase& tc, const std::string& path) {
  history::write_file_atomically(path, history::json_text(test_case_to_json(tc), 2) + "\n");
}

std::string step_to_text(const Step& step) {
  std::string out = step.call.to_string();
  switch (step.outcome) {
    case history::Outcome::kOk:
      if (!step.result.is_nil() || step.culprit) out += " -> " + step.result.to_string();
      break;
    case history::Outcome::kFail:
      out += " -> fail";
      break;
    case history::Outcome::kPending:
      out += " -> (pending)";
      break;
  }
  return out;
}

std::string test_case_to_text(const TestCase& tc) {
  std::string out;
  const char* culprit_mark = tc.violation.starts_with("unsynchronized: ")
                                 ? "   <-- took an element without synchronisation"
                                 : "   <-- cannot be explained";
  auto line = [&](const std::string& label, const std::vector<Step>& list) {
    out += label;
    if (list.empty()) out += " (none)";
    for (std::size_t i = 0; i < list.size(); ++i) {
      out += (i ? "; " : " ") + step_to_text(list[i]);
      if (list[i].culprit) out += culprit_mark;
    }
    out += "\n";
  };
  out += "model: " + tc.model + (tc.target ? ", target: " + *tc.target : "") + "\n";
  line("Ps:", tc.ps);
  if (tc.pc.empty()) out += "Pc: (none)\n";
  for (std::size_t t = 0; t < tc.pc.size(); ++t) {
    const std::string process =
        tc.pc[t].empty() ? "" : " (p" + std::to_string(tc.pc[t].front().process) + ")";
    line("Pc thread " + std::to_string(t) + process + ":", tc.pc[t]);
  }
  line("Pr:", tc.pr);
  out += "violation: " + tc.violation + "\n";
  out += "guarantee: " + tc.guarantee + "\n";
  return out;
}

}  // namespace linfault::minimize
