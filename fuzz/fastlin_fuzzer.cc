// libFuzzer harness: fastlin histories (# header, then method value start end lines).
//
// The input is read with history::read_fastlin(); it must be accepted or rejected with an
// InputError. An accepted history must come back unchanged through linfault's JSON writer and
// reader. Seeds: fuzz/corpus/fastlin/. Run: build-fuzz/fuzz/fastlin_fuzzer fuzz/corpus/fastlin
// (scripts/fuzz.sh runs every harness).

#include "fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return linfault::fuzz::fuzz_history_reader(linfault::history::read_fastlin, data, size);
}
