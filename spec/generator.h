// Random history generator for benchmarks and tests (`linfault gen`).
//
// generate_history() simulates a sequential object (set, stack, queue, priorityqueue or the
// snapshot) for `operations` steps, each by a random one of `threads` threads, and stretches every
// operation into a random interval around its linearization point, never overlapping the same
// thread's previous or next operation. The result is linearizable by construction, with distinct
// values (each value added at most once: stack/queue values count up, priority-queue values are
// random and distinct, set keys are never re-added after removal), empty results (nil) whenever
// the container is empty, and phases that grow and drain the container. Snapshot histories are
// "simple": thread p updates segment p; threads 0 and 1 write 0 and switch to 1 once, the others
// write 0; scans return [x0 x1].
//
// With `violation`, one result is changed so that the history is certainly not linearizable
// (a never-added value, a value removed twice, a false "empty", a LIFO/FIFO/priority order
// inversion, a segment read before it was written or after it was overwritten, ...); `injected`
// describes it. With `pending_fraction` > 0, that fraction of the threads leave their last
// operation pending (it took effect at its linearization point, but no response was recorded).
//
// Output helpers write the fastlin (set/stack/queue/priorityqueue, complete histories) and the
// snapshot text formats; the JSON format is history/json_format.h.
//
// Thread-safety: pure functions; generate_history is deterministic in its options.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_SPEC_GENERATOR_H_
#define LINFAULT_SPEC_GENERATOR_H_

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "history/history.h"

namespace linfault::spec {

struct GeneratorOptions {
  std::string model = "stack";  // one of generator_models()
  std::size_t operations = 1000;
  std::size_t threads = 4;  // >= 1
  bool violation = false;
  std::uint64_t seed = 1;
  double pending_fraction = 0;  // in [0, 1]
};

struct GeneratedHistory {
  history::History history;
  std::string injected;  // with violation: what was changed, e.g. "op 17 pop() -> 5 (was 9): ..."
};

// Thrown for options that cannot be honoured (unknown model, zero threads, ...).
class GeneratorError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

std::vector<std::string_view> generator_models();  // set stack queue priorityqueue snapshot

GeneratedHistory generate_history(const GeneratorOptions& options);

// fastlin text: "# <model>" then "method value start end" per op (start/end: event positions).
// Throws GeneratorError for pending ops or results fastlin cannot express.
void write_fastlin(std::ostream& out, const history::History& history, std::string_view model);
// Seed 003's action format on one line
// ("startUpdate!p,v;endUpdate!p,v;startScan!p;endScan!p,x0,x1").
void write_snapshot_actions(std::ostream& out, const history::History& history);

}  // namespace linfault::spec

#endif  // LINFAULT_SPEC_GENERATOR_H_
