// The `linfault` tool as a function (<linfault/tool.h>): every command, for the built-in
// targets and those the program registers (tools built with linfault_add_tool).

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <exception>
#include <iostream>
#include <mutex>
#include <new>
#include <optional>

#include <CLI/CLI.hpp>

#include "history/formats.h"
#include "history/history.h"
#include "linfault/tool.h"
#include "spec/registry.h"
#include "targets/serial_spec.h"
#include "tool/commands.h"
#include "tool/limits.h"

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

void add_spec_option(CLI::App& app, std::string& spec) {
  app.add_option("--spec", spec,
                 "What runs are checked against: model (the target's sequential model) or serial "
                 "(the object's own serial runs, Line-Up: no model needed; also catches calls that "
                 "block forever where no serial order blocks)")
      ->capture_default_str()
      ->check(CLI::IsMember({"model", "serial"}));
}

const targets::Target& target_with_spec(const targets::Target& target, const std::string& spec) {
  if (spec != "serial") return target;
  static std::mutex mutex;
  static std::deque<targets::Target> serial_targets;  // stable addresses
  std::lock_guard lock(mutex);
  for (const targets::Target& known : serial_targets) {
    if (known.name == target.name) return known;
  }
  return serial_targets.emplace_back(targets::with_serial_spec(target));
}

const targets::Target& target_for_model(const targets::Target& target, const std::string& model) {
  return target_with_spec(target, targets::is_serial_spec(model) ? "serial" : "model");
}

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

void check_runnable(const targets::Target& target, const std::string& model,
                    const dpct::Workload& workload, const std::string& file) {
  if (!spec::same_model(target.model, model)) {
    throw history::InputError(file, 0,
                              "model \"" + model + "\" is not the model of target " + target.name +
                                  " (\"" + target.model + "\")");
  }
  if (std::optional<std::string> problem = targets::workload_problem(target, workload)) {
    throw history::InputError(file, 0, *problem);
  }
}

namespace {

// An unsigned option's text must be plain decimal digits that fit in 64 bits: CLI11 would wrap
// "-5" around and saturate "99999999999999999999".
std::string check_unsigned_text(const std::string& text) {
  if (text.empty()) return "expected a non-negative integer";
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text[0] == '-' || text[0] == '+' || error == std::errc::invalid_argument ||
      end != text.data() + text.size()) {
    return "'" + text + "' is not a non-negative integer";
  }
  if (error == std::errc::result_out_of_range) return "'" + text + "' is too large";
  return "";
}

// No text option of one value has a meaning for "": `--save ""` would write nothing and
// `--model ""` would fall back to the file's model, silently, where a script's variable was left
// unset.
std::string check_text_not_empty(const std::string& text) {
  return text.empty() ? "empty value" : "";
}

// A number option must be finite and of a sane magnitude (seconds, fractions): "nan" would
// disable a limit, "inf" or 1e300 seconds overflow the clocks.
std::string check_float_text(const std::string& text) {
  if (text == "nan" || text == "inf" || text == "-inf") {
    return "'" + text + "' is not a finite number";
  }
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  // Decimal only: strtod would also take hexadecimal ("0x10") and "infinity".
  if (text.empty() || end != text.c_str() + text.size() ||
      text.find_first_not_of("0123456789.eE+-") != std::string::npos) {
    return "'" + text + "' is not a decimal number";
  }
  if (!std::isfinite(value)) return "'" + text + "' is not a finite number";
  if (value < 0) return "'" + text + "' is negative";
  if (value > kLargestNumberOption) return "'" + text + "' is too large (at most 1e9)";
  return "";
}

// The option's text as a number, when it is one (the type's own check reports the rest).
std::optional<double> number_in(const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

const CLI::Validator& positive() {
  static const CLI::Validator validator(
      [](const std::string& text) -> std::string {
        const std::optional<double> value = number_in(text);
        if (!value || *value > 0) return "";
        return "must be greater than 0, not " + text;
      },
      "POSITIVE", "positive");
  return validator;
}

const CLI::Validator& fraction() {
  static const CLI::Validator validator(
      [](const std::string& text) -> std::string {
        const std::optional<double> value = number_in(text);
        if (!value || (*value >= 0 && *value <= 1)) return "";
        return "must be between 0 and 1, not " + text;
      },
      "FRACTION", "fraction");
  return validator;
}

void validate_option_values(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    // "UINT", or "UINT:POSITIVE" once a validator is attached.
    const std::string type = option->get_type_name();
    if (type.starts_with("UINT"))
      option->check(CLI::Validator(check_unsigned_text, "", "unsigned"));
    if (type.starts_with("FLOAT")) option->check(CLI::Validator(check_float_text, "", "finite"));
    // A list's empty item may mean "none" (verify --setup '': no setup calls).
    if (type.starts_with("TEXT") && option->get_items_expected_max() <= 1)
      option->check(CLI::Validator(check_text_not_empty, "", "text"));
  }
  for (CLI::App* command : app.get_subcommands([](CLI::App*) { return true; }))
    validate_option_values(*command);
}

}  // namespace tool

namespace {

// An error names the offending text, and an input or an option may hold a number of hundreds of
// digits: a run of more than 24 digits is cut to its first 20, "...", so the line stays one
// readable line whatever produced the message.
std::string with_long_numbers_cut(std::string_view message) {
  constexpr std::size_t kLongest = 24;
  constexpr std::size_t kKept = 20;
  std::string out;
  out.reserve(message.size());
  std::size_t i = 0;
  while (i < message.size()) {
    std::size_t end = i;
    while (end < message.size() && message[end] >= '0' && message[end] <= '9') ++end;
    if (end == i) {
      out += message[i++];
      continue;
    }
    const std::size_t digits = end - i;
    if (digits > kLongest) {
      out.append(message.substr(i, kKept));
      out += "... (" + std::to_string(digits) + " digits)";
    } else {
      out.append(message.substr(i, digits));
    }
    i = end;
  }
  return out;
}

int report(const std::string& message, int code) {
  tool::set_phase(nullptr);  // an error, not a limit, ends the command: one report only
  std::cerr << tool::tool_name() << ": " << history::printable(with_long_numbers_cut(message))
            << "\n";
  return code;
}

}  // namespace

int tool_main(int argc, char** argv, std::string_view name) {
  tool::mark_command_start();
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
    return tool_name + ": " + with_long_numbers_cut(e.what()) + " (see --help)\n";
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
  tool::add_litmus_command(app);
  tool::validate_option_values(app);

  try {
    app.parse(argc, argv);
    return tool::kExitSuccess;
  } catch (const CLI::RuntimeError& e) {
    return e.get_exit_code();  // a command's verdict, already printed
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? tool::kExitSuccess : tool::kExitUsage;
  } catch (const targets::NotDeterministic& e) {
    return report(e.what(), tool::kExitDataError);  // the object has no serial specification
  } catch (const tool::UsageError& e) {
    return report(e.what(), tool::kExitUsage);
  } catch (const spec::ModelSpecError& e) {
    return report(e.what(), tool::kExitUsage);
  } catch (const history::OpenError& e) {
    return report(e.what(), tool::kExitNoInput);
  } catch (const history::InputError& e) {
    return report(e.what(), tool::kExitDataError);
  } catch (const std::bad_alloc& e) {
    if (tool::memory_limit_reached()) tool::exit_memory_limit();
    return report(std::string("internal error: ") + e.what(), tool::kExitInternal);
  } catch (const std::exception& e) {
    return report(std::string("internal error: ") + e.what(), tool::kExitInternal);
  }
}

}  // namespace linfault
