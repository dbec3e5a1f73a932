// The per-format readers behind history/formats.h, one per source file, plus the Jepsen operation
// semantics that the EDN and console-log readers share. Callers outside history/ should use
// load_history_*() instead; these are exposed for the readers' own tests.
//
// Each reader takes the whole input as text; `origin` names it in errors (InputError "origin:line:
// problem") and becomes History::origin().
//
// Thread-safety: reentrant functions; a JepsenRecorder is a single-threaded builder.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_HISTORY_READERS_H_
#define LINFAULT_HISTORY_READERS_H_

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>

#include "history/formats.h"
#include "history/history.h"
#include "history/value.h"

namespace linfault::history {

// Reads the common documents (what linfault writes, and any JSON of the same plain subset) with
// simdjson's On-Demand parser, without a DOM; anything else goes through
// read_json_history_reference, so that both accept the same documents, give the same History
// (source lines included) and the same errors.
LoadedHistory read_json_history(std::string_view text, const std::string& origin);
// The DOM-based reader (parse_json_text, then history_from_json): the reference the fast reader
// is tested against.
LoadedHistory read_json_history_reference(std::string_view text, const std::string& origin);
LoadedHistory read_jepsen_log(std::string_view text, const std::string& origin);
LoadedHistory read_edn(std::string_view text, const std::string& origin);
LoadedHistory read_fastlin(std::string_view text, const std::string& origin);
LoadedHistory read_snapshot(std::string_view text, const std::string& origin);

// Turns Jepsen operation records (:invoke/:ok/:fail/:info) into a History:
//   :invoke  opens a call; its :value is the argument (nil: no arguments). With a :key the key is
//            Operation::key and the first argument.
//   :ok      completes it. A value equal to the invocation's (writes, cas) means "no result":
//            nil, except for cas where it means true. Otherwise the value is the result (reads).
//   :fail    completes it with Outcome::kFail; the result is nil when the value repeats the
//            argument, else the failure detail (":timed-out").
//            A given `error` (EDN :error) is the failure detail instead.
//   :info    the outcome is unknown: the operation stays pending to the end of the history, and
//            the process is retired (Jepsen never reuses it; a later :invoke by it is an error).
// A completion must not contradict its invoke: its :f must be the invoke's, a :key the invoke's
// key, and a non-nil value must complete the invoke's value: equal to it, or filling in its nils
// (a read's nil, the reads of a transaction [[:r 1 nil]] -> [[:r 1 3]]). :fail and :info may also
// carry a keyword detail (:timed-out). Anything else (":invoke :write 3" answered by ":ok :write
// 4") is an InputError.
class JepsenRecorder {
 public:
  explicit JepsenRecorder(const std::string& origin) : origin_(origin), builder_(origin) {}

  // `type` and `method` are keyword names without the colon; `error` is used by :fail only.
  void record(std::uint32_t line, ProcessId process, std::string_view type, std::string_view method,
              Value value, std::optional<Value> key, std::optional<Value> error = std::nullopt);
  bool saw_key() const { return saw_key_; }
  const std::set<std::string>& methods() const { return methods_; }
  History finish() &&;

 private:
  struct OpenCall {
    std::string method;
    Value argument;
    std::optional<Value> key;
    std::uint32_t line;
  };
  [[noreturn]] void fail(std::uint32_t line, const std::string& problem) const;
  Value completion_result(const OpenCall& call, Value value, bool failed) const;

  std::string origin_;
  HistoryBuilder builder_;
  std::unordered_map<ProcessId, OpenCall> open_;
  std::unordered_map<ProcessId, std::uint32_t> retired_;  // process -> line of its :info
  std::set<std::string> methods_;
  bool saw_key_ = false;
};

// The model implied by Jepsen operations without keys: cas-register when every method is one of
// read/write/cas, mutex when every one is acquire or release, multi-register when every one is
// txn; otherwise none.
std::optional<std::string> register_model_for(const std::set<std::string>& methods);

}  // namespace linfault::history

#endif  // LINFAULT_HISTORY_READERS_H_
