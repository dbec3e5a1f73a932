#include "minimize/test_case.h"

#include <map>

#include "history/json_format.h"

namespace linfault::minimize {
namespace {

using history::Event;
using history::History;
using history::OpIndex;

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
  return step.culprit ? out + "   <-- cannot be explained" : out;
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

nlohmann::json test_case_to_json(const TestCase& tc) {
  auto steps = [](const std::vector<Step>& list) {
    nlohmann::json out = nlohmann::json::array();
    for (const Step& s : list) out.push_back(step_to_json(s));
    return out;
  };
  nlohmann::json pc = nlohmann::json::array();
  for (const std::vector<Step>& thread : tc.pc) pc.push_back(steps(thread));
  return {{"linfault", "test-case"},
          {"version", 1},
          {"target", tc.target ? nlohmann::json(*tc.target) : nlohmann::json()},
          {"model", tc.model},
          {"ps", steps(tc.ps)},
          {"pc", pc},
          {"pr", steps(tc.pr)},
          {"schedule", tc.schedule ? nlohmann::json(*tc.schedule) : nlohmann::json()},
          {"violation", tc.violation},
          {"guarantee", tc.guarantee},
          {"history", history::history_to_json(tc.history, tc.model)}};
}

std::string test_case_to_text(const TestCase& tc) {
  std::string out;
  auto line = [&](const std::string& label, const std::vector<Step>& list) {
    out += label;
    if (list.empty()) out += " (none)";
    for (std::size_t i = 0; i < list.size(); ++i) out += (i ? "; " : " ") + step_to_text(list[i]);
    out += "\n";
  };
  out += "model: " + tc.model + (tc.target ? ", target: " + *tc.target : "") + "\n";
  line("Ps:", tc.ps);
  if (tc.pc.empty()) out += "Pc: (none)\n";
  for (std::size_t t = 0; t < tc.pc.size(); ++t) {
    line("Pc thread " + std::to_string(t) + " (p" + std::to_string(tc.pc[t].front().process) + "):",
         tc.pc[t]);
  }
  line("Pr:", tc.pr);
  out += "violation: " + tc.violation + "\n";
  out += "guarantee: " + tc.guarantee + "\n";
  return out;
}

}  // namespace linfault::minimize
