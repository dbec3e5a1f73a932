// Replaying a failing schedule with the access trace recorded, for the report's interleaving.

#include <exception>

#include "detect/checker.h"
#include "detect/driver.h"
#include "dpct/replay_scheduler.h"
#include "dpct/schedule.h"
#include "report/report.h"
#include "targets/registry.h"

namespace linfault::report {

std::optional<Interleaving> replay_interleaving(const minimize::TestCase& test_case,
                                                std::string& why) {
  if (!test_case.target || !test_case.schedule) {
    why = "a history-level test case: no target and schedule to replay";
    return std::nullopt;
  }
  try {
    const targets::Target& target = targets::find(*test_case.target);
    Interleaving out;
    out.workload = minimize::workload_of(test_case);
    dpct::ReplayScheduler scheduler(dpct::Schedule::from_text(*test_case.schedule));
    dpct::ExecutionOptions options;
    options.record_trace = true;
    options.max_steps = test_case.max_steps;
    out.run = dpct::execute(target.factory, out.workload, scheduler, options);
    const detect::Verdict verdict =
        detect::check_history(test_case.model, out.run.history, detect::CheckOptions{});
    if (verdict.result == detect::Result::kViolation) out.culprit = verdict.culprit;
    return out;
  } catch (const std::exception& e) {
    why = std::string("the schedule could not be replayed: ") + e.what();
    return std::nullopt;
  }
}

std::optional<Interleaving> replay_interleaving(const detect::SavedRun& run, std::string& why) {
  if (run.scheduling.kind == detect::scheduler_kind_name(detect::SchedulerKind::kNative)) {
    why = "a native run: it has no schedule to replay";
    return std::nullopt;
  }
  try {
    const targets::Target& target = targets::find(run.target);
    detect::ReplayResult replay = detect::replay_saved_run(run, target, /*record_trace=*/true);
    Interleaving out;
    out.workload = run.workload;
    out.run = std::move(replay.run);
    if (replay.verdict.result == detect::Result::kViolation) out.culprit = replay.verdict.culprit;
    return out;
  } catch (const std::exception& e) {
    why = std::string("the schedule could not be replayed: ") + e.what();
    return std::nullopt;
  }
}

}  // namespace linfault::report
