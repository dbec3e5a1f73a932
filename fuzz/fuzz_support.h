// Shared checks of the libFuzzer harnesses (fuzz/*_fuzzer.cc).
//
// Contract of every harness: it feeds the input to one reader. The reader either accepts it or
// throws the project's input-error type for that reader (history::InputError; edn::ParseError and
// dpct::ScheduleFormatError for the two decoders that have their own). Anything else is a
// finding: another exception type escapes LLVMFuzzerTestOneInput and aborts, as do crashes,
// sanitizer reports and hangs (libFuzzer's -timeout). An accepted input is written back with the
// format's writer and read again, and must give an equal object; require() aborts otherwise.
//
// Thread-safety: single-threaded, as libFuzzer calls the harness.
//
// Internal header of the fuzzers; not installed.

#ifndef LINFAULT_FUZZ_FUZZ_SUPPORT_H_
#define LINFAULT_FUZZ_FUZZ_SUPPORT_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "history/formats.h"
#include "history/json_format.h"
#include "history/readers.h"

namespace linfault::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Aborts with `what` when `condition` is false: libFuzzer keeps the input as a crash.
inline void require(bool condition, const char* what) {
  if (!condition) {
    std::fprintf(stderr, "linfault fuzz finding: %s\n", what);
    std::abort();
  }
}

// A history any reader accepted survives linfault's JSON writer and reader unchanged, with its
// model. Every reader's output can be written as JSON (the tool does it for --json and --save).
inline void require_json_round_trip(const history::LoadedHistory& loaded) {
  const std::string text = history::history_to_json_text(loaded.history, loaded.model);
  const history::LoadedHistory back = history::read_json_history(text, "round-trip.json");
  require(back.history == loaded.history, "the history changed through its JSON form");
  require(back.model == loaded.model, "the model changed through the JSON form");
}

// The harness of a history reader: `read` is one of history/readers.h.
template <class Reader>
int fuzz_history_reader(Reader read, const std::uint8_t* data, std::size_t size) {
  history::LoadedHistory loaded;
  try {
    loaded = read(as_text(data, size), "fuzz-input");
  } catch (const history::InputError&) {
    return 0;
  }
  require_json_round_trip(loaded);
  return 0;
}

}  // namespace linfault::fuzz

#endif  // LINFAULT_FUZZ_FUZZ_SUPPORT_H_
