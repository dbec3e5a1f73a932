// Printing and saving the result of a target-level minimization, shared by `linfault minimize`
// (on a saved run or with --target) and `linfault run`.
//
// Text: the test case (Ps, Pc, Pr with observed results, the violation, the guarantee), the
// failing interleaving step by step, and the figures of each stage. JSON: the test case form of
// docs/formats.md plus a "minimization" object with the figures. Files: the test case JSON, and
// a standalone GoogleTest file that replays it.
//
// Thread-safety: single-threaded (writes to the given stream and files).
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_TOOL_TEST_CASE_OUTPUT_H_
#define LINFAULT_TOOL_TEST_CASE_OUTPUT_H_

#include <ostream>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "minimize/pipeline.h"
#include "minimize/target_minimizer.h"

namespace linfault::tool {

// Options of target-level minimization and of its outputs, as both commands take them.
struct TestCaseArguments {
  double timeout_seconds = 120;
  std::uint64_t sampled = 400;
  std::uint64_t budget = 100'000;
  unsigned preemptions = 3;
  std::uint64_t seed = 1;
  std::string save;   // test case JSON
  std::string gtest;  // GoogleTest file
  bool compact = false;
};

// Registers --sampled, --budget, --preemptions, --min-seed, --save, --gtest, --compact, and
// --min-timeout when `timeout_option` (a command with a --timeout of its own passes false).
void add_test_case_options(CLI::App& app, TestCaseArguments& args, bool timeout_option);
minimize::TargetMinimizerOptions minimizer_options(const TestCaseArguments& args);

// "GoogleTest file written to PATH; build it with" and the CMake lines that build the repro of
// `target` written at `path` (absolute in the lines: a CMakeLists.txt resolves a relative path
// against its own directory).
std::string gtest_written(const std::string& path, const std::string& target);

// Writes --save and --gtest files; returns the lines saying what was written.
std::string save_test_case_files(const minimize::TargetMinimization& m,
                                 const TestCaseArguments& args);

}  // namespace linfault::tool

#endif  // LINFAULT_TOOL_TEST_CASE_OUTPUT_H_
