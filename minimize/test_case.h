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
// A target-level test case names a targets/registry.h target and carries the dpct schedule text
// of a failing execution. Its steps are numbered as the executor numbers them (Pc thread i is
// process i; Ps and Pr run on process 0), and a strict dpct::ReplayScheduler replay of
// `schedule` on workload_of(test_case), with `max_steps` as the executor's cap, reproduces that
// execution exactly.
//
// JSON form (docs/formats.md, "Test cases"): test_case_from_json(test_case_to_json(t)) == t.
// Readers ignore fields they do not know (e.g. the "minimization" figures `linfault run` adds).
//
// Thread-safety: plain data and pure functions (the file functions touch only their path).
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_MINIMIZE_TEST_CASE_H_
#define LINFAULT_MINIMIZE_TEST_CASE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "detect/verdict.h"
#include "dpct/executor.h"
#include "dpct/workload.h"
#include "history/history.h"

namespace linfault::minimize {

// One call of the test case with the result observed in the failing execution.
struct Step {
  history::ProcessId process = 0;
  history::Call call;
  history::Value result;
  history::Outcome outcome = history::Outcome::kOk;
  bool culprit = false;  // its response is the one no linearization explains

  friend bool operator==(const Step&, const Step&) = default;
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
  // The executor's livelock cap (dpct::ExecutionOptions::max_steps) a replay must use.
  std::uint64_t max_steps = kDefaultMaxSteps;
  // The program that wrote the test case and can re-execute it ("linfault", or a tool built with
  // linfault_add_tool that knows the user's targets); empty when unknown.
  std::string tool;

  static constexpr std::uint64_t kDefaultMaxSteps = 20'000;

  friend bool operator==(const TestCase&, const TestCase&) = default;
};

// Splits a failing history into (Ps, Pc, Pr): Ps is the longest run of operations at the start
// that ran alone (each returned before the next was invoked, and before any other was invoked),
// Pr the same at the end, Pc the rest, one list per process in invocation order.
TestCase test_case_from_history(const std::string& model, const history::History& history,
                                history::OpIndex culprit);

// Where the executor ran an operation: in Ps, in Pc thread `thread`, or in Pr, and the index of
// the call in that list.
struct CallPosition {
  dpct::Phase phase = dpct::Phase::kConcurrent;
  dpct::ThreadId thread = 0;  // 0 for Ps and Pr
  std::size_t index = 0;
  friend auto operator<=>(const CallPosition&, const CallPosition&) = default;
};

// The position of each operation of `history` (a run of `workload`, numbered as the executor
// numbers processes: Pc thread i is process i, Ps, Pc thread 0 and Pr follow each other on
// process 0).
std::vector<CallPosition> call_positions(const dpct::Workload& workload,
                                         const history::History& history);

// The violation of a run that ended stuck, whose operation `culprit` blocks forever though no
// serial order makes it block (detect::Verdict::stuck): "stuck: inc() of p1 blocks forever
// (deadlock), and no serial order of the operations makes it block".
std::string stuck_violation(const dpct::Run& run, history::OpIndex culprit);

// Why a run whose verdict is a violation fails, in one line: stuck_violation for a stuck one;
// "unsynchronized: p1 deq() -> 7 took the element of p0 enq(7), whose call does not
// happen-before its return (a missing release or acquire)" for detect::Verdict::unsynchronized;
// "not linearizable: no linearization explains p1 deq() -> 7" otherwise.
std::string violation_reason(const dpct::Run& run, const detect::Verdict& verdict);

// The target-level test case of a failing controlled run of `workload` on `target`: its calls
// with the results `run` observed (calls the run never reached are pending), run.schedule as the
// schedule, the culprit and violation of `verdict` (or the run's failing outcome), and
// `max_steps`, the executor cap the run used.
TestCase test_case_from_run(const std::string& target, const std::string& model,
                            const dpct::Workload& workload, const dpct::Run& run,
                            const detect::Verdict& verdict, std::uint64_t max_steps,
                            const std::string& guarantee);

nlohmann::json test_case_to_json(const TestCase& test_case);

// True when `json` declares itself a test case ("linfault": "test-case"), valid or not.
bool is_test_case_document(const nlohmann::json& json);

// Throws history::InputError naming `origin` and the offending field ("pc[1][0].args: expected an
// array") for a document that is not a valid test case: wrong "linfault" kind or version, a
// missing or mistyped field, an unknown model or outcome, a schedule that does not parse, an
// invalid history.
TestCase test_case_from_json(const nlohmann::json& json, const std::string& origin);

// The calls of the test case as the executor runs them: Ps as setup, Pc as threads, Pr as reveal.
dpct::Workload workload_of(const TestCase& test_case);

// Throws history::OpenError when `path` cannot be read, history::InputError ("path:line: ..."
// for JSON syntax errors) when it is not a test case.
TestCase read_test_case(const std::string& path);
// Writes the JSON form (indented); throws std::runtime_error when `path` cannot be written.
void write_test_case(const TestCase& test_case, const std::string& path);

// A readable multi-line rendering: "Ps: push(1) push(2)", "Pc: pop() -> 2 || pop() -> 2", ...
std::string test_case_to_text(const TestCase& test_case);
// One step as a person reads it: "pop() -> 2", "push(1)", "size() -> fail", "pop() -> (pending)".
std::string step_to_text(const Step& step);

}  // namespace linfault::minimize

#endif  // LINFAULT_MINIMIZE_TEST_CASE_H_
