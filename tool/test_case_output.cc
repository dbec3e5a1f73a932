#include "tool/test_case_output.h"

#include <fstream>
#include <iomanip>
#include <sstream>

#include "history/history.h"
#include "minimize/gtest_emitter.h"
#include "minimize/interleaving.h"
#include "minimize/test_case.h"
#include "tool/commands.h"

namespace linfault::tool {

void add_test_case_options(CLI::App& app, TestCaseArguments& args, bool timeout_option) {
  if (timeout_option) {
    app.add_option("--min-timeout", args.timeout_seconds,
                   "Seconds for the whole minimization; past it the smallest failing test case "
                   "found so far is kept and reported as not proven minimal")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
  }
  app.add_option("--sampled", args.sampled,
                 "CHECK: fresh D-PCT/PCT/random schedules per candidate after the replay (sigma)")
      ->capture_default_str();
  app.add_option("--budget", args.budget,
                 "CHECK: executions of one exhaustive enumeration of Pc's interleavings")
      ->capture_default_str();
  app.add_option("--preemptions", args.preemptions,
                 "Preemption bound of the enumeration when all interleavings do not fit the budget")
      ->capture_default_str();
  app.add_option("--min-seed", args.seed, "Seed of the sampled schedules")->capture_default_str();
  app.add_option("--save", args.save, "Write the test case as JSON (docs/formats.md)");
  app.add_option("--gtest", args.gtest, "Write a standalone GoogleTest file that replays it");
  app.add_flag("--compact", args.compact, "Print the interleaving one access per line");
}

minimize::TargetMinimizerOptions minimizer_options(const TestCaseArguments& args) {
  minimize::TargetMinimizerOptions options;
  options.timeout_seconds = args.timeout_seconds;
  options.sampled_schedules = args.sampled;
  options.exhaustive_executions = args.budget;
  options.preemption_bound = args.preemptions;
  options.seed = args.seed;
  options.check.timeout_seconds = 10;
  return options;
}

namespace {

std::size_t pc_operations(const minimize::TargetMinimization& m) {
  std::size_t n = 0;
  for (const auto& thread : m.workload.threads) n += thread.size();
  return n;
}

}  // namespace

nlohmann::json minimization_to_json(const minimize::TargetMinimization& m) {
  nlohmann::json out = minimize::test_case_to_json(m.test_case);
  out["minimization"] = {
      {"original_operations", m.original_operations},
      {"prefix_events", m.prefix_events},
      {"pc_operations", pc_operations(m)},
      {"candidates", m.candidates},
      {"executions", m.executions},
      {"localize_ms", m.localize_ms},
      {"elapsed_ms", m.elapsed_ms},
      {"timed_out", m.timed_out},
      {"failing_schedule_exhaustive", m.proof.failing_schedule_exhaustive},
      {"minimal_exhaustive", m.proof.minimal_exhaustive},
      {"preemption_bound", m.proof.preemption_bound ? nlohmann::json(*m.proof.preemption_bound)
                                                    : nlohmann::json(nullptr)},
      {"log", m.log}};
  return out;
}

void print_minimization(std::ostream& out, const minimize::TargetMinimization& m, bool compact) {
  out << minimize::test_case_to_text(m.test_case);
  minimize::InterleavingOptions layout;
  if (m.verdict.result == detect::Result::kViolation) layout.culprit = m.verdict.culprit;
  layout.compact = compact;
  layout.max_width = 120;
  out << "\nfailing interleaving:\n"
      << minimize::format_interleaving(m.workload, m.failing_run, layout) << "\n";
  out << "schedule: " << m.test_case.schedule.value_or("") << "\n";
  out << std::fixed << std::setprecision(1) << "minimized: " << m.original_operations
      << " operations -> " << m.workload.setup.size() << " + " << pc_operations(m) << " + "
      << m.workload.reveal.size() << " (Ps + Pc + Pr) in " << m.elapsed_ms << " ms ("
      << "localization " << m.localize_ms << " ms), " << m.candidates << " candidates, "
      << m.executions << " executions\n";
}

std::string save_test_case_files(const minimize::TargetMinimization& m,
                                 const TestCaseArguments& args) {
  std::string written;
  if (!args.save.empty()) {
    std::ofstream file(args.save);
    if (!file) throw UsageError("--save " + args.save + ": cannot write");
    file << minimization_to_json(m).dump(2) << "\n";
    written += "test case written to " + args.save + " (replay with `linfault replay " + args.save +
               "`)\n";
  }
  // A history-level test case has no target and no schedule: nothing to re-execute.
  if (!args.gtest.empty() && m.test_case.target && m.test_case.schedule) {
    std::ofstream file(args.gtest);
    file << minimize::emit_gtest(m.test_case);
    file.close();
    if (!file) throw UsageError("--gtest " + args.gtest + ": cannot write");
    written += "GoogleTest file written to " + args.gtest +
               " (link it with linfault_targets, linfault_dpct, linfault_detect and "
               "GTest::gtest_main)\n";
  }
  return written;
}

}  // namespace linfault::tool
