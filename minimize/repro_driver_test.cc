// Runs the GoogleTest repros generated at build time (minimize/repro_generator.cc, one per buggy
// target) and checks that each one FAILS, with the violation of its test case in the failure
// message. A repro that passes means the emitted file does not reproduce the bug.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "minimize/gtest_emitter.h"
#include "targets/registry.h"

namespace linfault::minimize {
namespace {

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct ReproRun {
  int exit_code = -1;
  // Test name -> the concatenated failure messages ("" for a test that passed).
  std::map<std::string, std::string> failures;
  std::string error;  // why the run could not be read
};

// Runs every generated repro once and reads GoogleTest's JSON report.
const ReproRun& repro_run() {
  static const ReproRun run = [] {
    ReproRun result;
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("linfault_repros_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::filesystem::path report = dir / "report.json";
    const std::string command = std::string("'") + LINFAULT_REPRO_BINARY +
                                "' --gtest_output=json:'" + report.string() + "' >'" +
                                (dir / "output.txt").string() + "' 2>&1";
    const int status = std::system(command.c_str());
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    try {
      const nlohmann::json doc = nlohmann::json::parse(read_text(report));
      for (const nlohmann::json& suite : doc.at("testsuites")) {
        for (const nlohmann::json& test : suite.at("testsuite")) {
          std::string messages;
          for (const nlohmann::json& failure : test.value("failures", nlohmann::json::array())) {
            messages += failure.at("failure").get<std::string>() + "\n";
          }
          result.failures[suite.at("name").get<std::string>() + "." +
                          test.at("name").get<std::string>()] = messages;
        }
      }
    } catch (const std::exception& e) {
      result.error = std::string("cannot read the repros' report: ") + e.what() + "\n" +
                     read_text(dir / "output.txt");
    }
    std::filesystem::remove_all(dir);
    return result;
  }();
  return run;
}

std::vector<std::string> buggy_targets() {
  std::vector<std::string> names;
  for (const targets::Target& target : targets::all()) {
    if (target.bug_expected && !target.known_scenarios.empty()) names.push_back(target.name);
  }
  return names;
}

TEST(GeneratedReprosTest, OneReproPerBuggyTargetAndTheRunFails) {
  const ReproRun& run = repro_run();
  ASSERT_TRUE(run.error.empty()) << run.error;
  EXPECT_EQ(run.exit_code, 1);  // GoogleTest's status when a test failed
  EXPECT_EQ(run.failures.size(), buggy_targets().size());
}

class GeneratedReproTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GeneratedReproTest, FailsWithTheViolationOfItsTestCase) {
  const std::string& target = GetParam();
  const ReproRun& run = repro_run();
  ASSERT_TRUE(run.error.empty()) << run.error;
  std::string violation =
      read_text(std::filesystem::path(LINFAULT_REPRO_DIR) / (target + "_repro.violation"));
  while (!violation.empty() && violation.back() == '\n') violation.pop_back();
  ASSERT_FALSE(violation.empty()) << target;

  const auto test = run.failures.find("LinfaultRepro." + gtest_name(target));
  ASSERT_NE(test, run.failures.end()) << "no repro test for " << target;
  ASSERT_FALSE(test->second.empty()) << "the repro of " << target << " PASSED: it reproduces "
                                     << "nothing";
  // A stuck scenario (lock_leak_counter) fails by the stuck-history rule or with its run's
  // outcome, and a weak-memory one may fail by the synchronisation requirement, not with a
  // history's wrong result.
  const bool outcome = violation.starts_with("stuck: ") || violation.starts_with("deadlock: ") ||
                       violation.starts_with("livelock: ") || violation.starts_with("crash: ") ||
                       violation.starts_with("unsynchronized: ");
  EXPECT_NE(test->second.find(outcome ? violation : "not linearizable: " + violation),
            std::string::npos)
      << "expected the violation \"" << violation << "\", got:\n"
      << test->second;
}

INSTANTIATE_TEST_SUITE_P(BuggyTargets, GeneratedReproTest, ::testing::ValuesIn(buggy_targets()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace linfault::minimize
