// The history generator: linearizable by construction, violations certain, distinct values,
// deterministic per seed, and its fastlin/snapshot output reads back to the same history.

#include "spec/generator.h"

#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "detect/monitors/monitor.h"
#include "history/formats.h"

namespace linfault::spec {
namespace {

detect::Result monitor_result(const std::string& model, const history::History& h) {
  detect::CheckOptions options;
  options.timeout_seconds = 0.01;  // only the verdict matters here, not the exact prefix
  detect::MonitorResult r = detect::run_monitor(model, h, options);
  EXPECT_TRUE(r.verdict) << r.unsupported;
  return r.verdict ? r.verdict->result : detect::Result::kUnknown;
}

class GeneratorTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GeneratorTest, LinearizableUnlessAViolationIsInjected) {
  for (std::size_t threads : {1, 8, 100}) {
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      GeneratorOptions options{GetParam(), 2000, threads, false, seed, 0};
      const GeneratedHistory good = generate_history(options);
      EXPECT_EQ(good.history.size(), 2000u);
      EXPECT_TRUE(good.injected.empty());
      EXPECT_EQ(monitor_result(GetParam(), good.history), detect::Result::kLinearizable);
      options.violation = true;
      const GeneratedHistory bad = generate_history(options);
      EXPECT_FALSE(bad.injected.empty());
      EXPECT_EQ(monitor_result(GetParam(), bad.history), detect::Result::kViolation)
          << bad.injected;
    }
  }
}

TEST_P(GeneratorTest, DeterministicPerSeedWithPendingOps) {
  GeneratorOptions options{GetParam(), 500, 6, false, 42, 1.0};
  const history::History a = generate_history(options).history;
  EXPECT_EQ(a, generate_history(options).history);
  options.seed = 43;
  EXPECT_FALSE(a == generate_history(options).history);
  std::size_t pending = 0;
  for (const history::Operation& op : a.operations()) pending += op.completed() ? 0 : 1;
  EXPECT_GT(pending, 0u);
  EXPECT_LE(pending, 6u);
}

INSTANTIATE_TEST_SUITE_P(Models, GeneratorTest,
                         ::testing::Values("set", "stack", "queue", "priorityqueue", "snapshot"));

TEST(Generator, ContainerValuesAreDistinctAndEmptyResultsOccur) {
  const history::History h = generate_history({"queue", 5000, 4, false, 7, 0}).history;
  std::set<history::Value> added;
  std::size_t empties = 0;
  for (const history::Operation& op : h.operations()) {
    if (op.call.method == "enq") {
      EXPECT_TRUE(added.insert(op.call.args[0]).second);
    }
    if (op.call.method != "enq" && op.result.is_nil()) ++empties;
  }
  EXPECT_GT(empties, 0u);
}

TEST(Generator, FastlinOutputReadsBack) {
  for (const std::string model : {"set", "stack", "queue", "priorityqueue"}) {
    const GeneratedHistory g = generate_history({model, 300, 5, true, 3, 0});
    std::ostringstream text;
    write_fastlin(text, g.history, model);
    const history::LoadedHistory back =
        history::load_history_text(text.str(), "gen", history::Format::kAuto);
    EXPECT_EQ(back.model, model);
    EXPECT_EQ(back.history.size(), g.history.size());
    EXPECT_EQ(monitor_result(model, back.history), detect::Result::kViolation);
  }
}

TEST(Generator, SnapshotActionsReadBack) {
  const GeneratedHistory g = generate_history({"snapshot", 300, 5, false, 3, 0});
  std::ostringstream text;
  write_snapshot_actions(text, g.history);
  const history::LoadedHistory back =
      history::load_history_text(text.str(), "gen", history::Format::kSnapshot);
  EXPECT_EQ(back.history.size(), g.history.size());
  EXPECT_EQ(monitor_result("snapshot", back.history), detect::Result::kLinearizable);
}

TEST(Generator, RejectsBadOptions) {
  EXPECT_THROW(generate_history({"kv", 10, 2, false, 1, 0}), GeneratorError);
  EXPECT_THROW(generate_history({"stack", 10, 0, false, 1, 0}), GeneratorError);
  EXPECT_THROW(generate_history({"stack", 10, 2, false, 1, 2.0}), GeneratorError);
  const GeneratedHistory pending = generate_history({"stack", 10, 2, false, 1, 1.0});
  std::ostringstream sink;
  EXPECT_THROW(write_fastlin(sink, pending.history, "stack"), GeneratorError);
}

}  // namespace
}  // namespace linfault::spec
