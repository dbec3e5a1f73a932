// `linfault targets`: the executable lists every registered target with its model and whether a
// bug is expected, as text and as JSON, and rejects an unknown name as a usage error.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "targets/registry.h"

namespace linfault::targets {
namespace {

using ::testing::HasSubstr;

struct Output {
  int exit_code = -1;
  std::string text;  // stdout and stderr
};

Output run_linfault(const std::string& arguments) {
  const std::string command =
      std::string(LINFAULT_BINARY_DIR) + "/tool/linfault " + arguments + " 2>&1";
  Output out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  std::array<char, 4096> buffer;
  while (std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe)) {
    out.text.append(buffer.data(), n);
  }
  const int status = pclose(pipe);
  out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

TEST(TargetsCommandTest, TableListsEveryTarget) {
  const Output out = run_linfault("targets");
  ASSERT_EQ(out.exit_code, 0) << out.text;
  EXPECT_THAT(out.text, HasSubstr("NAME"));
  for (const Target& target : all()) {
    EXPECT_THAT(out.text, HasSubstr(target.name + " ")) << target.name;
  }
  EXPECT_THAT(out.text, ::testing::ContainsRegex("ms_queue_nocheck +queue +no "));
  EXPECT_THAT(out.text, ::testing::ContainsRegex("pair_snapshot +snapshot +yes "));
}

TEST(TargetsCommandTest, JsonMatchesTheRegistry) {
  const Output out = run_linfault("targets --json");
  ASSERT_EQ(out.exit_code, 0) << out.text;
  const nlohmann::json listed = nlohmann::json::parse(out.text);
  ASSERT_EQ(listed.size(), all().size());
  for (std::size_t i = 0; i < listed.size(); ++i) {
    const Target& target = all()[i];
    EXPECT_EQ(listed[i]["name"], target.name);
    EXPECT_EQ(listed[i]["model"], target.model);
    EXPECT_EQ(listed[i]["bug_expected"], target.bug_expected);
    EXPECT_EQ(listed[i]["known_scenarios"].size(), target.known_scenarios.size());
  }
}

TEST(TargetsCommandTest, ShowsOneTargetsScenarios) {
  const Output out = run_linfault("targets treiber_stack_buggy");
  ASSERT_EQ(out.exit_code, 0) << out.text;
  EXPECT_THAT(out.text, HasSubstr("bug expected: yes"));
  EXPECT_THAT(out.text, HasSubstr("T0: push(10)"));
  EXPECT_THAT(out.text, HasSubstr("Pr: pop(); pop(); pop()"));
}

TEST(TargetsCommandTest, UnknownTargetIsAUsageError) {
  const Output out = run_linfault("targets no_such_target");
  EXPECT_EQ(out.exit_code, 64);
  EXPECT_THAT(out.text, HasSubstr("linfault: unknown target 'no_such_target' (targets: "));
}

}  // namespace
}  // namespace linfault::targets
