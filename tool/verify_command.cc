// `linfault verify FILES|DIR...`: does each saved test case or saved run still fail on this
// build? Each input is checked the way a generated repro checks its test case
// (minimize::verify_test_case): its recorded schedule replayed (leniently, so a line shift does
// not matter), then, unless that failed, every interleaving of its concurrent part within a
// budget. Prints one line per input, writes DIR/summary.json with --out, and takes --shard i/N
// over the inputs (sorted by path), whose summaries `linfault merge` combines. With --target
// instead of inputs, bounded verification of a target (tool/bounded_verify_command.h).

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "detect/driver.h"
#include "detect/saved_run.h"
#include "history/formats.h"
#include "history/json_format.h"
#include "minimize/pipeline.h"
#include "minimize/test_case.h"
#include "tool/bounded_verify_command.h"
#include "tool/campaign.h"
#include "tool/commands.h"

namespace linfault::tool {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct VerifyArguments {
  std::vector<std::string> inputs;
  std::string out;
  std::string shard;
  double timeout_seconds = 10;
  std::uint64_t max_executions = 20'000;
};

constexpr std::chrono::seconds kSummaryInterval{2};

// Files as given, and the *.json files of directories (not their subdirectories; hidden files
// and summary.json skipped), sorted by path without duplicates.
std::vector<std::string> collect_inputs(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    std::error_code error;
    if (!fs::is_directory(path, error)) {
      if (!fs::exists(path, error)) throw history::OpenError(path, 0, "cannot open");
      files.push_back(path);
      continue;
    }
    for (const fs::directory_entry& entry : fs::directory_iterator(path)) {
      const std::string name = entry.path().filename().string();
      if (name.empty() || name[0] == '.' || name == kSummaryFile) continue;
      if (entry.path().extension() != ".json" || !entry.is_regular_file()) continue;
      files.push_back(entry.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

// One input's entry in the summary: deterministic for a given build.
json verify_one(const std::string& file, const minimize::ReproOptions& options) {
  const json doc = history::read_json_file(file);
  json entry = {{"file", file}};
  minimize::ReproVerdict verdict;
  if (minimize::is_test_case_document(doc)) {
    const minimize::TestCase tc = minimize::test_case_from_json(doc, file);
    if (!tc.target) {
      throw history::InputError(file, 0,
                                "a history-level test case has no target to re-execute (check "
                                "its history with `linfault check`)");
    }
    if (!tc.schedule) throw history::InputError(file, 0, "the test case has no schedule");
    const targets::Target& target =
        target_for_model(find_target(*tc.target, file, tc.tool), tc.model);
    const dpct::Workload workload = minimize::workload_of(tc);
    check_runnable(target, tc.model, workload, file);
    entry["input"] = "test-case";
    entry["target"] = target.name;
    verdict = minimize::verify_test_case(target, workload, *tc.schedule, tc.max_steps, options);
  } else if (history::is_document_kind(doc, "saved-run")) {
    const detect::SavedRun saved = detect::saved_run_from_json(doc, file);
    const targets::Target& target = target_for_model(find_target(saved.target, file), saved.model);
    check_runnable(target, saved.model, saved.workload, file);
    entry["input"] = "saved-run";
    entry["target"] = target.name;
    if (saved.scheduling.kind == detect::scheduler_kind_name(detect::SchedulerKind::kNative)) {
      entry["status"] = "not-replayable";
      entry["summary"] = "a native run has no schedule to re-execute";
      return entry;
    }
    const std::uint64_t max_steps = saved.scheduling.max_steps > 0
                                        ? saved.scheduling.max_steps
                                        : dpct::ExecutionOptions{}.max_steps;
    verdict = minimize::verify_test_case(target, saved.workload, saved.schedule.to_text(),
                                         max_steps, options);
  } else {
    throw history::InputError(file, 0,
                              "not a test case or a saved run (expected \"linfault\": "
                              "\"test-case\" or \"saved-run\")");
  }
  entry["status"] = verdict.failed ? "fails" : "passes";
  entry["replay_exact"] = verdict.replay_exact;
  entry["summary"] = verdict.summary;
  return entry;
}

json verify_summary_json(const json& campaign, const Shard& shard, const std::vector<json>& results,
                         bool complete) {
  json counts = {{"fails", 0}, {"passes", 0}, {"not-replayable", 0}};
  for (const json& result : results) {
    counts[result["status"].get<std::string>()] =
        counts[result["status"].get<std::string>()].get<std::uint64_t>() + 1;
  }
  return {{"linfault", "verify-summary"},
          {"version", kSummaryVersion},
          {"campaign", campaign},
          {"shard", shard.to_json()},
          {"complete", complete},
          {"checked", results.size()},
          {"counts", counts},
          {"results", results}};
}

void run_verify(const VerifyArguments& args) {
  const Shard shard = args.shard.empty() ? Shard{} : parse_shard(args.shard);
  const std::vector<std::string> inputs = collect_inputs(args.inputs);
  if (inputs.empty()) throw UsageError("no inputs: the directories hold no *.json files");
  if (!args.out.empty()) prepare_output_directory(args.out, "--out");
  minimize::ReproOptions options;
  options.max_executions = args.max_executions;
  options.check_timeout_seconds = args.timeout_seconds;
  const json campaign = {{"inputs", inputs},
                         {"max_executions", args.max_executions},
                         {"timeout", args.timeout_seconds}};

  using Clock = std::chrono::steady_clock;
  Clock::time_point last_summary = Clock::now();
  std::vector<json> results;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!shard.selects(i)) continue;
    results.push_back(verify_one(inputs[i], options));
    const json& r = results.back();
    std::cout << (r["status"] == "fails"    ? "FAILS   "
                  : r["status"] == "passes" ? "passes  "
                                            : "skipped ")
              << inputs[i] << ": " << r["summary"].get<std::string>() << "\n"
              << std::flush;
    if (!args.out.empty() && Clock::now() - last_summary >= kSummaryInterval) {
      write_summary(args.out, verify_summary_json(campaign, shard, results, /*complete=*/false));
      last_summary = Clock::now();
    }
  }
  const json summary = verify_summary_json(campaign, shard, results, /*complete=*/true);
  if (!args.out.empty()) write_summary(args.out, summary);
  const json& counts = summary["counts"];
  std::cout << counts["fails"] << " still fail, " << counts["passes"] << " pass, "
            << counts["not-replayable"] << " not replayable, of " << results.size()
            << (shard.whole() ? ""
                              : " (shard " + shard.text() + " of " + std::to_string(inputs.size()) +
                                    " inputs)")
            << "\n";
  throw CLI::RuntimeError(counts["fails"].get<std::uint64_t>() > 0 ? kExitViolation : kExitSuccess);
}

}  // namespace

void add_verify_command(CLI::App& app) {
  auto args = std::make_shared<VerifyArguments>();
  auto bounded = std::make_shared<BoundedVerifyArguments>();
  CLI::App* verify = app.add_subcommand(
      "verify",
      "Check that saved test cases and saved runs still fail on this build (as their repros "
      "would): replay each recorded schedule, then explore its concurrent part.");
  verify->add_option("inputs", args->inputs,
                     "Test cases and saved runs (JSON), or directories of them (their *.json)");
  verify->add_option("-o,--out", args->out,
                     "Write DIR/summary.json: one result per input (rewritten every 2 s and at "
                     "the end, atomically)");
  add_shard_option(*verify, args->shard, "inputs (sorted by path)");
  std::vector<CLI::Option*> file_only = {
      verify->get_option("--shard"),
      verify
          ->add_option("--max-executions", args->max_executions,
                       "Budget of the exploration of each input's interleavings")
          ->capture_default_str()
          ->check(positive())};
  CLI::Option* timeout =
      verify
          ->add_option("--timeout", args->timeout_seconds,
                       "Seconds per history check (0: none); with --target, seconds for the "
                       "whole verification, whose verdict is then inconclusive (exit 2)")
          ->capture_default_str();
  const std::vector<CLI::Option*> target_only = add_bounded_verify_options(*verify, *bounded);
  verify->footer(
      "Exit codes: 1 an input still fails, 0 none does (every bug fixed), 64 usage error,\n"
      "65 an input is not a test case or saved run, 66 an input cannot be opened.\n"
      "With --target: 0 linearizable in every workload of the bound, 1 a counterexample\n"
      "(minimized; --out DIR writes DIR/testcase.json and a GoogleTest repro), 2 inconclusive\n"
      "(--timeout). Workloads that differ by a permutation of the threads are explored once.\n"
      "Examples:\n"
      "  linfault verify runs/                  # the runs `detect --out runs` saved\n"
      "  linfault verify repro/testcase.json\n"
      "  linfault verify runs/ --shard 0/2 --out verify-0   (then `linfault merge`)\n"
      "  linfault verify --target treiber_stack --threads 2 --ops 2\n"
      "  linfault verify --target lf_list --ops 3 --values 1 --preemptions 1 --json\n"
      "  linfault verify --target treiber_stack_buggy --out repro");
  verify->callback([args, bounded, file_only, target_only, timeout] {
    const auto given = [](const std::vector<CLI::Option*>& options) -> const CLI::Option* {
      for (const CLI::Option* option : options) {
        if (option->count() > 0) return option;
      }
      return nullptr;
    };
    if (bounded->target.empty()) {
      if (args->inputs.empty())
        throw UsageError("verify: give test cases or saved runs, or --target");
      if (const CLI::Option* option = given(target_only)) {
        throw UsageError(option->get_name() + " needs --target (it does not apply to inputs)");
      }
      run_verify(*args);
      return;
    }
    if (!args->inputs.empty()) {
      throw UsageError("verify: give either inputs or --target, not both");
    }
    if (const CLI::Option* option = given(file_only)) {
      throw UsageError(option->get_name() + " applies to inputs, not to --target");
    }
    run_bounded_verify(*bounded, timeout->count() > 0 ? args->timeout_seconds : 0, args->out);
  });
}

}  // namespace linfault::tool
