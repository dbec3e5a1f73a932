// `linfault run --target T`: the whole pipeline in one command. Detects (histories of a target
// under a scheduler, in batches, until the first failing one), localizes the failure and
// minimizes it into a verified test case (Ps, Pc, Pr), printed with its failing interleaving and
// optionally saved as JSON and as a standalone GoogleTest file.

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "detect/driver.h"
#include "dpct/fork_server.h"
#include "history/json_format.h"
#include "minimize/pipeline.h"
#include "minimize/target_minimizer.h"
#include "targets/registry.h"
#include "tool/campaign.h"
#include "tool/commands.h"
#include "tool/detection_options.h"
#include "tool/progress.h"
#include "tool/test_case_output.h"

namespace linfault::tool {
namespace {

struct RunArguments : DetectionArguments {
  std::string out;
  bool json = false;
  std::string shard;
  TestCaseArguments test_case;
};

using Detection = minimize::FirstFailure;

// Detects until the first failing history, with progress on a terminal.
Detection detect_first_failure(const targets::Target& target, const RunArguments& args,
                               const detect::DriverOptions& options, ProgressLine& progress) {
  Detection d;
  try {
    d = minimize::detect_first_failure(
        target, options, args.histories, 0, [&](const detect::Progress& p) {
          progress.update_with([&p] { return "detect: " + detection_progress_text(p); });
        });
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  progress.finish();
  return d;
}

std::string detection_text(const targets::Target& target, const RunArguments& args,
                           const Detection& d) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(3);
  const std::string histories = args.workload_file.empty()
                                    ? "histories of " + std::to_string(args.threads) + "x" +
                                          std::to_string(args.ops) + " operations"
                                    : "runs of the workload " + args.workload_file;
  out << "detect:   " << target.name << " (model " << target.model << "), " << d.scheduler << ", "
      << (args.shard.empty() ? "" : "shard " + args.shard + ", ") << histories << ": "
      << d.violations << " non-linearizable of " << d.histories << ", "
      << (d.histories ? d.total_ms / static_cast<double>(d.histories) : 0.0) << " ms per history\n";
  if (d.failing) {
    out << "failing:  seed " << d.failing->seed << ", "
        << (d.failing->verdict.result != detect::Result::kViolation
                ? std::string("outcome ") + dpct::run_outcome_name(d.failing->outcome)
            : d.failing->verdict.unsynchronized ? "unsynchronized"
                                                : "not linearizable")
        << ", " << d.failing->history.size() << " operations\n";
  }
  return out.str();
}

// DIR/summary.json of `run --out DIR`: what `linfault merge` needs to pick, from the shards'
// first failures, the one the unsharded run finds (see minimize::detect_first_failure).
// Deterministic fields only; `files` are the outputs written into DIR.
nlohmann::json run_summary(const targets::Target& target, const RunArguments& args,
                           const detect::DriverOptions& options, const Shard& shard,
                           const Detection& d, const std::vector<std::string>& files) {
  nlohmann::json campaign = detection_campaign(target, options, d.scheduler);
  campaign["batch"] = minimize::first_failure_batch(options.jobs);
  campaign["minimize"] = {{"timeout", args.test_case.timeout_seconds},
                          {"sampled", args.test_case.sampled},
                          {"budget", args.test_case.budget},
                          {"preemptions", args.test_case.preemptions},
                          {"seed", args.test_case.seed}};
  nlohmann::json failing = nullptr;
  if (d.failing) {
    failing = {{"seed", d.failing->seed},
               {"violation", d.failing->verdict.result == detect::Result::kViolation}};
  }
  return {{"linfault", "run-summary"},
          {"version", kSummaryVersion},
          {"campaign", campaign},
          {"shard", shard.to_json()},
          {"complete", true},
          {"histories", d.histories},
          {"violations", d.violations},
          {"failing_batch", d.failing_batch ? nlohmann::json(*d.failing_batch) : nullptr},
          {"failing", failing},
          {"files", files}};
}

// run --isolate: what follows runs in a child process, because minimizing replays the failing
// run, crash and all, many times, and an object that corrupts memory must bring down only that
// child. Returns in the child. In the caller, waits for the child (at most `timeout_seconds`,
// the minimization's own limit, and a minute more: a child hung on the allocator's lock after a
// fault inside it is killed) and ends the command with its exit code or, when it died, says so
// and exits 1: the failure found stands, unminimized.
void minimize_in_child_process(std::uint64_t seed, const std::string& saved_run,
                               double timeout_seconds) {
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::system_error(errno, std::generic_category(), "fork");
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) std::_Exit(kExitInternal);
    return;
  }
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<std::int64_t>(
                            (timeout_seconds > 0 ? 1.5 * timeout_seconds : 0) * 1000 + 60'000));
  int status = 0;
  bool killed = false;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, timeout_seconds > 0 ? WNOHANG : 0);
    if (done == pid) break;
    if (done < 0 && errno != EINTR)
      throw std::system_error(errno, std::generic_category(), "waitpid");
    if (done == 0 && std::chrono::steady_clock::now() > deadline && !killed) {
      ::kill(pid, SIGKILL);
      killed = true;
    }
    if (done == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (WIFEXITED(status)) throw CLI::RuntimeError(WEXITSTATUS(status));
  const int signal = WTERMSIG(status);
  const bool fault = signal == SIGSEGV || signal == SIGBUS || signal == SIGABRT ||
                     signal == SIGFPE || signal == SIGILL;
  std::cerr << tool_name() << ": minimizing the failing run of seed " << seed
            << (killed ? " stopped answering past the minimization's time limit and was killed"
                       : " was ended: its process " + dpct::describe_wait_status(status))
            << (fault ? " (the object corrupts memory beyond in-process recovery)" : "")
            << (saved_run.empty() ? "" : "; the run is saved in " + saved_run) << std::endl;
  throw CLI::RuntimeError(kExitViolation);
}

void run_pipeline(RunArguments args) {
  const Shard shard = args.shard.empty() ? Shard{} : parse_shard(args.shard);
  const targets::Target& target = target_with_spec(find_target(args.target), args.spec);
  detect::DriverOptions options = driver_options(args, target);
  options.shard_index = shard.index;
  options.shard_count = shard.count;
  std::vector<std::string> files;  // written into --out
  if (!args.out.empty()) {
    prepare_output_directory(args.out, "--out");
    if (args.test_case.save.empty()) {
      args.test_case.save = (std::filesystem::path(args.out) / "testcase.json").string();
      files.push_back("testcase.json");
    }
    if (args.test_case.gtest.empty()) {
      args.test_case.gtest =
          (std::filesystem::path(args.out) / (target.name + "_repro_test.cc")).string();
      files.push_back(target.name + "_repro_test.cc");
    }
  }
  ProgressLine progress;
  const Detection d = detect_first_failure(target, args, options, progress);
  if (!d.failing) {
    if (options.scheduler != detect::SchedulerKind::kNative) {
      const std::string warning =
          detect::no_interleaving_warning(target, d.histories, d.without_shared_access);
      if (!warning.empty()) std::cerr << tool_name() << ": warning: " << warning << std::endl;
    }
    const std::string note = detect::weak_order_note(target, d.weak_order_sites);
    if (!note.empty()) std::cerr << tool_name() << ": note: " << note << std::endl;
    if (!args.out.empty()) {
      write_summary(args.out, run_summary(target, args, options, shard, d, {}));
    }
    if (args.json) {
      nlohmann::json out = {{"linfault", "run"},
                            {"target", target.name},
                            {"histories", d.histories},
                            {"violations", 0},
                            {"test_case", nullptr}};
      std::cout << history::json_text(out) << std::endl;
    } else {
      std::cout << detection_text(target, args, d)
                << "no failure found; try more histories (-s), more operations (-m) or another "
                   "scheduler\n";
    }
    throw CLI::RuntimeError(kExitSuccess);
  }
  std::string saved_run;
  if (!args.out.empty()) {
    const std::string name = target.name + "-" + std::to_string(d.failing->seed) + ".json";
    saved_run = (std::filesystem::path(args.out) / name).string();
    detect::write_saved_run(*d.failing, saved_run);
    files.push_back(name);
  }
  if (!args.json) std::cout << detection_text(target, args, d) << std::flush;
  if (options.isolate) {
    minimize_in_child_process(d.failing->seed, saved_run, args.test_case.timeout_seconds);
  }

  minimize::TargetMinimizerOptions minimizer = minimizer_options(args.test_case);
  minimizer.step_estimator = minimize::tree_step_estimators();
  minimizer.progress = [&progress](const std::string& line) { progress.note("minimize: " + line); };
  minimize::TargetMinimization m;
  try {
    m = minimize::minimize_saved_run(target, *d.failing, minimizer);
  } catch (const minimize::FailureNotReproduced& e) {
    progress.finish();
    std::cerr << tool_name() << ": the failing run of seed " << d.failing->seed
              << " could not be minimized: " << e.what()
              << (saved_run.empty() ? "" : "; the run is saved in " + saved_run) << std::endl;
    throw CLI::RuntimeError(kExitUnknown);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error("the failing run of seed " + std::to_string(d.failing->seed) +
                             " could not be minimized: " + e.what());
  }
  progress.finish();
  const std::string written = save_test_case_files(m, args.test_case);
  if (!args.out.empty()) {
    std::sort(files.begin(), files.end());
    write_summary(args.out, run_summary(target, args, options, shard, d, files));
  }
  const targets::KnownScenario* known =
      targets::matching_known_scenario(target, m.workload.threads);
  if (args.json) {
    nlohmann::json out = minimize::minimization_to_json(m, tool_name());
    out["detection"] = {
        {"scheduler", d.scheduler},
        {"histories", d.histories},
        {"violations", d.violations},
        {"avg_ms", d.histories ? d.total_ms / static_cast<double>(d.histories) : 0},
        {"failing_seed", d.failing->seed},
        {"saved_run", saved_run.empty() ? nlohmann::json(nullptr) : nlohmann::json(saved_run)}};
    out["known_scenario"] =
        known ? nlohmann::json{{"type", known->type}, {"description", known->description}}
              : nlohmann::json(nullptr);
    std::cout << history::json_text(out) << std::endl;
  } else {
    std::cout << std::fixed << std::setprecision(1) << "localize: shortest failing prefix "
              << m.prefix_events << " events of " << m.original_operations << " operations ("
              << m.localize_ms << " ms)\n\n";
    minimize::print_minimization(std::cout, m, args.test_case.compact);
    if (known) {
      std::cout << "known scenario: Pc runs the methods of " << target.name << "'s type "
                << known->type << " scenario (" << known->description << ")\n";
    } else if (!target.known_scenarios.empty()) {
      std::cout << "known scenario: none of " << target.name
                << "'s known scenarios runs these methods in Pc: a new minimal failing scenario\n";
    }
    if (!saved_run.empty()) std::cout << "failing run saved to " << saved_run << "\n";
    std::cout << written;
  }
  throw CLI::RuntimeError(kExitViolation);
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArguments>();
  args->target = "treiber_stack_buggy";
  // Detection stops at the first failing history, so the budget only costs a correct object:
  // about a second at the default 2 x 10 against a model, up to about 10 s where the target's
  // serial runs are the specification. A rare bug such as pair_snapshot's 1 || 4, about one
  // history in 1,100, is then found nearly always.
  args->histories = 10000;
  CLI::App* cmd = app.add_subcommand(
      "run",
      "Detect, localize and minimize: run a target until a history fails, then shrink the "
      "failure to a tiny verified test case.");
  add_detection_options(*cmd, *args, /*target_required=*/false);
  add_shard_option(*cmd, args->shard, "histories");
  add_test_case_options(*cmd, args->test_case, /*timeout_option=*/true);
  cmd->add_option("-o,--out", args->out,
                  "Write DIR/<target>-<seed>.json (the failing run), DIR/testcase.json, "
                  "DIR/<target>_repro_test.cc and DIR/summary.json (for `linfault merge`)");
  cmd->add_flag("--json", args->json,
                "Print the test case as one JSON object (docs/formats.md) with a \"detection\" "
                "and a \"minimization\" summary");
  cmd->footer(
      "Stops detecting at the first failing history (at most --histories).\n"
      "Exit codes: 1 a failing test case was produced, 0 no failure found, 64 usage error,\n"
      "70 internal error. Progress goes to stderr when it is a terminal.\n"
      "Examples:\n"
      "  linfault run                                    (treiber_stack_buggy, D-PCT)\n"
      "  linfault run --target lf_list_buggy --out repro\n"
      "  linfault run --target pair_snapshot --scheduler random \\\n"
      "      --workload examples/pair-snapshot-workload.json");
  cmd->callback([args] { run_pipeline(*args); });
}

}  // namespace linfault::tool
