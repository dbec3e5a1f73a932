#include "tool/input.h"

#include <algorithm>
#include <iostream>

#include <nlohmann/json.hpp>

#include "detect/saved_run.h"
#include "history/formats.h"
#include "history/json_format.h"
#include "spec/registry.h"
#include "tool/commands.h"
#include "tool/limits.h"

namespace linfault::tool {

std::string model_name_list() {
  std::string out;
  for (std::string_view name : spec::model_names())
    out += (out.empty() ? "" : " ") + std::string(name);
  return out;
}

void add_init_option(CLI::App& command, std::optional<std::string>& init) {
  command
      .add_option("--init", init,
                  "Initial value of the model's registers (register, cas-register, "
                  "multi-register): nil, an integer, \"text\", :keyword; the same as "
                  "--model 'M(init=V)', and applies to the model the file implies too")
      ->option_text("V");
}

namespace {

// What a JSON file that did not read as a history declares itself to be ("saved-run",
// "test-case", ...), or "" when it is not a JSON object with a "linfault" string.
std::string json_document_kind(const std::string& file) {
  const nlohmann::json doc =
      nlohmann::json::parse(history::read_file(file), nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return "";
  const auto kind = doc.find("linfault");
  return kind != doc.end() && kind->is_string() ? kind->get<std::string>() : "";
}

// The line of the file's first `"model"` key (its JSON forms are the only ones that name a model
// freely), for the message; 0 when not found.
std::uint32_t line_of_model_field(const std::string& file) {
  const std::string text = history::read_file(file);
  const std::size_t at = text.find("\"model\"");
  if (at == std::string::npos) return 0;
  return 1 + static_cast<std::uint32_t>(std::count(text.begin(), text.begin() + at, '\n'));
}

}  // namespace

Input load_input(const std::string& file, const std::string& format_name, const std::string& model,
                 const std::optional<std::string>& init) {
  const std::optional<history::Format> format = history::parse_format_name(format_name);
  if (!format) throw UsageError("unknown format '" + format_name + "'");
  std::optional<history::Value> init_value;
  try {
    if (init) init_value = spec::parse_param_value(*init);
    if (!model.empty()) {
      const std::string given = spec::canonical_model_spec(model);
      // Named before reading, for an unknown verdict that a limit prints meanwhile.
      set_model(init_value ? spec::model_spec_with_init(given, *init_value) : given);
    }
  } catch (const spec::ModelSpecError& e) {
    throw UsageError(std::string(init ? "--init: " : "") + e.what());
  }
  Input input;
  try {
    input.loaded = file == "-" ? history::load_history(std::cin, "<stdin>", *format)
                               : history::load_history_file(file, *format);
  } catch (const history::OpenError&) {
    throw;
  } catch (const history::InputError&) {
    const bool json_allowed =
        *format == history::Format::kAuto || *format == history::Format::kJson;
    if (file == "-" || !json_allowed) throw;
    const std::string kind = json_document_kind(file);
    if (kind == "saved-run") {
      input.saved_run = detect::read_saved_run(file);
      input.loaded = history::LoadedHistory{input.saved_run->history, history::Format::kJson,
                                            input.saved_run->model};
    } else if (kind == "test-case") {
      input.test_case = minimize::read_test_case(file);
      if (input.test_case->history.operations().empty()) {
        // Its "history" is optional: checking the calls alone, without their timing, would
        // say nothing of the run it records.
        throw history::InputError(
            file, 0,
            std::string("the test case records no history (its optional \"history\" field)") +
                (input.test_case->target ? "; replay or verify it instead" : ""));
      }
      input.loaded = history::LoadedHistory{input.test_case->history, history::Format::kJson,
                                            input.test_case->model};
    } else {
      throw;
    }
  }
  input.model = model;
  if (input.model.empty()) {
    if (!input.loaded.model) {
      throw UsageError(file + ": the " + history::format_name(input.loaded.format) +
                       " file does not say which object it records; pass --model (one of: " +
                       model_name_list() + ")");
    }
    input.model = *input.loaded.model;
    try {
      input.model = spec::canonical_model_spec(input.model);
    } catch (const spec::ModelSpecError& e) {
      throw history::InputError(file, file == "-" ? 0 : line_of_model_field(file), e.what());
    }
  }
  try {
    input.model = init_value ? spec::model_spec_with_init(input.model, *init_value)
                             : spec::canonical_model_spec(input.model);
  } catch (const spec::ModelSpecError& e) {
    throw UsageError("--init: " + std::string(e.what()));
  }
  set_model(input.model);
  return input;
}

}  // namespace linfault::tool
