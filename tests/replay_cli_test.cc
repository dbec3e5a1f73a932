// `linfault replay` on test cases (docs/formats.md, "Test cases"): a strict replay that
// reproduces the violation, its interleaving, the verdict, --compact, --quiet, --json, --gtest,
// and the errors: divergence, history-level test cases, documents of another kind.

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dpct/exhaustive.h"
#include "minimize/scenario_repro.h"
#include "minimize/test_case.h"
#include "targets/registry.h"
#include "tests/cli_fixture.h"

namespace linfault::tests {
namespace {

bool contains(const std::string& text, const std::string& fragment) {
  return text.find(fragment) != std::string::npos;
}

minimize::TestCase treiber_test_case() {
  const targets::Target& target = targets::find("treiber_stack_buggy");
  return minimize::find_scenario_repro(target, target.known_scenarios.front())->test_case;
}

class ReplayCliTest : public CliFixture {
 protected:
  std::string save(const minimize::TestCase& tc, const std::string& name = "tc.json") {
    const std::string path = (dir_ / name).string();
    minimize::write_test_case(tc, path);
    return path;
  }
};

TEST_F(ReplayCliTest, TestCaseReproducesWithItsInterleavingInColumns) {
  const minimize::TestCase tc = treiber_test_case();
  const RunResult r = run("replay '" + save(tc) + "'");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_TRUE(contains(r.out, "target: treiber_stack_buggy")) << r.out;
  EXPECT_TRUE(contains(r.out, "step  thread 0")) << r.out;
  EXPECT_TRUE(contains(r.out, "| thread 1")) << r.out;
  EXPECT_TRUE(contains(r.out, "cas failed (found null)")) << r.out;
  EXPECT_TRUE(contains(r.out, "pop() -> 1  <== not linearizable")) << r.out;
  EXPECT_TRUE(contains(r.out, "history: identical to the test case's")) << r.out;
  EXPECT_TRUE(contains(r.out, "verdict: violation")) << r.out;
  EXPECT_TRUE(contains(r.out, "the violation REPRODUCES: " + tc.violation)) << r.out;
}

TEST_F(ReplayCliTest, CompactQuietAndJson) {
  const std::string path = save(treiber_test_case());
  const RunResult compact = run("replay --compact '" + path + "'");
  EXPECT_EQ(compact.exit_code, 1) << compact.err;
  EXPECT_TRUE(contains(compact.out, "  step  who  operation")) << compact.out;
  EXPECT_TRUE(contains(compact.out, "(failed)")) << compact.out;

  const RunResult quiet = run("replay -q '" + path + "'");
  EXPECT_EQ(quiet.exit_code, 1) << quiet.err;
  EXPECT_FALSE(contains(quiet.out, "shared accesses")) << quiet.out;
  EXPECT_TRUE(contains(quiet.out, "REPRODUCES")) << quiet.out;

  const RunResult json = run("replay --json '" + path + "'");
  EXPECT_EQ(json.exit_code, 1) << json.err;
  const nlohmann::json doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["input"], "test-case");
  EXPECT_EQ(doc["reproduced"], true);
  EXPECT_EQ(doc["verdict"], "violation");
  EXPECT_EQ(doc["same_history"], true);
  EXPECT_GT(doc["accesses"].get<int>(), 5);
}

TEST_F(ReplayCliTest, GtestOptionWritesTheReproFile) {
  const std::string out = (dir_ / "repro_test.cc").string();
  const RunResult r = run("replay -q '" + save(treiber_test_case()) + "' --gtest '" + out + "'");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(contains(r.out, "GoogleTest file written to " + out)) << r.out;
  const std::string text = read_file(out);
  EXPECT_TRUE(contains(text, "TEST(LinfaultRepro, TreiberStackBuggy)")) << text;

  // Given relative to where the tool runs, the build hint names the file absolutely: a
  // CMakeLists.txt would resolve a relative path against its own directory.
  const std::string relative =
      std::filesystem::relative(dir_ / "relative_repro_test.cc", std::filesystem::current_path())
          .string();
  const RunResult r2 =
      run("replay -q '" + save(treiber_test_case()) + "' --gtest '" + relative + "'");
  EXPECT_EQ(r2.exit_code, 1) << r2.err;
  EXPECT_TRUE(contains(r2.out, "GoogleTest file written to " + relative)) << r2.out;
  EXPECT_TRUE(contains(r2.out, " SOURCES " + (dir_ / "relative_repro_test.cc").string())) << r2.out;
}

TEST_F(ReplayCliTest, ANonFailingScheduleSaysSoLoudlyAndExitsZero) {
  // The first schedule of the enumeration runs the pops one after the other: linearizable.
  const targets::Target& target = targets::find("treiber_stack_buggy");
  const dpct::Workload& workload = target.known_scenarios.front().workload;
  dpct::Executor executor;
  dpct::ExhaustiveOptions options;
  options.max_executions = 1;
  const dpct::ExhaustiveResult first = dpct::explore_exhaustively(
      executor, target.factory, workload, options, [](const dpct::Run&) { return true; });
  ASSERT_TRUE(first.found);
  minimize::TestCase tc = treiber_test_case();
  tc.schedule = first.found->schedule.to_text();
  tc.history = history::History();

  const RunResult r = run("replay '" + save(tc) + "'");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "verdict: linearizable")) << r.out;
  EXPECT_TRUE(contains(r.out, "*** THE VIOLATION DID NOT REPRODUCE *** (expected: " + tc.violation))
      << r.out;
}

TEST_F(ReplayCliTest, DivergenceIsAOneLineErrorNamingTheDecision) {
  minimize::TestCase tc = treiber_test_case();
  tc.pc[1].push_back(tc.pc[1].front());  // a second pop the schedule never saw
  const std::string path = save(tc);
  const RunResult r = run("replay '" + path + "'");
  EXPECT_EQ(r.exit_code, 65) << r.out;
  expect_one_line_error(r, path + ": replay diverged at decision ", "decision");
}

TEST_F(ReplayCliTest, HistoryLevelTestCaseHasNothingToReExecute) {
  minimize::TestCase tc = treiber_test_case();
  tc.target.reset();
  tc.schedule.reset();
  const std::string path = save(tc);
  const RunResult r = run("replay '" + path + "'");
  EXPECT_EQ(r.exit_code, 65);
  expect_one_line_error(r, path + ": ", "has no target to re-execute");

  const RunResult gtest = run("replay '" + path + "' --gtest '" + (dir_ / "x.cc").string() + "'");
  EXPECT_EQ(gtest.exit_code, 65);
}

TEST_F(ReplayCliTest, OtherDocumentsAndBadTestCasesAreRejected) {
  const std::string history = write("h.json", R"({"linfault": "history", "version": 1,
    "operations": []})");
  const RunResult r = run("replay '" + history + "'");
  EXPECT_EQ(r.exit_code, 65);
  expect_one_line_error(r, history + ": ", "not a test case or a saved run");

  const std::string bad = write("bad.json", R"({"linfault": "test-case", "version": 1,
    "target": "treiber_stack_buggy", "model": "stack", "ps": [], "pc": [[{"args": []}]],
    "pr": [], "schedule": null})");
  const RunResult b = run("replay '" + bad + "'");
  EXPECT_EQ(b.exit_code, 65);
  expect_one_line_error(b, bad + ": ", "pc[0][0]: missing field \"method\"");

  const RunResult missing = run("replay '" + (dir_ / "nope.json").string() + "'");
  EXPECT_EQ(missing.exit_code, 66);
}

// A test case whose calls the target cannot run is bad input (65), for replay and verify alike,
// named as such: not a divergence, and not a crash of the object reported as a failure.
TEST_F(ReplayCliTest, CallsTheTargetCannotRunAreBadInputNotAFailure) {
  struct Case {
    std::string name;
    std::function<void(minimize::TestCase&)> spoil;
    std::string problem;
  };
  const std::vector<Case> cases = {
      {"method.json", [](minimize::TestCase& tc) { tc.pc[0][0].call.method = "shove"; },
       "which is not a method of target treiber_stack_buggy"},
      {"arguments.json",
       [](minimize::TestCase& tc) {
         tc.ps.push_back({0, {"push", {history::Value(1), history::Value(2)}}, {}, {}, false});
       },
       "the workload calls push(1, 2), but treiber_stack_buggy's push takes 1 argument"},
      {"kind.json",
       [](minimize::TestCase& tc) {
         tc.ps.push_back({0, {"push", {history::Value("x")}}, {}, {}, false});
       },
       "the workload calls push(\"x\"), which treiber_stack_buggy cannot take: push: argument 1 "
       "must be an integer, got \"x\""},
      {"model.json", [](minimize::TestCase& tc) { tc.model = "queue"; },
       "model \"queue\" is not the model of target treiber_stack_buggy"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    minimize::TestCase tc = treiber_test_case();
    c.spoil(tc);
    const std::string path = save(tc, c.name);
    for (const std::string command : {"replay -q", "verify"}) {
      const RunResult r = run(command + " '" + path + "'");
      EXPECT_EQ(r.exit_code, 65) << command << ": " << r.out << r.err;
      expect_one_line_error(r, path + ": ", c.problem);
    }
  }
}

// Objects are named by the order in which the run first touches them ("stack_node#2"), not by
// their addresses, which change from process to process: two replays print the same bytes.
TEST_F(ReplayCliTest, TwoReplaysOfOneTestCasePrintByteIdenticalOutput) {
  const std::string out = (dir_ / "repro").string();
  const RunResult found = run("run --target treiber_stack_buggy --seed 1 --out '" + out + "'");
  ASSERT_EQ(found.exit_code, 1) << found.out << found.err;
  const std::string tc = out + "/testcase.json";
  const std::regex address("@(0x)?[0-9a-f]{3,}");
  EXPECT_FALSE(std::regex_search(found.out, address)) << found.out;

  for (const std::string options : {"", "--compact "}) {
    const RunResult first = run("replay " + options + "'" + tc + "'");
    const RunResult second = run("replay " + options + "'" + tc + "'");
    EXPECT_EQ(first.exit_code, 1) << first.out << first.err;
    EXPECT_EQ(second.exit_code, 1) << second.out << second.err;
    EXPECT_TRUE(contains(first.out, "stack_node#1")) << first.out;
    EXPECT_FALSE(std::regex_search(first.out, address)) << first.out;
    EXPECT_EQ(first.out, second.out);
  }

  // Nor does the GoogleTest repro depend on the process that writes it.
  const std::string a = (dir_ / "a" / "repro_test.cc").string();
  const std::string b = (dir_ / "b" / "repro_test.cc").string();
  std::filesystem::create_directories(dir_ / "a");
  std::filesystem::create_directories(dir_ / "b");
  ASSERT_EQ(run("replay -q '" + tc + "' --gtest '" + a + "'").exit_code, 1);
  ASSERT_EQ(run("replay -q '" + tc + "' --gtest '" + b + "'").exit_code, 1);
  EXPECT_EQ(read_file(a), read_file(b));
}

// A test case of a user's target, written by the user's own tool (linfault_add_tool): the plain
// linfault says in one line which tool knows it. Exit 64: the right file, the wrong tool.
TEST_F(ReplayCliTest, AnUnknownTargetNamesTheToolThatWroteTheTestCase) {
  minimize::TestCase tc = treiber_test_case();
  tc.target = "my_queue";
  tc.tool = "my-linfault";
  const std::string path = save(tc, "mine.json");
  const RunResult r = run("replay '" + path + "'");
  EXPECT_EQ(r.exit_code, 64);
  expect_one_line_error(r, path + ": target 'my_queue' is not known to linfault; ",
                        "it was written by my-linfault, which knows it: use my-linfault (e.g. "
                        "`my-linfault replay " +
                            path + "`)");

  tc.tool.clear();
  const std::string anonymous = save(tc, "anonymous.json");
  const RunResult a = run("replay '" + anonymous + "'");
  EXPECT_EQ(a.exit_code, 64);
  expect_one_line_error(a, anonymous + ": target 'my_queue' is not known to linfault; ",
                        "use the tool built with linfault_add_tool() from the library that "
                        "registers it");
}

}  // namespace
}  // namespace linfault::tests
