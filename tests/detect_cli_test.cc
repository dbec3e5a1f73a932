// Runs `linfault detect` and `linfault replay` as a user would: exit codes, the --json summary,
// saved runs and their replay.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/cli_fixture.h"

namespace linfault::tests {
namespace {

namespace fs = std::filesystem;

using DetectCliTest = CliFixture;

TEST_F(DetectCliTest, FindsTheTreiberBugSavesTheRunsAndReportsJson) {
  const fs::path runs = dir_ / "runs";
  const RunResult r =
      run("detect --target treiber_stack_buggy --threads 2 --ops 6 --histories 40 --scheduler pct "
          "--jobs 2 --json --out '" +
          runs.string() + "'");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(r.err, "");  // no progress line when stderr is not a terminal
  const nlohmann::json summary = nlohmann::json::parse(r.out);
  EXPECT_EQ(summary["target"], "treiber_stack_buggy");
  EXPECT_EQ(summary["histories"], 40);
  EXPECT_GT(summary["violations"].get<int>(), 0);
  EXPECT_EQ(summary["unknown"], 0);
  EXPECT_GT(summary["avg_ms"].get<double>(), 0.0);
  EXPECT_EQ(summary["scheduler"].get<std::string>().rfind("pct d=3", 0), 0u);
  ASSERT_TRUE(summary["saved"].is_array());
  ASSERT_EQ(summary["saved"].size(), summary["violations"].get<std::size_t>());
  const std::string first = summary["saved"][0];
  EXPECT_TRUE(fs::exists(first));
  EXPECT_EQ(fs::path(first).filename().string(),
            "treiber_stack_buggy-" +
                std::to_string(summary["first_failing_seed"].get<std::uint64_t>()) + ".json");

  const RunResult replay = run("replay '" + first + "'");
  EXPECT_EQ(replay.exit_code, 1) << replay.out << replay.err;
  EXPECT_NE(replay.out.find("interleaving"), std::string::npos) << replay.out;
  EXPECT_NE(replay.out.find("stacks"), std::string::npos) << replay.out;  // file:line of accesses
  EXPECT_NE(replay.out.find("history: identical to the saved one"), std::string::npos);
  EXPECT_NE(replay.out.find("the violation REPRODUCES"), std::string::npos);

  // The same history rerun alone from its seed, with the campaign's k (a campaign of one
  // history from another seed learns another k from its pilot runs), reproduces it too.
  const std::string scheduler = summary["scheduler"];
  const std::size_t k_at = scheduler.find(" k=");
  ASSERT_NE(k_at, std::string::npos) << scheduler;
  const std::string k = scheduler.substr(k_at + 3, scheduler.find(' ', k_at + 3) - (k_at + 3));
  const RunResult again =
      run("detect --target treiber_stack_buggy --threads 2 --ops 6 --histories 1 --scheduler pct "
          "--json --k " +
          k + " --seed " + std::to_string(summary["first_failing_seed"].get<std::uint64_t>()));
  EXPECT_EQ(again.exit_code, 1) << again.out << again.err;
}

// --out keeps the failing runs of the lowest history indices up to --keep-runs, whatever order two
// workers find them in, and counts the rest.
TEST_F(DetectCliTest, KeepRunsBoundsTheSavedRunsToTheLowestIndices) {
  const fs::path all = dir_ / "all";
  const RunResult every =
      run("detect --target treiber_stack_buggy --threads 2 --ops 6 --histories 200 --jobs 2 "
          "--json --out '" +
          all.string() + "'");
  ASSERT_EQ(every.exit_code, 1) << every.out << every.err;
  const nlohmann::json whole = nlohmann::json::parse(every.out);
  const std::size_t failing = whole["saved"].size();
  ASSERT_GT(failing, 3u);

  const fs::path three = dir_ / "three";
  const RunResult kept =
      run("detect --target treiber_stack_buggy --threads 2 --ops 6 --histories 200 --jobs 2 "
          "--keep-runs 3 --out '" +
          three.string() + "'");
  ASSERT_EQ(kept.exit_code, 1) << kept.out << kept.err;
  std::vector<std::string> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(three)) {
    if (entry.path().filename() != "summary.json") files.push_back(entry.path().filename());
  }
  std::sort(files.begin(), files.end());
  std::vector<std::string> lowest;
  for (std::size_t i = 0; i < 3; ++i) lowest.push_back(fs::path(whole["saved"][i]).filename());
  std::sort(lowest.begin(), lowest.end());
  EXPECT_EQ(files, lowest);
  EXPECT_NE(kept.out.find("saved:              3 of " + std::to_string(failing) +
                          " failing runs (those of the lowest indices: --keep-runs 3)"),
            std::string::npos)
      << kept.out;
}

TEST_F(DetectCliTest, CorrectTargetExitsZeroWithAHumanSummary) {
  const RunResult r =
      run("detect --target treiber_stack --threads 2 --ops 5 --histories 30 --scheduler random");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("non-linearizable:   0/30"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("first failing seed: none"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ms per history"), std::string::npos) << r.out;
}

// A workload call that throws even alone after the setup would crash every run: it is the
// workload's fault, and refused, where it used to be counted as the object's crash in every
// history (exit 1). (No built-in object throws only under concurrency; a crash of a generated
// workload still fails the campaign: detect_command.cc.)
TEST_F(DetectCliTest, AWorkloadCallThatCrashesAloneIsRefusedNotCountedAsCrashes) {
  const std::string workload = write("cell.json", R"({"setup": [], "threads": [
      [{"method": "write", "args": [5, 1]}], [{"method": "readpair", "args": [0, 1]}]],
      "reveal": []})");  // pair_snapshot has cells 0 and 1: write(5, ...) throws
  const RunResult r =
      run("detect --target pair_snapshot --scheduler random --histories 3 "
          "--workload '" +
          workload + "' --json");
  EXPECT_EQ(r.exit_code, 64) << r.out << r.err;
  expect_one_line_error(r, workload + ": ",
                        "the workload calls write(5, 1), which fails on a fresh pair_snapshot "
                        "even alone after the setup (cell index 5 is out of range");
}

// A campaign bounded by time: a histories count it cannot reach, cut by --time-limit.
TEST_F(DetectCliTest, ATimeLimitEndsTheCampaignAndSaysSo) {
  const RunResult r =
      run("detect --target treiber_stack --histories 1000000000 --time-limit 1 --json");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const nlohmann::json summary = nlohmann::json::parse(r.out);
  EXPECT_TRUE(summary["time_limited"].get<bool>());
  EXPECT_GT(summary["done"].get<std::uint64_t>(), 0u);
  EXPECT_LT(summary["done"].get<std::uint64_t>(), 1000000000u);
  EXPECT_LT(summary["wall_seconds"].get<double>(), 10.0);
  const RunResult text =
      run("detect --target treiber_stack --histories 1000000000 --time-limit 0.5");
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("time limit:         0.5"), std::string::npos) << text.out;
  const RunResult sharded =
      run("detect --target treiber_stack --time-limit 1 --shard 0/2 --histories 10");
  EXPECT_EQ(sharded.exit_code, 64);
  expect_one_line_error(sharded, "--time-limit cannot be used with --shard", "");
}

// The partial-order, selectively uniform and window schedulers find the Treiber bug, their saved
// runs replay to the same violation, and they keep a correct stack clean.
TEST_F(DetectCliTest, PosSurwAndWindowFindTheTreiberBugAndReplayIt) {
  for (const std::string scheduler : {"pos", "surw", "window"}) {
    const fs::path runs = dir_ / ("runs-" + scheduler);
    const RunResult r =
        run("detect --target treiber_stack_buggy --threads 2 --ops 6 --histories 60 --scheduler " +
            scheduler + " --json --out '" + runs.string() + "'");
    ASSERT_EQ(r.exit_code, 1) << scheduler << r.out << r.err;
    const nlohmann::json summary = nlohmann::json::parse(r.out);
    EXPECT_GT(summary["violations"].get<int>(), 0) << scheduler;
    EXPECT_EQ(summary["scheduler"].get<std::string>().rfind(scheduler + " (", 0), 0u)
        << summary["scheduler"];
    const std::string first = summary["saved"][0];
    const nlohmann::json saved = nlohmann::json::parse(read_file(first));
    EXPECT_NE(saved.dump().find("\"" + scheduler + "\""), std::string::npos) << scheduler;
    const RunResult replay = run("replay '" + first + "'");
    EXPECT_EQ(replay.exit_code, 1) << replay.out << replay.err;
    EXPECT_NE(replay.out.find("the violation REPRODUCES"), std::string::npos) << replay.out;

    const RunResult control =
        run("detect --target treiber_stack --threads 2 --ops 6 "
            "--histories 60 --scheduler " +
            scheduler);
    EXPECT_EQ(control.exit_code, 0) << scheduler << control.out << control.err;
    EXPECT_NE(control.out.find("non-linearizable:   0/60"), std::string::npos) << control.out;
  }
}

// --window-pauses act keeps each operation's check-then-act window and no other: the window
// scheduler's runs record it, replay it, and stay clean on the correct stack.
TEST_F(DetectCliTest, WindowPausesChooseWhereOperationsPause) {
  const fs::path runs = dir_ / "runs-act";
  const RunResult r = run(
      "detect --target treiber_stack_buggy --threads 2 --ops 6 --histories 60 --scheduler window "
      "--window-pauses act --json --out '" +
      runs.string() + "'");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  const nlohmann::json summary = nlohmann::json::parse(r.out);
  EXPECT_GT(summary["violations"].get<int>(), 0);
  EXPECT_NE(summary["scheduler"].get<std::string>().find("only right before acts"),
            std::string::npos)
      << summary["scheduler"];
  const std::string first = summary["saved"][0];
  EXPECT_NE(read_file(first).find("windows=act"), std::string::npos);
  const RunResult replay = run("replay '" + first + "'");
  EXPECT_EQ(replay.exit_code, 1) << replay.out << replay.err;
  for (const std::string pauses : {"act", "inside"}) {
    const RunResult control =
        run("detect --target treiber_stack --threads 2 --ops 6 --histories 60 --scheduler window "
            "--window-pauses " +
            pauses);
    EXPECT_EQ(control.exit_code, 0) << pauses << control.out << control.err;
  }
  const RunResult pct = run("detect --target treiber_stack --scheduler pct --window-pauses act");
  EXPECT_EQ(pct.exit_code, 64) << pct.out << pct.err;
  expect_one_line_error(pct, "--window-pauses act applies to --scheduler window or portfolio",
                        "not pct");
  // Given explicitly, the default is refused with another scheduler too.
  const RunResult pct_inside =
      run("detect --target treiber_stack --scheduler pct --window-pauses inside");
  EXPECT_EQ(pct_inside.exit_code, 64) << pct_inside.out << pct_inside.err;

  // By default operations pause inside, and the saved runs say so; the mix, the default before,
  // is written as schedules without the parameter always were.
  const fs::path inside_runs = dir_ / "runs-default";
  const RunResult by_default =
      run("detect --target treiber_stack_buggy --threads 2 --ops 6 --histories 60 --scheduler "
          "window --json --out '" +
          inside_runs.string() + "'");
  ASSERT_EQ(by_default.exit_code, 1) << by_default.out << by_default.err;
  const nlohmann::json inside_summary = nlohmann::json::parse(by_default.out);
  EXPECT_EQ(inside_summary["scheduler"].get<std::string>().find("window (pauses"), 0u);
  EXPECT_NE(read_file(inside_summary["saved"][0].get<std::string>()).find("windows=inside"),
            std::string::npos);
  const RunResult mixed =
      run("detect --target treiber_stack_buggy --threads 2 --ops 6 --histories 60 --scheduler "
          "window --window-pauses mixed --json --out '" +
          (dir_ / "runs-mixed").string() + "'");
  ASSERT_EQ(mixed.exit_code, 1) << mixed.out << mixed.err;
  const nlohmann::json mixed_summary = nlohmann::json::parse(mixed.out);
  EXPECT_NE(mixed_summary["scheduler"].get<std::string>().find("before acts or inside"),
            std::string::npos)
      << mixed_summary["scheduler"];
  EXPECT_EQ(read_file(mixed_summary["saved"][0].get<std::string>()).find("windows="),
            std::string::npos);
}

TEST_F(DetectCliTest, UsageErrorsExit64WithOneLine) {
  RunResult r = run("detect --target no_such_target --histories 1");
  EXPECT_EQ(r.exit_code, 64);
  EXPECT_EQ(r.err.rfind("linfault: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("no_such_target"), std::string::npos) << r.err;

  r = run("detect --target treiber_stack --scheduler fastest");
  EXPECT_EQ(r.exit_code, 64);

  r = run("detect --target treiber_stack --scheduler native --heuristic --histories 1");
  EXPECT_EQ(r.exit_code, 64) << r.err;
  EXPECT_NE(r.err.find("--heuristic"), std::string::npos) << r.err;
}

TEST_F(DetectCliTest, RunsAFixedWorkloadAndRejectsBadOnes) {
  // pop || pop on a one-element stack, every history the same workload under a fresh schedule.
  const std::string workload = write("pop-pop.json", R"({"setup": [{"method": "push", "args": [1]}],
      "threads": [[{"method": "pop", "args": []}], [{"method": "pop", "args": []}]],
      "reveal": []})");
  const RunResult r =
      run("detect --target treiber_stack_buggy --scheduler random --histories 200 "
          "--workload '" +
          workload + "' --json");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  const nlohmann::json summary = nlohmann::json::parse(r.out);
  EXPECT_GT(summary["violations"].get<int>(), 0);
  EXPECT_LT(summary["violations"].get<int>(), 200);  // only some interleavings fail

  const std::string wrong =
      write("wrong.json", R"({"setup": [], "threads": [[{"method": "enq", "args": [1]}]],
                              "reveal": []})");
  const RunResult unknown = run("detect --target treiber_stack_buggy --workload '" + wrong + "'");
  EXPECT_EQ(unknown.exit_code, 64);
  expect_one_line_error(unknown, wrong + ": ",
                        "enq(1), which is not a method of target treiber_stack_buggy");
  const std::string arguments =
      write("arguments.json", R"({"setup": [], "threads": [[{"method": "push", "args": [1, 2]}]],
                                  "reveal": []})");
  const RunResult count = run("run --target treiber_stack_buggy --workload '" + arguments + "'");
  EXPECT_EQ(count.exit_code, 64);
  expect_one_line_error(count, arguments + ": ",
                        "push(1, 2), but treiber_stack_buggy's push takes 1 argument");

  const std::string idle =
      write("idle.json", R"({"setup": [], "threads": [[], []], "reveal": []})");
  const RunResult nothing = run("detect --target treiber_stack_buggy --workload '" + idle + "'");
  EXPECT_EQ(nothing.exit_code, 64);
  expect_one_line_error(nothing, idle + ": ", "the workload's concurrent threads make no calls");

  // A call the object refuses on its own (the list's sentinel key) would crash every run, and a
  // correct list would be reported as buggy.
  const std::string sentinel = write("sentinel.json", R"({"setup": [{"method": "add", "args": [1]}],
                           "threads": [[{"method": "add", "args": [9223372036854775807]}],
                                       [{"method": "contains", "args": [1]}]], "reveal": []})");
  const RunResult refused = run("run --target lf_list --workload '" + sentinel + "'");
  EXPECT_EQ(refused.exit_code, 64) << refused.out << refused.err;
  expect_one_line_error(refused, sentinel + ": ",
                        "the workload calls add(9223372036854775807), which fails on a fresh "
                        "lf_list even alone after the setup (key 9223372036854775807 is reserved");

  const std::string malformed = write("malformed.json", R"({"setup": [], "threads": 3})");
  const RunResult bad = run("detect --target treiber_stack_buggy --workload '" + malformed + "'");
  EXPECT_EQ(bad.exit_code, 65);
  expect_one_line_error(bad, malformed, "threads: expected an array of call lists");
}

// --isolate runs the histories in child processes: the same campaign, the same saved runs; run
// minimizes in a child too. A saved run lost with its process cannot be replayed.
TEST_F(DetectCliTest, IsolatedCampaignsFindTheSameAndRunStillMinimizes) {
  const std::string campaign =
      "detect --target treiber_stack_buggy --threads 2 --ops 6 --histories 60 --jobs 2 --json "
      "--out '";
  const RunResult plain = run(campaign + (dir_ / "plain").string() + "'");
  const RunResult isolated = run(campaign + (dir_ / "isolated").string() + "' --isolate");
  ASSERT_EQ(plain.exit_code, 1) << plain.err;
  ASSERT_EQ(isolated.exit_code, 1) << isolated.err;
  nlohmann::json a = nlohmann::json::parse(plain.out);
  nlohmann::json b = nlohmann::json::parse(isolated.out);
  for (const char* field : {"histories", "violations", "unknown", "first_failing_seed"}) {
    EXPECT_EQ(a[field], b[field]) << field;
  }
  ASSERT_EQ(a["saved"].size(), b["saved"].size());
  for (std::size_t i = 0; i < a["saved"].size(); ++i) {
    const std::string from = a["saved"][i];
    const std::string to = b["saved"][i];
    EXPECT_EQ(fs::path(from).filename(), fs::path(to).filename());
    EXPECT_EQ(nlohmann::json::parse(std::ifstream(from)), nlohmann::json::parse(std::ifstream(to)));
  }

  const RunResult minimized = run("run --target treiber_stack_buggy --seed 3 --isolate");
  EXPECT_EQ(minimized.exit_code, 1) << minimized.out << minimized.err;
  EXPECT_NE(minimized.out.find("\nminimized: "), std::string::npos) << minimized.out;

  nlohmann::json lost = nlohmann::json::parse(std::ifstream(a["saved"][0].get<std::string>()));
  lost["schedule"] = "lost |";
  lost["outcome"] = "crash";
  lost["message"] = "the process running this history died with SIGABRT (Aborted)";
  const fs::path lost_file = dir_ / "lost.json";
  std::ofstream(lost_file) << lost.dump();
  const RunResult replay = run("replay '" + lost_file.string() + "'");
  EXPECT_EQ(replay.exit_code, 64) << replay.err;
  EXPECT_NE(replay.err.find("died before its schedule was recorded"), std::string::npos)
      << replay.err;
}

TEST_F(DetectCliTest, ReplayRejectsMissingAndMalformedFiles) {
  RunResult r = run("replay '" + (dir_ / "missing.json").string() + "'");
  EXPECT_EQ(r.exit_code, 66) << r.err;

  const fs::path bad = dir_ / "bad.json";
  std::ofstream(bad) << "{\"linfault\": \"history\"}\n";
  r = run("replay '" + bad.string() + "'");
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_EQ(r.err.rfind("linfault: " + bad.string(), 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST_F(DetectCliTest, ReplayOfATamperedScheduleReportsDivergence) {
  const fs::path runs = dir_ / "runs";
  const RunResult r =
      run("detect --target treiber_stack_buggy --threads 2 --ops 6 --histories 40 --scheduler pct "
          "--json --out '" +
          runs.string() + "'");
  ASSERT_EQ(r.exit_code, 1) << r.err;
  const std::string first = nlohmann::json::parse(r.out)["saved"][0];
  nlohmann::json doc = nlohmann::json::parse(read_file(first));
  // An extra call in thread 0: the recorded decisions now meet other accesses.
  auto& threads = doc["workload"]["threads"];
  threads[0].insert(threads[0].begin(),
                    nlohmann::json{{"method", "pop"}, {"args", nlohmann::json::array()}});
  std::ofstream(first) << doc.dump();
  const RunResult replay = run("replay '" + first + "'");
  EXPECT_EQ(replay.exit_code, 65) << replay.out << replay.err;
  EXPECT_NE(replay.err.find("replay diverged"), std::string::npos) << replay.err;
}

}  // namespace
}  // namespace linfault::tests
