// `linfault triage` end to end: failing runs of three buggy targets (one bug each) found by
// `linfault detect`, with copies whose values are renamed and runs of other lengths, plus a
// malformed and a linearizable file -> three groups, none mixing targets.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/cli_fixture.h"

namespace linfault::tests {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const char* const kTargets[] = {"lf_list_buggy", "optimistic_queue_buggy", "unsafe_size_list"};

std::vector<fs::path> json_files(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().filename() != "summary.json") out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// v -> 3v + 10: keys keep their order (the lists compare them), values stay distinct.
json renamed(const json& value) {
  if (value.is_number_integer()) return value.get<std::int64_t>() * 3 + 10;
  if (value.is_array()) {
    json out = json::array();
    for (const json& v : value) out.push_back(renamed(v));
    return out;
  }
  return value;
}

// The same run with every argument renamed, and the values the queue returns with them (the
// sets return booleans and counts, which do not change).
json renamed_run(json run) {
  json& workload = run["workload"];
  for (json* calls : {&workload["setup"], &workload["reveal"]}) {
    for (json& call : *calls) call["args"] = renamed(call["args"]);
  }
  for (json& thread : workload["threads"]) {
    for (json& call : thread) call["args"] = renamed(call["args"]);
  }
  for (json& op : run["history"]["operations"]) {
    op["args"] = renamed(op["args"]);
    if (run["model"] == "queue" && op.contains("result")) op["result"] = renamed(op["result"]);
  }
  return run;
}

std::string target_of(const std::string& file) {
  const std::string name = fs::path(file).filename().string();
  for (const char* target : kTargets) {
    if (name.rfind(std::string(target) + "-", 0) == 0) return target;
  }
  return "";
}

class TriageCli : public CliFixture {};

// Target-level minimization of a dozen runs: several seconds.
TEST_F(TriageCli, GroupsFailingRunsOfThreeTargetsByRootCause) {
  const fs::path inputs = dir_ / "inputs";
  for (const char* target : kTargets) {
    // Two runs of 3 x 6 operations and one of 3 x 8 (a longer history of the same bug).
    for (const int ops : {6, 8}) {
      const fs::path out = dir_ / (std::string(target) + std::to_string(ops));
      // dpct on even shapes, which finds unsafe_size_list's rare bug often enough here.
      const RunResult detect = run(std::string("detect --target ") + target +
                                   " --scheduler dpct --shapes even -s 6000 -n 3 -m " +
                                   std::to_string(ops) + " --seed 1 --out '" + out.string() + "'");
      ASSERT_EQ(detect.exit_code, 1) << target << detect.err;
      std::vector<fs::path> runs = json_files(out);
      runs.resize(std::min<std::size_t>(runs.size(), ops == 6 ? 2 : 1));
      ASSERT_FALSE(runs.empty());
      fs::create_directories(inputs / target);
      for (const fs::path& r : runs) fs::copy_file(r, inputs / target / r.filename());
      if (ops == 6) {
        std::ifstream in(runs.front());
        const json copy = renamed_run(json::parse(in));
        std::ofstream(inputs / (std::string(target) + "-renamed.json")) << copy.dump(1);
      }
    }
  }
  std::ofstream(inputs / "malformed.json") << "{\"linfault\": \"history\", \"operations\": [";
  std::ofstream(inputs / "passing.json") << R"({"model": "set", "operations": [
            {"process": 0, "method": "add", "args": [1], "result": true, "call": 0, "return": 1},
            {"process": 1, "method": "contains", "args": [1], "result": true, "call": 2, "return": 3}]})";

  const RunResult r = run("triage '" + inputs.string() + "' --json -j 2");
  ASSERT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.err, "");  // piped: no progress
  const json out = json::parse(r.out);
  EXPECT_EQ(out["inputs"], 14);
  EXPECT_EQ(out["failing"], 12);
  EXPECT_EQ(out["passing"], 1);
  EXPECT_EQ(out["passing_inputs"][0], (inputs / "passing.json").string());
  ASSERT_EQ(out["unreadable_inputs"].size(), 1u);
  EXPECT_EQ(out["unreadable_inputs"][0]["file"], (inputs / "malformed.json").string());
  EXPECT_NE(out["unreadable_inputs"][0]["message"].get<std::string>().find("malformed.json:"),
            std::string::npos);

  ASSERT_EQ(out["groups"].size(), 3u) << out["groups"].dump(1);
  std::set<std::string> targets_seen;
  for (const json& group : out["groups"]) {
    EXPECT_EQ(group["count"], 4) << group.dump(1);
    const std::string target = group["target"];
    targets_seen.insert(target);
    for (const json& member : group["members"]) {
      EXPECT_EQ(target_of(member), target) << group.dump(1);
    }
    EXPECT_EQ(group["test_case"]["target"], target);
    EXPECT_EQ(group["level"], "target");
  }
  EXPECT_EQ(targets_seen.size(), 3u);
}

TEST_F(TriageCli, ListsUnreadableInputsAndExitsWithTheirCode) {
  const std::string bad = write("bad.edn", "{:process 0, :type :oops, :f :read}\n");
  const std::string missing = (dir_ / "missing.json").string();
  const RunResult r = run("triage '" + bad + "' '" + missing + "'");
  EXPECT_EQ(r.exit_code, 65) << r.out << r.err;
  EXPECT_NE(r.out.find("2 unreadable"), std::string::npos) << r.out;
  // The summary on stdout, the errors on stderr: one "linfault triage: file:line: problem" each.
  EXPECT_NE(r.err.find("linfault triage: " + bad + ":1: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("missing.json: cannot open"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("missing.json"), std::string::npos) << r.out;
}

TEST_F(TriageCli, GroupsPlainHistoriesAtTheHistoryLevel) {
  fs::create_directories(dir_ / "histories");
  write("histories/a.edn",
        "{:process 0, :type :invoke, :f :write, :value 1}\n"
        "{:process 0, :type :ok, :f :write, :value 1}\n"
        "{:process 1, :type :invoke, :f :read, :value nil}\n"
        "{:process 1, :type :ok, :f :read, :value 2}\n");
  write("histories/b.edn",
        "{:process 3, :type :invoke, :f :write, :value 5}\n"
        "{:process 3, :type :ok, :f :write, :value 5}\n"
        "{:process 4, :type :invoke, :f :read, :value nil}\n"
        "{:process 4, :type :ok, :f :read, :value 9}\n");
  const RunResult r = run("triage '" + (dir_ / "histories").string() + "'");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("2 failing in 1 group"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("history-level"), std::string::npos) << r.out;
}

TEST_F(TriageCli, HelpHasExamplesAndUsageErrorsAreOneLine) {
  const RunResult help = run("triage --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("Examples:"), std::string::npos);
  const RunResult bad = run("triage x.json --target no_such_target");
  EXPECT_EQ(bad.exit_code, 64);
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
  // A bad --model is one usage error, not the same error for every input.
  const std::string a = write("a.edn", "{:process 0, :type :invoke, :f :read, :value nil}\n");
  const std::string b = write("b.edn", "{:process 0, :type :invoke, :f :read, :value nil}\n");
  for (const std::string options : {"--model heap", "--target treiber_stack_buggy --model queue"}) {
    SCOPED_TRACE(options);
    const RunResult model = run("triage '" + a + "' '" + b + "' " + options);
    EXPECT_EQ(model.exit_code, 64) << model.out << model.err;
    EXPECT_EQ(std::count(model.err.begin(), model.err.end(), '\n'), 1) << model.err;
  }
}

}  // namespace
}  // namespace linfault::tests
