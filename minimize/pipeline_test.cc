// The pipeline on a user's own registered targets: check_target finds and minimizes a lost
// update, passes a correct counter, writes its files; verify_test_case (what generated repros
// run) fails while the bug is there, also after a line shift, and passes on the fixed object;
// the GoogleTest assertions of <linfault/gtest.h> say the same.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "linfault/check.h"
#include "linfault/gtest.h"
#include "linfault/target.h"
#include "minimize/pipeline.h"
#include "minimize/test_case.h"

namespace {

using ::testing::HasSubstr;

// increment() reads, then writes: two increments can lose one.
class RacyCounter {
 public:
  void increment() {
    const std::int64_t seen = value_.load();
    value_.store(seen + 1);
  }
  std::int64_t get() { return value_.load(); }

 private:
  linfault::Atomic<std::int64_t> value_{0};
};

// The same code a few lines lower: a line shift of RacyCounter.

class ShiftedRacyCounter {
 public:
  void increment() {
    const std::int64_t seen = value_.load();
    value_.store(seen + 1);
  }
  std::int64_t get() { return value_.load(); }

 private:
  linfault::Atomic<std::int64_t> value_{0};
};

// The fix.
class AtomicCounter {
 public:
  void increment() { value_.fetch_add(1); }
  std::int64_t get() { return value_.load(); }

 private:
  linfault::Atomic<std::int64_t> value_{0};
};

template <class Counter>
linfault::Target counter_target(std::string name) {
  linfault::Target t;
  t.name = std::move(name);
  t.model = "counter";
  t.bug_expected = false;
  t.operations = {{"increment", linfault::no_arguments(), "increment()"},
                  {"get", linfault::no_arguments(), "get() -> value"}};
  t.factory = linfault::Binding<Counter>()
                  .method("increment", &Counter::increment)
                  .method("get", &Counter::get)
                  .factory();
  return t;
}

LINFAULT_REGISTER_TARGET([] { return counter_target<RacyCounter>("pipeline_test_racy"); });
LINFAULT_REGISTER_TARGET([] {
  return counter_target<ShiftedRacyCounter>("pipeline_test_racy_shifted");
});
LINFAULT_REGISTER_TARGET([] { return counter_target<AtomicCounter>("pipeline_test_atomic"); });

// increment() throws when it sees another increment in progress: a crash, not a history that no
// order explains.
class ThrowingCounter {
 public:
  void increment() {
    if (busy_.exchange(true)) throw std::logic_error("concurrent increment");
    value_.fetch_add(1);
    busy_.store(false);
  }
  std::int64_t get() { return value_.load(); }

 private:
  linfault::Atomic<bool> busy_{false};
  linfault::Atomic<std::int64_t> value_{0};
};
LINFAULT_REGISTER_TARGET([] { return counter_target<ThrowingCounter>("pipeline_test_throwing"); });

// RacyCounter on a plain std::atomic: linfault cannot interleave its accesses, so no history
// can show the lost update.
class UninstrumentedRacyCounter {
 public:
  void increment() {
    const std::int64_t seen = value_.load();
    value_.store(seen + 1);
  }
  std::int64_t get() { return value_.load(); }

 private:
  std::atomic<std::int64_t> value_{0};
};
LINFAULT_REGISTER_TARGET([] {
  return counter_target<UninstrumentedRacyCounter>("pipeline_test_uninstrumented");
});

std::filesystem::path scratch_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("linfault_pipeline_test_" + std::to_string(::getpid())) / name;
  std::filesystem::remove_all(dir);
  return dir;
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

linfault::CheckOptions quick_options(const std::filesystem::path& dir) {
  linfault::CheckOptions options;
  options.histories = 400;
  options.threads = 2;
  options.ops = 3;
  options.output_dir = dir.string();
  options.tool = "pipeline-test-tool";
  options.minimize_seconds = 30;
  return options;
}

TEST(PipelineTest, FindsAndMinimizesTheBugOfARegisteredTarget) {
  const auto dir = scratch_dir("racy");
  const linfault::CheckResult result = linfault::check("pipeline_test_racy", quick_options(dir));
  ASSERT_TRUE(result.violation) << result.report;
  ASSERT_TRUE(result.minimization);
  EXPECT_EQ(result.concurrent_operations(), 2u) << result.report;
  EXPECT_THAT(result.report, HasSubstr("pipeline_test_racy (model counter) is not linearizable"));
  EXPECT_THAT(result.report, HasSubstr("failing interleaving:"));
  EXPECT_THAT(result.report, HasSubstr("pipeline_test.cc:"));  // accesses name the user's lines
  EXPECT_THAT(result.report, HasSubstr("LINFAULT_SEED"));
  EXPECT_THAT(result.report, HasSubstr("pipeline-test-tool replay " + result.testcase_path));

  const linfault::minimize::TestCase saved =
      linfault::minimize::read_test_case(result.testcase_path);
  EXPECT_EQ(saved.target, "pipeline_test_racy");
  EXPECT_EQ(saved.tool, "pipeline-test-tool");
  EXPECT_TRUE(std::filesystem::exists(result.failing_run_path));
  const std::string repro = read_text(result.repro_path);
  EXPECT_THAT(repro, HasSubstr("#include <linfault/gtest.h>"));
  EXPECT_THAT(repro, HasSubstr("linfault::testing::ReproPasses(\n      \"pipeline_test_racy\""));
  EXPECT_THAT(repro, Not(HasSubstr("targets::find")));
  std::filesystem::remove_all(dir);
}

TEST(PipelineTest, TheReportSaysACrashIsACrash) {
  linfault::CheckOptions options = quick_options(scratch_dir("throwing"));
  options.output_dir.clear();
  const linfault::CheckResult result = linfault::check("pipeline_test_throwing", options);
  ASSERT_TRUE(result.violation) << result.report;
  EXPECT_THAT(result.report,
              HasSubstr("pipeline_test_throwing (model counter) crashes (an operation throws): "
                        "history seed "))
      << result.report;
  EXPECT_THAT(result.report, Not(HasSubstr("not linearizable")));
}

TEST(PipelineTest, TheSameSeedExploresTheSameHistories) {
  const auto dir = scratch_dir("seed");
  linfault::CheckOptions options = quick_options(dir);
  options.output_dir.clear();
  const linfault::CheckResult a = linfault::check("pipeline_test_racy", options);
  const linfault::CheckResult b = linfault::check("pipeline_test_racy", options);
  ASSERT_TRUE(a.violation);
  EXPECT_EQ(a.failing_seed, b.failing_seed);
  EXPECT_EQ(a.histories, b.histories);
  EXPECT_EQ(a.minimization->test_case.schedule, b.minimization->test_case.schedule);
}

TEST(PipelineTest, ACorrectTargetPassesAndSaysWhatWasExplored) {
  linfault::CheckOptions options;
  options.histories = 300;
  const linfault::CheckResult result = linfault::check("pipeline_test_atomic", options);
  EXPECT_FALSE(result.violation) << result.report;
  EXPECT_EQ(result.histories, 300u);
  EXPECT_THAT(result.report,
              HasSubstr("no violation in 300 histories of 2 threads x 3 operations"));
}

TEST(PipelineTest, ATimeBudgetStopsTheCampaign) {
  linfault::CheckOptions options;
  options.histories = 100'000'000;
  options.seconds = 0.5;
  const linfault::CheckResult result = linfault::check("pipeline_test_atomic", options);
  EXPECT_FALSE(result.violation);
  EXPECT_TRUE(result.time_budget_hit);
  EXPECT_LT(result.seconds, 5.0);
}

// The test case of the racy counter, replayed the way a generated repro does.
struct Repro {
  linfault::Workload workload;
  std::string schedule;
  std::uint64_t max_steps = 0;
};

const Repro& racy_repro() {
  static const Repro repro = [] {
    linfault::CheckOptions options = quick_options({});
    options.output_dir.clear();
    const linfault::CheckResult result = linfault::check("pipeline_test_racy", options);
    Repro r;
    if (!result.minimization) return r;
    r.workload = result.minimization->workload;
    r.schedule = result.minimization->test_case.schedule.value_or("");
    r.max_steps = result.minimization->test_case.max_steps;
    return r;
  }();
  return repro;
}

TEST(PipelineTest, AReproFailsWhileTheBugIsThereAndPassesOnceFixed) {
  const Repro& repro = racy_repro();
  ASSERT_FALSE(repro.schedule.empty());
  const auto verdict =
      linfault::minimize::verify_test_case(linfault::targets::find("pipeline_test_racy"),
                                           repro.workload, repro.schedule, repro.max_steps);
  EXPECT_TRUE(verdict.failed) << verdict.summary;
  EXPECT_TRUE(verdict.replay_exact);
  EXPECT_TRUE(verdict.replay_failed);

  const auto fixed =
      linfault::minimize::verify_test_case(linfault::targets::find("pipeline_test_atomic"),
                                           repro.workload, repro.schedule, repro.max_steps);
  EXPECT_FALSE(fixed.failed) << fixed.summary << "\n" << fixed.details;
  EXPECT_TRUE(fixed.exhausted) << fixed.summary;
  EXPECT_GT(fixed.explored, 0u);
}

TEST(PipelineTest, ALineShiftAloneChangesNothing) {
  const Repro& repro = racy_repro();
  ASSERT_FALSE(repro.schedule.empty());
  const auto verdict =
      linfault::minimize::verify_test_case(linfault::targets::find("pipeline_test_racy_shifted"),
                                           repro.workload, repro.schedule, repro.max_steps);
  EXPECT_TRUE(verdict.failed) << verdict.summary;
  EXPECT_FALSE(verdict.replay_exact);  // the recorded places moved
}

TEST(PipelineTest, GoogleTestAssertionsCarryTheTestCase) {
  linfault::testing::Options options;
  options.histories = 400;
  options.output_dir = scratch_dir("gtest").string();
  const ::testing::AssertionResult buggy =
      linfault::testing::Linearizable("pipeline_test_racy", options);
  EXPECT_FALSE(buggy);
  EXPECT_THAT(buggy.message(), HasSubstr("failing interleaving:"));
  EXPECT_THAT(buggy.message(), HasSubstr("testcase.json"));

  options.output_dir = scratch_dir("gtest-ok").string();
  const ::testing::AssertionResult correct =
      linfault::testing::Linearizable("pipeline_test_atomic", options);
  EXPECT_TRUE(correct) << correct.message();
  EXPECT_THAT(correct.message(), HasSubstr("no violation in 400 histories"));

  // Nothing interleaved is no pass: the object's atomics are std's, not linfault's.
  const ::testing::AssertionResult uninstrumented =
      linfault::testing::Linearizable("pipeline_test_uninstrumented", options);
  EXPECT_FALSE(uninstrumented);
  EXPECT_THAT(uninstrumented.message(), HasSubstr("no violation in 400 histories"));
  EXPECT_THAT(uninstrumented.message(),
              HasSubstr("warning: no history of pipeline_test_uninstrumented reached a shared "
                        "access that linfault controls"));

  const ::testing::AssertionResult unknown = linfault::testing::Linearizable("no_such_target");
  EXPECT_FALSE(unknown);
  EXPECT_THAT(unknown.message(), HasSubstr("unknown target 'no_such_target'"));

  const Repro& repro = racy_repro();
  EXPECT_FALSE(linfault::testing::ReproPasses("pipeline_test_racy", repro.workload, repro.schedule,
                                              repro.max_steps));
  EXPECT_TRUE(linfault::testing::ReproPasses("pipeline_test_atomic", repro.workload, repro.schedule,
                                             repro.max_steps));
  std::filesystem::remove_all(scratch_dir(""));
}

TEST(PipelineTest, TheSeedComesFromTheEnvironmentWhenSet) {
  ::setenv("LINFAULT_SEED", "77", 1);
  EXPECT_EQ(linfault::testing::options_for_current_test({}).seed, 77u);
  ::setenv("LINFAULT_SEED", "x7", 1);
  EXPECT_THROW(linfault::testing::options_for_current_test({}), std::invalid_argument);
  ::unsetenv("LINFAULT_SEED");
  const linfault::testing::Options options = linfault::testing::options_for_current_test({});
  EXPECT_EQ(options.seed, 1u);
  EXPECT_THAT(options.output_dir, HasSubstr("PipelineTest.TheSeedComesFromTheEnvironmentWhenSet"));
}

}  // namespace
