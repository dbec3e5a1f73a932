// <linfault/gtest.h>: linearizability checks inside GoogleTest, Lincheck-style. Public API.
//
//   #include <linfault/gtest.h>
//
//   TEST(MyQueue, IsLinearizable) {
//     EXPECT_TRUE(linfault::testing::Linearizable("my_queue"));
//   }
//
//   TEST(MyQueue, Budget) {
//     linfault::testing::Options options;
//     options.histories = 5000;
//     options.seconds = 20;
//     options.threads = 3;
//     EXPECT_TRUE(linfault::testing::Linearizable("my_queue", options));
//   }
//
// Linearizable() runs a detection campaign within the budget (histories and seconds, threads and
// operations, scheduler and seed; see <linfault/check.h>). On a violation it localizes and
// minimizes the failing history and returns a failed ::testing::AssertionResult whose message IS
// the minimized test case: Ps, Pc and Pr with the observed results, the failing interleaving
// access by access with source lines, the seed, and the paths of the written testcase.json and
// GoogleTest repro. On a correct object it succeeds and its message says what was explored
// (GoogleTest prints a success message only for EXPECT_FALSE); the histories run and the seed
// are also recorded as the test properties linfault_histories and linfault_seed. It fails too
// when no history reached a shared access linfault controls (the object's atomics and mutexes
// are std's, not instrumented): nothing was interleaved, and a pass would mean nothing.
//
// Determinism and parallel runs: the campaign is a function of the seed (options.seed; the
// environment variable LINFAULT_SEED overrides it). Files go to
//   $LINFAULT_OUTPUT_DIR (default: linfault-failures)/<TestSuite>.<Test>/
// one directory per test, written through temporary files, so `ctest -j` is safe.
//
// To inspect the result instead (e.g. to assert that a known-buggy object IS caught), call
// linfault::check() of <linfault/check.h> with testing::options_for_current_test(options).
//
// ReproPasses() is what generated repros call: it replays the recorded schedule of a test case
// on the registered target, then explores every interleaving of its concurrent part, and fails
// only on a real violation, deadlock or crash (minimize/pipeline.h verify_test_case). So a repro
// fails while the bug is there, passes once it is fixed, and a line shift changes neither.
//
// Thread-safety: call from the test's thread; tests in separate processes may run concurrently.

#ifndef LINFAULT_PUBLIC_GTEST_H_
#define LINFAULT_PUBLIC_GTEST_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "linfault/check.h"
#include "linfault/target.h"

namespace linfault::testing {

using Options = CheckOptions;

// `options` with the seed of LINFAULT_SEED (if set), and, when output_dir is empty, the current
// test's directory under $LINFAULT_OUTPUT_DIR (default linfault-failures). Throws
// std::invalid_argument for a LINFAULT_SEED that is not a number.
Options options_for_current_test(Options options);

::testing::AssertionResult Linearizable(std::string_view target, const Options& options = {});
::testing::AssertionResult Linearizable(const Target& target, const Options& options = {});

struct ReproOptions {
  std::uint64_t max_executions = 200'000;  // exploration budget
  unsigned preemption_bound = 3;           // when every interleaving does not fit the budget
};

::testing::AssertionResult ReproPasses(std::string_view target, const Workload& workload,
                                       std::string_view schedule, std::uint64_t max_steps,
                                       const ReproOptions& options = {});

}  // namespace linfault::testing

#endif  // LINFAULT_PUBLIC_GTEST_H_
