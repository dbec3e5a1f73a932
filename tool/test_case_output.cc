#include "tool/test_case_output.h"

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "history/atomic_file.h"
#include "history/history.h"
#include "history/json_format.h"
#include "minimize/gtest_emitter.h"
#include "minimize/interleaving.h"
#include "minimize/pipeline.h"
#include "minimize/test_case.h"
#include "tool/commands.h"

namespace linfault::tool {

void add_test_case_options(CLI::App& app, TestCaseArguments& args, bool timeout_option) {
  if (timeout_option) {
    app.add_option("--min-timeout", args.timeout_seconds,
                   "Seconds for the whole minimization; past it the smallest failing test case "
                   "found so far is kept and reported as not proven minimal")
        ->capture_default_str()
        ->check(positive());
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
// linfault_add_test resolves a relative path against the CMakeLists' directory, not the one the
// tool ran in: the hint gives the written file's absolute path.
std::string absolute_path(const std::string& path) {
  return std::filesystem::absolute(path).lexically_normal().string();
}
}  // namespace

std::string gtest_written(const std::string& path, const std::string& target) {
  return "GoogleTest file written to " + path + "; build it with\n" +
         "  find_package(linfault CONFIG REQUIRED)\n" + "  linfault_add_test(" + target +
         "_repro SOURCES " + absolute_path(path) +
         (targets::is_registered(target)
              ? " TARGETS <the linfault_add_target library that registers " + target + ">"
              : std::string()) +
         ")\n";
}

std::string save_test_case_files(const minimize::TargetMinimization& m,
                                 const TestCaseArguments& args) {
  std::string written;
  if (!args.save.empty()) {
    try {
      history::write_file_atomically(
          args.save, history::json_text(minimize::minimization_to_json(m, tool_name()), 2) + "\n");
    } catch (const std::runtime_error& e) {
      throw UsageError(std::string("--save ") + e.what());
    }
    written += "test case written to " + args.save + " (replay with `" + tool_name() + " replay " +
               args.save + "`)\n";
  }
  // A history-level test case has no target and no schedule: nothing to re-execute.
  if (!args.gtest.empty() && m.test_case.target && m.test_case.schedule) {
    try {
      history::write_file_atomically(args.gtest, minimize::emit_gtest(m.test_case));
    } catch (const std::runtime_error& e) {
      throw UsageError(std::string("--gtest ") + e.what());
    }
    written += gtest_written(args.gtest, *m.test_case.target);
  }
  return written;
}

}  // namespace linfault::tool
