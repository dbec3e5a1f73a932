// The pipeline as a library: detect -> localize -> minimize -> files, on any target, built-in or
// registered by the user (targets/registry.h). `linfault run`, the GoogleTest check
// (<linfault/gtest.h>) and the generated repros are thin layers over it, so each behaves the same
// on a user's object as on a bundled one.
//
//   check_target()       runs a detection campaign within a budget (histories and/or seconds);
//                        on the first failing history it localizes and minimizes it, writes
//                        testcase.json and a GoogleTest repro, and says all of it in one report.
//   verify_test_case()   what a generated repro does: replay the recorded schedule, then explore
//                        every interleaving of the test case's small Pc; a violation only counts
//                        when a run really is non-linearizable (or deadlocks or crashes), so a
//                        line shift never changes the outcome and a fix turns it green.
//   tree_step_estimators() D-PCT's estimator over every structure tree linked into the program:
//                        the built-in targets' and those of each linfault_add_target() library.
//
// Internal header: users reach this through <linfault/check.h> and <linfault/gtest.h>.
//
// Thread-safety: every function is reentrant; check_target() and verify_test_case() run on the
// calling thread (detection may use `jobs` worker threads) and touch only their output paths.

#ifndef LINFAULT_MINIMIZE_PIPELINE_H_
#define LINFAULT_MINIMIZE_PIPELINE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "detect/driver.h"
#include "detect/saved_run.h"
#include "dpct/workload.h"
#include "minimize/target_minimizer.h"
#include "minimize/test_case.h"
#include "targets/registry.h"

namespace linfault::minimize {

// A factory of D-PCT estimators over all structure trees linked into the program; empty when
// there are none (a build without the extractor): callers fall back to PCT and say so.
detect::StepEstimatorFactory tree_step_estimators();

// --- Detection until the first failure -----------------------------------------------------

struct FirstFailure {
  std::uint64_t histories = 0;
  std::uint64_t violations = 0;
  double total_ms = 0;
  double wall_seconds = 0;
  std::string scheduler;  // what ran in the first batch, as detect::DetectionReport says it
  std::optional<detect::SavedRun> failing;     // the first failing run (smallest index)
  std::optional<std::uint64_t> failing_batch;  // the batch it was found in (0-based)
  bool time_budget_hit = false;                // stopped by `seconds` before `histories` ran
  // detect::DetectionReport::without_shared_access, summed over the batches.
  std::uint64_t without_shared_access = 0;
  // detect::DetectionReport::weak_order_sites, merged over the batches.
  std::vector<std::string> weak_order_sites;
};

// The batch size of detect_first_failure for `jobs` worker threads.
std::uint64_t first_failure_batch(unsigned jobs);

// Runs `options` in batches of first_failure_batch(options.jobs) histories (the campaign's
// histories 0, 1, ... of seed options.seed: detect::history_seed) until a batch has a failing
// history, `histories` have run, or `seconds` (0: no limit) have passed. A violation is preferred
// over a deadlock, livelock or crash within a batch. `progress` gets totals over all batches.
//
// With options.shard_count > 1, each batch runs only the histories of the shard (global index
// modulo shard_count), so the shard's result in its failing batch decides, with the other
// shards', the unsharded result: the first failing batch is the smallest over the shards, and in
// it a violation is preferred, then the smallest index.
FirstFailure detect_first_failure(const targets::Target& target, detect::DriverOptions options,
                                  std::uint64_t histories, double seconds,
                                  const detect::ProgressCallback& progress = nullptr);

// --- Presenting a minimization ---------------------------------------------------------------

// The test case JSON (docs/formats.md) plus a "minimization" object with the figures; `tool`
// (when not empty) names the program that can re-execute it ("tool": "user-linfault").
nlohmann::json minimization_to_json(const TargetMinimization& m, std::string_view tool = {});
// The test case, its failing interleaving step by step, its schedule and the figures.
void print_minimization(std::ostream& out, const TargetMinimization& m, bool compact);
std::size_t pc_operations(const TargetMinimization& m);

// --- Generated repros ------------------------------------------------------------------------

struct ReproOptions {
  // Budget of the exhaustive exploration of Pc's interleavings after the replay.
  std::uint64_t max_executions = 200'000;
  // Used when every interleaving does not fit the budget.
  unsigned preemption_bound = 3;
  double check_timeout_seconds = 10;  // per history check
};

struct ReproVerdict {
  bool failed = false;  // a real violation, deadlock or crash was found
  // The replay of the recorded schedule: it followed every recorded decision at the recorded
  // place (false: the code or the calls changed, and the thread choices were followed leniently).
  bool replay_exact = false;
  bool replay_failed = false;     // the (lenient) replay itself failed
  std::uint64_t explored = 0;     // executions of the exploration (0 when the replay failed)
  bool exhausted = false;         // the exploration covered its whole space
  std::optional<unsigned> bound;  // the preemption bound it used; nullopt: every interleaving
  std::uint64_t livelocks = 0;    // explored runs stopped at the step cap (not counted as bugs:
                                  // the explorer may starve a thread that waits for another)
  std::string summary;            // one line: what ran and what it found
  std::string details;            // when failed: the failing history's verdict and interleaving
};

// What a generated repro checks: runs `workload` on `target` under the recorded `schedule`
// (followed leniently, so it survives a line shift), then, unless that already failed, every
// interleaving of Pc (within the budget). failed iff some run was non-linearizable, deadlocked
// or crashed. Throws std::invalid_argument for a schedule that does not parse.
ReproVerdict verify_test_case(const targets::Target& target, const dpct::Workload& workload,
                              std::string_view schedule, std::uint64_t max_steps,
                              const ReproOptions& options = {});

// --- The whole check ---------------------------------------------------------------------------

struct CheckOptions {
  std::uint64_t histories = 1000;  // at most this many histories
  double seconds = 0;              // and at most this long (0: no time limit)
  std::size_t threads = 2;         // per history
  std::size_t ops = 3;             // operations per thread
  std::string scheduler = "dpct";  // random, pct, dpct, pos, surw, window, portfolio (not native)
  // What runs are checked against: "model" (the target's sequential model) or "serial" (its own
  // serial runs, Line-Up: no model needed, and calls that block forever where no serial order
  // blocks are caught; targets/serial_spec.h).
  std::string spec = "model";
  // The memory model of the runs: "sc", "c11" (the C++20 model: loads may read older stores,
  // docs/weak-memory.md), or empty for the target's (Target::memory_model).
  std::string memory_model;
  std::uint64_t seed = 1;        // history i uses detect::history_seed(seed, i)
  unsigned jobs = 1;             // detection worker threads (results do not depend on it)
  double minimize_seconds = 60;  // budget of the minimization
  // Where the files of a failure go: testcase.json, the failing run and <target>_repro_test.cc.
  // Empty: no files.
  std::string output_dir;
  std::string tool;  // the program that can replay the test case (written into testcase.json)
  std::function<void(const std::string&)> progress;  // one line per stage
};

struct CheckResult {
  std::string target;
  std::uint64_t seed = 1;  // the seed the campaign used (options.seed)
  std::uint64_t histories = 0;
  std::string scheduler;
  double seconds = 0;
  bool time_budget_hit = false;
  bool violation = false;  // a failing history was found
  // detect::no_interleaving_warning when no history reached a shared access linfault controls
  // (nothing was interleaved: a pass means nothing); "" otherwise. The report ends with it.
  std::string warning;
  // detect::weak_order_note when nothing was found; "" otherwise. The report ends with it.
  std::string note;
  std::optional<std::uint64_t> failing_seed;
  std::optional<TargetMinimization> minimization;  // set when violation
  std::string testcase_path;                       // written files ("" when none)
  std::string repro_path;
  std::string failing_run_path;
  // Multi-line: on a violation the minimized test case, its interleaving, the seed to reproduce
  // it and the files; otherwise what was explored.
  std::string report;

  std::size_t concurrent_operations() const;  // |Pc| of the minimized test case (0 if none)
};

// Throws std::invalid_argument for options that cannot work (an unknown scheduler, native).
CheckResult check_target(const targets::Target& target, const CheckOptions& options);

}  // namespace linfault::minimize

#endif  // LINFAULT_MINIMIZE_PIPELINE_H_
