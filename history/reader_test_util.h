// Test helpers shared by the reader tests: asserting that input is rejected with the exact
// "file:line: problem" message.

#ifndef LINFAULT_HISTORY_READER_TEST_UTIL_H_
#define LINFAULT_HISTORY_READER_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "history/formats.h"

namespace linfault::history::testing {

// Loads `text` as `format` from origin "in.txt" and expects an InputError whose message starts
// with "in.txt:<line>: " and contains `fragment`.
inline void expect_input_error(std::string_view text, Format format, std::uint32_t line,
                               std::string_view fragment) {
  try {
    load_history_text(text, "in.txt", format);
    ADD_FAILURE() << "accepted: " << text;
  } catch (const InputError& e) {
    const std::string prefix = "in.txt:" + std::to_string(line) + ": ";
    const std::string message = e.what();
    EXPECT_EQ(message.rfind(prefix, 0), 0u) << message;
    EXPECT_NE(message.find(fragment), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    EXPECT_EQ(e.line(), line);
  }
}

}  // namespace linfault::history::testing

#endif  // LINFAULT_HISTORY_READER_TEST_UTIL_H_
