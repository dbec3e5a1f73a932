// The `linfault` tool as a function (<linfault/tool.h>): every command, for the built-in
// targets and those the program registers (tools built with linfault_add_tool).

#include <exception>
#include <iostream>

#include <CLI/CLI.hpp>

#include "history/formats.h"
#include "history/history.h"
#include "linfault/tool.h"
#include "spec/registry.h"
#include "tool/commands.h"

namespace linfault {

namespace tool {
namespace {
std::string& tool_name_storage() {
  static std::string name = "linfault";
  return name;
}
}  // namespace

const std::string& tool_name() { return tool_name_storage(); }
void set_tool_name(std::string_view name) { tool_name_storage() = std::string(name); }

const targets::Target& find_target(const std::string& name, const std::string& file,
                                   const std::string& written_by) {
  try {
    return targets::find(name);
  } catch (const targets::UnknownTarget& e) {
    if (file.empty()) throw UsageError(e.what());
    std::string message = file + ": target '" + name + "' is not known to " + tool_name() + "; ";
    if (!written_by.empty() && written_by != tool_name()) {
      message += "it was written by " + written_by + ", which knows it: use " + written_by +
                 " (e.g. `" + written_by + " replay " + file + "`)";
    } else {
      message += "use the tool built with linfault_add_tool() from the library that registers it";
    }
    throw UsageError(message);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());  // a registration that does not hold (names its file:line)
  }
}

}  // namespace tool

namespace {

int report(const std::string& message, int code) {
  std::cerr << tool::tool_name() << ": " << message << "\n";
  return code;
}

}  // namespace

int tool_main(int argc, char** argv, std::string_view name) {
  tool::set_tool_name(name);
  const std::string tool_name(name);
  CLI::App app{tool_name +
                   ": turns a concurrency bug in a concurrent object into a tiny, replayable "
                   "test case.",
               tool_name};
  app.require_subcommand(1);
  app.set_version_flag("--version", tool_name + " (linfault " LINFAULT_VERSION ")");
  app.footer(
      "Exit codes: 0 linearizable/success, 1 violation, 2 unknown (limit hit), 64 usage error,\n"
      "65 bad input data, 66 input cannot be opened, 70 internal error.\n"
      "Run `" +
      tool_name + " COMMAND --help` for a command's options and examples.");
  // One line, like every other error.
  app.failure_message([tool_name](const CLI::App*, const CLI::Error& e) {
    return tool_name + ": " + std::string(e.what()) + " (see --help)\n";
  });
  tool::add_check_command(app);
  tool::add_gen_command(app);
  tool::add_targets_command(app);
  tool::add_detect_command(app);
  tool::add_replay_command(app);
  tool::add_localize_command(app);
  tool::add_minimize_command(app);
  tool::add_run_command(app);
  tool::add_report_command(app);
  tool::add_triage_command(app);
  tool::add_verify_command(app);
  tool::add_merge_command(app);

  try {
    app.parse(argc, argv);
    return tool::kExitSuccess;
  } catch (const CLI::RuntimeError& e) {
    return e.get_exit_code();  // a command's verdict, already printed
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? tool::kExitSuccess : tool::kExitUsage;
  } catch (const tool::UsageError& e) {
    return report(e.what(), tool::kExitUsage);
  } catch (const spec::UnknownModel& e) {
    return report(e.what(), tool::kExitUsage);
  } catch (const history::OpenError& e) {
    return report(e.what(), tool::kExitNoInput);
  } catch (const history::InputError& e) {
    return report(e.what(), tool::kExitDataError);
  } catch (const std::exception& e) {
    return report(std::string("internal error: ") + e.what(), tool::kExitInternal);
  }
}

}  // namespace linfault
