// libFuzzer harness: linfault's JSON histories.
//
// The input is read with history::read_json_history(); it must be accepted or rejected with an
// InputError. An accepted history must come back unchanged through linfault's JSON writer and
// reader. The fast reader (simdjson On-Demand) and the DOM-based reference
// (history/json_history_build.h) must agree: when the fast reader does not decline, both give the
// same History (source lines and model included) or the same error. Seeds:
// fuzz/corpus/json_history/. Run: build-fuzz/fuzz/json_history_fuzzer fuzz/corpus/json_history
// (scripts/fuzz.sh runs every harness).

#include <optional>
#include <string>

#include "fuzz/fuzz_support.h"
#include "history/json_history_build.h"

namespace {

using linfault::history::InputError;
using linfault::history::LoadedHistory;

void require_readers_agree(std::string_view text) {
  std::optional<LoadedHistory> fast;
  std::string fast_error;
  try {
    fast = linfault::history::json_detail::read_json_history_fast(text, "fuzz-input");
    if (!fast) return;  // declined: only the reference reads it
  } catch (const InputError& e) {
    fast_error = e.what();
  }
  std::optional<LoadedHistory> reference;
  std::string reference_error;
  try {
    reference = linfault::history::read_json_history_reference(text, "fuzz-input");
  } catch (const InputError& e) {
    reference_error = e.what();
  }
  linfault::fuzz::require(fast.has_value() == reference.has_value(),
                          "the fast JSON reader and the reference disagree on acceptance");
  if (!fast) {
    linfault::fuzz::require(fast_error == reference_error,
                            "the fast JSON reader and the reference give different errors");
    return;
  }
  linfault::fuzz::require(fast->history == reference->history && fast->model == reference->model,
                          "the fast JSON reader and the reference read different histories");
  for (std::size_t i = 0; i < fast->history.size(); ++i) {
    const auto& a = fast->history.operations()[i].source;
    const auto& b = reference->history.operations()[i].source;
    linfault::fuzz::require(a.call_line == b.call_line && a.return_line == b.return_line,
                            "the fast JSON reader and the reference give different lines");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  require_readers_agree(linfault::fuzz::as_text(data, size));
  return linfault::fuzz::fuzz_history_reader(linfault::history::read_json_history, data, size);
}
