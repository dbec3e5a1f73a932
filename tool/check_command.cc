// `linfault check FILE`: loads a recorded history and checks it for linearizability.

#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "detect/checker.h"
#include "detect/monitors/monitor.h"
#include "history/formats.h"
#include "history/json_format.h"
#include "tool/commands.h"
#include "tool/input.h"
#include "tool/limits.h"
#include "tool/verdict_json.h"

namespace linfault::tool {
namespace {

constexpr std::size_t kLargestMemoryLimitMb = std::size_t{1} << 30;  // a petabyte

struct CheckArguments {
  std::string file;
  std::string model;
  std::optional<std::string> init;  // --init
  std::string format = "auto";
  double timeout_seconds = 0;
  std::size_t memory_limit_mb = 0;
  bool no_partition = false;
  bool json = false;
  bool witness = false;
  std::string algo = "auto";
};

void run_check(const CheckArguments& args) {
  if (args.witness && args.algo == "monitor") {
    throw UsageError("--witness needs --algo auto or search: the monitors build no linearization");
  }
  start_process_limits({args.timeout_seconds, args.memory_limit_mb << 20, args.file, args.json});
  set_phase("reading the input");
  const Input input = load_input(args.file, args.format, args.model, args.init);
  const history::LoadedHistory& loaded = input.loaded;
  const std::string& model = input.model;

  set_phase("checking");
  detect::CheckOptions options;
  options.timeout_seconds = seconds_left();
  options.memory_limit_bytes = heap_bytes_left();
  options.partition = !args.no_partition;
  options.want_witness = args.witness;
  // Monitors give no witness: with --witness, auto means the search.
  const detect::Algo algo = args.witness && args.algo == "auto"
                                ? detect::Algo::kSearch
                                : *detect::parse_algo_name(args.algo);
  const detect::Verdict verdict = detect::check_auto(model, loaded.history, options, algo);
  set_phase(nullptr);

  if (args.json) {
    nlohmann::json out = verdict_to_json(verdict, loaded.history, args.witness);
    out["file"] = args.file;
    out["format"] = history::format_name(loaded.format);
    std::cout << history::json_text(out) << std::endl;
  } else {
    std::cout << verdict_to_text(verdict, loaded.history, args.file, args.witness) << std::flush;
  }
  exit_with_verdict(verdict.result);
}

}  // namespace

void add_check_command(CLI::App& app) {
  auto args = std::make_shared<CheckArguments>();
  CLI::App* check = app.add_subcommand("check", "Check a recorded history for linearizability.");
  check->add_option("file", args->file, "History file (`-` reads standard input)")->required();
  check->add_option(
      "-m,--model", args->model,
      "Sequential model: " + model_name_list() + " (default: the model the file implies)");
  add_init_option(*check, args->init);
  std::vector<std::string> formats;
  for (std::string_view name : history::format_names()) formats.emplace_back(name);
  check->add_option("-f,--format", args->format, "Input format (default: auto, by content)")
      ->check(CLI::IsMember(formats));
  check
      ->add_option("-t,--timeout", args->timeout_seconds,
                   "Give up after S seconds with verdict `unknown` (exit 2); 0: no limit")
      ->option_text("S");
  check
      ->add_option("--memory-limit", args->memory_limit_mb,
                   "Give up with verdict `unknown` (exit 2) when the process's heap, reading "
                   "included, would exceed MB megabytes; 0: no limit")
      ->check(CLI::Range(std::size_t{0}, kLargestMemoryLimitMb))
      ->option_text("MB");
  check->add_flag("--no-partition", args->no_partition,
                  "Check keyed models (kv, set) as one history instead of one key at a time");
  check->add_flag("--json", args->json, "Print one JSON object instead of the summary");
  check
      ->add_option("--algo", args->algo,
                   "auto: a polynomial monitor when one applies (set, stack, queue, "
                   "priorityqueue with distinct values; simple snapshots), else the search; "
                   "search; monitor (exit 65 if the history breaks its preconditions)")
      ->check(CLI::IsMember({"auto", "search", "monitor"}));
  check->add_flag("--witness", args->witness,
                  "For a linearizable history, print the linearization found");
  check->footer(
      "Examples:\n"
      "  linfault check examples/stack-pop-pop.edn --model stack\n"
      "  linfault check ../shared/data/porcupine/jepsen/etcd_000.log        # cas-register, "
      "implied\n"
      "  linfault check ../shared/data/porcupine/kv/c50-ok.txt --json --timeout 10\n"
      "  linfault check history.json --witness\n"
      "  linfault check tests/data/cas-register-init0.edn --init 0   # a register starting at 0\n"
      "Formats: json (linfault's own), jepsen-log, edn, fastlin, snapshot; see docs/formats.md.\n"
      "Exit codes: 0 linearizable, 1 violation, 2 unknown (limit hit), 64 usage error,\n"
      "65 bad input data, 66 input cannot be opened, 70 internal error.");
  check->callback([args] { run_check(*args); });
}

}  // namespace linfault::tool
