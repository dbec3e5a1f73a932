// `linfault verify --target T` end to end: bounded verification of a control and of a buggy
// target, its JSON, the files of --out, and the usage errors of mixing it with inputs.

#include <nlohmann/json.hpp>

#include "tests/cli_fixture.h"

namespace linfault::tests {
namespace {

using nlohmann::json;

class VerifyTargetTest : public CliFixture {};

TEST_F(VerifyTargetTest, ControlIsLinearizableInEveryWorkloadOfTheBound) {
  const RunResult r = run("verify --target treiber_stack --threads 2 --ops 2");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  // push(1), push(2), pop(): 9 sequences per thread, C(10, 2) workloads.
  EXPECT_NE(r.out.find("linearizable in all 45 workloads, "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(2 threads x 2 ops, 2 values per argument, preemptions unbounded)"),
            std::string::npos)
      << r.out;
}

TEST_F(VerifyTargetTest, BuggyStackGivesAMinimizedCounterexample) {
  const RunResult r = run("verify --target treiber_stack_buggy --out " + (dir_ / "out").string());
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("failing:  workload "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(") found after "), std::string::npos) << r.out;
  const json tc = json::parse(read_file(dir_ / "out" / "testcase.json"));
  std::size_t concurrent = 0;
  for (const json& thread : tc.at("pc")) concurrent += thread.size();
  EXPECT_GE(concurrent, 2u) << tc.dump();
  EXPECT_LE(concurrent, 3u) << tc.dump();
  EXPECT_TRUE(std::filesystem::exists(dir_ / "out" / "treiber_stack_buggy_repro_test.cc"));
  // The saved test case fails when verified again.
  EXPECT_EQ(run("verify " + (dir_ / "out" / "testcase.json").string()).exit_code, 1);
}

TEST_F(VerifyTargetTest, BuggyListFailsWithAtMostThreeConcurrentOperations) {
  const RunResult r = run("verify --target simple_list_buggy --json");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  const json report = json::parse(r.out);
  EXPECT_EQ(report.at("verdict"), "not linearizable");
  std::size_t concurrent = 0;
  for (const json& thread : report.at("test_case").at("pc")) concurrent += thread.size();
  EXPECT_GE(concurrent, 2u);
  EXPECT_LE(concurrent, 3u);
  EXPECT_EQ(report.at("test_case").at("target"), "simple_list_buggy");
}

TEST_F(VerifyTargetTest, JsonHasTheCountsTheVerdictAndTheBound) {
  const RunResult ok = run("verify --target lf_list --ops 1 --values 2 --preemptions 1 --json");
  ASSERT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  const json report = json::parse(ok.out);
  EXPECT_EQ(report.at("verdict"), "linearizable");
  // add/remove/contains of 0 and 1: 6 calls, C(7, 2) workloads of one call per thread.
  EXPECT_EQ(report.at("calls").size(), 6u);
  EXPECT_EQ(report.at("workloads"), 21);
  EXPECT_EQ(report.at("total_workloads"), 21);
  EXPECT_GE(report.at("executions").get<int>(), 21);
  EXPECT_EQ(report.at("preemptions"), 1);
  EXPECT_EQ(report.at("threads"), 2);
  EXPECT_EQ(report.at("ops"), 1);
  EXPECT_TRUE(report.at("test_case").is_null());

  const RunResult bad = run("verify --target treiber_stack_buggy --json");
  ASSERT_EQ(bad.exit_code, 1) << bad.out << bad.err;
  const json failing = json::parse(bad.out);
  EXPECT_EQ(failing.at("verdict"), "not linearizable");
  EXPECT_EQ(failing.at("test_case").at("linfault"), "test-case");
  EXPECT_GE(failing.at("workloads").get<int>(), 1);
}

TEST_F(VerifyTargetTest, SetupRunsBeforeEveryWorkload) {
  const RunResult r =
      run("verify --target lf_list --ops 1 --setup 'add(0); add(1)' --reveal 'contains(0)' --json");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json report = json::parse(r.out);
  EXPECT_EQ(report.at("setup"), json::parse(R"j(["add(0)", "add(1)"])j"));
  EXPECT_EQ(report.at("reveal"), json::parse(R"j(["contains(0)"])j"));
}

TEST_F(VerifyTargetTest, TimeLimitGivesInconclusive) {
  const RunResult r = run("verify --target lf_list --ops 3 --timeout 0.2 --json");
  ASSERT_EQ(r.exit_code, 2) << r.out << r.err;
  const json report = json::parse(r.out.substr(0, r.out.find('\n')));
  EXPECT_TRUE(report.at("verdict") == "inconclusive" || report.at("verdict") == "unknown") << r.out;
}

TEST_F(VerifyTargetTest, BadArgumentsAreOneLineUsageErrors) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"verify --target no_such_target", "no_such_target"},
      {"verify --target treiber_stack " + shared("porcupine/kv/c01-ok.txt"), "not both"},
      {"verify --threads 3 " + shared("porcupine/kv/c01-ok.txt"), "--threads needs --target"},
      {"verify --target treiber_stack --shard 0/2", "--shard applies to inputs"},
      {"verify --target treiber_stack --setup 'push(x)'", "--setup: cannot read 'push(x)'"},
      {"verify --target treiber_stack --setup 'enq(1)'", "enq(1) is not an operation"},
      {"verify --target treiber_stack --values 0", "--values"},
      {"verify", "--target"},
  };
  for (const auto& [args, fragment] : cases) {
    const RunResult r = run(args);
    EXPECT_EQ(r.exit_code, 64) << args << "\n" << r.err;
    expect_one_line_error(r, "", fragment);
  }
}

}  // namespace
}  // namespace linfault::tests
