// `linfault detect --target T ...`: runs S random histories of a target under a scheduler, checks
// each and saves the failing runs (detect/driver.h). Prints what Table II of the CGVT paper
// reports: non-linearizable/total and the average time per history.

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "detect/driver.h"
#include "structure_tree/dpct_estimator.h"
#include "structure_trees/linfault_targets.h"
#include "targets/registry.h"
#include "tool/commands.h"

namespace linfault::tool {
namespace {

struct DetectArguments {
  std::string target;
  std::size_t threads = 2;
  std::size_t ops = 10;
  std::uint64_t histories = 100;
  std::string scheduler = "dpct";
  bool heuristic = false;
  std::size_t round_ops = 3;
  unsigned depth = 3;
  std::uint64_t k = 0;
  std::uint64_t seed = 1;
  unsigned jobs = 1;
  std::string out;
  double timeout_seconds = 10;
  std::uint64_t max_steps = 200'000;
  bool json = false;
};

// The structure trees the build embedded in linfault_targets, or null when it had no extractor.
std::shared_ptr<const structure_tree::TreeSet> embedded_trees() {
  const std::string_view text = structure_tree::embedded::linfault_targets();
  if (text.empty()) return nullptr;
  auto trees = std::make_shared<const structure_tree::TreeSet>(
      structure_tree::parse_tree_set(text, "embedded linfault_targets trees"));
  return trees->operations.empty() ? nullptr : trees;
}

// A one-line counter on a terminal, redrawn at most ten times a second.
class ProgressLine {
 public:
  explicit ProgressLine(bool enabled) : enabled_(enabled) {}
  void update(const detect::Progress& p) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    if (p.done < p.total && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    std::fprintf(stderr, "\r%llu/%llu histories, %llu violations, %.1f s ",
                 static_cast<unsigned long long>(p.done), static_cast<unsigned long long>(p.total),
                 static_cast<unsigned long long>(p.violations), p.elapsed_seconds);
    drawn_ = true;
  }
  void finish() {
    if (drawn_) std::fputs("\n", stderr);
  }

 private:
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_{};
};

std::uint64_t outcome_count(const detect::DetectionReport& report, dpct::RunOutcome outcome) {
  return report.outcomes[static_cast<std::size_t>(outcome)];
}

void run_detect(const DetectArguments& args) {
  const targets::Target& target = [&]() -> const targets::Target& {
    try {
      return targets::find(args.target);
    } catch (const targets::UnknownTarget& e) {
      throw UsageError(e.what());
    }
  }();
  detect::DriverOptions options;
  options.threads = args.threads;
  options.ops_per_thread = args.ops;
  options.histories = args.histories;
  options.scheduler = *detect::parse_scheduler_kind(args.scheduler);
  options.heuristic = args.heuristic;
  options.round_ops = args.round_ops;
  options.depth = args.depth;
  options.steps = args.k;
  options.seed = args.seed;
  options.jobs = args.jobs;
  options.check_timeout_seconds = args.timeout_seconds;
  options.max_steps = args.max_steps;
  if (options.scheduler == detect::SchedulerKind::kDpct) {
    if (auto trees = embedded_trees()) {
      options.step_estimator = [trees](const targets::Target&) {
        return std::make_unique<structure_tree::TreeStepEstimator>(
            trees, structure_tree::TreeEstimatorOptions{});
      };
    }
  }
  if (!args.out.empty()) {
    std::error_code error;
    std::filesystem::create_directories(args.out, error);
    if (error) throw UsageError("--out " + args.out + ": cannot create: " + error.message());
  }

  ProgressLine progress(::isatty(STDERR_FILENO) != 0);
  detect::DetectionReport report;
  try {
    report = detect::run_detection(target, options,
                                   [&progress](const detect::Progress& p) { progress.update(p); });
  } catch (const std::invalid_argument& e) {
    progress.finish();
    throw UsageError(e.what());
  }
  progress.finish();

  std::vector<std::string> saved;
  if (!args.out.empty()) {
    for (const detect::SavedRun* run : report.failing_runs()) {
      const std::string path = (std::filesystem::path(args.out) /
                                (run->target + "-" + std::to_string(run->seed) + ".json"))
                                   .string();
      detect::write_saved_run(*run, path);
      saved.push_back(path);
    }
  }

  if (args.json) {
    nlohmann::json out = {{"target", report.target},
                          {"scheduler", report.scheduler},
                          {"histories", report.histories},
                          {"violations", report.violations},
                          {"unknown", report.unknown},
                          {"deadlocks", outcome_count(report, dpct::RunOutcome::kDeadlock)},
                          {"livelocks", outcome_count(report, dpct::RunOutcome::kLivelock)},
                          {"crashes", outcome_count(report, dpct::RunOutcome::kCrash)},
                          {"avg_ms", report.avg_ms},
                          {"wall_seconds", report.wall_seconds},
                          {"first_failing_seed", report.first_failing_seed
                                                     ? nlohmann::json(*report.first_failing_seed)
                                                     : nlohmann::json(nullptr)},
                          {"saved", saved}};
    std::cout << out.dump() << std::endl;
  } else {
    std::ostringstream text;
    text << "target:             " << report.target << " (model " << target.model << ")\n"
         << "scheduler:          " << report.scheduler << "\n"
         << "histories:          " << report.histories << " of " << args.threads << "x" << args.ops
         << " operations\n"
         << "non-linearizable:   " << report.violations << "/" << report.histories << "\n"
         << "unknown:            " << report.unknown << " (check timed out)\n"
         << "deadlock/livelock/crash: " << outcome_count(report, dpct::RunOutcome::kDeadlock) << "/"
         << outcome_count(report, dpct::RunOutcome::kLivelock) << "/"
         << outcome_count(report, dpct::RunOutcome::kCrash) << "\n"
         << "avg time:           " << std::fixed << std::setprecision(3) << report.avg_ms
         << " ms per history (execution + check), " << std::setprecision(2) << report.wall_seconds
         << " s in all\n"
         << "first failing seed: "
         << (report.first_failing_seed ? std::to_string(*report.first_failing_seed) : "none")
         << "\n";
    if (!saved.empty()) {
      text << "saved:              " << saved.size() << " failing run(s) in " << args.out
           << " (replay with `linfault replay " << saved.front() << "`)\n";
    }
    std::cout << text.str() << std::flush;
  }
  throw CLI::RuntimeError(report.violations > 0 ? kExitViolation : kExitSuccess);
}

}  // namespace

void add_detect_command(CLI::App& app) {
  auto args = std::make_shared<DetectArguments>();
  CLI::App* detect = app.add_subcommand(
      "detect",
      "Run random histories of a target under a scheduler, check each and save the failing runs.");
  detect->add_option("-t,--target", args->target, "Target name (see `linfault targets`)")
      ->required();
  detect->add_option("-n,--threads", args->threads, "Threads per history (N)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  detect->add_option("-m,--ops", args->ops, "Operations per thread (M)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  detect->add_option("-s,--histories", args->histories, "Histories to run and check (S)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  detect
      ->add_option("--scheduler", args->scheduler,
                   "native: real threads, stress (the paper's B); random: random walk; pct: PCT "
                   "with k from pilot runs (or --k); dpct: PCT with k from structure trees, "
                   "revised during the run (the paper's D; falls back to pct with pilot k, and "
                   "says so, in builds without trees)")
      ->capture_default_str()
      ->check(CLI::IsMember({"native", "random", "pct", "dpct"}));
  detect->add_flag(
      "--heuristic", args->heuristic,
      "The paper's H (Sec. III-C: a minimal test case has a thread running one operation in "
      "Pc): cut each history into rounds separated by barriers; in round r thread r mod N runs "
      "exactly one operation while every other thread runs its next --round-ops operations, "
      "and no operation of a round starts before all of the previous round have returned. "
      "Controlled schedulers only");
  detect
      ->add_option("--round-ops", args->round_ops,
                   "--heuristic: operations of the other threads per round")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  detect->add_option("-d,--depth", args->depth, "PCT bug depth d")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  detect->add_option("--k", args->k, "PCT's k (steps); 0: the most decisions of 8 pilot runs")
      ->capture_default_str();
  detect->add_option("--seed", args->seed, "History i uses seed SEED+i (rerun one with -s 1)")
      ->capture_default_str();
  detect->add_option("-j,--jobs", args->jobs, "Worker threads (results do not depend on it)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  detect->add_option("-o,--out", args->out,
                     "Save each failing run (violation, unknown, deadlock, livelock, crash) as "
                     "DIR/<target>-<seed>.json, for `linfault replay`");
  detect
      ->add_option("--timeout", args->timeout_seconds,
                   "Seconds per history check before it counts as unknown (0: none)")
      ->capture_default_str();
  detect
      ->add_option("--max-steps", args->max_steps,
                   "Scheduling points before a controlled run counts as a livelock")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  detect->add_flag("--json", args->json,
                   "Print one JSON object: target, scheduler, histories, violations, unknown, "
                   "deadlocks, livelocks, crashes, avg_ms, first_failing_seed, saved");
  detect->footer(
      "Exit codes: 0 no violation, 1 a violation was found, 64 usage error, 70 internal error.\n"
      "Progress goes to stderr when it is a terminal.\n"
      "Example: linfault detect --target treiber_stack_buggy -n 2 -m 100 -s 20 --out runs");
  detect->callback([args] { run_detect(*args); });
}

}  // namespace linfault::tool
