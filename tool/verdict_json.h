// The JSON and text forms of a detect::Verdict, as printed by `linfault check` (docs/formats.md).
//
// JSON: {"linfault": "verdict", "verdict": "linearizable"|"violation"|"unknown", "model",
// "algorithm", "operations", "elapsed_ms", "partitions", "states_explored", "memo_bytes", and
//   violation: "prefix_events", "prefix_exact" (false: an upper bound, see "reason"), "culprit"
//   {index, process, method, args, result, outcome,
//              line, return_line},
//              "longest_partial" [operation objects], "partition_key" (when partitioned);
//   unknown:   "reason" (and "longest_partial" when the checker got one);
//   linearizable with a witness requested: "witness" [operation objects]}.
// Operation indices refer to History::operations() (numbered by invocation).
//
// Thread-safety: pure functions.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_TOOL_VERDICT_JSON_H_
#define LINFAULT_TOOL_VERDICT_JSON_H_

#include <string>

#include <nlohmann/json.hpp>

#include "detect/verdict.h"
#include "history/history.h"

namespace linfault::tool {

// One operation of `history` as a JSON object: index, process, method, args, result, outcome,
// key (if any), line (its call line in the input, or null) and return_line (when known).
nlohmann::json operation_to_json(const history::History& history, history::OpIndex index);

nlohmann::json verdict_to_json(const detect::Verdict& verdict, const history::History& history,
                               bool include_witness);

// A human summary, several lines, ending with a newline. `label` names the input (a file name).
std::string verdict_to_text(const detect::Verdict& verdict, const history::History& history,
                            const std::string& label, bool include_witness);

// Ends the command with the exit code of `result` (0 linearizable, 1 violation, 2 unknown), by
// throwing CLI::RuntimeError as tool/commands.h describes.
[[noreturn]] void exit_with_verdict(detect::Result result);

}  // namespace linfault::tool

#endif  // LINFAULT_TOOL_VERDICT_JSON_H_
