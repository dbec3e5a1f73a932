// `linfault replay FILE`: re-executes a target-level test case (docs/formats.md, "Test cases") or
// a failing run saved by `linfault detect --out` under its recorded schedule (strict replay),
// prints the interleaving step by step (minimize/interleaving.h) and the verdict.

#include <sys/ioctl.h>
#include <unistd.h>

#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "detect/checker.h"
#include "detect/driver.h"
#include "detect/saved_run.h"
#include "dpct/replay_scheduler.h"
#include "history/atomic_file.h"
#include "history/formats.h"
#include "history/json_format.h"
#include "minimize/gtest_emitter.h"
#include "minimize/interleaving.h"
#include "minimize/test_case.h"
#include "targets/registry.h"
#include "tool/commands.h"
#include "tool/test_case_output.h"

namespace linfault::tool {
namespace {

struct ReplayArguments {
  std::string file;
  double timeout_seconds = 0;
  bool quiet = false;
  bool compact = false;
  bool json = false;
  std::string gtest;
};

// What a replay found, whatever the input was.
struct ReplayOutcome {
  std::string kind;  // "test-case" or "saved-run"
  std::optional<dpct::Run> run;
  detect::Verdict verdict;
  bool reproduced = false;
  bool expected_failure = true;  // the input says the run failed
  std::optional<bool> same_history;
  std::string violation;  // what the input says failed
};

// The columns of the terminal standard output goes to; 0 when it is not a terminal.
std::size_t terminal_width() {
  winsize size{};
  if (::isatty(STDOUT_FILENO) == 0 || ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) != 0) return 0;
  return size.ws_col;
}

// "schedule divergence: decision 7 (step 9): ..." -> "replay diverged at decision 7 (step 9): ...".
[[noreturn]] void report_divergence(const std::string& file, const dpct::ScheduleDivergence& e) {
  std::string detail = e.what();
  const std::string prefix = "schedule divergence: ";
  if (detail.rfind(prefix, 0) == 0) detail.erase(0, prefix.size());
  const std::string problem = detail.rfind("decision ", 0) == 0 ? "replay diverged at " + detail
                                                                : "replay diverged: " + detail;
  throw history::InputError(file, 0, problem);
}

void print_history(std::ostream& out, const history::History& history) {
  out << "history (" << history.size() << " operations, by invocation):\n";
  for (std::size_t i = 0; i < history.size(); ++i) {
    out << "  [" << i << "] " << history.op(static_cast<history::OpIndex>(i)).to_string() << "\n";
  }
}

void print_verdict(std::ostream& out, const detect::Verdict& verdict,
                   const history::History& history) {
  out << "verdict: " << detect::result_name(verdict.result);
  if (verdict.result == detect::Result::kViolation) {
    out << " (shortest non-linearizable prefix: " << verdict.prefix_events << " events, culprit ["
        << verdict.culprit << "] " << history.op(verdict.culprit).to_string() << ")";
  } else if (verdict.result == detect::Result::kUnknown) {
    out << " (" << verdict.reason << ")";
  }
  out << "\n";
}

void print_run(std::ostream& out, const ReplayArguments& args, const dpct::Workload& workload,
               const dpct::Run& run, const detect::Verdict& verdict) {
  out << "schedule: " << run.schedule.to_text() << "\n";
  if (!args.quiet) {
    minimize::InterleavingOptions options;
    if (verdict.result == detect::Result::kViolation) options.culprit = verdict.culprit;
    if (verdict.unsynchronized) options.source = verdict.source;
    options.compact = args.compact;
    options.max_width = terminal_width();
    out << minimize::format_interleaving(workload, run, options);
    print_history(out, run.history);
  }
  out << "outcome: " << dpct::run_outcome_name(run.outcome);
  if (!run.message.empty()) out << " (" << run.message << ")";
  out << "\n";
}

// `stuck`: the run deadlocked or livelocked (CheckOptions::stuck).
detect::Verdict check(const std::string& model, const history::History& history,
                      double timeout_seconds, bool stuck) {
  detect::CheckOptions options;
  options.timeout_seconds = timeout_seconds;
  options.want_witness = false;
  options.stuck = stuck;
  return detect::check_history(model, history, options);
}

void write_gtest(const ReplayArguments& args, const minimize::TestCase& test_case,
                 std::ostream& out) {
  if (args.gtest.empty()) return;
  const std::string text = minimize::emit_gtest(test_case);
  try {
    history::write_file_atomically(args.gtest, text);
  } catch (const std::runtime_error& e) {
    throw UsageError("--gtest " + std::string(e.what()));
  }
  out << gtest_written(args.gtest, test_case.target.value_or(""));
}

ReplayOutcome replay_test_case(const ReplayArguments& args, const nlohmann::json& doc,
                               std::ostringstream& out) {
  const minimize::TestCase tc = minimize::test_case_from_json(doc, args.file);
  if (!tc.target) {
    throw history::InputError(args.file, 0,
                              "a history-level test case has no target to re-execute (check its "
                              "history with `linfault check`)");
  }
  if (!tc.schedule) {
    throw history::InputError(args.file, 0, "the test case has no schedule to replay");
  }
  const targets::Target& target =
      target_for_model(find_target(*tc.target, args.file, tc.tool), tc.model);
  const dpct::Workload workload = minimize::workload_of(tc);
  check_runnable(target, tc.model, workload, args.file);
  out << "test case: " << minimize::test_case_to_text(tc);

  dpct::ReplayScheduler scheduler(dpct::Schedule::from_text(*tc.schedule),
                                  dpct::ReplayMode::kStrict);
  dpct::ExecutionOptions execution;
  execution.record_trace = true;
  execution.max_steps = tc.max_steps;
  execution.origin = args.file;
  ReplayOutcome result;
  result.kind = "test-case";
  result.violation = tc.violation;
  try {
    result.run = dpct::execute(target.factory, workload, scheduler, execution);
  } catch (const dpct::ScheduleDivergence& e) {
    std::cout << out.str() << std::flush;
    report_divergence(args.file, e);
  }
  result.verdict = check(tc.model, result.run->history, args.timeout_seconds,
                         dpct::ended_stuck(result.run->outcome));
  print_run(out, args, workload, *result.run, result.verdict);
  if (!tc.history.empty()) {
    result.same_history = result.run->history == tc.history;
    out << (*result.same_history ? "history: identical to the test case's\n"
                                 : "history: DIFFERS from the test case's (the object is not "
                                   "deterministic under a fixed schedule?)\n");
  }
  write_gtest(args, tc, out);
  return result;
}

ReplayOutcome replay_saved_run(const ReplayArguments& args, const nlohmann::json& doc,
                               std::ostringstream& out) {
  const detect::SavedRun saved = detect::saved_run_from_json(doc, args.file);
  const targets::Target& target =
      target_for_model(find_target(saved.target, args.file), saved.model);
  check_runnable(target, saved.model, saved.workload, args.file);
  out << "saved run: " << saved.target << " seed " << saved.seed << ", "
      << saved.scheduling.description << ", outcome " << dpct::run_outcome_name(saved.outcome)
      << ", verdict " << detect::result_name(saved.verdict.result) << "\n";
  ReplayOutcome result;
  result.kind = "saved-run";
  result.expected_failure =
      saved.verdict.result == detect::Result::kViolation || saved.outcome != dpct::RunOutcome::kOk;

  if (saved.scheduling.kind == detect::scheduler_kind_name(detect::SchedulerKind::kNative)) {
    if (!args.gtest.empty()) {
      throw UsageError("--gtest: a native run has no schedule to replay, so no GoogleTest file");
    }
    out << "native run: it has no schedule to replay; re-checking its recorded history\n";
    result.verdict = check(saved.model, saved.history, args.timeout_seconds, /*stuck=*/false);
    if (!args.quiet) print_history(out, saved.history);
    return result;
  }

  if (saved.schedule.scheduler == detect::kLostSchedule) {
    throw UsageError(args.file +
                     ": the process that ran this history died before its schedule was recorded "
                     "(detect --isolate), so it cannot be replayed: " +
                     saved.message);
  }
  detect::ReplayResult replay;
  try {
    replay = detect::replay_saved_run(saved, target, /*record_trace=*/true, args.timeout_seconds);
  } catch (const dpct::ScheduleDivergence& e) {
    std::cout << out.str() << std::flush;
    report_divergence(args.file, e);
  }
  result.run = replay.run;
  result.verdict = replay.verdict;
  result.same_history = replay.same_history;
  print_run(out, args, saved.workload, replay.run, replay.verdict);
  out << (replay.same_history ? "history: identical to the saved one\n"
                              : "history: DIFFERS from the saved one (the object is not "
                                "deterministic under a fixed schedule?)\n");
  if (!args.gtest.empty()) {
    const std::uint64_t max_steps = saved.scheduling.max_steps > 0
                                        ? saved.scheduling.max_steps
                                        : dpct::ExecutionOptions{}.max_steps;
    write_gtest(args,
                minimize::test_case_from_run(saved.target, saved.model, saved.workload, replay.run,
                                             replay.verdict, max_steps,
                                             "the failing run saved by `linfault detect` (seed " +
                                                 std::to_string(saved.seed) + "), not minimized"),
                out);
  }
  return result;
}

nlohmann::json outcome_to_json(const ReplayOutcome& r) {
  nlohmann::json out = {{"linfault", "replay"},
                        {"input", r.kind},
                        {"reproduced", r.reproduced},
                        {"verdict", detect::result_name(r.verdict.result)},
                        {"violation", r.violation}};
  out["outcome"] = r.run ? nlohmann::json(dpct::run_outcome_name(r.run->outcome)) : nullptr;
  out["same_history"] = r.same_history ? nlohmann::json(*r.same_history) : nullptr;
  if (r.verdict.result == detect::Result::kViolation && r.run) {
    out["culprit"] = r.run->history.op(r.verdict.culprit).to_string();
  }
  out["accesses"] = r.run ? r.run->trace.size() : 0;
  return out;
}

void run_replay(const ReplayArguments& args) {
  const nlohmann::json doc = history::read_json_file(args.file);
  const bool test_case = minimize::is_test_case_document(doc);
  if (!test_case && !history::is_document_kind(doc, "saved-run")) {
    throw history::InputError(args.file, 0,
                              "not a test case or a saved run (expected \"linfault\": "
                              "\"test-case\" or \"saved-run\")");
  }

  std::ostringstream out;
  ReplayOutcome result =
      test_case ? replay_test_case(args, doc, out) : replay_saved_run(args, doc, out);
  const bool failed_again = result.run && result.run->outcome != dpct::RunOutcome::kOk;
  result.reproduced = result.verdict.result == detect::Result::kViolation || failed_again;
  if (result.run) {
    print_verdict(out, result.verdict, result.run->history);
  } else {
    print_verdict(out, result.verdict,
                  doc.is_object() && doc.contains("history")
                      ? history::history_from_json(doc["history"], args.file)
                      : history::History());
  }
  if (result.reproduced) {
    const bool violation = result.verdict.result == detect::Result::kViolation;
    out << (violation ? "the violation REPRODUCES" : "the failure REPRODUCES")
        << (result.violation.empty() ? "" : ": " + result.violation) << "\n";
  } else if (result.expected_failure) {
    out << "*** THE VIOLATION DID NOT REPRODUCE ***"
        << (result.violation.empty() ? "" : " (expected: " + result.violation + ")") << "\n";
  }
  if (args.json) {
    std::cout << history::json_text(outcome_to_json(result), 2) << "\n" << std::flush;
  } else {
    std::cout << out.str() << std::flush;
  }
  throw CLI::RuntimeError(result.reproduced ? kExitViolation : kExitSuccess);
}

}  // namespace

void add_replay_command(CLI::App& app) {
  auto args = std::make_shared<ReplayArguments>();
  CLI::App* replay = app.add_subcommand(
      "replay",
      "Re-execute a test case or a failing run saved by `linfault detect --out` exactly, and "
      "print its interleaving step by step.");
  replay->add_option("file", args->file, "A test case or a saved run (JSON, docs/formats.md)")
      ->required();
  replay->add_option("--timeout", args->timeout_seconds, "Seconds for the check (0: none)")
      ->capture_default_str();
  replay->add_flag("-q,--quiet", args->quiet, "Print the verdict only, not the interleaving");
  replay->add_flag("--compact", args->compact,
                   "One line per access instead of one column per thread (the default when the "
                   "columns do not fit the terminal)");
  replay->add_flag("--json", args->json, "Print one JSON object with the replay's result");
  replay->add_option("--gtest", args->gtest,
                     "Also write a standalone GoogleTest file that replays this run and fails on "
                     "the violation");
  replay->footer(
      "Examples:\n"
      "  linfault replay tc.json                  # a test case saved by `minimize`/`run --save`\n"
      "  linfault replay out/treiber_stack_buggy-17.json --compact\n"
      "  linfault replay tc.json --gtest treiber_repro_test.cc\n"
      "Exit codes: 1 the failure reproduces, 0 it does not (said loudly), 65 the replay diverged\n"
      "from the recorded schedule (\"FILE: replay diverged at decision N: ...\"), the file is not\n"
      "a test case or saved run, or the test case is history-level (no target to re-execute),\n"
      "66 the file cannot be opened.");
  replay->callback([args] { run_replay(*args); });
}

}  // namespace linfault::tool
