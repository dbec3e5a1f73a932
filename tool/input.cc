#include "tool/input.h"

#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "detect/saved_run.h"
#include "history/json_format.h"
#include "spec/registry.h"
#include "tool/commands.h"

namespace linfault::tool {

std::string model_name_list() {
  std::string out;
  for (std::string_view name : spec::model_names())
    out += (out.empty() ? "" : " ") + std::string(name);
  return out;
}

namespace {

// A run saved by `linfault detect --out` (docs/formats.md, "Saved runs"): a JSON object tagged
// "saved-run". Only consulted when the file did not read as a history.
bool is_saved_run(const std::string& file) {
  std::ifstream in(file);
  const nlohmann::json doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  return history::is_document_kind(doc, "saved-run");
}

}  // namespace

Input load_input(const std::string& file, const std::string& format_name,
                 const std::string& model) {
  const std::optional<history::Format> format = history::parse_format_name(format_name);
  if (!format) throw UsageError("unknown format '" + format_name + "'");
  Input input;
  try {
    input.loaded = file == "-" ? history::load_history(std::cin, "<stdin>", *format)
                               : history::load_history_file(file, *format);
  } catch (const history::InputError&) {
    const bool json_allowed =
        *format == history::Format::kAuto || *format == history::Format::kJson;
    if (file == "-" || !json_allowed || !is_saved_run(file)) throw;
    input.saved_run = detect::read_saved_run(file);
    input.loaded = history::LoadedHistory{input.saved_run->history, history::Format::kJson,
                                          input.saved_run->model};
  }
  input.model = model;
  if (input.model.empty()) {
    if (!input.loaded.model) {
      throw UsageError(file + ": the " + history::format_name(input.loaded.format) +
                       " file does not say which object it records; pass --model (one of: " +
                       model_name_list() + ")");
    }
    input.model = *input.loaded.model;
  }
  return input;
}

}  // namespace linfault::tool
