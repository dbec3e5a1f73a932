// TestCase: the output of minimization, a tiny failing program (Ps, Pc, Pr) with the evidence
// that it fails and the guarantee it carries (docs/formats.md, "Test cases").
//
//   Ps  sequential set-up, run first on one thread;
//   Pc  one list of operations per thread, run concurrently;
//   Pr  sequential reveal, run after every thread of Pc has finished.
//
// A test case made from a history recorded elsewhere (history-level minimization, no target to
// re-execute) has no target and no schedule; its steps carry the results that were observed,
// and `history` is the failing sub-history itself.
//
// Thread-safety: plain data.

#ifndef LINFAULT_MINIMIZE_TEST_CASE_H_
#define LINFAULT_MINIMIZE_TEST_CASE_H_

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "history/history.h"

namespace linfault::minimize {

// One call of the test case with the result observed in the failing execution.
struct Step {
  history::ProcessId process = 0;
  history::Call call;
  history::Value result;
  history::Outcome outcome = history::Outcome::kOk;
  bool culprit = false;  // its response is the one no linearization explains
};

struct TestCase {
  std::optional<std::string> target;  // null for history-level test cases
  std::string model;
  std::vector<Step> ps;
  std::vector<std::vector<Step>> pc;
  std::vector<Step> pr;
  std::optional<std::string> schedule;  // dpct schedule text (docs/schedule-format.md)
  std::string violation;                // one line: which response cannot be explained
  std::string guarantee;                // what "minimal" and "buggy" mean for this test case
  history::History history;             // the failing history of the test case
};

// Splits a failing history into (Ps, Pc, Pr): Ps is the longest run of operations at the start
// that ran alone (each returned before the next was invoked, and before any other was invoked),
// Pr the same at the end, Pc the rest, one list per process in invocation order.
TestCase test_case_from_history(const std::string& model, const history::History& history,
                                history::OpIndex culprit);

nlohmann::json test_case_to_json(const TestCase& test_case);

// A readable multi-line rendering: "Ps: push(1) push(2)", "Pc: pop() -> 2 || pop() -> 2", ...
std::string test_case_to_text(const TestCase& test_case);

}  // namespace linfault::minimize

#endif  // LINFAULT_MINIMIZE_TEST_CASE_H_
