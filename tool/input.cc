#include "tool/input.h"

#include <iostream>

#include "spec/registry.h"
#include "tool/commands.h"

namespace linfault::tool {

std::string model_name_list() {
  std::string out;
  for (std::string_view name : spec::model_names())
    out += (out.empty() ? "" : " ") + std::string(name);
  return out;
}

Input load_input(const std::string& file, const std::string& format_name,
                 const std::string& model) {
  const std::optional<history::Format> format = history::parse_format_name(format_name);
  if (!format) throw UsageError("unknown format '" + format_name + "'");
  Input input{file == "-" ? history::load_history(std::cin, "<stdin>", *format)
                          : history::load_history_file(file, *format),
              model};
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
