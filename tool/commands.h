// The `linfault` command-line tool: one add_<name>_command() per subcommand, each defined in
// tool/<name>_command.cc, plus the exit-code and error conventions every command follows.
//
// A command's callback prints its own output, then ends the program with its exit code by
// throwing CLI::RuntimeError(code) (CLI11's way to return a status from a callback). Errors
// propagate as exceptions and tool/main.cc turns them into one line on stderr,
// "linfault: <file>:<line>: <problem>", and the exit code:
//   UsageError, CLI11 parse errors, spec::ModelSpecError -> 64 (UnknownModel is one)
//   history::InputError (bad input data)                 -> 65
//   history::OpenError (input cannot be opened)          -> 66
//   anything else                                        -> 70
//
// Thread-safety: the tool is single-threaded at this level.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_TOOL_COMMANDS_H_
#define LINFAULT_TOOL_COMMANDS_H_

#include <stdexcept>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "targets/registry.h"

namespace linfault::tool {

enum ExitCode : int {
  kExitSuccess = 0,    // linearizable / done
  kExitViolation = 1,  // a violation was found
  kExitUnknown = 2,    // a time or memory limit was hit before a verdict
  kExitUsage = 64,
  kExitDataError = 65,
  kExitNoInput = 66,
  kExitInternal = 70,
};

// A command was called in a way that cannot work (e.g. no model for a file that implies none).
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The name of the running tool: "linfault", or the NAME of linfault_add_tool(NAME ...). Used in
// messages and written into the test cases the tool saves, so a file names the tool that can
// replay it.
const std::string& tool_name();
void set_tool_name(std::string_view name);

// The target named `name`, registered by the program or built in; throws UsageError listing the
// known targets. Given the test case or saved run `file` that names it, the message says which
// tool to use instead (the one that wrote the file, when it says so).
// --spec model|serial: what a target's runs are checked against. "model" is the target's own
// sequential model; "serial" its own serial runs (Line-Up, targets/serial_spec.h), which needs no
// model and also catches operations that block forever where no serial order blocks.
void add_spec_option(CLI::App& app, std::string& spec);
// `target` for --spec `spec`: itself for "model", else a copy bound to its serial specification
// (kept for the life of the program).
const targets::Target& target_with_spec(const targets::Target& target, const std::string& spec);
// `target` as a file written from it (a test case, a saved run) was checked: bound to its serial
// specification when `model` is one ("serial(target=...)"), else itself.
const targets::Target& target_for_model(const targets::Target& target, const std::string& model);

const targets::Target& find_target(const std::string& name, const std::string& file = "",
                                   const std::string& written_by = "");

// Throws history::InputError naming `file` when the test case or saved run read from it cannot
// run on `target`: `model` is not the target's, or its workload is unfit
// (targets::workload_problem). Without this, each bad call would run and be reported as a crash
// of the object, that is as a bug.
void check_runnable(const targets::Target& target, const std::string& model,
                    const dpct::Workload& workload, const std::string& file);

// Adds to every option of `app` and its subcommands the checks CLI11 does not make: an unsigned
// option takes only decimal digits that fit (no "-5", no silent saturation), a floating-point one
// (seconds, fractions: none of them may be negative) only a finite number in
// [0, kLargestNumberOption] (no "nan", which would disable a limit), a text one that takes one
// value (a file, a model, a target) no empty string. Violations are usage errors (exit 64).
inline constexpr double kLargestNumberOption = 1e9;
void validate_option_values(CLI::App& app);

// Validators for option values whose messages read as the tool's ("--jobs: must be greater than
// 0, not 0"): CLI11's PositiveNumber and Range(0.0, 1.0) print their bounds as doubles, hundreds
// of digits long for PositiveNumber. Text that is not a number passes them, for the type's check.
// positive(): above 0.
const CLI::Validator& positive();
// fraction(): in [0, 1].
const CLI::Validator& fraction();

void add_check_command(CLI::App& app);
void add_gen_command(CLI::App& app);
void add_targets_command(CLI::App& app);
void add_detect_command(CLI::App& app);
void add_replay_command(CLI::App& app);
void add_localize_command(CLI::App& app);
void add_minimize_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_report_command(CLI::App& app);
void add_triage_command(CLI::App& app);
void add_verify_command(CLI::App& app);
void add_merge_command(CLI::App& app);
void add_litmus_command(CLI::App& app);

}  // namespace linfault::tool

#endif  // LINFAULT_TOOL_COMMANDS_H_
