// libFuzzer harness: linfault's JSON histories.
//
// The input is read with history::read_json_history(); it must be accepted or rejected with an
// InputError. An accepted history must come back unchanged through linfault's JSON writer and
// reader. Seeds: fuzz/corpus/json_history/. Run: build-fuzz/fuzz/json_history_fuzzer
// fuzz/corpus/json_history (scripts/fuzz.sh runs every harness).

#include "fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return linfault::fuzz::fuzz_history_reader(linfault::history::read_json_history, data, size);
}
