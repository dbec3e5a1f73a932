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
  options.shapes = ShapeMix::kEven;  // every history has 2 x 200 operations
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

// Noise (the default) makes native stress find the race of treiber_stack_buggy: two pops that
// read the same top, one CAS fails and its result is ignored. Measured on the busy 2-core
// machine: 265-271 of these 300 histories of 2 x 20 fail (three runs). Asking for at least one
// leaves a margin that cannot flake even on a loaded or a quiet machine.
TEST(DriverNativeTest, NoiseFindsTheTreiberStackRace) {
  DriverOptions options;
  options.scheduler = SchedulerKind::kNative;
  options.threads = 2;
  options.ops_per_thread = 20;
  options.histories = 300;
  options.jobs = 2;
  options.check_timeout_seconds = 5;
  const DetectionReport report = run_detection(targets::find("treiber_stack_buggy"), options);
  EXPECT_GE(report.violations, 1u);
  EXPECT_NE(report.scheduler.find("noise"), std::string::npos) << report.scheduler;
  ASSERT_TRUE(report.first_failing_seed.has_value());
}

TEST(DriverNativeTest, NoiseCanBeTurnedOffAndTheSchedulerSaysSo) {
  DriverOptions options;
  options.scheduler = SchedulerKind::kNative;
  options.native_noise = false;
  options.threads = 2;
  options.ops_per_thread = 10;
  options.histories = 5;
  const DetectionReport report = run_detection(targets::find("treiber_stack"), options);
  EXPECT_EQ(report.violations, 0u);
  EXPECT_NE(report.scheduler.find("no noise"), std::string::npos) << report.scheduler;
}

}  // namespace
}  // namespace linfault::detect
