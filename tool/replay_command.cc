// `linfault replay FILE`: re-executes a failing run saved by `linfault detect --out` under its
// recorded schedule (strict replay), prints the interleaving access by access and the verdict.

#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "detect/checker.h"
#include "detect/driver.h"
#include "detect/saved_run.h"
#include "dpct/replay_scheduler.h"
#include "history/formats.h"
#include "targets/registry.h"
#include "tool/commands.h"

namespace linfault::tool {
namespace {

struct ReplayArguments {
  std::string file;
  double timeout_seconds = 0;
  bool quiet = false;
};

const history::Call* call_of(const dpct::Workload& workload, const dpct::TraceStep& step) {
  const std::vector<history::Call>* calls = &workload.setup;
  if (step.phase == dpct::Phase::kConcurrent) {
    if (step.thread >= workload.threads.size()) return nullptr;
    calls = &workload.threads[step.thread];
  } else if (step.phase == dpct::Phase::kReveal) {
    calls = &workload.reveal;
  }
  return step.op_index < calls->size() ? &(*calls)[step.op_index] : nullptr;
}

std::string who(const dpct::TraceStep& step) {
  switch (step.phase) {
    case dpct::Phase::kSetup:
      return "Ps";
    case dpct::Phase::kReveal:
      return "Pr";
    case dpct::Phase::kConcurrent:
      break;
  }
  return "t" + std::to_string(step.thread);
}

void print_interleaving(std::ostream& out, const detect::SavedRun& saved, const dpct::Run& run) {
  out << "interleaving (" << run.trace.size() << " shared accesses):\n";
  char line[512];
  std::snprintf(line, sizeof line, "%6s  %-4s %-22s %-10s %-24s %s\n", "step", "who", "operation",
                "access", "at", "value");
  out << line;
  for (std::size_t i = 0; i < run.trace.size(); ++i) {
    const dpct::TraceStep& step = run.trace[i];
    const history::Call* call = call_of(saved.workload, step);
    const std::string operation =
        "#" + std::to_string(step.op_index) + " " + (call ? call->to_string() : "?");
    const std::string at = step.file + ":" + std::to_string(step.line);
    // A load leaves the value in place and a store reads nothing: show what the access did.
    const bool reads = step.kind != dpct::AccessKind::kStore;
    const bool writes = step.kind != dpct::AccessKind::kLoad && step.success;
    std::string value;
    if (reads && !step.read.empty()) value += "read " + step.read;
    if (writes && !step.written.empty()) {
      value += (value.empty() ? "" : ", ") + ("wrote " + step.written);
    }
    if (!step.success) value += value.empty() ? "failed" : " (failed)";
    std::snprintf(line, sizeof line, "%6zu  %-4s %-22s %-10s %-24s %s\n", i + 1, who(step).c_str(),
                  operation.c_str(), dpct::access_kind_name(step.kind), at.c_str(), value.c_str());
    out << line;
  }
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

void run_replay(const ReplayArguments& args) {
  const detect::SavedRun saved = detect::read_saved_run(args.file);
  const targets::Target* target = nullptr;
  try {
    target = &targets::find(saved.target);
  } catch (const targets::UnknownTarget& e) {
    throw history::InputError(args.file, 0, e.what());
  }
  std::ostringstream out;
  out << "saved run: " << saved.target << " seed " << saved.seed << ", "
      << saved.scheduling.description << ", outcome " << dpct::run_outcome_name(saved.outcome)
      << ", verdict " << detect::result_name(saved.verdict.result) << "\n";

  if (saved.scheduling.kind == detect::scheduler_kind_name(detect::SchedulerKind::kNative)) {
    out << "native run: it has no schedule to replay; re-checking its recorded history\n";
    detect::CheckOptions check;
    check.timeout_seconds = args.timeout_seconds;
    const detect::Verdict verdict = detect::check_history(saved.model, saved.history, check);
    if (!args.quiet) print_history(out, saved.history);
    print_verdict(out, verdict, saved.history);
    std::cout << out.str() << std::flush;
    throw CLI::RuntimeError(verdict.result == detect::Result::kViolation ? kExitViolation
                                                                         : kExitSuccess);
  }

  detect::ReplayResult replay;
  try {
    replay = detect::replay_saved_run(saved, *target, /*record_trace=*/true, args.timeout_seconds);
  } catch (const dpct::ScheduleDivergence& e) {
    std::cout << out.str() << std::flush;
    throw history::InputError(args.file, 0, std::string("replay diverged: ") + e.what());
  }
  out << "schedule: " << replay.run.schedule.to_text() << "\n";
  if (!args.quiet) {
    print_interleaving(out, saved, replay.run);
    print_history(out, replay.run.history);
  }
  out << "outcome: " << dpct::run_outcome_name(replay.run.outcome);
  if (!replay.run.message.empty()) out << " (" << replay.run.message << ")";
  out << "\n";
  out << (replay.same_history ? "history: identical to the saved one\n"
                              : "history: DIFFERS from the saved one (the object is not "
                                "deterministic under a fixed schedule?)\n");
  print_verdict(out, replay.verdict, replay.run.history);
  const bool reproduced = replay.verdict.result == detect::Result::kViolation;
  if (reproduced) {
    out << "the violation REPRODUCES\n";
  } else if (saved.verdict.result == detect::Result::kViolation) {
    out << "*** THE VIOLATION DID NOT REPRODUCE ***\n";
  }
  std::cout << out.str() << std::flush;
  throw CLI::RuntimeError(reproduced ? kExitViolation : kExitSuccess);
}

}  // namespace

void add_replay_command(CLI::App& app) {
  auto args = std::make_shared<ReplayArguments>();
  CLI::App* replay = app.add_subcommand(
      "replay",
      "Replay a failing run saved by `linfault detect --out` and print its interleaving.");
  replay->add_option("file", args->file, "A saved run (JSON, docs/formats.md)")->required();
  replay->add_option("--timeout", args->timeout_seconds, "Seconds for the check (0: none)")
      ->capture_default_str();
  replay->add_flag("-q,--quiet", args->quiet, "Print the verdict only, not the interleaving");
  replay->footer(
      "Exit codes: 1 the violation reproduces, 0 it does not, 65 the replay diverged from the\n"
      "recorded schedule or the file is not a saved run, 66 the file cannot be opened.");
  replay->callback([args] { run_replay(*args); });
}

}  // namespace linfault::tool
