// Helpers shared by the target-level minimizer's tests: finding a failing run of a target by
// detection, the shape of a Pc, and the strict replay of a minimized test case.
//
// Thread-safety: pure functions.

#ifndef LINFAULT_MINIMIZE_TEST_SUPPORT_H_
#define LINFAULT_MINIMIZE_TEST_SUPPORT_H_

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "detect/checker.h"
#include "detect/driver.h"
#include "dpct/executor.h"
#include "dpct/replay_scheduler.h"
#include "minimize/target_minimizer.h"
#include "targets/registry.h"

namespace linfault::minimize::test_support {

inline history::Call call(std::string method, std::vector<history::Value> args = {}) {
  return history::Call{std::move(method), std::move(args)};
}

// The first failing run of `target` under PCT from seed 1, searched in batches. The plan is
// redrawn every operation per thread, as `--epoch auto` does: one plan per history finds
// unsafe_size_list's size || add; remove in about 1 history in 1000, too rarely for a test.
inline std::optional<detect::SavedRun> first_failing_run(const targets::Target& target,
                                                         std::uint64_t max_histories) {
  detect::DriverOptions options;
  options.scheduler = detect::SchedulerKind::kPct;
  options.epoch_operations = options.threads;
  options.histories = 50;
  for (std::uint64_t seed = 1; seed <= max_histories; seed += options.histories) {
    options.seed = seed;
    const detect::DetectionReport report = detect::run_detection(target, options);
    for (const detect::SavedRun* run : report.failing_runs()) {
      if (run->verdict.result == detect::Result::kViolation) return *run;
    }
  }
  return std::nullopt;
}

// Per-thread operation counts, sorted: the "shape" of a Pc, "1|1" for pop || pop.
inline std::string shape_of(const std::vector<std::vector<history::Call>>& threads) {
  std::vector<std::size_t> counts;
  for (const auto& t : threads) counts.push_back(t.size());
  std::sort(counts.begin(), counts.end());
  std::string out;
  for (std::size_t c : counts) out += (out.empty() ? "" : "|") + std::to_string(c);
  return out;
}

// Replays the test case's schedule strictly on a fresh object and checks the history.
inline detect::Result replay_result(const targets::Target& target, const TargetMinimization& m) {
  dpct::ReplayScheduler replay(dpct::Schedule::from_text(*m.test_case.schedule),
                               dpct::ReplayMode::kStrict);
  dpct::ExecutionOptions execution;
  execution.max_steps = 1'000'000;
  const dpct::Run run = dpct::execute(target.factory, m.workload, replay, execution);
  return detect::check_history(target.model, run.history, {}).result;
}

}  // namespace linfault::minimize::test_support

#endif  // LINFAULT_MINIMIZE_TEST_SUPPORT_H_
