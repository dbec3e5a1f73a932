// GoogleTest emitter: turns a target-level test case into one self-contained .cc file that a
// user drops into their tests to reproduce the bug deterministically.
//
// The file states the test case as code (Ps, each thread of Pc and Pr as lists of calls, with
// the results observed in the failing run as comments), embeds the failing schedule's text, and
// has one TEST that
//   1. builds the target's object with targets::find(target).factory,
//   2. replays the schedule strictly (dpct::ReplayScheduler): a divergence — the object or the
//      calls changed since the test case was made — fails the test with the divergence message,
//   3. fails when the run does not end normally (deadlock, livelock, crash: the message says
//      which), and checks the history against the model: a non-linearizable history fails the
//      test with "no linearization explains <operation>".
// So the test fails while the bug is there and passes once it is fixed. A comment header says
// what it reproduces, the guarantee, and how to build it: link against linfault's libraries
// linfault_targets, linfault_dpct and linfault_detect and GTest::gtest_main, with linfault's
// source root as an include directory.
//
// Every string taken from the test case (methods, string values, the schedule, the violation and
// guarantee in comments) is emitted as an escaped literal or a sanitized comment, so any content
// yields a file that compiles.
//
// Thread-safety: pure functions.

#ifndef LINFAULT_MINIMIZE_GTEST_EMITTER_H_
#define LINFAULT_MINIMIZE_GTEST_EMITTER_H_

#include <string>
#include <string_view>

#include "minimize/test_case.h"

namespace linfault::minimize {

// Throws std::invalid_argument for a test case without a target or without a schedule (a
// history-level test case has nothing to re-execute).
std::string emit_gtest(const TestCase& test_case);

// The TEST's name: the target's name in CamelCase ("treiber_stack_buggy" -> "TreiberStackBuggy").
std::string gtest_name(std::string_view target);

// A C++ string literal whose value is `text` ("a\"b\n" for a"b<newline>), with octal escapes for
// bytes outside printable ASCII.
std::string cpp_string_literal(std::string_view text);

}  // namespace linfault::minimize

#endif  // LINFAULT_MINIMIZE_GTEST_EMITTER_H_
