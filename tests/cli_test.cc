// Runs the built `linfault` binary on real and malformed inputs and checks exit codes, the
// one-line error format and the --json output.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/cli_fixture.h"

namespace linfault::tests {
namespace {

namespace fs = std::filesystem;

using CliTest = CliFixture;

TEST_F(CliTest, ViolationExitsOneAndNamesTheCulpritsLine) {
  const RunResult result = run("check examples/stack-pop-pop.edn --model stack");
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_NE(result.out.find("examples/stack-pop-pop.edn: violation"), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("culprit"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("(examples/stack-pop-pop.edn:"), std::string::npos) << result.out;
  // The stack monitor decides it and says how to get a partial linearization; the search gives one.
  EXPECT_NE(result.out.find("monitor:stack"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("--algo search prints the longest partial one"), std::string::npos)
      << result.out;
  EXPECT_TRUE(result.err.empty()) << result.err;
  const RunResult search = run("check examples/stack-pop-pop.edn --model stack --algo search");
  EXPECT_EQ(search.exit_code, 1) << search.err;
  EXPECT_NE(search.out.find("longest partial linearization (3 operations)"), std::string::npos)
      << search.out;
}

TEST_F(CliTest, LinearizableExitsZeroWithImpliedModel) {
  const RunResult result = run("check '" + shared("porcupine/jepsen/etcd_002.log") + "'");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("linearizable"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("model cas-register"), std::string::npos) << result.out;
}

TEST_F(CliTest, WitnessIsPrinted) {
  const RunResult result =
      run("check --witness '" + shared("fastlin/stack/lin_simple_0.log") + "'");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("linearization (4 operations)"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("push(1)"), std::string::npos) << result.out;
  // The monitors build none: asking one for a witness is a usage error, not an empty witness.
  const RunResult monitor =
      run("check --witness --algo monitor '" + shared("fastlin/stack/lin_simple_0.log") + "'");
  EXPECT_EQ(monitor.exit_code, 64) << monitor.out;
  expect_one_line_error(monitor, "--witness needs", "--algo auto or search");
}

TEST_F(CliTest, JsonViolationHasTheAgreedFields) {
  const RunResult result =
      run("check --json '" + shared("fastlin/stack/nonlin_simple_0.log") + "'");
  EXPECT_EQ(result.exit_code, 1) << result.err;
  const nlohmann::json json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json["verdict"], "violation");
  EXPECT_EQ(json["model"], "stack");
  EXPECT_EQ(json["format"], "fastlin");
  EXPECT_EQ(json["operations"], 4);
  EXPECT_TRUE(json["elapsed_ms"].is_number());
  EXPECT_TRUE(json["algorithm"].is_string());
  EXPECT_GT(json["prefix_events"].get<int>(), 0);
  const nlohmann::json& culprit = json["culprit"];
  for (const char* field : {"index", "process", "method", "args", "result", "line"}) {
    EXPECT_TRUE(culprit.contains(field)) << field << " in " << culprit.dump();
  }
  EXPECT_GT(culprit["line"].get<int>(), 1);
  EXPECT_TRUE(json["longest_partial"].is_array());
}

TEST_F(CliTest, JsonLinearizable) {
  const RunResult result = run("check --json '" + shared("porcupine/kv/c01-ok.txt") + "'");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  const nlohmann::json json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json["verdict"], "linearizable");
  EXPECT_EQ(json["model"], "kv");
  EXPECT_FALSE(json.contains("culprit"));
}

TEST_F(CliTest, ReadsTheProjectJsonFormatAndStandardInput) {
  const std::string path = write("h.json", R"({"model": "register", "operations": [
{"process": 0, "method": "write", "args": [1], "call": 0, "return": 1},
{"process": 1, "method": "read", "call": 2, "return": 3, "result": 2}]}
)");
  const RunResult result = run("check --json -", path);
  EXPECT_EQ(result.exit_code, 1) << result.err;
  const nlohmann::json json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json["file"], "-");
  EXPECT_EQ(json["culprit"]["line"], 3);
}

// A register history whose final read can't be explained, after 24 overlapping writes: proving
// that takes every order of the writes, far more than the limits below allow.
std::string hard_register_history() {
  std::string text;
  for (int p = 0; p < 24; ++p) {
    text += "{:process " + std::to_string(p) + ", :type :invoke, :f :write, :value " +
            std::to_string(p) + "}\n";
  }
  for (int p = 0; p < 24; ++p) {
    text += "{:process " + std::to_string(p) + ", :type :ok, :f :write, :value " +
            std::to_string(p) + "}\n";
  }
  text += "{:process 99, :type :invoke, :f :read, :value nil}\n";
  text += "{:process 99, :type :ok, :f :read, :value 1000}\n";
  return text;
}

TEST_F(CliTest, TimeoutGivesUnknownAndExitTwo) {
  const std::string path = write("hard.edn", hard_register_history());
  const RunResult result = run("check --json --timeout 0.2 '" + path + "'");
  ASSERT_EQ(result.exit_code, 2) << result.out << result.err;
  const nlohmann::json json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json["verdict"], "unknown");
  EXPECT_FALSE(json["reason"].get<std::string>().empty());
}

TEST_F(CliTest, MemoryLimitGivesUnknown) {
  const std::string path = write("hard.edn", hard_register_history());
  const RunResult result = run("check --memory-limit 1 --timeout 30 '" + path + "'");
  EXPECT_EQ(result.exit_code, 2) << result.out << result.err;
  EXPECT_NE(result.out.find("no verdict:"), std::string::npos) << result.out;
}

TEST_F(CliTest, UsageErrorsExit64) {
  EXPECT_EQ(run("").exit_code, 64);
  EXPECT_EQ(run("check").exit_code, 64);
  EXPECT_EQ(run("frobnicate").exit_code, 64);
  expect_one_line_error(run("check examples/stack-pop-pop.edn --colour"), "", "--colour");
  expect_one_line_error(run("check examples/stack-pop-pop.edn --format yaml"), "", "yaml");
  expect_one_line_error(run("check examples/stack-pop-pop.edn --model nosuch"), "", "nosuch");
  const RunResult no_model = run("check examples/stack-pop-pop.edn");
  EXPECT_EQ(no_model.exit_code, 64);
  expect_one_line_error(no_model, "examples/stack-pop-pop.edn: ", "pass --model");
}

TEST_F(CliTest, BadDataExits65WithFileAndLine) {
  const std::string bad = write("bad.edn",
                                "{:process 3, :type :invoke, :f :read, :value nil}\n"
                                "{:process 4, :type :ok, :f :read, :value 1}\n");
  const RunResult unmatched = run("check --model register '" + bad + "'");
  EXPECT_EQ(unmatched.exit_code, 65);
  expect_one_line_error(unmatched, bad + ":2: ", "unmatched :ok for process 4");

  const std::string fields = write("bad.log", "# stack\npush 1 1 2\npop 1 3\n");
  const RunResult short_line = run("check '" + fields + "'");
  EXPECT_EQ(short_line.exit_code, 65);
  expect_one_line_error(short_line, fields + ":3: ", "expected 4 fields");

  const std::string garbage = write("garbage.txt", "hello\n");
  EXPECT_EQ(run("check --model stack '" + garbage + "'").exit_code, 65);

  // Well-formed, but not operations of the model: the checker names the line.
  const RunResult wrong_model = run("check examples/stack-pop-pop.edn --model queue");
  EXPECT_EQ(wrong_model.exit_code, 65);
  expect_one_line_error(wrong_model, "examples/stack-pop-pop.edn:1: ", "push");
}

// Regression tests of issue #19: a number beyond a double's range exited 70 (internal error), and
// a value nested 60 deep never finished checking, whatever --timeout said.
TEST_F(CliTest, HugeNumbersAndDeepValuesAreDataNotInternalErrors) {
  const std::string huge = write("huge.json",
                                 "{\"model\": \"stack\", \"operations\": [\n{\"process\": 0, "
                                 "\"method\": \"pop\", \"call\": " +
                                     std::string(400, '1') + ", \"return\": 2}]}\n");
  const RunResult too_large = run("check '" + huge + "'");
  EXPECT_EQ(too_large.exit_code, 65);
  expect_one_line_error(too_large, huge + ":2: ", "is out of range");

  const std::string value = std::string(60, '[') + "1" + std::string(60, ']');
  const std::string op = "{\"process\": P, \"method\": \"push\", \"args\": [" + value + "], ";
  auto with_process = [&](char process) {
    std::string text = op;
    text[text.find('P')] = process;
    return text;
  };
  const std::string deep =
      write("deep.json", "{\"model\": \"stack\", \"operations\": [\n" + with_process('0') +
                             "\"call\": 0, \"return\": 2},\n" + with_process('1') +
                             "\"call\": 1, \"return\": 3}]}\n");
  const RunResult checked = run("check --timeout 10 '" + deep + "'");
  EXPECT_EQ(checked.exit_code, 0) << checked.err;
}

// Bytes that are not UTF-8, in a file's name or in its text, used to make every --json output
// that carried them fail with exit 70 (nlohmann refuses to write invalid UTF-8). Messages now
// show such bytes as \xNN, and file names in JSON reports carry U+FFFD for them.
TEST_F(CliTest, BytesThatAreNotUtf8NeverBreakJsonOutput) {
  const std::string history =
      write("stack\xa3.json",
            "{\"model\": \"stack\", \"operations\": [{\"process\": 0, \"method\": \"push\", "
            "\"args\": [1], \"call\": 0, \"return\": 1}]}\n");
  const RunResult checked = run("check --json '" + history + "'");
  EXPECT_EQ(checked.exit_code, 0) << checked.err;
  const nlohmann::json verdict = nlohmann::json::parse(checked.out);
  EXPECT_EQ(verdict["verdict"], "linearizable");
  EXPECT_NE(verdict["file"].get<std::string>().find("stack\xef\xbf\xbd.json"), std::string::npos);

  const std::string bad_method = write("bad.txt", "# queue\nenq\xa3 1 1 5\n");
  const std::string binary = write("binary.dat", std::string("\xa3\xff\x13"
                                                             "ab\xe2\x82",
                                                             7));
  const RunResult rejected = run("check '" + bad_method + "'");
  EXPECT_EQ(rejected.exit_code, 65);
  expect_one_line_error(rejected, bad_method + ":2: ", "unknown fastlin method `enq\\xa3`");
  const RunResult unrecognized = run("check '" + binary + "'");
  EXPECT_EQ(unrecognized.exit_code, 65);
  expect_one_line_error(unrecognized, binary + ": ", "`\\xa3\\xff\\u0013ab\\xe2\\x82`");

  const RunResult triaged =
      run("triage --json '" + history + "' '" + bad_method + "' '" + binary + "'");
  EXPECT_EQ(triaged.exit_code, 65) << triaged.err;
  const nlohmann::json groups = nlohmann::json::parse(triaged.out);
  EXPECT_EQ(groups["unreadable"], 2) << triaged.out;
  EXPECT_NE(groups["passing_inputs"][0].get<std::string>().find("stack\xef\xbf\xbd.json"),
            std::string::npos)
      << triaged.out;
  EXPECT_NE(groups["unreadable_inputs"][0]["message"].get<std::string>().find("enq\\xa3"),
            std::string::npos)
      << triaged.out;
}

TEST_F(CliTest, MissingInputExits66) {
  const RunResult result = run("check '" + (dir_ / "absent.edn").string() + "' --model stack");
  EXPECT_EQ(result.exit_code, 66);
  expect_one_line_error(result, (dir_ / "absent.edn").string() + ": ", "cannot open");
}

// Every command that reads an input file reads it through history::read_file: a directory given
// as the file is a missing input (exit 66) with one line naming it, whatever the command.
TEST_F(CliTest, DirectoryGivenAsAFileExits66InEveryCommand) {
  const std::string dir = dir_.string();
  const std::vector<std::string> commands = {
      "check '" + dir + "'",
      "check --format json '" + dir + "'",
      "localize '" + dir + "' --model stack",
      "minimize '" + dir + "' --model stack",
      "report '" + dir + "' --html '" + (dir_ / "r.html").string() + "'",
      "replay '" + dir + "'",
      "detect --target treiber_stack_buggy -n 2 -m 3 -s 1 --workload '" + dir + "'",
  };
  for (const std::string& command : commands) {
    const RunResult result = run(command);
    EXPECT_EQ(result.exit_code, 66) << command << "\n" << result.err;
    expect_one_line_error(result, dir + ": ", "cannot open: is a directory");
  }
}

TEST_F(CliTest, HelpHasExamples) {
  const RunResult result = run("check --help");
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_NE(result.out.find("Examples:"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("--model"), std::string::npos) << result.out;
  EXPECT_EQ(run("--help").exit_code, 0);
}

}  // namespace
}  // namespace linfault::tests
