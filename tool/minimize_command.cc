// `linfault minimize FILE`: the smallest failing sub-history of a recorded history, as a test
// case (Ps, Pc, Pr) with observed results (history-level minimization, minimize/).

#include <iostream>
#include <memory>

#include "minimize/history_minimizer.h"
#include "minimize/test_case.h"
#include "tool/commands.h"
#include "tool/input.h"
#include "tool/verdict_json.h"

namespace linfault::tool {
namespace {

struct MinimizeArguments {
  std::string file;
  std::string model;
  std::string format = "auto";
  std::string target;
  double timeout_seconds = 60;
  bool json = false;
};

std::string guarantee_of(const minimize::HistoryMinimization& m) {
  std::string checks = std::to_string(m.checks) + " linearizability checks";
  if (!m.one_minimal) return "not proven minimal (" + m.note + "); " + checks;
  if (m.strictly_one_minimal) {
    return "history-level, exact: non-linearizable, and removing any one operation makes it "
           "linearizable; " +
           checks;
  }
  return "history-level, exact: non-linearizable, and removing any one operation makes it "
         "linearizable or leaves an observed result with no possible source (see "
         "docs/minimization.md); " +
         checks;
}

void run_minimize(const MinimizeArguments& args) {
  if (!args.target.empty()) {
    throw UsageError(
        "minimize --target (re-executing the test case on the object under dpct) is not built "
        "yet; without --target, minimize works on the recorded history alone");
  }
  const Input input = load_input(args.file, args.format, args.model);
  const history::History& h = input.loaded.history;
  minimize::HistoryMinimizerOptions options;
  options.timeout_seconds = args.timeout_seconds;
  const minimize::HistoryMinimization m = minimize::minimize_history(input.model, h, options);

  if (m.original.result != detect::Result::kViolation) {
    if (args.json) {
      nlohmann::json out = verdict_to_json(m.original, h, false);
      out["file"] = args.file;
      std::cout << out.dump() << std::endl;
    } else {
      std::cout << verdict_to_text(m.original, h, args.file, false)
                << "nothing to minimize: " << m.note << "\n";
    }
    exit_with_verdict(m.original.result);  // linearizable or unknown
  }
  minimize::TestCase tc = minimize::test_case_from_history(input.model, m.minimal, m.culprit);
  tc.guarantee = guarantee_of(m);
  if (args.json) {
    nlohmann::json out = minimize::test_case_to_json(tc);
    out["file"] = args.file;
    out["original_operations"] = h.size();
    out["prefix_events"] = m.original.prefix_events;
    out["kept"] = m.kept;
    out["one_minimal"] = m.one_minimal;
    out["strictly_one_minimal"] = m.strictly_one_minimal;
    out["checks"] = m.checks;
    out["elapsed_ms"] = m.elapsed_ms;
    std::cout << out.dump() << std::endl;
  } else {
    std::cout << args.file << ": not linearizable; " << h.size() << " operations -> "
              << m.minimal.size() << " in " << m.elapsed_ms << " ms\n"
              << minimize::test_case_to_text(tc) << "operations kept (input indices, lines):";
    for (history::OpIndex i : m.kept) {
      std::cout << " #" << i;
      if (h.op(i).source.call_line) std::cout << "@" << h.op(i).source.call_line;
    }
    std::cout << "\n";
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
  cmd->add_option("-f,--format", args->format, "Input format (default: auto, by content)");
  cmd->add_option("--target", args->target,
                  "Re-execute on this target (not built yet: history-level only for now)");
  cmd->add_option("-t,--timeout", args->timeout_seconds,
                  "Stop after S seconds with the smallest failing sub-history found so far "
                  "(reported as not proven minimal)")
      ->check(CLI::PositiveNumber)
      ->option_text("S");
  cmd->add_flag("--json", args->json, "Print the test case as one JSON object");
  cmd->footer(
      "Examples:\n"
      "  linfault minimize examples/stack-pop-pop.edn --model stack\n"
      "  linfault minimize ../shared/data/porcupine/jepsen/etcd_000.log --json\n"
      "Exit codes: 1 a failing test case was produced, 0 the history is linearizable,\n"
      "2 unknown (limit hit), 64/65/66/70 errors.");
  cmd->callback([args] { run_minimize(*args); });
}

}  // namespace linfault::tool
