// libFuzzer harness: test cases (`linfault minimize --save`, docs/formats.md "Test cases").
//
// The input is parsed with history::parse_json_text() and read with
// minimize::test_case_from_json(); both must accept it or throw history::InputError. An accepted
// test case must come back equal through test_case_to_json(), its text and the reader.
// Seeds: fuzz/corpus/test_case/.

#include "fuzz/fuzz_support.h"
#include "minimize/test_case.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace linfault;
  minimize::TestCase test_case;
  try {
    test_case = minimize::test_case_from_json(
        history::parse_json_text(fuzz::as_text(data, size), "fuzz-input", nullptr), "fuzz-input");
  } catch (const history::InputError&) {
    return 0;
  }
  const std::string text = minimize::test_case_to_json(test_case).dump(1);
  const minimize::TestCase back = minimize::test_case_from_json(
      history::parse_json_text(text, "round-trip.json", nullptr), "round-trip.json");
  fuzz::require(back == test_case, "a test case changed through its JSON form");
  return 0;
}
