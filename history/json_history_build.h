// Internal pieces of the JSON history reader shared by its two implementations: the DOM-based
// reference (history_from_json, json_format.cc) and the fast reader of the common documents on
// simdjson's On-Demand API (json_history_reader.cc). Both turn the document's operations into
// ParsedOperations and hand them to build_history, which orders the events and builds the History,
// so they cannot differ in that half.
//
// Thread-safety: pure functions.
//
// Internal header of history/; outside it only its test and the JSON fuzz harness include it.

#ifndef LINFAULT_HISTORY_JSON_HISTORY_BUILD_H_
#define LINFAULT_HISTORY_JSON_HISTORY_BUILD_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "history/formats.h"
#include "history/history.h"
#include "history/value.h"

namespace linfault::history::json_detail {

// One element of "operations", checked field by field (docs/formats.md) but not yet against the
// others.
struct ParsedOperation {
  ProcessId process = 0;
  Call call;
  Value result;
  Outcome outcome = Outcome::kOk;
  std::int64_t call_position = 0;
  std::optional<std::int64_t> return_position;
  std::optional<Value> key;
  SourceLines source;
  std::size_t index = 0;  // in the document
  std::uint32_t json_line = 0;
};

// Orders the call and return positions (distinct, else InputError naming the operation) and
// builds the History; a pending operation stays open until its process calls again.
History build_history(std::vector<ParsedOperation> ops, const std::string& origin);

// The fast reader: the loaded history, or nullopt when the document is not in the subset it reads
// (escapes or control characters in strings or keys, numbers that are not int64 integers, values
// nested deeper than 64, an object's key repeated or unknown, a byte-order mark) or is wrong in any
// way: the reference reader then reads it, or gives the error. UTF-8 text is read (simdjson
// validates it). Errors of build_history propagate as they are.
std::optional<LoadedHistory> read_json_history_fast(std::string_view text,
                                                    const std::string& origin);

}  // namespace linfault::history::json_detail

#endif  // LINFAULT_HISTORY_JSON_HISTORY_BUILD_H_
