// `linfault localize FILE`: the shortest non-linearizable prefix of a history and the witnesses
// of its linearizable prefixes (OpOrder), from one search.

#include <iostream>
#include <memory>

#include "history/json_format.h"
#include "localize/localize.h"
#include "tool/commands.h"
#include "tool/input.h"
#include "tool/limits.h"
#include "tool/verdict_json.h"

namespace linfault::tool {
namespace {

struct LocalizeArguments {
  std::string file;
  std::string model;
  std::optional<std::string> init;  // --init
  std::string format = "auto";
  double timeout_seconds = 0;
  bool json = false;
};

nlohmann::json order_to_json(const history::History& h,
                             const std::vector<history::OpIndex>& order) {
  nlohmann::json out = nlohmann::json::array();
  for (history::OpIndex i : order) out.push_back(operation_to_json(h, i));
  return out;
}

void run_localize(const LocalizeArguments& args) {
  start_process_limits({args.timeout_seconds, 0, args.file, args.json});
  set_phase("reading the input");
  const Input input = load_input(args.file, args.format, args.model, args.init);
  const history::History& h = input.loaded.history;
  set_phase("localizing");
  detect::CheckOptions options;
  options.timeout_seconds = seconds_left();
  const localize::Localization loc = localize::localize(input.model, h, options);
  set_phase(nullptr);
  const bool violation = loc.verdict.result == detect::Result::kViolation;

  if (args.json) {
    nlohmann::json out = verdict_to_json(loc.verdict, h, false);
    out["linfault"] = "localization";
    out["file"] = args.file;
    if (violation) {
      nlohmann::json op_order = nlohmann::json::array();
      for (const localize::Witness& w : loc.op_order) {
        op_order.push_back({{"prefix_events", w.prefix_events},
                            {"operations", w.order.size()},
                            {"order", order_to_json(h, w.order)}});
      }
      out["op_order"] = op_order;
    }
    std::cout << history::json_text(out) << std::endl;
  } else if (!violation) {
    std::cout << verdict_to_text(loc.verdict, h, args.file, false);
  } else {
    std::cout << args.file << ": not linearizable (model " << input.model << ", " << h.size()
              << " operations, " << h.events().size() << " events)\n"
              << "shortest non-linearizable prefix: the first " << loc.prefix_events << " events"
              << (loc.verdict.prefix_exact ? "" : " (an upper bound: a limit was hit)")
              << "\nculprit: " << h.op(loc.culprit).to_string();
    if (h.op(loc.culprit).source.return_line) {
      std::cout << " (line " << h.op(loc.culprit).source.return_line << ")";
    }
    std::cout << "\nwitnesses of the linearizable prefixes (OpOrder), largest first:\n";
    constexpr std::size_t kShown = 8;
    for (std::size_t k = 0; k < loc.op_order.size(); ++k) {
      const localize::Witness& w = loc.op_order[k];
      if (k == kShown) {
        std::cout << "  ... " << loc.op_order.size() - kShown << " more (--json lists all)\n";
        break;
      }
      std::cout << "  " << w.order.size() << " ops, explain the first " << w.prefix_events
                << " events:";
      for (history::OpIndex i : w.order) std::cout << " " << h.op(i).call.to_string();
      std::cout << "\n";
    }
  }
  exit_with_verdict(loc.verdict.result);
}

}  // namespace

void add_localize_command(CLI::App& app) {
  auto args = std::make_shared<LocalizeArguments>();
  CLI::App* cmd = app.add_subcommand(
      "localize",
      "Find the shortest non-linearizable prefix of a history and the witnesses of "
      "its linearizable prefixes.");
  cmd->add_option("file", args->file, "History file (`-` reads standard input)")->required();
  cmd->add_option(
      "-m,--model", args->model,
      "Sequential model: " + model_name_list() + " (default: the model the file implies)");
  add_init_option(*cmd, args->init);
  cmd->add_option("-f,--format", args->format, "Input format (default: auto, by content)");
  cmd->add_option("-t,--timeout", args->timeout_seconds, "Give up after S seconds (exit 2)")
      ->option_text("S");
  cmd->add_flag("--json", args->json, "Print one JSON object");
  cmd->footer(
      "Examples:\n"
      "  linfault localize examples/stack-pop-pop.edn --model stack\n"
      "  linfault localize ../shared/data/porcupine/jepsen/etcd_000.log --json\n"
      "Exit codes: 0 linearizable, 1 violation localized, 2 unknown, 64/65/66/70 errors.");
  cmd->callback([args] { run_localize(*args); });
}

}  // namespace linfault::tool
