// SavedRun: one run kept by `linfault detect` (a violation, or a deadlock/livelock/crash), with
// everything needed to replay it exactly and to tell whether the replay shows the same thing.
//
// It holds the target's registry name and model, the workload that ran (Ps, Pc per thread, Pr),
// how it was scheduled (the driver's scheduler kind, the PCT depth and k, the heuristic's round
// shape, and the recorded dpct::Schedule in its text form), the run's outcome, the recorded
// History and a summary of the verdict. docs/formats.md ("Saved runs") documents the JSON form:
//
//   {"linfault": "saved-run", "version": 1, "target": "treiber_stack_buggy", "model": "stack",
//    "seed": 17, "scheduler": {"kind": "pct", "heuristic": false, "depth": 3, "k": 21, ...},
//    "workload": {"setup": [], "threads": [[{"method": "push", "args": [1]}, ...], ...],
//                 "reveal": []},
//    "schedule": "pct seed=... | 0x5 1x3 | ^ 0@stacks.h:31 ...",
//    "outcome": "ok", "message": "",
//    "verdict": {"result": "violation", "prefix_events": 7, "culprit": 2, "reason": ""},
//    "history": { ...history/json_format.h... }}
//
// saved_run_from_json(saved_run_to_json(r)) == r. Readers reject documents that are not saved runs
// with a history::InputError naming the file (and the line, for JSON syntax errors).
//
// Thread-safety: plain data and pure functions.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_DETECT_SAVED_RUN_H_
#define LINFAULT_DETECT_SAVED_RUN_H_

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "detect/verdict.h"
#include "dpct/executor.h"
#include "dpct/schedule.h"
#include "dpct/workload.h"
#include "history/atomic_file.h"
#include "history/history.h"

namespace linfault::detect {

// How the driver scheduled the run (the parameters a person wants to see; the exact decisions are
// in SavedRun::schedule).
struct SavedScheduling {
  std::string kind;  // "native", "random", "pct", "dpct", "pos", "surw", "window" or "exhaustive"
  bool heuristic = false;
  std::uint64_t round_ops = 0;  // heuristic: operations of the other threads per round
  unsigned depth = 0;           // pct/dpct
  std::uint64_t k = 0;          // pct: the k used; dpct: 0 (estimated per run)
  std::uint64_t max_steps = 0;  // the executor's livelock cap (a replay must use the same)
  std::string description;      // the driver's one-line description ("pct d=3 k=40 (pilot)")
  friend bool operator==(const SavedScheduling&, const SavedScheduling&) = default;
};

// What the check of the run's history found.
struct SavedVerdict {
  Result result = Result::kUnknown;
  std::size_t prefix_events = 0;  // kViolation: shortest non-linearizable prefix
  history::OpIndex culprit = -1;  // kViolation
  std::string reason;             // kUnknown: why
  bool unsynchronized = false;    // kViolation: of the synchronisation requirement
  friend bool operator==(const SavedVerdict&, const SavedVerdict&) = default;
};
SavedVerdict summarize(const Verdict& verdict);

// The scheduler name of the schedule of a run whose process died before it ended (`detect
// --isolate`, DriverOptions::isolate): it has no decisions, and cannot be replayed.
inline constexpr std::string_view kLostSchedule = "lost";

struct SavedRun {
  std::string target;
  std::string model;
  std::uint64_t seed = 0;  // the history's seed (workload and scheduler are derived from it)
  SavedScheduling scheduling;
  dpct::Workload workload;
  dpct::Schedule schedule;
  dpct::RunOutcome outcome = dpct::RunOutcome::kOk;
  std::string message;  // the executor's message for a non-ok outcome
  SavedVerdict verdict;
  history::History history;

  friend bool operator==(const SavedRun& a, const SavedRun& b);
};

nlohmann::json saved_run_to_json(const SavedRun& run);

// A workload alone, as in a saved run's "workload" field:
//   {"setup": [{"method": "push", "args": [1]}], "threads": [[...], [...]], "reveal": []}.
// workload_from_json also accepts a whole saved run (its workload is used). Throws
// history::InputError naming `origin` and the field for anything else.
nlohmann::json workload_to_json(const dpct::Workload& workload);
dpct::Workload workload_from_json(const nlohmann::json& json, const std::string& origin);
// Throws history::InputError naming `origin` for a document that is not a valid saved run.
SavedRun saved_run_from_json(const nlohmann::json& json, const std::string& origin);

// Writes the JSON form (indented) to `path` atomically (history/atomic_file.h: a reader or a kill
// never sees a partial file); throws std::runtime_error when it cannot be written.
void write_saved_run(const SavedRun& run, const std::string& path,
                     history::Durability durability = history::Durability::kDurable);
// Throws history::OpenError when `path` cannot be read and history::InputError when it is not a
// saved run.
SavedRun read_saved_run(const std::string& path);

}  // namespace linfault::detect

#endif  // LINFAULT_DETECT_SAVED_RUN_H_
