// Every example of every command's --help runs as written: each line under "Examples:" is run
// with `sh` (they use `&&`, `;` and `>`), from a directory laid out as the examples assume
// (`examples/`, `tests/data/` and `../shared/data/` reachable), with the files they name as
// placeholders (`history.json`, `runs/treiber_stack_buggy-3.json`, `tc.json`, ...) made
// beforehand by linfault itself. An example passes when it exits 0 (success, linearizable), 1
// (violation, the point of most examples) or 2 (unknown); a usage, data, open or internal error
// fails it.

#include <cstdlib>
#include <regex>
#include <vector>

#include "tests/cli_fixture.h"

namespace linfault::tests {
namespace {

namespace fs = std::filesystem;

// The example command lines of one --help text: after "Examples:", the lines that start with
// "  linfault", joined with their "\" continuations, without a trailing "(note)".
std::vector<std::string> examples_of(const std::string& help) {
  std::vector<std::string> out;
  const std::size_t start = help.find("Examples:");
  if (start == std::string::npos) return out;
  std::istringstream lines(help.substr(start));
  std::string line;
  std::string pending;
  while (std::getline(lines, line)) {
    if (!pending.empty()) {
      pending += " " + line.substr(line.find_first_not_of(' '));
    } else if (line.rfind("  linfault", 0) == 0) {
      pending = line.substr(2);
    } else {
      continue;
    }
    if (!pending.empty() && pending.back() == '\\') {
      pending.pop_back();
      continue;
    }
    static const std::regex note(R"(\s{2,}\([^)]*\)\s*$)");
    out.push_back(std::regex_replace(pending, note, ""));
    pending.clear();
  }
  return out;
}

class HelpExamplesTest : public CliFixture {
 protected:
  // Runs `command` with sh in the examples' directory, `linfault` first on the PATH.
  RunResult shell(const std::string& command) {
    const std::string script = "cd '" + work_.string() + "' && PATH='" + (dir_ / "bin").string() +
                               ":'\"$PATH\" && " + command;
    const fs::path out = dir_ / "shell.out";
    const fs::path err = dir_ / "shell.err";
    const std::string line =
        "sh -c '" + quote(script) + "' >'" + out.string() + "' 2>'" + err.string() + "' </dev/null";
    const int status = std::system(line.c_str());
    RunResult result;
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    result.out = read_file(out);
    result.err = read_file(err);
    return result;
  }

  static std::string quote(const std::string& text) {
    std::string out;
    for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out;
  }

  // The layout and the placeholder files the examples name.
  void prepare() {
    work_ = dir_ / "work";
    fs::create_directories(work_);
    fs::create_directories(dir_ / "bin");
    fs::create_symlink(LINFAULT_BINARY, dir_ / "bin" / "linfault");
    fs::create_directory_symlink(fs::absolute("examples"), work_ / "examples");
    fs::create_directories(work_ / "tests");
    fs::create_directory_symlink(fs::absolute("tests/data"), work_ / "tests" / "data");
    fs::create_directory_symlink(fs::absolute(LINFAULT_SHARED_DIR), dir_ / "shared");
    const auto made = [this](const std::string& command) {
      const RunResult r = shell(command);
      ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << command << "\n" << r.out << r.err;
    };
    made("linfault gen --model queue --ops 30 --threads 3 --violation -o history.json");
    made("linfault detect --target treiber_stack_buggy -s 40 --out runs");
    // The examples name a saved run by a seed of theirs; any failing run of the target serves.
    std::vector<fs::path> saved;
    for (const auto& entry : fs::directory_iterator(work_ / "runs")) {
      if (entry.path().filename().string().starts_with("treiber_stack_buggy-")) {
        saved.push_back(entry.path());
      }
    }
    ASSERT_FALSE(saved.empty()) << "detect saved no run of treiber_stack_buggy";
    std::sort(saved.begin(), saved.end());
    if (!fs::exists(work_ / "runs" / "treiber_stack_buggy-3.json")) {
      fs::copy_file(saved.front(), work_ / "runs" / "treiber_stack_buggy-3.json");
    }
    fs::create_directories(work_ / "out");
    fs::copy_file(saved.front(), work_ / "out" / "treiber_stack_buggy-17.json");
    made("linfault minimize runs/treiber_stack_buggy-3.json --save tc.json");
    // The other shards of detect's sharded example (it runs shard 1 itself), for merge's.
    for (const char* shard : {"0", "2", "3"}) {
      made(std::string("linfault detect --target treiber_stack_buggy -s 2000 --shard ") + shard +
           "/4 --out runs-" + shard);
    }
    std::ofstream(work_ / "run.edn")
        << "{:process 0, :type :invoke, :f :write, :key \"k\", :value \"1\"}\n"
           "{:process 1, :type :invoke, :f :read, :key \"k\", :value nil}\n"
           "{:process 0, :type :ok, :f :write, :key \"k\", :value \"1\"}\n"
           "{:process 1, :type :ok, :f :read, :key \"k\", :value \"2\"}\n";
    fs::create_directories(work_ / "ci-artifacts");
    for (const char* name : {"c01-ok.txt", "c01-bad.txt"}) {
      fs::copy_file(fs::path(LINFAULT_SHARED_DIR) / "data/porcupine/kv" / name,
                    work_ / "ci-artifacts" / name);
    }
  }

  fs::path work_;
};

TEST_F(HelpExamplesTest, EveryExampleOfEveryCommandRuns) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  // A minute of detection and minimization in the normal build; the sanitizer builds cover the
  // same code through the other tests.
  GTEST_SKIP() << "run in the normal build only";
#endif
  ASSERT_NO_FATAL_FAILURE(prepare());
  const RunResult top = run("--help");
  ASSERT_EQ(top.exit_code, 0);
  std::vector<std::string> commands;
  const std::regex subcommand(R"(\n  ([a-z]+)\s{2,})");
  const std::string listing = top.out.substr(top.out.find("Subcommands:"));
  for (std::sregex_iterator it(listing.begin(), listing.end(), subcommand), end; it != end; ++it) {
    commands.push_back((*it)[1]);
  }
  ASSERT_GE(commands.size(), 10u) << top.out;

  std::size_t examples = 0;
  for (const std::string& command : commands) {
    const RunResult help = run(command + " --help");
    ASSERT_EQ(help.exit_code, 0) << command;
    const std::vector<std::string> lines = examples_of(help.out);
    EXPECT_FALSE(lines.empty()) << "`linfault " << command << " --help` shows no example";
    for (const std::string& example : lines) {
      SCOPED_TRACE(example);
      const RunResult result = shell(example);
      EXPECT_TRUE(result.exit_code == 0 || result.exit_code == 1 || result.exit_code == 2)
          << "exit " << result.exit_code << "\n"
          << result.err.substr(0, 2000);
      ++examples;
    }
  }
  EXPECT_GE(examples, 20u);
}

}  // namespace
}  // namespace linfault::tests
