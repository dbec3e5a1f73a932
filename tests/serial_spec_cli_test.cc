// `--spec serial` end to end (targets/serial_spec.h): detect, run, replay, verify and minimize
// against a target's own serial runs instead of its model; the stuck-history rule on
// lock_leak_counter, which the classic check passes; and the usage and data errors of the option
// and of the model "serial(target=...)".

#include <nlohmann/json.hpp>

#include "tests/cli_fixture.h"

namespace linfault::tests {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using SerialSpecCliTest = CliFixture;

std::size_t concurrent_operations(const json& test_case) {
  std::size_t count = 0;
  for (const json& thread : test_case.at("pc")) count += thread.size();
  return count;
}

TEST_F(SerialSpecCliTest, DetectFindsTheBuggyStackAndPassesTheCorrectOne) {
  const RunResult buggy =
      run("detect --spec serial --target treiber_stack_buggy --threads 2 --ops 5 --histories 200 "
          "--seed 1 --stop-at-first");
  EXPECT_EQ(buggy.exit_code, 1) << buggy.out << buggy.err;
  EXPECT_NE(buggy.out.find("non-linearizable:   1/"), std::string::npos) << buggy.out;

  const RunResult control = run(
      "detect --spec serial --target treiber_stack --threads 2 --ops 5 --histories 200 --seed 1");
  EXPECT_EQ(control.exit_code, 0) << control.out << control.err;
  EXPECT_NE(control.out.find("non-linearizable:   0/200"), std::string::npos) << control.out;
}

TEST_F(SerialSpecCliTest, RunMinimizesAndTheTestCaseReplaysAndVerifiesWithTheSerialSpec) {
  const fs::path out = dir_ / "repro";
  const RunResult r = run("run --spec serial --target treiber_stack_buggy --seed 1 --json --out '" +
                          out.string() + "'");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  const json tc = json::parse(r.out);
  EXPECT_EQ(tc.at("model"), "serial(target=\"treiber_stack_buggy\")");
  EXPECT_EQ(tc.at("target"), "treiber_stack_buggy");
  EXPECT_GE(concurrent_operations(tc), 2u) << tc.dump();
  EXPECT_LE(concurrent_operations(tc), 3u) << tc.dump();

  const fs::path file = out / "testcase.json";
  const json saved = json::parse(read_file(file));
  EXPECT_EQ(saved.at("model"), "serial(target=\"treiber_stack_buggy\")");

  const RunResult replay = run("replay '" + file.string() + "'");
  EXPECT_EQ(replay.exit_code, 1) << replay.out << replay.err;
  const RunResult verify = run("verify '" + file.string() + "'");
  EXPECT_EQ(verify.exit_code, 1) << verify.out << verify.err;
}

TEST_F(SerialSpecCliTest, MinimizeTakesARunSavedByDetectWithTheSerialSpec) {
  const fs::path runs = dir_ / "runs";
  const RunResult detect =
      run("detect --spec serial --target treiber_stack_buggy --scheduler pct --threads 2 --ops 5 "
          "--histories 40 --seed 1 --json --out '" +
          runs.string() + "'");
  ASSERT_EQ(detect.exit_code, 1) << detect.out << detect.err;
  const std::string saved = json::parse(detect.out).at("saved").at(0);
  EXPECT_EQ(json::parse(read_file(saved)).at("model"), "serial(target=\"treiber_stack_buggy\")");

  const RunResult r = run("minimize '" + saved + "' --json");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  const json tc = json::parse(r.out);
  EXPECT_EQ(tc.at("model"), "serial(target=\"treiber_stack_buggy\")");
  EXPECT_EQ(tc.at("target"), "treiber_stack_buggy");
  EXPECT_GE(concurrent_operations(tc), 2u) << tc.dump();
  EXPECT_LE(concurrent_operations(tc), 3u) << tc.dump();
}

TEST_F(SerialSpecCliTest, LockLeakIsAStuckViolationThatTheClassicCheckPasses) {
  const fs::path out = dir_ / "repro";
  const RunResult r = run("run --target lock_leak_counter --seed 1 --out '" + out.string() + "'");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("stuck:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("blocks forever"), std::string::npos) << r.out;

  // The failing run's history (the run saved beside the test case), checked the classic way
  // against the counter model: every completed operation is explained, the blocked one is merely
  // pending.
  EXPECT_EQ(json::parse(read_file(out / "testcase.json")).at("model"), "counter");
  fs::path saved_run;
  for (const fs::directory_entry& entry : fs::directory_iterator(out)) {
    if (entry.path().filename().string().starts_with("lock_leak_counter-"))
      saved_run = entry.path();
  }
  ASSERT_FALSE(saved_run.empty()) << "no saved run in " << out;
  const std::string history =
      write("history.json", json::parse(read_file(saved_run)).at("history").dump());
  const RunResult check = run("check --model counter '" + history + "'");
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("linearizable"), std::string::npos) << check.out;
  EXPECT_EQ(check.out.find("not linearizable"), std::string::npos) << check.out;

  // The serial spec catches it too: on one thread the reentrant lock never blocks serially.
  const RunResult serial = run("run --spec serial --target lock_leak_counter --seed 1");
  EXPECT_EQ(serial.exit_code, 1) << serial.out << serial.err;
  EXPECT_NE(serial.out.find("model: serial(target=\"lock_leak_counter\")"), std::string::npos)
      << serial.out;
  EXPECT_NE(serial.out.find("violation: stuck:"), std::string::npos) << serial.out;
}

TEST_F(SerialSpecCliTest, BoundedVerifyPassesTheControlAndFailsTheBuggyStack) {
  const RunResult control = run("verify --target treiber_stack --spec serial --threads 2 --ops 2");
  EXPECT_EQ(control.exit_code, 0) << control.out << control.err;
  EXPECT_NE(control.out.find("linearizable in all 45 workloads, "), std::string::npos)
      << control.out;

  const RunResult buggy =
      run("verify --target treiber_stack_buggy --spec serial --threads 2 --ops 2");
  EXPECT_EQ(buggy.exit_code, 1) << buggy.out << buggy.err;
  EXPECT_NE(buggy.out.find("failing:  workload "), std::string::npos) << buggy.out;
}

TEST_F(SerialSpecCliTest, UsageAndDataErrors) {
  const RunResult bogus = run("detect --target treiber_stack --spec bogus --histories 1");
  EXPECT_EQ(bogus.exit_code, 64) << bogus.out << bogus.err;
  EXPECT_NE(bogus.err.find("bogus"), std::string::npos) << bogus.err;

  // A history file names no target whose serial runs could be the specification.
  const std::string history =
      write("h.json",
            R"j({"linfault": "history", "version": 1, "model": "counter", "operations": [
          {"process": 0, "method": "inc", "outcome": "ok", "call": 0, "return": 1}]})j");
  const RunResult no_target = run("minimize '" + history + "' --spec serial");
  EXPECT_EQ(no_target.exit_code, 64) << no_target.out << no_target.err;
  expect_one_line_error(no_target, "", "--target");

  // An unknown target in a serial spec is a usage error naming it (exit 64), not a crash.
  const RunResult nope = run("check --model 'serial(target=nope)' '" + history + "'");
  EXPECT_EQ(nope.exit_code, 64) << nope.out << nope.err;
  expect_one_line_error(nope, "", "nope");

  // A call the target cannot take is the history's fault (a data error naming its line), as a
  // method a written model lacks is; it used to be run, and reported as an internal error.
  const RunResult lacks = run("check --model 'serial(target=treiber_stack)' '" + history + "'");
  EXPECT_EQ(lacks.exit_code, 65) << lacks.out << lacks.err;
  expect_one_line_error(lacks, history + ":",
                        "the history calls inc(), which is not a method of target treiber_stack");
}

}  // namespace
}  // namespace linfault::tests
