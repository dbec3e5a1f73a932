// The JSON form of a History: linfault's own, lossless history format (docs/formats.md).
//
//   {"linfault": "history", "version": 1, "model": "stack",
//    "operations": [
//      {"process": 0, "method": "push", "args": [1], "outcome": "ok", "result": null,
//       "call": 0, "return": 1, "line": 1, "return_line": 2},
//      {"process": 1, "method": "pop", "args": [], "outcome": "pending", "call": 2}]}
//
// Values: nil <-> null, bool, 64-bit integers, strings, lists <-> arrays. "call"/"return" are the
// positions of the operation's events in the history's total order (distinct integers; linfault
// writes 0, 1, 2, ...). Operations are numbered by call position, whatever their order in the file.
// "key", "model", "line" and "return_line" are optional; "args" defaults to [], "result" to null,
// "outcome" to "ok" when there is a "return" and "pending" otherwise.
//
// history_from_json(history_to_json(h)) == h for every History h (operator== of history.h; source
// lines are kept too when they are non-zero).
//
// Thread-safety: pure functions.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_HISTORY_JSON_FORMAT_H_
#define LINFAULT_HISTORY_JSON_FORMAT_H_

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "history/history.h"
#include "history/value.h"

namespace linfault::history {

nlohmann::json value_to_json(const Value& value);
// Throws std::invalid_argument for JSON that is not a Value (objects, non-integer numbers).
Value value_from_json(const nlohmann::json& json);

nlohmann::json history_to_json(const History& history, const std::optional<std::string>& model);
// The same document as text, one operation per line (diff- and grep-friendly).
std::string history_to_json_text(const History& history, const std::optional<std::string>& model);

// Throws InputError naming `origin` (and the operation) for a document that is not a valid history.
History history_from_json(const nlohmann::json& json, const std::string& origin);
// As above; operation_lines[i] is the line of operations[i] in the JSON text: used in messages
// and as the operation's source lines when the document has none.
History history_from_json(const nlohmann::json& json, const std::string& origin,
                          const std::vector<std::uint32_t>& operation_lines);

// `document` as text, indented as nlohmann::json::dump(indent) does, for the reports, saved runs
// and test cases linfault writes: a string that is not valid UTF-8 (a file name given on the
// command line) gets U+FFFD in place of each malformed sequence instead of making the dump throw.
// Values cannot carry such strings (registration and result conversion refuse them), so in saved
// runs and test cases this only guards the texts that describe them. Histories
// (history_to_json_text) are still written strictly.
std::string json_text(const nlohmann::json& document, int indent = -1);

// Whether `document` is an object whose "linfault" member is the string `kind` ("saved-run",
// "test-case", ...). Unlike json::value("linfault", ""), never throws (a null or numeric tag is
// just not that kind).
bool is_document_kind(const nlohmann::json& document, std::string_view kind);

// The first member of `object` whose name is not in `known` (readers reject unknown fields), or
// nullopt; nullopt too when `object` is not an object.
std::optional<std::string> unknown_field(const nlohmann::json& object,
                                         std::initializer_list<std::string_view> known);

// Parses JSON text strictly: a key repeated in an object, a number beyond a double's range and
// nesting deeper than 256 are errors, as are syntax errors. Reports them as InputError
// "origin:line: invalid JSON: ..." and records the line of each element of the top-level
// "operations" array in `operation_lines` (when not null). Linear in the text.
nlohmann::json parse_json_text(std::string_view text, const std::string& origin,
                               std::vector<std::uint32_t>* operation_lines);

// parse_json_text of the whole file at `path` (read with read_file of history/formats.h), which
// names it in errors. Throws OpenError when the file cannot be read, InputError when it is not
// valid JSON.
nlohmann::json read_json_file(const std::string& path);

}  // namespace linfault::history

#endif  // LINFAULT_HISTORY_JSON_FORMAT_H_
