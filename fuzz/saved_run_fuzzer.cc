// libFuzzer harness: saved runs (`linfault detect --out`, docs/formats.md "Saved runs").
//
// The input is parsed with history::parse_json_text() and read with detect::saved_run_from_json();
// both must accept it or throw history::InputError. An accepted run must come back equal through
// saved_run_to_json(), its text and the reader. Seeds: fuzz/corpus/saved_run/.

#include "detect/saved_run.h"
#include "fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace linfault;
  detect::SavedRun run;
  try {
    run = detect::saved_run_from_json(
        history::parse_json_text(fuzz::as_text(data, size), "fuzz-input", nullptr), "fuzz-input");
  } catch (const history::InputError&) {
    return 0;
  }
  const std::string text = detect::saved_run_to_json(run).dump(1);
  const detect::SavedRun back = detect::saved_run_from_json(
      history::parse_json_text(text, "round-trip.json", nullptr), "round-trip.json");
  fuzz::require(back == run, "a saved run changed through its JSON form");
  return 0;
}
