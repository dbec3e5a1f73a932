// Triage: many failing histories (a CI that fails now and then), how many distinct bugs?
//
// triage() checks every input; a linearizable one counts as passing, one that cannot be read (or
// does not fit its model) is listed with its one-line error, and a failing one is minimized:
//   - a run saved by `linfault detect`: target-level, re-executing candidates on its target
//     (minimize::minimize_saved_run); if the run does not fail on replay, history-level;
//   - a plain history with a target (TriageOptions::target): target-level on that target
//     (minimize::minimize_history_on_target);
//   - any other history: history-level (minimize::minimize_history).
// Failing inputs are then grouped by root cause: the canonical form (signature()) of their
// minimal test case. Inputs are processed by `jobs` worker threads; results do not depend on it.
//
// The canonical form of a test case (Ps, Pc, Pr) is one line made of
//   - the model;
//   - Pc: the calls of the culprit's thread in order, with arguments and observed results, and
//     the multiset of the other calls of Pc. How those other calls are split over threads is
//     left out on purpose: minimal test cases of one bug may run the same concurrent calls on one
//     thread or on two (unsafe_size_list gives both `remove; add || size` and
//     `remove || add || size`), and what matters is which calls overlap the culprit;
//   - Ps: the multiset of its calls (order and values of the set-up do not matter, only which
//     values Pc and Pr also use);
//   - Pr: its calls and results in order;
//   - the culprit: which call's response cannot be explained;
//   - the run's outcome when it was not ok (deadlock, livelock, crash);
// with values renamed canonically: v1, v2, ... in order of first appearance in the culprit's
// thread, then the other calls of Pc (in the order that gives the smallest form), then Pr; a
// set-up value used nowhere else is "_". Results are renamed like arguments, except those of
// counts (size, count, length), which stay literal, as do booleans and nil. So the same bug found
// with other values, or from a longer history, maps to the same group.
//
// Thread-safety: triage() calls `progress` from its worker threads one call at a time (under a
// lock); everything else is pure.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_REPORT_TRIAGE_H_
#define LINFAULT_REPORT_TRIAGE_H_

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "detect/driver.h"
#include "dpct/executor.h"
#include "minimize/test_case.h"

namespace linfault::report {

enum class TriageStatus : std::uint8_t { kPassing, kFailing, kUnknown, kUnreadable };
const char* triage_status_name(TriageStatus status);  // "passing", "failing", ...

struct TriageOptions {
  // The model of plain histories (overrides what a file implies); empty: the target's, else the
  // file's own.
  std::string model;
  // The target plain histories were recorded from: they are minimized on it. Saved runs of
  // another target are reported as unreadable.
  std::string target;
  unsigned jobs = 1;                      // worker threads (0: hardware concurrency)
  double timeout_seconds = 60;            // per input, for its check and for its minimization
  std::uint64_t sampled_schedules = 200;  // target-level CHECK: fresh schedules
  std::uint64_t exhaustive_executions = 20'000;  // target-level CHECK: enumeration budget
  // D-PCT step estimators for target-level CHECK; empty: PCT.
  detect::StepEstimatorFactory step_estimator;
};

struct TriageProgress {
  std::size_t done = 0;
  std::size_t total = 0;
  std::size_t failing = 0;
  std::size_t passing = 0;
  std::size_t unreadable = 0;
  std::string last_file;
};
using TriageProgressFn = std::function<void(const TriageProgress&)>;

struct TriageEntry {
  std::string file;
  TriageStatus status = TriageStatus::kUnreadable;
  std::string message;  // kUnreadable: the one-line error; kUnknown: why; else a summary
  std::string model;
  std::string target;                                // for saved runs and --target
  std::size_t operations = 0;                        // of the input history
  std::string level;                                 // kFailing: "target" or "history"
  std::optional<minimize::TestCase> test_case;       // kFailing: the minimal test case
  dpct::RunOutcome outcome = dpct::RunOutcome::kOk;  // of the minimal test case's failing run
  std::string signature;                             // kFailing: the canonical form
  double elapsed_ms = 0;
};

struct TriageGroup {
  std::string signature;
  // Indices into TriageResult::entries; the first is the representative (the input with the
  // fewest operations, then by name).
  std::vector<std::size_t> members;
};

struct TriageResult {
  std::vector<TriageEntry> entries;  // in input order
  std::vector<TriageGroup> groups;   // largest first, then by signature
  std::size_t passing = 0;
  std::size_t failing = 0;
  std::size_t unknown = 0;
  std::size_t unreadable = 0;
  double elapsed_ms = 0;

  // 1 when any input fails; else 2 when a check hit a limit; else 65 when an input could not be
  // read; else 0 (every input passed).
  int exit_code() const;
};

// The files named by `paths`: a directory is read recursively (hidden entries, such as the
// temporaries of atomic writes, and campaign summaries named summary.json skipped), files sorted
// by path; a path that does not exist is kept (it is then reported as unreadable).
std::vector<std::string> collect_inputs(const std::vector<std::string>& paths);

// The canonical form of a test case (see above); `outcome` is its failing run's.
std::string signature(const minimize::TestCase& test_case,
                      dpct::RunOutcome outcome = dpct::RunOutcome::kOk);

// Triages one input (what a worker of triage() does).
TriageEntry triage_file(const std::string& file, const TriageOptions& options);

TriageResult triage(const std::vector<std::string>& files, const TriageOptions& options,
                    const TriageProgressFn& progress = {});

}  // namespace linfault::report

#endif  // LINFAULT_REPORT_TRIAGE_H_
