// libFuzzer harness: Jepsen console logs (INFO jepsen.util lines).
//
// The input is read with history::read_jepsen_log(); it must be accepted or rejected with an
// InputError. An accepted history must come back unchanged through linfault's JSON writer and
// reader. Seeds: fuzz/corpus/jepsen_log/. Run: build-fuzz/fuzz/jepsen_log_fuzzer
// fuzz/corpus/jepsen_log (scripts/fuzz.sh runs every harness).

#include "fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return linfault::fuzz::fuzz_history_reader(linfault::history::read_jepsen_log, data, size);
}
