// Native mode (the paper's version B): histories recorded on real OS threads. CI reruns this
// under ThreadSanitizer (label `native`).

#include <gtest/gtest.h>

#include "detect/driver.h"

namespace linfault::detect {
namespace {

TEST(DriverNativeTest, StressRunsOfACorrectStackAreLinearizable) {
  DriverOptions options;
  options.scheduler = SchedulerKind::kNative;
  options.threads = 3;
  options.ops_per_thread = 30;
  options.histories = 20;
  options.jobs = 2;
  options.check_timeout_seconds = 5;
  const DetectionReport report = run_detection(targets::find("treiber_stack"), options);
  EXPECT_EQ(report.histories, 20u);
  EXPECT_EQ(report.violations, 0u);
  EXPECT_EQ(report.unknown, 0u);
  EXPECT_EQ(report.outcomes[static_cast<std::size_t>(dpct::RunOutcome::kOk)], 20u);
  EXPECT_EQ(report.scheduler.rfind("native", 0), 0u);
}

TEST(DriverNativeTest, NativeFailingRunsAreKeptWithANativeScheduleAndCannotBeReplayed) {
  DriverOptions options;
  options.scheduler = SchedulerKind::kNative;
  options.threads = 2;
  options.ops_per_thread = 200;
  options.histories = 10;
  options.jobs = 2;
  options.check_timeout_seconds = 5;
  const targets::Target& target = targets::find("treiber_stack_buggy");
  const DetectionReport report = run_detection(target, options);
  EXPECT_EQ(report.histories, 10u);
  for (const SavedRun* run : report.failing_runs()) {
    EXPECT_EQ(run->scheduling.kind, "native");
    EXPECT_EQ(run->history.size(), 400u);
    EXPECT_THROW(replay_saved_run(*run, target, false), std::invalid_argument);
  }
}

}  // namespace
}  // namespace linfault::detect
