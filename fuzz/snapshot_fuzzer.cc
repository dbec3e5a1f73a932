// libFuzzer harness: snapshot histories (startUpdate!p,v;endUpdate!p,v;... actions).
//
// The input is read with history::read_snapshot(); it must be accepted or rejected with an
// InputError. An accepted history must come back unchanged through linfault's JSON writer and
// reader. Seeds: fuzz/corpus/snapshot/. Run: build-fuzz/fuzz/snapshot_fuzzer fuzz/corpus/snapshot
// (scripts/fuzz.sh runs every harness).

#include "fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return linfault::fuzz::fuzz_history_reader(linfault::history::read_snapshot, data, size);
}
