// libFuzzer harness: EDN histories (Jepsen/Knossos operation maps in every shape), and the EDN
// value parser on the whole input.
//
// The input is read with history::read_edn(); it must be accepted or rejected with an InputError.
// An accepted history must come back unchanged through linfault's JSON writer and reader, and a
// history of bare maps must read the same inside one top-level vector (the two shapes of the same
// operations). Seeds: fuzz/corpus/edn/. Run: build-fuzz/fuzz/edn_fuzzer fuzz/corpus/edn
// (scripts/fuzz.sh runs every harness).

#include "fuzz/fuzz_support.h"
#include "history/edn.h"

namespace {

using namespace linfault;

// Whether `text`'s first value is a top-level vector or list (then it is not a bare sequence).
bool starts_with_sequence(std::string_view text) {
  try {
    history::edn::Scanner scanner(text);
    const history::edn::Token& first = scanner.next();
    return first.kind == history::edn::TokenKind::kOpen &&
           (first.bracket == '[' || first.bracket == '(');
  } catch (const history::edn::ParseError&) {
    return true;  // not read by read_edn either
  }
}

void require_same_inside_a_vector(std::string_view text) {
  history::LoadedHistory bare;
  try {
    bare = history::read_edn(text, "fuzz-input");
  } catch (const history::InputError&) {
    return;
  }
  if (starts_with_sequence(text)) return;
  const std::string wrapped = "[" + std::string(text) + "\n]";
  history::LoadedHistory inside;
  try {
    inside = history::read_edn(wrapped, "fuzz-input");
  } catch (const history::InputError&) {
    fuzz::require(false, "bare EDN operations were rejected inside a vector");
  }
  fuzz::require(inside.history == bare.history && inside.model == bare.model,
                "bare EDN operations read differently inside a vector");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
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
  require_same_inside_a_vector(fuzz::as_text(data, size));
  return fuzz::fuzz_history_reader(history::read_edn, data, size);
}
