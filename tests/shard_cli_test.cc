// Sharded campaigns end to end (docs/scale-out.md): `detect --shard i/N` and `verify --shard i/N`
// merged by `linfault merge` give byte for byte what the unsharded run writes; merge refuses
// directories that are not the complete shards of one campaign; and a `detect --out` killed with
// SIGKILL at any moment leaves only files that parse.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <random>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "detect/saved_run.h"
#include "history/atomic_file.h"
#include "tests/cli_fixture.h"

namespace linfault::tests {
namespace {

namespace fs = std::filesystem;

using ShardCliTest = CliFixture;

// Every file of `dir` (name -> bytes).
std::map<std::string, std::string> files_of(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    files[entry.path().filename().string()] = read_file(entry.path());
  }
  return files;
}

std::string quoted(const fs::path& path) { return "'" + path.string() + "'"; }

std::string detect_campaign(int histories) {
  return "detect --target treiber_stack_buggy --threads 2 --ops 6 --scheduler pct --seed 7 "
         "--histories " +
         std::to_string(histories);
}
const std::string kCampaign = detect_campaign(61);

TEST_F(ShardCliTest, DetectShardsMergeIntoExactlyTheUnshardedRun) {
  const RunResult whole = run(kCampaign + " --jobs 2 --out " + quoted(dir_ / "whole"));
  ASSERT_EQ(whole.exit_code, 1) << whole.out << whole.err;
  const auto expected = files_of(dir_ / "whole");
  ASSERT_GT(expected.size(), 2u);  // summary.json and saved runs
  const nlohmann::json summary = nlohmann::json::parse(expected.at("summary.json"));
  EXPECT_EQ(summary["complete"], true);
  EXPECT_EQ(summary["histories"], 61);
  EXPECT_EQ(summary["saved"].get<std::size_t>() + 1, expected.size());
  ASSERT_TRUE(summary["first_failing_seed"].is_number());

  for (int count : {2, 3}) {
    std::string dirs;
    for (int index = 0; index < count; ++index) {
      const fs::path shard =
          dir_ / ("shard-" + std::to_string(count) + "-" + std::to_string(index));
      // Different --jobs per shard: results do not depend on it.
      const RunResult r =
          run(kCampaign + " --jobs " + std::to_string(1 + index % 2) + " --shard " +
              std::to_string(index) + "/" + std::to_string(count) + " --out " + quoted(shard));
      ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.out << r.err;
      dirs += " " + quoted(shard);
    }
    const fs::path merged = dir_ / ("merged-" + std::to_string(count));
    const RunResult m = run("merge --out " + quoted(merged) + dirs);
    EXPECT_EQ(m.exit_code, 1) << m.out << m.err;  // the campaign found violations
    EXPECT_NE(m.out.find("first failing seed " + summary["first_failing_seed"].dump()),
              std::string::npos)
        << m.out;
    const auto got = files_of(merged);
    EXPECT_EQ(got.at("summary.json"), expected.at("summary.json")) << count << " shards";
    EXPECT_EQ(got, expected) << count << " shards";
  }
}

TEST_F(ShardCliTest, MoreShardsThanHistoriesStillMerge) {
  const std::string campaign =
      "detect --target treiber_stack_buggy --threads 2 --ops 6 --histories 3 --scheduler pct";
  ASSERT_LE(run(campaign + " --out " + quoted(dir_ / "whole")).exit_code, 1);
  std::string dirs;
  for (int index = 0; index < 5; ++index) {
    const fs::path shard = dir_ / ("s" + std::to_string(index));
    const RunResult r =
        run(campaign + " --shard " + std::to_string(index) + "/5 --out " + quoted(shard));
    ASSERT_LE(r.exit_code, 1) << r.err;
    dirs += " " + quoted(shard);
  }
  ASSERT_LE(run("merge --out " + quoted(dir_ / "merged") + dirs).exit_code, 1);
  EXPECT_EQ(files_of(dir_ / "merged"), files_of(dir_ / "whole"));
}

TEST_F(ShardCliTest, ShardIsValidatedStrictly) {
  for (const char* bad : {"2/2", "0/0", "1", "a/2", "0/", "/2", "-1/2", "+0/2", " 0/2", "0/2x",
                          "0/18446744073709551616", "0//2", "0/2/3"}) {
    const RunResult r = run(kCampaign + " --shard '" + bad + "'");
    EXPECT_EQ(r.exit_code, 64) << bad << ": " << r.err;
    expect_one_line_error(r, "--shard", bad);
  }
  // The largest count is accepted (and runs nothing but history 0 for shard 0).
  const RunResult big = run(kCampaign + " --json --shard 0/18446744073709551615");
  EXPECT_LE(big.exit_code, 1) << big.err;
  EXPECT_EQ(nlohmann::json::parse(big.out)["histories"], 1);
}

TEST_F(ShardCliTest, MergeRefusesWhatIsNotOneCompleteCampaign) {
  const auto shard = [&](const std::string& name, const std::string& extra) {
    const RunResult r = run(kCampaign + " " + extra + " --out " + quoted(dir_ / name));
    EXPECT_LE(r.exit_code, 1) << r.err;
    return quoted(dir_ / name);
  };
  const std::string s0 = shard("s0", "--shard 0/2");
  const std::string s1 = shard("s1", "--shard 1/2");
  const RunResult r = run(detect_campaign(60) + " --shard 1/2 --out " + quoted(dir_ / "other"));
  ASSERT_LE(r.exit_code, 1) << r.err;
  const std::string other = quoted(dir_ / "other");
  const std::string third = shard("third", "--shard 1/3");
  const auto merge_error = [&](const std::string& dirs, const std::string& file,
                               const std::string& fragment) {
    const fs::path out = dir_ / ("out" + std::to_string(std::rand()));
    const RunResult r = run("merge --out " + quoted(out) + " " + dirs);
    EXPECT_EQ(r.exit_code, 65) << dirs << ": " << r.out << r.err;
    expect_one_line_error(r, (dir_ / file).string(), fragment);
    // Nothing half-merged is left behind: the merge can run again into the same directory.
    if (fs::exists(out)) {
      EXPECT_TRUE(fs::is_empty(out)) << out;
    }
  };
  merge_error(s0, "s0/summary.json", "missing (1)");
  merge_error(s0 + " " + s0, "s0/summary.json", "again");
  merge_error(s0 + " " + other, "other/summary.json", "\"histories\" is 60, there 61");
  merge_error(s0 + " " + third, "third/summary.json", "split differently");

  // A shard killed before the end.
  nlohmann::json summary = nlohmann::json::parse(read_file(dir_ / "s1" / "summary.json"));
  summary["complete"] = false;
  write("s1/summary.json", summary.dump(2));
  merge_error(s0 + " " + s1, "s1/summary.json", "did not finish");
  summary["complete"] = true;
  write("s1/summary.json", summary.dump(2));

  // A saved run that is not the shard's (another shard's file copied in).
  std::string stray;
  for (const auto& [name, bytes] : files_of(dir_ / "s0")) {
    if (name != "summary.json") stray = name;
  }
  ASSERT_FALSE(stray.empty());
  fs::copy_file(dir_ / "s0" / stray, dir_ / "s1" / stray);
  merge_error(s0 + " " + s1, "s1/" + stray, "not a run saved by shard 1/2");
  fs::remove(dir_ / "s1" / stray);

  EXPECT_LE(run("merge --out " + quoted(dir_ / "ok") + " " + s0 + " " + s1).exit_code, 1);
  const RunResult again = run("merge --out " + quoted(dir_ / "ok") + " " + s0 + " " + s1);
  EXPECT_EQ(again.exit_code, 64) << again.err;  // not into a directory that holds files
  const RunResult missing = run("merge --out " + quoted(dir_ / "x") + " " + quoted(dir_ / "no"));
  EXPECT_EQ(missing.exit_code, 66) << missing.err;
}

TEST_F(ShardCliTest, VerifySaysWhatStillFailsAndItsShardsMerge) {
  ASSERT_EQ(run(detect_campaign(12) + " --out " + quoted(dir_ / "runs")).exit_code, 1);
  // One saved run pointed at the fixed stack: it no longer fails.
  std::string fixed;
  for (const auto& [name, bytes] : files_of(dir_ / "runs")) {
    if (name == "summary.json") continue;
    nlohmann::json doc = nlohmann::json::parse(bytes);
    doc["target"] = "treiber_stack";
    fixed = write("fixed.json", doc.dump());
    break;
  }
  ASSERT_FALSE(fixed.empty());
  const std::string inputs = quoted(dir_ / "runs") + " '" + fixed + "'";
  const RunResult whole = run("verify " + inputs + " --out " + quoted(dir_ / "whole"));
  EXPECT_EQ(whole.exit_code, 1) << whole.out << whole.err;
  EXPECT_NE(whole.out.find("FAILS"), std::string::npos) << whole.out;
  EXPECT_NE(whole.out.find("passes  " + fixed), std::string::npos) << whole.out;
  const nlohmann::json summary = nlohmann::json::parse(read_file(dir_ / "whole/summary.json"));
  EXPECT_EQ(summary["counts"]["passes"], 1);
  EXPECT_GT(summary["counts"]["fails"].get<int>(), 0);
  EXPECT_EQ(summary["checked"], summary["campaign"]["inputs"].size());

  ASSERT_LE(run("verify " + inputs + " --shard 1/2 --out " + quoted(dir_ / "v1")).exit_code, 1);
  ASSERT_LE(run("verify " + inputs + " --shard 0/2 --out " + quoted(dir_ / "v0")).exit_code, 1);
  const RunResult m = run("merge --out " + quoted(dir_ / "merged") + " " + quoted(dir_ / "v1") +
                          " " + quoted(dir_ / "v0"));
  EXPECT_EQ(m.exit_code, 1) << m.out << m.err;
  EXPECT_EQ(read_file(dir_ / "merged/summary.json"), read_file(dir_ / "whole/summary.json"));

  // Only the fixed one: exit 0. A file that is neither: 65, naming it.
  EXPECT_EQ(run("verify '" + fixed + "'").exit_code, 0);
  const RunResult bad = run("verify '" + write("bad.json", "{\"linfault\": \"history\"}") + "'");
  EXPECT_EQ(bad.exit_code, 65);
  expect_one_line_error(bad, (dir_ / "bad.json").string(), "not a test case or a saved run");
}

TEST_F(ShardCliTest, RunShardsMergeIntoTheUnshardedRunsFailureAndFiles) {
  const std::string campaign =
      "run --target treiber_stack_buggy --threads 2 --ops 5 --histories 300 --scheduler pct "
      "--seed 3";
  const RunResult whole = run(campaign + " --out " + quoted(dir_ / "whole"));
  ASSERT_EQ(whole.exit_code, 1) << whole.out << whole.err;
  std::string dirs;
  for (int index = 0; index < 3; ++index) {
    const fs::path shard = dir_ / ("s" + std::to_string(index));
    const RunResult r =
        run(campaign + " --shard " + std::to_string(index) + "/3 --out " + quoted(shard));
    ASSERT_LE(r.exit_code, 1) << r.out << r.err;
    dirs += " " + quoted(shard);
  }
  const RunResult m = run("merge --out " + quoted(dir_ / "merged") + dirs);
  EXPECT_EQ(m.exit_code, 1) << m.out << m.err;
  auto expected = files_of(dir_ / "whole");
  auto got = files_of(dir_ / "merged");
  const nlohmann::json summary = nlohmann::json::parse(expected.at("summary.json"));
  ASSERT_TRUE(summary["failing"].is_object()) << expected.at("summary.json");
  EXPECT_EQ(got.at("summary.json"), expected.at("summary.json"));
  // testcase.json says how long the minimization took: everything else is equal.
  const auto without_times = [](const std::string& text) {
    nlohmann::json doc = nlohmann::json::parse(text);
    doc["minimization"].erase("elapsed_ms");
    doc["minimization"].erase("localize_ms");
    // Each log line opens with its wall-clock time, "[0.1 s] ": keep only what follows it. A
    // step may also say how long it took, "(1 ms)": a loaded machine gives another number.
    static const std::regex kDuration(R"(\(\d+(\.\d+)? ms\))");
    for (nlohmann::json& line : doc["minimization"]["log"]) {
      std::string text = line.get<std::string>();
      const std::size_t stamp_end = text.find(" s] ");
      if (text.starts_with("[") && stamp_end != std::string::npos)
        text = text.substr(stamp_end + 4);
      line = std::regex_replace(text, kDuration, "(- ms)");
    }
    return doc;
  };
  EXPECT_EQ(without_times(got.at("testcase.json")), without_times(expected.at("testcase.json")));
  got.erase("testcase.json");
  expected.erase("testcase.json");
  EXPECT_EQ(got, expected);  // the failing run and the GoogleTest repro, byte for byte

  // The minimized test case still fails on this build: `verify` says so.
  const RunResult verify = run("verify " + quoted(dir_ / "merged" / "testcase.json"));
  EXPECT_EQ(verify.exit_code, 1) << verify.out << verify.err;
  EXPECT_NE(verify.out.find("FAILS"), std::string::npos) << verify.out;
}

// Starts `linfault args...` with its output discarded; returns its process id.
pid_t spawn(const std::vector<std::string>& args) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(LINFAULT_BINARY));
    for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    ::dup2(null, 2);
    ::execv(LINFAULT_BINARY, argv.data());
    ::_exit(127);
  }
  return pid;
}

TEST_F(ShardCliTest, DetectKilledAtAnyMomentLeavesOnlyFilesThatParse) {
  const fs::path out = dir_ / "runs";
  const std::vector<std::string> args = {
      "detect",      "--target", "treiber_stack_buggy", "--threads", "3",      "--ops", "40",
      "--scheduler", "pct",      "--histories",         "1000000",   "--jobs", "2",     "--out",
      out.string()};
  std::mt19937 random(20261124);  // fixed: a failure reruns the same moments
  std::size_t temporaries = 0, saved = 0, summaries = 0;
  for (int attempt = 0; attempt < 5; ++attempt) {
    const int delay_ms = std::uniform_int_distribution<int>(30, 900)(random);
    const pid_t pid = spawn(args);
    ASSERT_GT(pid, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    ASSERT_EQ(::kill(pid, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status)) << "finished before the kill at " << delay_ms << " ms";

    for (const auto& entry : fs::directory_iterator(out)) {
      const std::string name = entry.path().filename().string();
      if (history::is_atomic_temporary(name)) {
        ++temporaries;  // hidden and not *.json: no reader takes it for a result
        EXPECT_EQ(name[0], '.');
        continue;
      }
      ASSERT_EQ(entry.path().extension(), ".json") << name;
      if (name == "summary.json") {
        ++summaries;
        const nlohmann::json summary = nlohmann::json::parse(read_file(entry.path()));
        EXPECT_EQ(summary["linfault"], "detect-summary");
        EXPECT_EQ(summary["complete"], false);  // killed: never claims to be done
      } else {
        ++saved;
        EXPECT_NO_THROW(detect::read_saved_run(entry.path().string())) << name;
      }
    }
  }
  EXPECT_GT(saved, 0u);
  EXPECT_GT(summaries, 0u);
  std::printf("after 5 kills: %zu saved runs, %zu summaries read, %zu temporaries left\n", saved,
              summaries, temporaries);

  // The next run into the directory removes the dead writers' temporaries.
  const RunResult next = run(
      "detect --target treiber_stack_buggy --threads 2 --ops 6 --histories 5 --out " + quoted(out));
  EXPECT_LE(next.exit_code, 1) << next.err;
  for (const auto& entry : fs::directory_iterator(out)) {
    EXPECT_FALSE(history::is_atomic_temporary(entry.path().filename().string())) << entry.path();
  }
}

TEST_F(ShardCliTest, RunKilledAtAnyMomentLeavesOnlyWholeFiles) {
  const fs::path out = dir_ / "repro";
  const std::vector<std::string> args = {
      "run",   "--target", "treiber_stack_buggy", "--threads", "2",
      "--ops", "8",        "--scheduler",         "pct",       "--seed",
      "5",     "--out",    out.string()};
  // Once: what a finished run writes.
  int status = 0;
  const pid_t whole = spawn(args);
  ASSERT_EQ(::waitpid(whole, &status, 0), whole);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1);
  const auto finished = files_of(out);
  ASSERT_EQ(finished.size(), 4u);  // the saved run, testcase.json, the repro, summary.json
  fs::remove_all(out);

  std::mt19937 random(7);
  std::size_t files = 0;
  for (int attempt = 0; attempt < 6; ++attempt) {
    const int delay_ms = std::uniform_int_distribution<int>(5, 400)(random);
    const pid_t pid = spawn(args);
    ASSERT_GT(pid, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    ::kill(pid, SIGKILL);  // it may have finished already
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    if (!fs::exists(out)) continue;
    for (const auto& [name, bytes] : files_of(out)) {
      if (history::is_atomic_temporary(name)) continue;
      ++files;
      // Every file is the finished run's, whole (runs are deterministic).
      ASSERT_TRUE(finished.count(name)) << name;
      if (name == "testcase.json") {
        EXPECT_NO_THROW(nlohmann::json::parse(bytes)) << name;  // its times differ
      } else {
        EXPECT_EQ(bytes, finished.at(name)) << name << " after " << delay_ms << " ms";
      }
    }
    fs::remove_all(out);
  }
  std::printf("run killed 6 times: %zu files left, each whole\n", files);
}

}  // namespace
}  // namespace linfault::tests
