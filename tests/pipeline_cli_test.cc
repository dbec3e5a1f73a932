// `linfault localize`, `linfault minimize` and `linfault run` end to end: on the bundled example,
// on a Jepsen etcd history, on a run saved by `linfault detect` (minimized on its target), the
// whole pipeline on a buggy target and a control, and on bad input.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/cli_fixture.h"

namespace linfault::tests {
namespace {

using PipelineCliTest = CliFixture;

TEST_F(PipelineCliTest, LocalizeReportsPrefixCulpritAndOpOrder) {
  const RunResult r = run("localize examples/stack-pop-pop.edn --model stack --json");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["verdict"], "violation");
  EXPECT_EQ(j["prefix_events"], 8);
  EXPECT_EQ(j["culprit"]["method"], "pop");
  EXPECT_EQ(j["culprit"]["result"], 2);
  ASSERT_TRUE(j["op_order"].is_array());
  ASSERT_GE(j["op_order"].size(), 2u);
  // Largest first, down to the empty witness.
  EXPECT_GT(j["op_order"][0]["operations"].get<int>(), j["op_order"][1]["operations"].get<int>());
  EXPECT_EQ(j["op_order"].back()["operations"], 0);

  const RunResult text = run("localize examples/stack-pop-pop.edn --model stack");
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_NE(text.out.find("shortest non-linearizable prefix: the first 8 events"),
            std::string::npos)
      << text.out;
}

TEST_F(PipelineCliTest, MinimizeShrinksTheExampleToPopPop) {
  const RunResult r = run("minimize examples/stack-pop-pop.edn --model stack --json");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  const nlohmann::json tc = nlohmann::json::parse(r.out);
  EXPECT_EQ(tc["linfault"], "test-case");
  EXPECT_TRUE(tc["target"].is_null());
  EXPECT_EQ(tc["model"], "stack");
  ASSERT_EQ(tc["ps"].size(), 1u);
  EXPECT_EQ(tc["ps"][0]["method"], "push");
  ASSERT_EQ(tc["pc"].size(), 2u);  // pop || pop, both returning 2
  EXPECT_EQ(tc["pc"][0][0]["method"], "pop");
  EXPECT_EQ(tc["pc"][1][0]["method"], "pop");
  EXPECT_EQ(tc["pc"][0][0]["result"], tc["pc"][1][0]["result"]);
  EXPECT_TRUE(tc["pr"].empty());
  EXPECT_TRUE(tc["minimization"]["one_minimal"].get<bool>());
  EXPECT_NE(tc["guarantee"].get<std::string>().find("history-level"), std::string::npos);
  EXPECT_EQ(tc["history"]["operations"].size(), 3u);
  // What --json prints reads back as a test case.
  const std::string saved = write("pop-pop-test-case.json", r.out);
  const RunResult check = run("check '" + saved + "'");
  EXPECT_EQ(check.exit_code, 1) << check.out << check.err;
}

TEST_F(PipelineCliTest, MinimizeEtcdHistoryToAFewOperations) {
  const RunResult r = run("minimize '" + shared("porcupine/jepsen/etcd_000.log") + "' --json");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  const nlohmann::json tc = nlohmann::json::parse(r.out);
  EXPECT_EQ(tc["model"], "cas-register");
  EXPECT_LE(tc["history"]["operations"].size(), 6u);
  EXPECT_GE(tc["history"]["operations"].size(), 2u);
  EXPECT_EQ(tc["minimization"]["original_operations"], 85);
}

TEST_F(PipelineCliTest, MinimizeAcceptsARunSavedByDetect) {
  const std::string out = (dir_ / "runs").string();
  const RunResult detect =
      run("detect --target treiber_stack_buggy --scheduler pct --threads 2 "
          "--ops 5 --histories 40 --seed 1 --json --out '" +
          out + "'");
  ASSERT_EQ(detect.exit_code, 1) << detect.out << detect.err;
  const std::string saved = nlohmann::json::parse(detect.out)["saved"][0];
  const RunResult r = run("minimize '" + saved + "' --json");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  const nlohmann::json tc = nlohmann::json::parse(r.out);
  EXPECT_EQ(tc["model"], "stack");
  EXPECT_EQ(tc["target"], "treiber_stack_buggy");
  // Re-executed on the target: a 1 || 1 concurrent part, a schedule and a proven guarantee.
  ASSERT_EQ(tc["pc"].size(), 2u);
  EXPECT_EQ(tc["pc"][0].size(), 1u);
  EXPECT_EQ(tc["pc"][1].size(), 1u);
  EXPECT_TRUE(tc["schedule"].is_string());
  EXPECT_TRUE(tc["minimization"]["minimal_exhaustive"].get<bool>());
  EXPECT_NE(tc["guarantee"].get<std::string>().find("exhaustive"), std::string::npos);
  EXPECT_LE(tc["history"]["operations"].size(), 5u);
}

TEST_F(PipelineCliTest, RunDetectsLocalizesAndMinimizes) {
  const std::string out = (dir_ / "repro").string();
  const RunResult r =
      run("run --target lf_list_buggy --scheduler pct --seed 1 --json --out '" + out + "'");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;  // no progress when stderr is not a terminal
  const nlohmann::json tc = nlohmann::json::parse(r.out);
  EXPECT_EQ(tc["target"], "lf_list_buggy");
  EXPECT_EQ(tc["model"], "set");
  EXPECT_GE(tc["detection"]["histories"].get<int>(), 1);
  EXPECT_GE(tc["detection"]["violations"].get<int>(), 1);
  // Ps = add(x); Pc = remove(x) || remove(x), both returning true.
  ASSERT_EQ(tc["ps"].size(), 1u);
  EXPECT_EQ(tc["ps"][0]["method"], "add");
  ASSERT_EQ(tc["pc"].size(), 2u);
  for (const auto& thread : tc["pc"]) {
    ASSERT_EQ(thread.size(), 1u);
    EXPECT_EQ(thread[0]["method"], "remove");
    EXPECT_EQ(thread[0]["args"], tc["ps"][0]["args"]);
    EXPECT_EQ(thread[0]["result"], true);
  }
  ASSERT_TRUE(tc["known_scenario"].is_object()) << tc["known_scenario"];
  EXPECT_EQ(tc["known_scenario"]["type"], 1);
  EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(out) / "testcase.json"));
  EXPECT_TRUE(std::filesystem::exists(tc["detection"]["saved_run"].get<std::string>()));
  std::ifstream gtest_file(std::filesystem::path(out) / "lf_list_buggy_repro_test.cc");
  const std::string gtest((std::istreambuf_iterator<char>(gtest_file)),
                          std::istreambuf_iterator<char>());
  EXPECT_NE(gtest.find("TEST(LinfaultRepro"), std::string::npos) << gtest.substr(0, 400);
  EXPECT_NE(gtest.find("\"lf_list_buggy\""), std::string::npos);
  // A replay of the saved test case reproduces the violation.
  EXPECT_EQ(run("replay '" + out + "/testcase.json' --quiet").exit_code, 1);

  const RunResult text = run("run --target treiber_stack_buggy --seed 1");
  ASSERT_EQ(text.exit_code, 1) << text.out << text.err;
  EXPECT_NE(text.out.find("Ps: push("), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("guarantee: buggy"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("<== not linearizable"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("known scenario: Pc runs the methods of treiber_stack_buggy's type"),
            std::string::npos)
      << text.out;

  const RunResult control = run("run --target treiber_stack --histories 20 --json");
  ASSERT_EQ(control.exit_code, 0) << control.out << control.err;
  EXPECT_TRUE(nlohmann::json::parse(control.out)["test_case"].is_null());
}

// pair_snapshot's ABA needs one readpair against four writes (1 || 4): random workloads reach
// it through the split shapes of the default --shapes mixed (a thread of readpairs against a
// thread of writes), with no workload file, within `run`'s default budget of histories.
TEST_F(PipelineCliTest, RunFindsThePairSnapshotAbaFromRandomWorkloads) {
  const RunResult r = run("run --target pair_snapshot --seed 1 --json");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  const nlohmann::json tc = nlohmann::json::parse(r.out);
  ASSERT_EQ(tc["pc"].size(), 2u) << tc["pc"];
  std::vector<std::size_t> sizes = {tc["pc"][0].size(), tc["pc"][1].size()};
  std::sort(sizes.begin(), sizes.end());
  EXPECT_EQ(sizes, (std::vector<std::size_t>{1, 4})) << tc["pc"];
  for (const auto& thread : tc["pc"]) {
    for (const auto& call : thread) {
      EXPECT_EQ(call["method"], thread.size() == 1 ? "readpair" : "write") << tc["pc"];
    }
  }
}

TEST_F(PipelineCliTest, LinearizableInputAndBadInput) {
  const std::string ok = write("ok.edn",
                               "{:process 0, :type :invoke, :f :push, :value 1}\n"
                               "{:process 0, :type :ok, :f :push, :value 1}\n");
  EXPECT_EQ(run("minimize '" + ok + "' --model stack").exit_code, 0);
  EXPECT_EQ(run("minimize '" + ok + "' --model stack --gtest x.cc").exit_code, 64);
  EXPECT_EQ(run("localize '" + ok + "' --model stack").exit_code, 0);
  EXPECT_EQ(run("minimize '" + ok + "' --model stack --target treiber_stack_buggy").exit_code, 0);
  const RunResult unknown = run("minimize '" + ok + "' --model stack --target no_such_target");
  EXPECT_EQ(unknown.exit_code, 64);
  expect_one_line_error(unknown, "", "no_such_target");
  const RunResult mismatch =
      run("minimize '" + ok + "' --model queue --target treiber_stack_buggy");
  EXPECT_EQ(mismatch.exit_code, 64);
  expect_one_line_error(mismatch, "", "is checked against model stack, not queue");
  const RunResult missing = run("localize '" + (dir_ / "absent").string() + "' --model stack");
  EXPECT_EQ(missing.exit_code, 66);
  const std::string bad = write("bad.edn", "{:process 0, :type :ok, :f :push, :value 1}\n");
  const RunResult malformed = run("minimize '" + bad + "' --model stack");
  EXPECT_EQ(malformed.exit_code, 65);
  expect_one_line_error(malformed, bad + ":1: ", "unmatched :ok for process 0");
}

}  // namespace
}  // namespace linfault::tests
