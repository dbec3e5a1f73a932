// `linfault check` with model parameters (--init, "cas-register(init=0)") and the mutex and
// multi-register models, on the hand-written histories of tests/data/.

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/cli_fixture.h"

namespace linfault::tests {
namespace {

using ModelsCliTest = CliFixture;

TEST_F(ModelsCliTest, CasRegisterStartingAtZeroNeedsInitZero) {
  const std::string file = "tests/data/cas-register-init0.edn";
  const RunResult without = run("check " + file);
  EXPECT_EQ(without.exit_code, 1) << without.out << without.err;
  EXPECT_NE(without.out.find("model cas-register,"), std::string::npos) << without.out;
  EXPECT_NE(without.out.find("cas([0 1]) -> true"), std::string::npos) << without.out;
  const RunResult with = run("check " + file + " --init 0");
  EXPECT_EQ(with.exit_code, 0) << with.out << with.err;
  EXPECT_NE(with.out.find("model cas-register(init=0)"), std::string::npos) << with.out;
  // The same as a model spec; the verdict names the model with its parameter.
  const RunResult spec = run("check " + file + " --json --model 'cas-register(init=0)'");
  EXPECT_EQ(spec.exit_code, 0) << spec.err;
  EXPECT_EQ(nlohmann::json::parse(spec.out)["model"], "cas-register(init=0)");
  // The string "0" is not the integer 0.
  EXPECT_EQ(run("check " + file + " --init '\"0\"'").exit_code, 1);
  // --init replaces an init the spec gives.
  EXPECT_EQ(run("check " + file + " --model 'cas-register(init=5)' --init 0").exit_code, 0);
}

TEST_F(ModelsCliTest, InitWorksForLocalizeAndMinimizeToo) {
  const std::string file = "tests/data/cas-register-init0.edn";
  EXPECT_EQ(run("localize " + file).exit_code, 1);
  EXPECT_EQ(run("localize " + file + " --init 0").exit_code, 0);
  const RunResult minimized = run("minimize " + file + " --init 0");
  EXPECT_NE(minimized.out.find("linearizable"), std::string::npos) << minimized.out;
  EXPECT_EQ(minimized.out.find("not linearizable"), std::string::npos) << minimized.out;
}

TEST_F(ModelsCliTest, BadParametersAreUsageErrorsOnTheCommandLine) {
  const std::string file = "tests/data/cas-register-init0.edn";
  const RunResult unknown = run("check " + file + " --model 'cas-register(size=2)'");
  EXPECT_EQ(unknown.exit_code, 64);
  expect_one_line_error(unknown, "model 'cas-register'", "takes no parameter 'size'");
  const RunResult none = run("check tests/data/mutex-handoff.edn --init 0");
  EXPECT_EQ(none.exit_code, 64);
  expect_one_line_error(none, "--init: ", "model 'mutex' takes no parameter 'init'");
  const RunResult bad_value = run("check " + file + " --init '[1'");
  EXPECT_EQ(bad_value.exit_code, 64);
  expect_one_line_error(bad_value, "--init: ", "bad parameter value '[1'");
  const RunResult syntax = run("check " + file + " --model 'cas-register(init=0'");
  EXPECT_EQ(syntax.exit_code, 64);
  expect_one_line_error(syntax, "bad model spec", "expected ',' or ')'");
}

TEST_F(ModelsCliTest, BadParametersInAFileAreDataErrorsWithFileAndLine) {
  const std::string path = (dir_ / "bad-model.json").string();
  std::ofstream(path) << "{\"linfault\": \"history\", \"version\": 1,\n"
                         " \"model\": \"register(init=0, depth=3)\",\n"
                         " \"operations\": []}\n";
  const RunResult result = run("check '" + path + "'");
  EXPECT_EQ(result.exit_code, 65);
  expect_one_line_error(result, path + ":2: ", "model 'register' takes no parameter 'depth'");
  // A parameter the file gives is honoured.
  std::ofstream(path) << "{\"linfault\": \"history\", \"version\": 1,\n"
                         " \"model\": \"register(init=7)\", \"operations\": [\n"
                         "{\"process\": 0, \"method\": \"read\", \"args\": [], \"result\": 7,"
                         " \"outcome\": \"ok\", \"call\": 0, \"return\": 1}]}\n";
  const RunResult honoured = run("check '" + path + "'");
  EXPECT_EQ(honoured.exit_code, 0) << honoured.out << honoured.err;
  EXPECT_NE(honoured.out.find("model register(init=7)"), std::string::npos) << honoured.out;
  EXPECT_EQ(run("check '" + path + "' --init nil").exit_code, 1);
}

TEST_F(ModelsCliTest, MutexIsImpliedAndADoubleAcquireIsAViolation) {
  const RunResult bad = run("check tests/data/mutex-double-acquire.edn");
  EXPECT_EQ(bad.exit_code, 1) << bad.out << bad.err;
  EXPECT_NE(bad.out.find("model mutex"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("p2 acquire()"), std::string::npos) << bad.out;
  const RunResult ok = run("check tests/data/mutex-handoff.edn");
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
}

TEST_F(ModelsCliTest, MultiRegisterTransactionsAreAtomic) {
  const RunResult torn = run("check tests/data/multi-register-torn-read.edn");
  EXPECT_EQ(torn.exit_code, 1) << torn.out << torn.err;
  EXPECT_NE(torn.out.find("model multi-register"), std::string::npos) << torn.out;
  EXPECT_NE(torn.out.find("-> [[\":r\" \":x\" 2] [\":r\" \":y\" 1]]"), std::string::npos)
      << torn.out;
  const RunResult atomic = run("check tests/data/multi-register-atomic.edn");
  EXPECT_EQ(atomic.exit_code, 0) << atomic.out << atomic.err;
}

}  // namespace
}  // namespace linfault::tests
