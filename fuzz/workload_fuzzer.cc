// libFuzzer harness: workload files (`detect --workload FILE`, docs/formats.md).
//
// The input is parsed with history::parse_json_text() and read with detect::workload_from_json();
// both must accept it or throw history::InputError. An accepted workload must come back equal
// through workload_to_json(), its text and the reader. Seeds: fuzz/corpus/workload/.

#include "detect/saved_run.h"
#include "fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace linfault;
  dpct::Workload workload;
  try {
    workload = detect::workload_from_json(
        history::parse_json_text(fuzz::as_text(data, size), "fuzz-input", nullptr), "fuzz-input");
  } catch (const history::InputError&) {
    return 0;
  }
  const std::string text = detect::workload_to_json(workload).dump();
  const dpct::Workload back = detect::workload_from_json(
      history::parse_json_text(text, "round-trip.json", nullptr), "round-trip.json");
  fuzz::require(back.setup == workload.setup && back.threads == workload.threads &&
                    back.reveal == workload.reveal,
                "a workload changed through its JSON form");
  return 0;
}
