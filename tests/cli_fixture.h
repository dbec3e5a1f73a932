// A GoogleTest fixture that runs the built `linfault` binary as a user would: from the project
// root (ctest's working directory), with its standard output and error captured, in a fresh
// temporary directory per test.
//
// Thread-safety: one fixture per test, as GoogleTest makes them.

#ifndef LINFAULT_TESTS_CLI_FIXTURE_H_
#define LINFAULT_TESTS_CLI_FIXTURE_H_

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/verdict_rows.h"

namespace linfault::tests {

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

class CliFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           ("linfault_" + std::string(info->test_suite_name()) + "_" + std::to_string(::getpid()) +
            "_" + info->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Runs `linfault <args>`, standard input from `stdin_path`.
  RunResult run(const std::string& args, const std::string& stdin_path = "/dev/null") {
    const std::filesystem::path out = dir_ / "stdout";
    const std::filesystem::path err = dir_ / "stderr";
    const std::string command = std::string("'") + LINFAULT_BINARY + "' " + args + " >'" +
                                out.string() + "' 2>'" + err.string() + "' <'" + stdin_path + "'";
    const int status = std::system(command.c_str());
    RunResult result;
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    result.out = read_file(out);
    result.err = read_file(err);
    return result;
  }

  // Writes `content` to a file of the test's directory and returns its path.
  std::string write(const std::string& name, const std::string& content) {
    const std::filesystem::path path = dir_ / name;
    std::ofstream(path) << content;
    return path.string();
  }

  // The path of a file under ../shared/data.
  static std::string shared(const std::string& path) { return shared_data_path(path); }

  std::filesystem::path dir_;
};

// The error is exactly one line: "linfault: <prefix>...<fragment>...".
inline void expect_one_line_error(const RunResult& result, const std::string& prefix,
                                  const std::string& fragment) {
  EXPECT_EQ(result.err.rfind("linfault: " + prefix, 0), 0u) << result.err;
  EXPECT_NE(result.err.find(fragment), std::string::npos) << result.err;
  ASSERT_FALSE(result.err.empty());
  EXPECT_EQ(result.err.find('\n'), result.err.size() - 1) << result.err;
}

}  // namespace linfault::tests

#endif  // LINFAULT_TESTS_CLI_FIXTURE_H_
