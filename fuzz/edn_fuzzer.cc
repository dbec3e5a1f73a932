// libFuzzer harness: EDN histories (one Jepsen operation map per line), and the EDN value parser on
// the whole input.
//
// The input is read with history::read_edn(); it must be accepted or rejected with an InputError.
// An accepted history must come back unchanged through linfault's JSON writer and reader.
// Seeds: fuzz/corpus/edn/. Run: build-fuzz/fuzz/edn_fuzzer fuzz/corpus/edn
// (scripts/fuzz.sh runs every harness).

#include "fuzz/fuzz_support.h"
#include "history/edn.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace linfault;
  try {
    const history::edn::Node node = history::edn::parse(fuzz::as_text(data, size));
    try {
      const history::Value value = history::edn::to_value(node);
      // A value written back is EDN that parses to the same value.
      const history::edn::Node again = history::edn::parse(value.to_string());
      fuzz::require(history::edn::to_value(again) == value, "an EDN value changed when reprinted");
    } catch (const std::invalid_argument&) {
      // maps and symbols have no Value form: to_value's documented error
    }
  } catch (const history::edn::ParseError&) {
  }
  return fuzz::fuzz_history_reader(history::read_edn, data, size);
}
