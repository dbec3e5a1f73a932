#include "detect/saved_run.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "detect/driver.h"
#include "dpct/replay_scheduler.h"
#include "history/formats.h"
#include "history/json_format.h"

namespace linfault::detect {
namespace {

// The first failing run pct finds on the buggy Treiber stack.
SavedRun treiber_failure() {
  DriverOptions options;
  options.threads = 2;
  options.ops_per_thread = 6;
  options.histories = 60;
  options.jobs = 2;
  const DetectionReport report = run_detection(targets::find("treiber_stack_buggy"), options);
  const auto failing = report.failing_runs();
  if (failing.empty()) throw std::runtime_error("no failing run found");
  return *failing.front();
}

TEST(SavedRunTest, RoundTripsThroughJson) {
  const SavedRun run = treiber_failure();
  EXPECT_EQ(run.verdict.result, Result::kViolation);
  const nlohmann::json doc = saved_run_to_json(run);
  EXPECT_EQ(doc["linfault"], "saved-run");
  EXPECT_EQ(doc["verdict"]["result"], "violation");
  const SavedRun back = saved_run_from_json(nlohmann::json::parse(doc.dump()), "run.json");
  EXPECT_TRUE(back == run);
  EXPECT_EQ(saved_run_to_json(back), doc);
}

// A run under the C++20 model keeps its happens-before clocks and its unsynchronized verdict, and
// a malformed happens_before is refused.
TEST(SavedRunTest, WeakMemoryRunsKeepTheirHappensBefore) {
  DriverOptions options;
  options.threads = 2;
  options.ops_per_thread = 4;
  options.histories = 400;
  options.jobs = 1;
  options.memory_model = dpct::MemoryModel::kC11;
  const DetectionReport report = run_detection(targets::find("wm_seqlock_buggy"), options);
  const auto failing = report.failing_runs();
  ASSERT_FALSE(failing.empty());
  const SavedRun& run = *failing.front();
  ASSERT_EQ(run.history.clocks().size(), run.history.size());
  const nlohmann::json doc = saved_run_to_json(run);
  ASSERT_TRUE(doc.contains("happens_before"));
  const SavedRun back = saved_run_from_json(nlohmann::json::parse(doc.dump()), "run.json");
  EXPECT_EQ(back.history.clocks(), run.history.clocks());
  EXPECT_EQ(back.verdict, run.verdict);
  EXPECT_EQ(saved_run_to_json(back), doc);
  for (const nlohmann::json& bad :
       {nlohmann::json(3), nlohmann::json::array({nlohmann::json::array({0, 1})}),
        nlohmann::json::array()}) {
    nlohmann::json broken = doc;
    broken["happens_before"] = bad;
    EXPECT_THROW(saved_run_from_json(broken, "bad.json"), history::InputError) << bad.dump();
  }
}

TEST(SavedRunTest, ReplayReproducesTheSameHistoryByteForByteAndTheViolation) {
  const SavedRun run = treiber_failure();
  const std::string path = std::filesystem::temp_directory_path() /
                           ("linfault_saved_run_" + std::to_string(::getpid()) + ".json");
  write_saved_run(run, path);
  const SavedRun loaded = read_saved_run(path);
  std::filesystem::remove(path);

  const targets::Target& target = targets::find(loaded.target);
  const ReplayResult replay = replay_saved_run(loaded, target, /*record_trace=*/true);
  EXPECT_TRUE(replay.same_history);
  EXPECT_EQ(history::history_to_json_text(replay.run.history, loaded.model),
            history::history_to_json_text(run.history, run.model));
  EXPECT_EQ(replay.verdict.result, Result::kViolation);
  EXPECT_EQ(replay.verdict.prefix_events, run.verdict.prefix_events);
  EXPECT_TRUE(replay.run.schedule == run.schedule);
  EXPECT_FALSE(replay.run.trace.empty());
}

TEST(SavedRunTest, ReplayDetectsDivergence) {
  SavedRun run = treiber_failure();
  // Another workload under the same decisions: the recorded points no longer match.
  std::swap(run.workload.threads[0], run.workload.threads[1]);
  run.workload.threads[0].insert(run.workload.threads[0].begin(), history::Call{"pop", {}});
  EXPECT_THROW(replay_saved_run(run, targets::find(run.target), false), dpct::ScheduleDivergence);
}

TEST(SavedRunTest, NativeRunsCannotBeReplayed) {
  SavedRun run = treiber_failure();
  run.scheduling.kind = "native";
  EXPECT_THROW(replay_saved_run(run, targets::find(run.target), false), std::invalid_argument);
}

TEST(SavedRunTest, MalformedDocumentsAreInputErrorsNamingTheFile) {
  const SavedRun run = treiber_failure();
  nlohmann::json doc = saved_run_to_json(run);
  auto expect_error = [](const nlohmann::json& bad, const std::string& fragment) {
    try {
      saved_run_from_json(bad, "bad.json");
      ADD_FAILURE() << "accepted: " << fragment;
    } catch (const history::InputError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("bad.json", 0), 0u) << e.what();
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  expect_error(nlohmann::json::array(), "not a saved run");
  expect_error({{"linfault", nullptr}}, "not a saved run");  // threw nlohmann's type_error
  nlohmann::json no_target = doc;
  no_target.erase("target");
  expect_error(no_target, "\"target\"");
  nlohmann::json bad_schedule = doc;
  bad_schedule["schedule"] = "pct | x";
  expect_error(bad_schedule, "schedule");
  nlohmann::json bad_call = doc;
  bad_call["workload"]["threads"][1][0]["args"] = 3;
  expect_error(bad_call, "workload.threads[1][0].args");
  nlohmann::json bad_outcome = doc;
  bad_outcome["outcome"] = "exploded";
  expect_error(bad_outcome, "exploded");
  nlohmann::json two_models = doc;  // the history's model must be the run's
  two_models["history"]["model"] = "queue";
  expect_error(two_models, "history.model: \"queue\" is not the saved run's model \"stack\"");
  // Regression of issue #19: unknown fields were ignored, and out-of-range numbers truncated.
  for (const auto& [path, fragment] : std::vector<std::pair<std::string, std::string>>{
           {"/colour", "document: unknown field \"colour\""},
           {"/scheduler/seed", "scheduler: unknown field \"seed\""},
           {"/verdict/why", "verdict: unknown field \"why\""},
           {"/workload/teardown", "workload: unknown field \"teardown\""},
           {"/workload/threads/0/0/result", "workload.threads[0][0]: unknown field \"result\""},
           {"/history/note", "unknown field \"note\""}}) {
    nlohmann::json extra = doc;
    extra[nlohmann::json::json_pointer(path)] = 1;
    expect_error(extra, fragment);
  }
  nlohmann::json deep = doc;
  deep["scheduler"]["depth"] = std::uint64_t{1} << 33;
  expect_error(deep, "scheduler.depth: out of range");
  // A misspelt kind passed as a controlled run, and a cap of 0 as the default one.
  nlohmann::json misspelt = doc;
  misspelt["scheduler"]["kind"] = "natve";
  expect_error(misspelt, "scheduler.kind: unknown scheduler kind \"natve\"");
  nlohmann::json uncapped = doc;
  uncapped["scheduler"]["max_steps"] = 0;
  expect_error(uncapped, "scheduler.max_steps: must be positive");
  nlohmann::json native = uncapped;  // a native run has no cap
  native["scheduler"]["kind"] = "native";
  EXPECT_EQ(saved_run_from_json(native, "native.json").scheduling.kind, "native");
  // Every scheduler the driver records is accepted (the reader keeps its own list): all but the
  // portfolio, which records its member.
  for (SchedulerKind kind : kSchedulerKinds) {
    nlohmann::json recorded = doc;
    recorded["scheduler"]["kind"] = scheduler_kind_name(kind);
    if (kind == SchedulerKind::kPortfolio) {
      expect_error(recorded, "unknown scheduler kind \"portfolio\"");
    } else {
      EXPECT_EQ(saved_run_from_json(recorded, "kind.json").scheduling.kind,
                scheduler_kind_name(kind));
    }
  }

  EXPECT_THROW(read_saved_run("/nonexistent/run.json"), history::OpenError);
}

}  // namespace
}  // namespace linfault::detect
