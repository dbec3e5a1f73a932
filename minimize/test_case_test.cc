#include "minimize/test_case.h"

#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "dpct/schedule.h"
#include "history/formats.h"

namespace linfault::minimize {
namespace {

using history::Call;
using history::HistoryBuilder;
using history::Outcome;
using history::Value;

TEST(TestCaseTest, SplitsSequentialHeadConcurrentMiddleAndSequentialTail) {
  HistoryBuilder b;
  b.call(0, Call{"push", {Value(1)}}, Value());  // Ps
  b.call(0, Call{"push", {Value(2)}}, Value());  // Ps
  b.invoke(0, Call{"pop", {}});
  b.invoke(1, Call{"pop", {}});
  b.respond(1, Outcome::kOk, Value(2));
  b.respond(0, Outcome::kOk, Value(2));
  b.call(1, Call{"pop", {}}, Value(1));  // Pr
  const history::History h = std::move(b).build();

  const TestCase tc = test_case_from_history("stack", h, 2);
  ASSERT_EQ(tc.ps.size(), 2u);
  EXPECT_EQ(tc.ps[1].call.to_string(), "push(2)");
  ASSERT_EQ(tc.pc.size(), 2u);
  EXPECT_EQ(tc.pc[0].size(), 1u);
  EXPECT_TRUE(tc.pc[0][0].culprit);
  EXPECT_EQ(tc.pc[1][0].result, Value(2));
  ASSERT_EQ(tc.pr.size(), 1u);
  EXPECT_EQ(tc.pr[0].result, Value(1));
  EXPECT_EQ(tc.violation, "no linearization explains p0 pop() -> 2");

  const nlohmann::json j = test_case_to_json(tc);
  EXPECT_TRUE(j["target"].is_null());
  EXPECT_EQ(j["model"], "stack");
  EXPECT_EQ(j["pc"].size(), 2u);
  EXPECT_EQ(j["pc"][0][0]["culprit"], true);
  EXPECT_EQ(j["pr"][0]["result"], 1);
  EXPECT_EQ(j["history"]["operations"].size(), 5u);

  const std::string text = test_case_to_text(tc);
  EXPECT_NE(text.find("Ps: push(1); push(2)"), std::string::npos) << text;
  EXPECT_NE(text.find("cannot be explained"), std::string::npos) << text;
}

TEST(TestCaseTest, FullySequentialHistoryKeepsTheLastCallAsReveal) {
  HistoryBuilder b;
  b.call(0, Call{"write", {Value(1)}}, Value());
  b.call(0, Call{"write", {Value(2)}}, Value());
  b.call(1, Call{"read", {}}, Value(1));
  const TestCase tc = test_case_from_history("register", std::move(b).build(), 2);
  EXPECT_EQ(tc.ps.size(), 2u);
  EXPECT_TRUE(tc.pc.empty());
  ASSERT_EQ(tc.pr.size(), 1u);
  EXPECT_TRUE(tc.pr[0].culprit);
}

TEST(TestCaseTest, ConcurrentFromTheStartHasNoSetup) {
  HistoryBuilder b;
  b.invoke(0, Call{"write", {Value(1)}});
  b.invoke(1, Call{"read", {}});
  b.respond(0, Outcome::kOk, Value());
  b.respond(1, Outcome::kOk, Value(3));
  const TestCase tc = test_case_from_history("register", std::move(b).build(), 1);
  EXPECT_TRUE(tc.ps.empty());
  EXPECT_TRUE(tc.pr.empty());
  EXPECT_EQ(tc.pc.size(), 2u);
}

// Ps: push(1); Pc: pop() -> 1 || pop() -> 1, as the executor would have numbered it.
TestCase target_level_test_case() {
  HistoryBuilder b;
  b.call(0, Call{"push", {Value(1)}}, Value());
  b.invoke(0, Call{"pop", {}});
  b.invoke(1, Call{"pop", {}});
  b.respond(0, Outcome::kOk, Value(1));
  b.respond(1, Outcome::kOk, Value(1));
  TestCase tc = test_case_from_history("stack", std::move(b).build(), 2);
  tc.target = "treiber_stack_buggy";
  dpct::Schedule schedule;
  schedule.scheduler = "exhaustive";
  schedule.set_parameter("run", "3");
  schedule.decisions = {0, 0, 1, 1, 1, 0};
  tc.schedule = schedule.to_text();
  tc.guarantee = "minimal: every smaller Pc was enumerated";
  tc.max_steps = 5000;
  tc.ps[0].call.args.push_back(
      Value(history::Value::List{Value("a \"quoted\" )\" text"), Value(true)}));
  return tc;
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("linfault_test_case_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

TEST(TestCaseJsonTest, TargetLevelRoundTripsThroughJsonAndFiles) {
  const TestCase tc = target_level_test_case();
  const nlohmann::json j = test_case_to_json(tc);
  EXPECT_EQ(j["linfault"], "test-case");
  EXPECT_EQ(j["target"], "treiber_stack_buggy");
  EXPECT_EQ(j["max_steps"], 5000);
  EXPECT_TRUE(is_test_case_document(j));
  EXPECT_EQ(test_case_from_json(j, "mem"), tc);

  // Through text as well: the dump must be parseable and lose nothing.
  EXPECT_EQ(test_case_from_json(nlohmann::json::parse(j.dump()), "mem"), tc);

  const std::string path = temp_path("round_trip.json");
  write_test_case(tc, path);
  const TestCase back = read_test_case(path);
  std::filesystem::remove(path);
  EXPECT_EQ(back, tc);
  EXPECT_EQ(back.pc[1][0].process, 1);
  EXPECT_TRUE(back.pc[1][0].culprit);  // op 2, the second pop

  // The history inside names the test case's model, or the document contradicts itself.
  nlohmann::json two_models = j;
  two_models["history"]["model"] = "queue";
  EXPECT_THROW(test_case_from_json(two_models, "mem"), history::InputError);
  two_models["history"]["model"] = "stack";
  EXPECT_EQ(test_case_from_json(two_models, "mem"), tc);
}

TEST(TestCaseJsonTest, HistoryLevelRoundTripsWithNullTargetAndSchedule) {
  HistoryBuilder b;
  b.invoke(0, Call{"write", {Value(1)}});
  b.invoke(1, Call{"read", {}});
  b.respond(0, Outcome::kOk, Value());
  b.respond(1, Outcome::kOk, Value(3));
  b.invoke(2, Call{"write", {Value(4)}});  // pending
  const TestCase tc = test_case_from_history("register", std::move(b).build(), 1);
  const nlohmann::json j = test_case_to_json(tc);
  EXPECT_TRUE(j["target"].is_null());
  EXPECT_TRUE(j["schedule"].is_null());
  const TestCase back = test_case_from_json(j, "mem");
  EXPECT_EQ(back, tc);
  EXPECT_FALSE(back.target.has_value());
  EXPECT_EQ(back.max_steps, TestCase::kDefaultMaxSteps);
}

TEST(TestCaseJsonTest, HandWrittenMinimalDocumentGetsDefaults) {
  const nlohmann::json j = nlohmann::json::parse(R"({
    "linfault": "test-case", "version": 1, "target": "treiber_stack_buggy", "model": "stack",
    "ps": [{"method": "push", "args": [7]}],
    "pc": [[{"method": "pop"}], [{"method": "pop"}, {"method": "push", "args": [8]}]],
    "pr": [],
    "schedule": null, "violation": "", "guarantee": ""})");
  const TestCase tc = test_case_from_json(j, "hand.json");
  EXPECT_EQ(tc.pc[1][1].process, 1);  // Pc thread i is process i
  EXPECT_EQ(tc.pc[1][1].outcome, Outcome::kOk);
  EXPECT_TRUE(tc.history.empty());
  EXPECT_EQ(tc.max_steps, TestCase::kDefaultMaxSteps);

  const dpct::Workload w = workload_of(tc);
  ASSERT_EQ(w.setup.size(), 1u);
  EXPECT_EQ(w.setup[0].to_string(), "push(7)");
  ASSERT_EQ(w.threads.size(), 2u);
  EXPECT_EQ(w.threads[0].size(), 1u);
  EXPECT_EQ(w.threads[1][1].to_string(), "push(8)");
  EXPECT_TRUE(w.reveal.empty());
}

// Each bad document fails with an InputError naming the origin and the field.
TEST(TestCaseJsonTest, InvalidDocumentsAreRejectedWithTheField) {
  const nlohmann::json good = test_case_to_json(target_level_test_case());
  struct Case {
    std::string name;
    std::function<void(nlohmann::json&)> damage;
    std::string expected;  // a fragment of the message
  };
  const std::vector<Case> cases = {
      {"not an object", [](nlohmann::json& j) { j = nlohmann::json::array(); }, "not a test case"},
      {"saved run", [](nlohmann::json& j) { j["linfault"] = "saved-run"; }, "not a test case"},
      // Found by fuzz/test_case_fuzzer.cc: a non-string tag threw nlohmann's type_error.
      {"null kind",
       [](nlohmann::json& j) {
         j = {{"linfault", nullptr}};
       },
       "not a test case"},
      {"version", [](nlohmann::json& j) { j["version"] = 2; }, "version"},
      {"no model", [](nlohmann::json& j) { j.erase("model"); }, "missing field \"model\""},
      {"bad model", [](nlohmann::json& j) { j["model"] = "heap"; }, "unknown model 'heap'"},
      {"target type", [](nlohmann::json& j) { j["target"] = 3; }, "target: expected a string"},
      {"no pc", [](nlohmann::json& j) { j.erase("pc"); }, "missing field \"pc\""},
      {"pc not threads", [](nlohmann::json& j) { j["pc"] = {1}; }, "pc[0]: expected an array"},
      {"step method", [](nlohmann::json& j) { j["pc"][1][0].erase("method"); },
       "pc[1][0]: missing field \"method\""},
      {"step args", [](nlohmann::json& j) { j["ps"][0]["args"] = "x"; },
       "ps[0].args: expected an array"},
      {"step value",
       [](nlohmann::json& j) {
         j["pr"] = {{{"method", "pop"}, {"result", 1.5}}};
       },
       "pr[0].result"},
      {"step outcome", [](nlohmann::json& j) { j["pc"][0][0]["outcome"] = "maybe"; },
       "unknown outcome \"maybe\""},
      {"mixed processes", [](nlohmann::json& j) { j["pc"][0].push_back(j["pc"][1][0]); },
       "pc[0][1].process"},
      {"thread on another process", [](nlohmann::json& j) { j["pc"][1][0]["process"] = 7; },
       "pc[1][0].process: 7, but thread 1 of a target-level test case runs on process 1"},
      {"setup on another process", [](nlohmann::json& j) { j["ps"][0]["process"] = 2; },
       "ps[0].process: 2, but Ps"},
      {"schedule text", [](nlohmann::json& j) { j["schedule"] = "pct | x | y | z"; }, "schedule"},
      {"schedule without target", [](nlohmann::json& j) { j["target"] = nullptr; },
       "without a target"},
      {"max_steps", [](nlohmann::json& j) { j["max_steps"] = -3; }, "max_steps"},
      {"violation", [](nlohmann::json& j) { j["violation"] = false; }, "violation"},
      // Regression of issue #19: unknown fields were ignored.
      {"unknown field", [](nlohmann::json& j) { j["schedul"] = nullptr; },
       "document: unknown field \"schedul\""},
      {"unknown step field", [](nlohmann::json& j) { j["pc"][0][0]["reslt"] = 1; },
       "pc[0][0]: unknown field \"reslt\""},
      {"unknown history field", [](nlohmann::json& j) { j["history"]["extra"] = 1; },
       "unknown field \"extra\""},
  };
  for (const Case& c : cases) {
    nlohmann::json j = good;
    c.damage(j);
    try {
      test_case_from_json(j, "bad.json");
      ADD_FAILURE() << c.name << ": accepted";
    } catch (const history::InputError& e) {
      EXPECT_EQ(e.file(), "bad.json") << c.name;
      EXPECT_NE(std::string(e.what()).find(c.expected), std::string::npos)
          << c.name << ": " << e.what();
    }
  }
}

TEST(TestCaseJsonTest, ReadingReportsMissingFilesAndSyntaxErrorsWithLines) {
  EXPECT_THROW(read_test_case(temp_path("does_not_exist.json")), history::OpenError);
  const std::string path = temp_path("syntax.json");
  std::ofstream(path) << "{\"linfault\": \"test-case\",\n\"version\": 1,\n\"model\": }\n";
  try {
    read_test_case(path);
    ADD_FAILURE() << "accepted broken JSON";
  } catch (const history::InputError& e) {
    EXPECT_EQ(e.line(), 3u) << e.what();
  }
  std::filesystem::remove(path);
}

TEST(TestCaseJsonTest, TextOfAThreadWithNoStepsDoesNotCrash) {
  TestCase tc = target_level_test_case();
  tc.pc.push_back({});
  EXPECT_NE(test_case_to_text(tc).find("Pc thread 2: (none)"), std::string::npos)
      << test_case_to_text(tc);
}

}  // namespace
}  // namespace linfault::minimize
