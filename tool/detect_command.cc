// `linfault detect --target T ...`: runs S random histories of a target under a scheduler, checks
// each and saves the failing runs (detect/driver.h). Prints what Table II of the CGVT paper
// reports: non-linearizable/total and the average time per history.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "detect/driver.h"
#include "history/atomic_file.h"
#include "history/json_format.h"
#include "targets/registry.h"
#include "targets/serial_spec.h"
#include "tool/campaign.h"
#include "tool/commands.h"
#include "tool/detection_options.h"
#include "tool/progress.h"

namespace linfault::tool {
namespace {

struct DetectArguments : DetectionArguments {
  std::string out;
  bool json = false;
  bool stop_at_first = false;
  double time_limit_seconds = 0;
  std::string shard;
  std::uint64_t keep_runs = 100;
};

// How often the summary of a running campaign is rewritten.
constexpr std::chrono::seconds kSummaryInterval{2};

std::uint64_t outcome_count(const detect::DetectionReport& report, dpct::RunOutcome outcome) {
  return report.outcomes[static_cast<std::size_t>(outcome)];
}

// Deterministic counts only: the same histories give the same bytes (docs/scale-out.md).
nlohmann::json summary_json(const nlohmann::json& campaign, const Shard& shard,
                            const detect::DetectionReport& report, std::uint64_t saved,
                            std::uint64_t keep_runs, bool complete) {
  nlohmann::json outcomes = nlohmann::json::object();
  for (dpct::RunOutcome outcome : {dpct::RunOutcome::kOk, dpct::RunOutcome::kDeadlock,
                                   dpct::RunOutcome::kLivelock, dpct::RunOutcome::kCrash}) {
    outcomes[dpct::run_outcome_name(outcome)] = outcome_count(report, outcome);
  }
  return {
      {"linfault", "detect-summary"},
      {"version", kSummaryVersion},
      {"campaign", campaign},
      {"shard", shard.to_json()},
      {"complete", complete},
      {"histories", report.done},
      {"violations", report.violations},
      {"unknown", report.unknown},
      {"outcomes", outcomes},
      {"saved", saved},
      {"keep_runs", keep_runs},
      {"first_failing_seed", report.first_failing_seed ? nlohmann::json(*report.first_failing_seed)
                                                       : nlohmann::json(nullptr)}};
}

// Receives the results as they come (under the driver's lock): writes each failing run at once,
// rewrites the summary every few seconds, and keeps only counts and, for --json, the paths.
class ResultWriter {
 public:
  ResultWriter(const DetectArguments& args, const targets::Target& target,
               const detect::DriverOptions& options, const Shard& shard)
      : args_(args), target_(target), options_(options), shard_(shard) {}

  void add(const detect::DetectionReport& so_far, detect::HistoryResult& result) {
    if (result.saved) {
      ++saved_;
      if (!args_.out.empty()) save(*result.saved);
    }
    if (!last_summary_ || Clock::now() - *last_summary_ >= kSummaryInterval) {
      write(so_far, /*complete=*/false);
    }
  }

  void write(const detect::DetectionReport& report, bool complete) {
    if (args_.out.empty()) return;
    // The saved runs it counts reach the disk before it does.
    history::flush_file_system(args_.out);
    write_summary(args_.out, summary_json(detection_campaign(target_, options_, report.scheduler),
                                          shard_, report, kept_.size(), args_.keep_runs, complete));
    last_summary_ = Clock::now();
  }

  std::uint64_t saved() const { return saved_; }  // failing runs, kept or not
  std::uint64_t kept() const { return kept_.size(); }
  std::string first_saved() const { return kept_.empty() ? "" : kept_.begin()->second; }
  std::vector<std::string> paths() const {
    std::vector<std::string> out;
    for (const auto& [index, path] : kept_) out.push_back(path);
    return out;
  }

 private:
  using Clock = std::chrono::steady_clock;

  // Keeps the --keep-runs failing runs of the lowest history indices, whatever order the workers
  // find them in: a later run of a lower index replaces the highest kept.
  void save(const detect::SavedRun& run) {
    const std::uint64_t index = detect::history_index(options_.seed, run.seed);
    if (kept_.size() >= args_.keep_runs) {
      if (kept_.empty() || index > kept_.rbegin()->first) return;
      std::error_code ignored;
      std::filesystem::remove(kept_.rbegin()->second, ignored);
      kept_.erase(std::prev(kept_.end()));
    }
    const std::string path = (std::filesystem::path(args_.out) /
                              (target_.name + "-" + std::to_string(run.seed) + ".json"))
                                 .string();
    detect::write_saved_run(run, path, history::Durability::kProcessSafe);
    kept_.emplace(index, path);
  }

  const DetectArguments& args_;
  const targets::Target& target_;
  const detect::DriverOptions& options_;
  Shard shard_;
  std::uint64_t saved_ = 0;
  std::map<std::uint64_t, std::string> kept_;      // by history index
  std::optional<Clock::time_point> last_summary_;  // none yet: the first result writes one
};

void run_detect(const DetectArguments& args) {
  const Shard shard = args.shard.empty() ? Shard{} : parse_shard(args.shard);
  if (args.stop_at_first && !shard.whole()) {
    throw UsageError(
        "--stop-at-first cannot be used with --shard: a shard's first violation is not the "
        "campaign's");
  }
  const targets::Target& target = target_with_spec(find_target(args.target), args.spec);
  detect::DriverOptions options = driver_options(args, target);
  options.shard_index = shard.index;
  options.shard_count = shard.count;
  options.stop_at_first = args.stop_at_first;
  if (args.time_limit_seconds > 0 && !shard.whole()) {
    throw UsageError(
        "--time-limit cannot be used with --shard: a shard cut short is not its part of the "
        "campaign");
  }
  options.time_limit_seconds = args.time_limit_seconds;
  // Without --out the failing runs are only counted: nothing would read them.
  options.keep_failing_runs = !args.out.empty();
  if (!args.out.empty()) prepare_output_directory(args.out, "--out");

  ResultWriter writer(args, target, options, shard);
  options.on_result = [&writer](const detect::DetectionReport& so_far,
                                detect::HistoryResult& result) { writer.add(so_far, result); };
  ProgressLine progress;
  detect::DetectionReport report;
  try {
    report = detect::run_detection(target, options, [&progress](const detect::Progress& p) {
      progress.update_with([&p] { return detection_progress_text(p); }, p.done == p.total);
    });
  } catch (const targets::NotDeterministic&) {
    progress.finish();
    throw;  // the object's fault, not the command line's (tool_main.cc)
  } catch (const std::invalid_argument& e) {
    progress.finish();
    throw UsageError(e.what());
  }
  progress.finish();
  writer.write(report, /*complete=*/true);
  if (options.scheduler != detect::SchedulerKind::kNative) {
    const std::string warning =
        detect::no_interleaving_warning(target, report.done, report.without_shared_access);
    if (!warning.empty()) std::cerr << tool_name() << ": warning: " << warning << std::endl;
  }
  std::uint64_t failures = report.violations;
  for (std::size_t o = 1; o < report.outcomes.size(); ++o) failures += report.outcomes[o];
  if (failures == 0) {
    const std::string note = detect::weak_order_note(target, report.weak_order_sites);
    if (!note.empty()) std::cerr << tool_name() << ": note: " << note << std::endl;
  }

  if (args.json) {
    nlohmann::json out = {{"target", report.target},
                          {"scheduler", report.scheduler},
                          {"shard", shard.text()},
                          {"histories", report.histories},
                          {"done", report.done},
                          {"histories_to_first", report.histories_to_first},
                          {"time_limited", report.time_limited},
                          {"without_shared_access", report.without_shared_access},
                          {"weak_order_sites", report.weak_order_sites},
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
                          {"saved", writer.paths()}};
    if (!args.out.empty()) {
      out["summary"] = (std::filesystem::path(args.out) / kSummaryFile).string();
    }
    if (!report.portfolio.empty()) {
      nlohmann::json members = nlohmann::json::array();
      for (const detect::PortfolioMember& m : report.portfolio) {
        members.push_back({{"scheduler", detect::scheduler_kind_name(m.scheduler)},
                           {"histories", m.histories},
                           {"violations", m.violations}});
      }
      out["portfolio"] = members;
    }
    std::cout << history::json_text(out) << std::endl;
  } else {
    std::ostringstream text;
    text << "target:             " << report.target << " (model " << target.model << ")\n"
         << "scheduler:          " << report.scheduler << "\n";
    if (!shard.whole()) {
      text << "shard:              " << shard.text() << " (the histories whose index is "
           << shard.index << " modulo " << shard.count << ")\n";
    }
    text << "histories:          " << report.histories << " of "
         << (args.workload_file.empty()
                 ? std::to_string(args.threads) + "x" + std::to_string(args.ops) + " operations"
                 : "the workload " + args.workload_file)
         << "\n"
         << "non-linearizable:   " << report.violations << "/" << report.done << "\n"
         << "unknown:            " << report.unknown
         << (args.isolate ? " (check timed out, or the history was lost with its process)\n"
                          : " (check timed out)\n")
         << "deadlock/livelock/crash: " << outcome_count(report, dpct::RunOutcome::kDeadlock) << "/"
         << outcome_count(report, dpct::RunOutcome::kLivelock) << "/"
         << outcome_count(report, dpct::RunOutcome::kCrash) << "\n"
         << "avg time:           " << std::fixed << std::setprecision(3) << report.avg_ms
         << " ms per history (execution + check), " << std::setprecision(2) << report.wall_seconds
         << " s in all\n"
         << "first failing seed: "
         << (report.first_failing_seed ? std::to_string(*report.first_failing_seed) : "none")
         << "\n";
    if (targets::is_serial_spec(target.model)) {
      // The cost of the serial specification in this process (each worker thread's trie is
      // shared by every history it checks, and replaced by an empty one when full).
      const targets::SerialSpecStats serial = targets::serial_spec_stats(target.name);
      text << "serial spec:        " << serial.serial_runs << " serial runs (" << serial.nodes
           << " trie nodes";
      if (serial.merged_nodes > 0) text << ", " << serial.merged_nodes << " merged by state";
      text << ", " << serial.serial_calls << " calls), " << std::setprecision(2)
           << static_cast<double>(serial.serial_runs) /
                  static_cast<double>(std::max<std::uint64_t>(report.done, 1))
           << " per history\n";
    }
    if (!report.portfolio.empty()) {
      text << "portfolio:         ";
      for (const detect::PortfolioMember& m : report.portfolio) {
        text << " " << detect::scheduler_kind_name(m.scheduler) << " " << m.violations << "/"
             << m.histories;
      }
      text << " (violations/histories per member)\n";
    }
    if (report.time_limited) {
      text << "time limit:         " << args.time_limit_seconds << " s passed after " << report.done
           << " of " << report.histories << " histories\n";
    }
    if (args.stop_at_first) {
      text << "stopped at first:   "
           << (report.histories_to_first > 0
                   ? "history " + std::to_string(report.histories_to_first) + " of " +
                         std::to_string(report.histories) + " (" + std::to_string(report.done) +
                         " completed)"
                   : "no violation in " + std::to_string(report.done) + " histories")
           << "\n";
    }
    if (writer.saved() > 0 && !args.out.empty()) {
      text << "saved:              " << writer.kept();
      if (writer.kept() < writer.saved()) {
        text << " of " << writer.saved()
             << " failing runs (those of the lowest indices: --keep-runs " << args.keep_runs << ")";
      } else {
        text << " failing run(s)";
      }
      text << " in " << args.out;
      if (writer.kept() > 0) {
        text << " (replay with `" << tool_name() << " replay " << writer.first_saved() << "`)";
      }
      text << "\n";
    }
    if (!args.out.empty()) {
      text << "summary:            " << (std::filesystem::path(args.out) / kSummaryFile).string()
           << "\n";
    }
    std::cout << text.str() << std::flush;
  }
  // A crash (an operation threw) or a deadlock is a failure as much as a violation: `run` turns
  // either into a test case, and a campaign that only crashed must not pass.
  const bool failed = report.violations > 0 ||
                      outcome_count(report, dpct::RunOutcome::kCrash) > 0 ||
                      outcome_count(report, dpct::RunOutcome::kDeadlock) > 0;
  // Runs that all stopped at the step cap checked only what their operations did before it: a
  // pass would say more than the campaign saw.
  const bool all_capped =
      report.done > 0 && outcome_count(report, dpct::RunOutcome::kLivelock) == report.done;
  if (!failed && all_capped) {
    std::cerr << tool_name() << ": every run reached the step cap (--max-steps "
              << options.max_steps
              << ") before its operations finished, so no run was checked whole; raise "
                 "--max-steps"
              << std::endl;
    throw CLI::RuntimeError(kExitUnknown);
  }
  throw CLI::RuntimeError(failed ? kExitViolation : kExitSuccess);
}

}  // namespace

void add_detect_command(CLI::App& app) {
  auto args = std::make_shared<DetectArguments>();
  CLI::App* detect = app.add_subcommand(
      "detect",
      "Run random histories of a target under a scheduler, check each and save the failing runs.");
  add_detection_options(*detect, *args, /*target_required=*/true);
  detect->add_option("-o,--out", args->out,
                     "Save each failing run (violation, unknown, deadlock, livelock, crash) as "
                     "DIR/<target>-<seed>.json as soon as it is found, for `linfault replay`, "
                     "and the campaign's counts in DIR/summary.json (rewritten every 2 s and at "
                     "the end; every file is replaced atomically). Without it, failing runs are "
                     "only counted");
  detect
      ->add_option(
          "--keep-runs", args->keep_runs,
          "With --out, keep at most N failing runs on disk: those of the lowest history indices "
          "(the others are counted); 0 keeps none")
      ->type_name("N")
      ->capture_default_str();
  add_shard_option(*detect, args->shard, "histories");
  detect
      ->add_option("--time-limit", args->time_limit_seconds,
                   "Start no history after S seconds (0: none); those running finish, and the "
                   "summary says how many of --histories ran. For a campaign bounded by time: "
                   "give a large --histories")
      ->type_name("S")
      ->capture_default_str();
  detect->add_flag("--stop-at-first", args->stop_at_first,
                   "Stop at the first violation: histories with higher indices are not started "
                   "once it is found, those with lower ones finish, so the first failing seed "
                   "(and histories_to_first, its index + 1) do not depend on --jobs; the counts "
                   "(done, violations, ...) may, as they include the histories already running");
  detect->add_flag(
      "--json", args->json,
      "Print one JSON object: target, scheduler, histories, done, "
      "histories_to_first, time_limited, violations, unknown, deadlocks, livelocks, crashes, "
      "avg_ms, first_failing_seed, saved, shard, summary, and for a portfolio the "
      "histories and violations of each member");
  detect->footer(
      "Exit codes: 0 no failure, 1 a violation, a crash or a deadlock was found, 64 usage error, "
      "70 internal error.\n"
      "Progress goes to stderr when it is a terminal.\n"
      "Examples:\n"
      "  linfault detect --target treiber_stack_buggy -n 2 -m 100 -s 20 --out runs\n"
      "  linfault detect --target treiber_stack_buggy -n 2 -m 6 -s 100 --scheduler surw\n"
      "  linfault detect --target treiber_stack_buggy -s 1000 --stop-at-first -j 2\n"
      "  linfault detect --target treiber_stack_buggy -s 2000 --shard 1/4 --out runs-1\n"
      "      (then `linfault merge --out runs-all runs-0 runs-1 runs-2 runs-3`)");
  detect->callback([args] { run_detect(*args); });
}

}  // namespace linfault::tool
