// The GoogleTest check and the repro assertion of <linfault/gtest.h>.

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <string>

#include "linfault/gtest.h"
#include "minimize/pipeline.h"
#include "targets/registry.h"

namespace linfault::testing {
namespace {

// A test name as a directory name: letters, digits, '.', '_' and '-' only.
std::string directory_name(std::string_view text) {
  std::string out;
  for (char c : text) {
    const bool safe =
        std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_' || c == '-';
    out += safe ? c : '_';
  }
  return out.empty() ? "test" : out;
}

const targets::Target* lookup(std::string_view name, std::string& error) {
  try {
    return &targets::find(name);
  } catch (const std::invalid_argument& e) {
    error = e.what();
    return nullptr;
  }
}

}  // namespace

Options options_for_current_test(Options options) {
  if (const char* seed = std::getenv("LINFAULT_SEED"); seed != nullptr && *seed != '\0') {
    char* end = nullptr;
    errno = 0;
    const unsigned long long value = std::strtoull(seed, &end, 10);
    if (errno != 0 || end == seed || *end != '\0' || *seed == '-') {
      throw std::invalid_argument("LINFAULT_SEED=" + std::string(seed) +
                                  ": expected a non-negative integer");
    }
    options.seed = value;
  }
  if (options.output_dir.empty()) {
    const char* root = std::getenv("LINFAULT_OUTPUT_DIR");
    std::filesystem::path dir = root != nullptr && *root != '\0' ? root : "linfault-failures";
    const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
    dir /= test != nullptr
               ? directory_name(std::string(test->test_suite_name()) + "." + test->name())
               : "check";
    options.output_dir = dir.string();
  }
  return options;
}

::testing::AssertionResult Linearizable(const Target& target, const Options& options) {
  CheckResult result;
  try {
    result = minimize::check_target(target, options_for_current_test(options));
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure()
           << "linfault could not check " << target.name << ": " << e.what();
  }
  ::testing::Test::RecordProperty("linfault_histories", std::to_string(result.histories));
  ::testing::Test::RecordProperty("linfault_seed", std::to_string(result.seed));
  if (result.violation) return ::testing::AssertionFailure() << "\n" << result.report;
  // Nothing was interleaved: a pass would say the object is linearizable when nothing was tested.
  if (!result.warning.empty()) return ::testing::AssertionFailure() << "\n" << result.report;
  // A pass says nothing of memory orders: printed, since a success message is not.
  if (!result.note.empty()) std::cerr << "linfault: note: " << result.note << std::endl;
  return ::testing::AssertionSuccess() << result.report;
}

::testing::AssertionResult Linearizable(std::string_view target, const Options& options) {
  std::string error;
  const targets::Target* found = lookup(target, error);
  if (found == nullptr) return ::testing::AssertionFailure() << "linfault: " << error;
  return Linearizable(*found, options);
}

::testing::AssertionResult ReproPasses(std::string_view target, const Workload& workload,
                                       std::string_view schedule, std::uint64_t max_steps,
                                       const ReproOptions& options) {
  std::string error;
  const targets::Target* found = lookup(target, error);
  if (found == nullptr) {
    return ::testing::AssertionFailure()
           << "linfault: " << error
           << "; link the linfault_add_target() library that registers it (linfault_add_test "
              "... TARGETS <library>)";
  }
  minimize::ReproOptions repro;
  repro.max_executions = options.max_executions;
  repro.preemption_bound = options.preemption_bound;
  minimize::ReproVerdict verdict;
  try {
    verdict = minimize::verify_test_case(*found, workload, schedule, max_steps, repro);
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "linfault could not run the test case: " << e.what();
  }
  if (verdict.failed) {
    return ::testing::AssertionFailure()
           << "the bug is still there (" << found->name << "): " << verdict.summary << "\n"
           << verdict.details;
  }
  return ::testing::AssertionSuccess() << verdict.summary;
}

}  // namespace linfault::testing
