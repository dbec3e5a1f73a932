// `linfault detect --target T ...`: runs S random histories of a target under a scheduler, checks
// each and saves the failing runs (detect/driver.h). Prints what Table II of the CGVT paper
// reports: non-linearizable/total and the average time per history.

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
#include "targets/registry.h"
#include "tool/commands.h"
#include "tool/detection_options.h"
#include "tool/progress.h"

namespace linfault::tool {
namespace {

struct DetectArguments : DetectionArguments {
  std::string out;
  bool json = false;
};

std::uint64_t outcome_count(const detect::DetectionReport& report, dpct::RunOutcome outcome) {
  return report.outcomes[static_cast<std::size_t>(outcome)];
}

void run_detect(const DetectArguments& args) {
  const targets::Target& target = find_target(args.target);
  const detect::DriverOptions options = driver_options(args);
  if (!args.out.empty()) {
    std::error_code error;
    std::filesystem::create_directories(args.out, error);
    if (error) throw UsageError("--out " + args.out + ": cannot create: " + error.message());
  }

  ProgressLine progress;
  detect::DetectionReport report;
  try {
    report = detect::run_detection(target, options, [&progress](const detect::Progress& p) {
      progress.update(detection_progress_text(p), p.done == p.total);
    });
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
         << "histories:          " << report.histories << " of "
         << (args.workload_file.empty()
                 ? std::to_string(args.threads) + "x" + std::to_string(args.ops) + " operations"
                 : "the workload " + args.workload_file)
         << "\n"
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
  add_detection_options(*detect, *args, /*target_required=*/true);
  detect->add_option("-o,--out", args->out,
                     "Save each failing run (violation, unknown, deadlock, livelock, crash) as "
                     "DIR/<target>-<seed>.json, for `linfault replay`");
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
