// GoogleTest emitter: turns a target-level test case into one self-contained .cc file that a
// user drops into their tests to reproduce the bug deterministically.
//
// The file states the test case as code (Ps, each thread of Pc and Pr as lists of calls, with
// the results observed in the failing run as comments), embeds the failing schedule's text, and
// has one TEST that calls linfault::testing::ReproPasses (<linfault/gtest.h>) on the target by
// name, so it works for a user's registered target as for a built-in one: the recorded schedule is
// replayed (its thread choices followed even where lines moved), then every interleaving of Pc is
// explored (minimize/pipeline.h verify_test_case). It fails while the bug is there, passes once
// it is fixed, and a line shift alone changes neither. A comment header says what it reproduces,
// the guarantee, and the CMake lines that build it (linfault_add_test).
//
// Every string taken from the test case (methods, string values, the schedule, the violation and
// guarantee in comments) is emitted as an escaped literal or a sanitized comment, so any content
// yields a file that compiles.
//
// Internal header.
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
