// `linfault verify --target T --threads N --ops M [--values V] [--preemptions P]`: bounded
// verification of a target (minimize/bounded_verify.h) as a mode of the `verify` command, whose
// other mode re-checks saved files (tool/verify_command.cc registers both and dispatches).
//
// Prints "linearizable in all W workloads, E executions (<bound>)" and exits 0, or minimizes the
// first failing run and prints it as `linfault run` does (exit 1); a time limit gives the verdict
// inconclusive (exit 2). --json prints one object with workloads, executions, verdict, the bound
// and test_case.
//
// Thread-safety: single-threaded. Internal header: not part of linfault's public API.

#ifndef LINFAULT_TOOL_BOUNDED_VERIFY_COMMAND_H_
#define LINFAULT_TOOL_BOUNDED_VERIFY_COMMAND_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace linfault::tool {

struct BoundedVerifyArguments {
  std::string target;
  std::size_t threads = 2;
  std::size_t ops = 2;
  std::size_t values = 2;
  std::optional<unsigned> preemptions;
  std::vector<std::string> setup;  // calls such as "push(1)"; "a(1); b(2)" holds two
  std::vector<std::string> reveal;
  bool json = false;
  double minimize_seconds = 60;
  std::string spec = "model";  // --spec model|serial
  std::string memory_model;    // --memory-model; empty: the target's
};

// Registers --target, --threads, --ops, --values, --preemptions, --setup, --reveal, --json,
// --min-timeout, --spec and --memory-model on `verify`. Returns the options that only the target
// mode takes.
std::vector<CLI::Option*> add_bounded_verify_options(CLI::App& verify,
                                                     BoundedVerifyArguments& args);

// Runs the bounded verification; `timeout_seconds` (0: none) bounds the whole command and `out`
// (may be empty) is the directory for testcase.json and the GoogleTest repro. Ends the program
// with its exit code (CLI::RuntimeError).
[[noreturn]] void run_bounded_verify(const BoundedVerifyArguments& args, double timeout_seconds,
                                     const std::string& out);

}  // namespace linfault::tool

#endif  // LINFAULT_TOOL_BOUNDED_VERIFY_COMMAND_H_
