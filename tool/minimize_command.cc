// `linfault minimize FILE`: the smallest failing test case (Ps, Pc, Pr).
//   - FILE is a run saved by `linfault detect` or a target-level test case, or --target T is
//     given: target-level minimization, re-executing every candidate on the object
//     (minimize/target_minimizer.h);
//   - otherwise history-level minimization of the recorded history (the smallest failing
//     sub-history, with observed results; minimize/history_minimizer.h).

#include <algorithm>
#include <iostream>
#include <memory>

#include "detect/checker.h"
#include "history/json_format.h"
#include "minimize/history_minimizer.h"
#include "minimize/pipeline.h"
#include "minimize/target_minimizer.h"
#include "minimize/test_case.h"
#include "targets/serial_spec.h"
#include "tool/commands.h"
#include "tool/detection_options.h"
#include "tool/input.h"
#include "tool/limits.h"
#include "tool/progress.h"
#include "tool/test_case_output.h"
#include "tool/verdict_json.h"

namespace linfault::tool {
namespace {

struct MinimizeArguments {
  std::string file;
  std::string model;
  std::optional<std::string> init;  // --init
  std::string format = "auto";
  std::string target;
  double timeout_seconds = 60;
  bool json = false;
  TestCaseArguments test_case;
  std::string spec = "model";  // --spec model|serial
  std::string memory_model;    // --memory-model; empty: the run's, else the target's
};

std::string guarantee_of(const minimize::HistoryMinimization& m) {
  std::string checks = std::to_string(m.checks) + " linearizability checks";
  if (!m.one_minimal) return "not proven minimal (" + m.note + "); " + checks;
  if (m.strictly_one_minimal) {
    return "history-level, exact: non-linearizable, and removing any one operation makes it "
           "linearizable; " +
           checks;
  }
  return "history-level, exact: non-linearizable, and removing any one operation but the culprit "
         "makes it linearizable, changes its culprit or leaves an observed result with no "
         "possible source (see docs/minimization.md); " +
         checks;
}

// Target-level: the saved run's target, or --target for a history recorded some other way.
void minimize_on_target(const MinimizeArguments& args, const Input& input) {
  std::string target_name = args.target;
  if (target_name.empty()) {
    target_name = input.saved_run ? input.saved_run->target : *input.test_case->target;
  }
  // --spec serial: the target's own serial runs are the model, whatever the file implies.
  const std::string model =
      args.spec == "serial" ? targets::serial_spec_of(target_name) : input.model;
  const targets::Target& target = target_for_model(find_target(target_name), model);
  if (input.saved_run && input.saved_run->target != target.name) {
    throw UsageError(args.file + ": the run was saved from target " + input.saved_run->target +
                     ", not " + target.name);
  }
  if (input.test_case && input.test_case->target && *input.test_case->target != target.name) {
    throw UsageError(args.file + ": the test case is of target " + *input.test_case->target +
                     ", not " + target.name);
  }
  if (model != target.model) {
    throw UsageError(args.file + ": target " + target.name + " is checked against model " +
                     target.model + ", not " + model);
  }
  const bool outcome_failure = input.saved_run &&
                               input.saved_run->verdict.result != detect::Result::kViolation &&
                               input.saved_run->outcome != dpct::RunOutcome::kOk;
  if (!outcome_failure) {
    detect::CheckOptions check;
    check.timeout_seconds = seconds_left();
    check.stuck = input.saved_run && dpct::ended_stuck(input.saved_run->outcome);
    const detect::Verdict verdict = detect::check_history(model, input.loaded.history, check);
    if (verdict.result != detect::Result::kViolation) {
      set_phase(nullptr);
      if (args.json) {
        nlohmann::json out = verdict_to_json(verdict, input.loaded.history, false);
        out["file"] = args.file;
        std::cout << history::json_text(out) << std::endl;
      } else {
        std::cout << verdict_to_text(verdict, input.loaded.history, args.file, false)
                  << "nothing to minimize\n";
      }
      exit_with_verdict(verdict.result);
    }
  }
  minimize::TargetMinimizerOptions options = minimizer_options(args.test_case);
  options.timeout_seconds = seconds_left();
  options.check.timeout_seconds = std::min(options.check.timeout_seconds, seconds_left());
  options.step_estimator = minimize::tree_step_estimators();
  if (!args.memory_model.empty()) {
    options.memory_model = dpct::parse_memory_model(args.memory_model);
    if (input.saved_run && input.saved_run->schedule.scheduler != detect::kLostSchedule &&
        input.saved_run->schedule.memory_model != *options.memory_model) {
      throw UsageError(args.file + ": the run was saved under --memory-model " +
                       dpct::memory_model_name(input.saved_run->schedule.memory_model) + ", not " +
                       args.memory_model);
    }
  }
  ProgressLine progress;
  options.progress = [&progress](const std::string& line) { progress.note(line); };
  minimize::TargetMinimization m;
  try {
    m = input.saved_run ? minimize::minimize_saved_run(target, *input.saved_run, options)
                        : minimize::minimize_history_on_target(target, input.loaded.history,
                                                               std::nullopt, options);
  } catch (const minimize::FailureNotReproduced& e) {
    progress.finish();
    std::cerr << tool_name() << ": " << args.file << ": " << e.what() << std::endl;
    throw CLI::RuntimeError(kExitUnknown);
  } catch (const std::invalid_argument& e) {
    throw history::InputError(args.file, 0, e.what());
  }
  progress.finish();
  set_phase(nullptr);
  const std::string written = save_test_case_files(m, args.test_case);
  if (args.json) {
    nlohmann::json out = minimize::minimization_to_json(m, tool_name());
    out["file"] = args.file;
    std::cout << history::json_text(out) << std::endl;
  } else {
    std::cout << args.file << ": failing run of " << target.name << "\n";
    minimize::print_minimization(std::cout, m, args.test_case.compact);
    std::cout << written;
  }
  throw CLI::RuntimeError(kExitViolation);
}

void run_minimize(const MinimizeArguments& args) {
  // The minimizers stop at 85 % of the timeout: their last step re-checks the result.
  start_process_limits({args.timeout_seconds, 0, args.file, args.json, 0.85});
  set_phase("reading the input");
  const Input input = load_input(args.file, args.format, args.model, args.init);
  set_phase("minimizing");
  if (input.saved_run || !args.target.empty() || (input.test_case && input.test_case->target)) {
    minimize_on_target(args, input);
  }
  if (args.spec == "serial") {
    throw UsageError(
        "--spec serial needs a target whose serial runs are the specification: give --target T "
        "or a run saved by `linfault detect`");
  }
  if (!args.test_case.gtest.empty()) {
    throw UsageError(
        "--gtest needs a target to re-execute: give --target T or a run saved by "
        "`linfault detect`");
  }
  const history::History& h = input.loaded.history;
  minimize::HistoryMinimizerOptions options;
  options.timeout_seconds = seconds_left();
  const minimize::HistoryMinimization m = minimize::minimize_history(input.model, h, options);
  set_phase(nullptr);

  if (m.original.result != detect::Result::kViolation) {
    if (args.json) {
      nlohmann::json out = verdict_to_json(m.original, h, false);
      out["file"] = args.file;
      std::cout << history::json_text(out) << std::endl;
    } else {
      std::cout << verdict_to_text(m.original, h, args.file, false)
                << "nothing to minimize: " << m.note << "\n";
    }
    exit_with_verdict(m.original.result);  // linearizable or unknown
  }
  minimize::TestCase tc = minimize::test_case_from_history(input.model, m.minimal, m.culprit);
  tc.guarantee = guarantee_of(m);
  tc.tool = tool_name();
  std::string written;
  if (!args.test_case.save.empty()) {
    try {
      minimize::write_test_case(tc, args.test_case.save);
    } catch (const std::runtime_error& e) {
      throw UsageError(std::string("--save ") + e.what());
    }
    written = "test case written to " + args.test_case.save + " (check it with `" + tool_name() +
              " check " + args.test_case.save + "`)\n";
  }
  if (args.json) {
    // The figures go in "minimization", which test-case readers ignore: the output reads back as
    // a test case, as the target-level one does.
    nlohmann::json out = minimize::test_case_to_json(tc);
    out["minimization"] = {{"file", args.file},
                           {"original_operations", h.size()},
                           {"prefix_events", m.original.prefix_events},
                           {"kept", m.kept},
                           {"one_minimal", m.one_minimal},
                           {"strictly_one_minimal", m.strictly_one_minimal},
                           {"checks", m.checks},
                           {"elapsed_ms", m.elapsed_ms}};
    std::cout << history::json_text(out) << std::endl;
  } else {
    std::cout << args.file << ": not linearizable; " << h.size() << " operations -> "
              << m.minimal.size() << " in " << m.elapsed_ms << " ms\n"
              << minimize::test_case_to_text(tc) << "operations kept (input indices, lines):";
    for (history::OpIndex i : m.kept) {
      std::cout << " #" << i;
      if (h.op(i).source.call_line) std::cout << "@" << h.op(i).source.call_line;
    }
    std::cout << "\n" << written;
  }
  throw CLI::RuntimeError(kExitViolation);
}

}  // namespace

void add_minimize_command(CLI::App& app) {
  auto args = std::make_shared<MinimizeArguments>();
  CLI::App* cmd = app.add_subcommand(
      "minimize", "Shrink a non-linearizable history to a minimal failing test case.");
  cmd->add_option("file", args->file, "History file (`-` reads standard input)")->required();
  cmd->add_option(
      "-m,--model", args->model,
      "Sequential model: " + model_name_list() + " (default: the model the file implies)");
  add_init_option(*cmd, args->init);
  cmd->add_option("-f,--format", args->format, "Input format (default: auto, by content)");
  cmd->add_option("--target", args->target,
                  "Re-execute every candidate on this target (implied for a saved run or a "
                  "target-level test case); without it a history is minimized at the history "
                  "level");
  add_spec_option(*cmd, args->spec);
  add_memory_model_options(*cmd, args->memory_model, nullptr);
  cmd->add_option("-t,--timeout", args->timeout_seconds,
                  "Stop after S seconds, the whole run included, with the smallest failing test "
                  "case found so far (reported as not proven minimal)")
      ->check(positive())
      ->option_text("S");
  cmd->add_flag("--json", args->json, "Print the test case as one JSON object");
  add_test_case_options(*cmd, args->test_case, /*timeout_option=*/false);
  cmd->footer(
      "Examples:\n"
      "  linfault minimize runs/treiber_stack_buggy-3.json       (a run saved by detect --out)\n"
      "  linfault minimize examples/stack-pop-pop.edn --model stack\n"
      "  linfault minimize ../shared/data/porcupine/jepsen/etcd_000.log --json\n"
      "Exit codes: 1 a failing test case was produced, 0 the history is linearizable,\n"
      "2 unknown (limit hit), 64/65/66/70 errors.");
  cmd->callback([args] { run_minimize(*args); });
}

}  // namespace linfault::tool
