// linfault: checks histories of concurrent objects for linearizability (see README.md).

#include <exception>
#include <iostream>

#include <CLI/CLI.hpp>

#include "history/formats.h"
#include "history/history.h"
#include "spec/registry.h"
#include "tool/commands.h"

namespace {

int report(const std::string& message, int code) {
  std::cerr << "linfault: " << message << "\n";
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace linfault;
  CLI::App app{
      "linfault: turns a concurrency bug in a concurrent object into a tiny, replayable test case.",
      "linfault"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "linfault 0.1");
  app.footer(
      "Exit codes: 0 linearizable/success, 1 violation, 2 unknown (limit hit), 64 usage error,\n"
      "65 bad input data, 66 input cannot be opened, 70 internal error.\n"
      "Run `linfault COMMAND --help` for a command's options and examples.");
  // One line, like every other error.
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return "linfault: " + std::string(e.what()) + " (see --help)\n";
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
