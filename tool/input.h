// Loading a history named on the command line, with the model it is to be checked against.
//
// Shared by the commands that take a HISTORY argument (check, localize, minimize): the format is
// recognized by content unless given, and the model defaults to the one the file implies (a
// fastlin header, the etcd log's cas-register, ...); when the file implies none and no --model is
// given, a UsageError lists the model names. A run saved by `linfault detect --out` and a test
// case (`linfault minimize --save`, `linfault run --save`) are accepted too: their failing history
// and their model are used. A model is a model spec (spec/model_params.h: "cas-register" or
// "cas-register(init=0)"); `init`, from --init, sets the chosen model's init parameter, whether
// --model or the file named the model. A model that is not built in, a bad parameter or value is
// an error naming the file and line when the file gave it (InputError, exit 65), a usage error
// when --model or --init did. Input::model is the spec in canonical form.
//
// Thread-safety: pure functions (they read files).
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_TOOL_INPUT_H_
#define LINFAULT_TOOL_INPUT_H_

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "detect/saved_run.h"
#include "history/formats.h"
#include "minimize/test_case.h"

namespace linfault::tool {

struct Input {
  history::LoadedHistory loaded;
  std::string model;  // the --model given, else the one the file implies; with --init; canonical
  // Set when the file is a run saved by `linfault detect` (its target, workload and schedule).
  std::optional<detect::SavedRun> saved_run;
  // Set when the file is a test case (minimize/test_case.h).
  std::optional<minimize::TestCase> test_case;
};

// `file` "-" reads standard input. Throws history::OpenError / InputError / UsageError.
Input load_input(const std::string& file, const std::string& format_name, const std::string& model,
                 const std::optional<std::string>& init = std::nullopt);

// "register cas-register kv ..." for messages and --help.
std::string model_name_list();

// Adds --init V to a command that takes --model (the text is parsed by load_input).
void add_init_option(CLI::App& command, std::optional<std::string>& init);

}  // namespace linfault::tool

#endif  // LINFAULT_TOOL_INPUT_H_
