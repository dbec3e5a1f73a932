#include "tool/detection_options.h"

#include <charconv>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "detect/saved_run.h"
#include "history/formats.h"
#include "history/json_format.h"
#include "minimize/pipeline.h"
#include "tool/commands.h"

namespace linfault::tool {

namespace {
std::vector<std::string> scheduler_names() {
  std::vector<std::string> names;
  for (detect::SchedulerKind kind : detect::kSchedulerKinds) {
    names.emplace_back(detect::scheduler_kind_name(kind));
  }
  return names;
}
}  // namespace

void add_detection_options(CLI::App& app, DetectionArguments& args, bool target_required) {
  CLI::Option* target =
      app.add_option("-t,--target", args.target, "Target name (see `linfault targets`)");
  if (target_required) {
    target->required();
  } else {
    target->capture_default_str();
  }
  add_spec_option(app, args.spec);
  app.add_option("-n,--threads", args.threads, "Threads per history (N)")
      ->capture_default_str()
      ->check(positive());
  app.add_option("-m,--ops", args.ops, "Operations per thread (M)")
      ->capture_default_str()
      ->check(positive());
  app.add_option("-s,--histories", args.histories, "Histories to run and check (S)")
      ->capture_default_str()
      ->check(positive());
  app.add_option(
         "--scheduler", args.scheduler,
         "native: real threads, stress (the paper's B; see --native-noise); random: random walk; "
         "pct: PCT "
         "with k from pilot runs (or --k); dpct: PCT with k from structure trees, "
         "revised during the run (the paper's D; falls back to pct with pilot k, and "
         "says so, in builds without trees); pos: partial order sampling; surw: selectively "
         "uniform random walk, threads weighted by remaining events (structure trees); window: "
         "pauses a thread at an access inside its operation (or, with --window-pauses, right "
         "before it acts on what it read) until the others complete an update; portfolio: "
         "random walks for the first 64 histories, then each history runs one of random, dpct, "
         "pos and window, drawn by shares that shift, every 64 histories, towards the ones that "
         "find violations on this target")
      ->capture_default_str()
      ->check(CLI::IsMember(scheduler_names()));
  app.add_option("--shapes", args.shapes,
                 "Random workloads: even: N threads of M operations; split: when the target has "
                 "methods that write and methods that only read, N-1 threads of M writes against "
                 "one thread of M operations that read half the time (reads against bursts of "
                 "updates: ABA and torn reads), else even; uneven: one operation that only reads "
                 "against N-1 threads of M writes; mixed: even and split, drawn per history")
      ->capture_default_str()
      ->check(CLI::IsMember({"even", "split", "uneven", "mixed"}));
  app.add_option("--native-noise", args.native_noise,
                 "native: on: delay each history's threads at a random few accesses (yields, "
                 "spins, short sleeps; a plan drawn from the history's seed, ConTest-style) so "
                 "that races show; off: full speed")
      ->capture_default_str()
      ->check(CLI::IsMember({"on", "off"}));
  app.add_flag(
      "--heuristic", args.heuristic,
      "The paper's H (Sec. III-C: a minimal test case has a thread running one operation in "
      "Pc): cut each history into rounds separated by barriers; in round r thread r mod N runs "
      "exactly one operation while every other thread runs its next --round-ops operations, "
      "and no operation of a round starts before all of the previous round have returned. "
      "Controlled schedulers only");
  app.add_option("--round-ops", args.round_ops,
                 "--heuristic: operations of the other threads per round")
      ->capture_default_str()
      ->check(positive());
  app.add_option("-d,--depth", args.depth, "PCT bug depth d")
      ->capture_default_str()
      ->check(positive());
  app.add_option("--epoch", args.epoch,
                 "pct/dpct: redraw the PCT plan (priorities, change points) every E completed "
                 "operations, so a long history gets d-1 preemptions per epoch instead of d-1 in "
                 "all; auto: E = --threads (about one operation per thread); 0: one plan per "
                 "history, as in the paper")
      ->capture_default_str()
      ->option_text("E|auto");
  app.add_option("--write-bias", args.write_bias,
                 "pct/dpct: probability that a preemption PCT draws on a load is moved to the "
                 "thread's next store, read-modify-write or lock, i.e. into the window between "
                 "what it read and what it writes (where check-then-act races live); 0: plain "
                 "PCT")
      ->capture_default_str()
      ->check(fraction());
  app.add_option("--window-pauses", args.window_pauses,
                 "window (and the portfolio's window member): where operations may pause; "
                 "inside (the default): only at one access drawn inside each operation (about "
                 "two operations in three pause); act: only right before its first store, "
                 "read-modify-write or lock after its first access (check-then-act bugs); mixed: "
                 "each operation draws between the two (the default before 2026-11-28)")
      ->option_text("inside|act|mixed")
      ->check(CLI::IsMember({"mixed", "act", "inside"}));
  app.add_option("--k", args.k, "PCT's k (steps); 0: the most decisions of 8 pilot runs")
      ->capture_default_str();
  app.add_option(
         "--seed", args.seed,
         "History 0 uses seed SEED, the others seeds drawn from SEED (rerun one by its seed "
         "with --histories 1; under the portfolio, whose opening and shares learnt in a "
         "campaign choose the scheduler, replay its saved run)")
      ->capture_default_str();
  app.add_option("-j,--jobs", args.jobs, "Worker threads (results do not depend on it)")
      ->capture_default_str()
      ->check(positive());
  app.add_option("--timeout", args.timeout_seconds,
                 "Seconds per history check before it counts as unknown (0: none)")
      ->capture_default_str();
  app.add_option("--max-steps", args.max_steps,
                 "Scheduling points before a controlled run counts as a livelock")
      ->capture_default_str()
      ->check(positive());
  app.add_flag("--isolate", args.isolate,
               "Run histories in child processes, replaced after a crash: for an object that "
               "corrupts memory (a double free, a fault inside malloc) beyond what in-process "
               "recovery survives. Same results, slower (see bench/isolation)");
  add_memory_model_options(app, args.memory_model, &args.reads);
  app.add_option("--workload", args.workload_file,
                 "Run this fixed workload in every history (a JSON file {\"setup\": [calls], "
                 "\"threads\": [[calls], ...], \"reveal\": [calls]}, or a saved run) instead "
                 "of random ones; --threads and --ops are then ignored")
      ->option_text("FILE");
}

void add_memory_model_options(CLI::App& app, std::string& memory_model, std::string* reads) {
  app.add_option("--memory-model", memory_model,
                 "sc: controlled runs are sequentially consistent (every load reads the newest "
                 "store); c11: they follow the C++20 memory model, so a load may read an older "
                 "store its memory orders allow, and a missing acquire, release or fence shows "
                 "(docs/weak-memory.md). Default: the target's (sc unless it registered c11)")
      ->option_text("sc|c11")
      ->check(CLI::IsMember({"sc", "c11"}));
  if (reads == nullptr) return;
  app.add_option("--reads", *reads,
                 "c11: how loads choose among the stores they may read; uniform: any, "
                 "uniformly; biased:P: an older one with probability P; depth:D: D loads per "
                 "history read an older store (PCTWM-like); mixed: one of these per history")
      ->capture_default_str()
      ->option_text("uniform|biased:P|depth:D|mixed")
      ->check([](const std::string& text) {
        return dpct::parse_read_policy(text) ? std::string()
                                             : "expected uniform, biased:P (0 < P <= 1), "
                                               "depth:D (1 to 1000) or mixed";
      });
}

detect::DriverOptions driver_options(const DetectionArguments& args,
                                     const targets::Target& target) {
  detect::DriverOptions options;
  options.threads = args.threads;
  options.ops_per_thread = args.ops;
  options.histories = args.histories;
  options.scheduler = *detect::parse_scheduler_kind(args.scheduler);
  options.shapes = *detect::parse_shape_mix(args.shapes);
  options.heuristic = args.heuristic;
  options.round_ops = args.round_ops;
  options.depth = args.depth;
  if (args.epoch == "auto") {
    options.epoch_operations = args.threads;
  } else {
    // Digits only: std::stoull would take "-5" as 2^64 - 5.
    const char* end = args.epoch.data() + args.epoch.size();
    const auto [stop, error] = std::from_chars(args.epoch.data(), end, options.epoch_operations);
    if (args.epoch.empty() || error != std::errc() || stop != end) {
      const std::string shown =
          args.epoch.size() > 24 ? args.epoch.substr(0, 24) + "..." : args.epoch;
      throw UsageError("--epoch: expected \"auto\" or a number of operations, got \"" + shown +
                       "\"");
    }
  }
  options.write_bias = args.write_bias;
  if (!args.window_pauses.empty()) {
    options.window_pauses = *dpct::parse_window_pauses(args.window_pauses);
  }
  if (!args.window_pauses.empty() && options.scheduler != detect::SchedulerKind::kWindow &&
      options.scheduler != detect::SchedulerKind::kPortfolio) {
    throw UsageError("--window-pauses " + args.window_pauses +
                     " applies to --scheduler window or portfolio, not " + args.scheduler);
  }
  options.steps = args.k;
  options.seed = args.seed;
  options.jobs = args.jobs;
  options.check_timeout_seconds = args.timeout_seconds;
  options.max_steps = args.max_steps;
  options.native_noise = args.native_noise == "on";
  options.isolate = args.isolate;
  if (!args.memory_model.empty())
    options.memory_model = dpct::parse_memory_model(args.memory_model);
  options.read_policy = *dpct::parse_read_policy(args.reads);
  const dpct::MemoryModel model = options.memory_model.value_or(target.memory_model);
  if (model == dpct::MemoryModel::kC11 && options.scheduler == detect::SchedulerKind::kNative) {
    throw UsageError(
        "--memory-model c11 needs a controlled scheduler: native runs are real "
        "threads, whose memory model is the hardware's");
  }
  if (options.scheduler == detect::SchedulerKind::kDpct ||
      options.scheduler == detect::SchedulerKind::kSurw ||
      options.scheduler == detect::SchedulerKind::kPortfolio) {
    options.step_estimator = minimize::tree_step_estimators();
  }
  if (!args.workload_file.empty()) {
    const nlohmann::json doc = history::read_json_file(args.workload_file);
    options.workload = detect::workload_from_json(doc, args.workload_file);
    std::optional<std::string> problem = targets::workload_problem(target, *options.workload);
    if (!problem) problem = targets::workload_calls_failing_alone(target, *options.workload);
    if (problem) throw UsageError(args.workload_file + ": " + *problem);
  }
  return options;
}

nlohmann::json detection_campaign(const targets::Target& target,
                                  const detect::DriverOptions& options,
                                  const std::string& scheduler) {
  nlohmann::json campaign = {
      {"target", target.name},
      {"model", target.model},
      {"scheduler", scheduler},
      {"threads", options.workload ? 0 : options.threads},
      {"ops", options.workload ? 0 : options.ops_per_thread},
      {"workload",
       options.workload ? detect::workload_to_json(*options.workload) : nlohmann::json(nullptr)},
      {"histories", options.histories},
      {"seed", options.seed},
      {"heuristic", options.heuristic},
      {"round_ops", options.round_ops},
      {"depth", options.depth},
      {"epoch", options.epoch_operations},
      {"write_bias", options.write_bias},
      {"k", options.steps},
      {"timeout", options.check_timeout_seconds},
      {"max_steps", options.max_steps}};
  // Absent for sc, so shards written before the option existed merge with sc ones.
  if (options.memory_model.value_or(target.memory_model) == dpct::MemoryModel::kC11) {
    campaign["memory_model"] = "c11";
    campaign["reads"] = dpct::read_policy_text(options.read_policy);
  }
  // Only for the schedulers it applies to, and absent for mixed, the placement before the option
  // existed: so a shard written then merges only with shards of mixed pauses.
  const bool has_window = options.scheduler == detect::SchedulerKind::kWindow ||
                          options.scheduler == detect::SchedulerKind::kPortfolio;
  if (has_window && options.window_pauses != dpct::WindowPauses::kMixed) {
    campaign["window_pauses"] = dpct::window_pauses_name(options.window_pauses);
  }
  return campaign;
}

}  // namespace linfault::tool
