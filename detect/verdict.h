// Verdict: what a linearizability check found, and the limits it ran under.
//
// Every checker (the cached WGL search of detect/checker.h, the polynomial monitors) answers with
// a Verdict. For a violation it names the shortest non-linearizable prefix (Theorem 1 of
// docs/algorithms.md: its last event is a response that cannot be explained), the operation of
// that response (the culprit), and the longest partial linearization the search reached, so users
// and the localizer get data, not a boolean. docs/formats.md documents its JSON form.
//
// Thread-safety: plain data.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_DETECT_VERDICT_H_
#define LINFAULT_DETECT_VERDICT_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "history/history.h"

namespace linfault::detect {

enum class Result : std::uint8_t { kLinearizable, kViolation, kUnknown };
const char* result_name(Result r);  // "linearizable" | "violation" | "unknown"

struct CheckOptions {
  double timeout_seconds = 0;          // 0: no limit. Past it the check returns kUnknown promptly.
  std::size_t memory_limit_bytes = 0;  // 0: no limit. Bounds the memo; past it: kUnknown.
  bool partition = true;               // split partitionable models by key (P-compositionality)
  unsigned threads = 0;                // partitions checked in parallel; 0: hardware concurrency
  bool want_witness = true;            // fill Verdict::witness for linearizable histories
  // The history ended stuck: the run deadlocked (dpct::ended_stuck), so its pending operations
  // can never finish. With a model that knows which calls block (a target's serial specification,
  // targets/serial_spec.h) Line-Up's rule then applies: the history is linearizable only if, for
  // each pending operation e, some serial order of the completed operations (keeping real-time
  // order, with their results) followed by e makes e block. Other models cannot say whether a
  // call may block, and ignore it (pending operations may take effect or not, as always).
  bool stuck = false;
  // For a history that knows happens-before between its operations (history::History::clocks(),
  // a controlled run under the C++20 memory model) and a model that tells where elements flow
  // (spec::FlowModel): a linearizable history still violates it if an operation takes an element
  // (a pop, a read of a written value) although no operation that put that element in has its
  // call happen-before the taker's return. A missing release or acquire shows so even where
  // every value read is the right one, as plain data published with a relaxed store does.
  bool synchronization = true;
};

struct Verdict {
  Result result = Result::kUnknown;
  std::string model;      // the model's command-line name
  std::string algorithm;  // "search", or the monitor that decided ("monitor:stack", ...)
  // --algo auto: why the model's monitor declined the history, so that the search decided it
  // (empty when the monitor decided, or the model has none).
  std::string monitor_declined;
  std::size_t operations = 0;
  double elapsed_ms = 0;

  // kLinearizable: one linearization (operations that took effect, in order). Pending ops that
  // never took effect and failed ops are absent.
  std::vector<history::OpIndex> witness;

  // kViolation: the shortest non-linearizable prefix, in events (its last event is the culprit's
  // response), and the culprit operation.
  std::size_t prefix_events = 0;
  history::OpIndex culprit = -1;
  // kViolation (and kUnknown when known): the longest partial linearization found — a legal
  // order of operations that explains every response before the prefix's last event.
  std::vector<history::OpIndex> longest_partial;
  // kViolation found by the stuck-history rule (CheckOptions::stuck): `culprit` is a pending
  // operation that blocks forever although it blocks in no serial order; prefix_events is the
  // whole history.
  bool stuck = false;
  // kViolation found by the synchronisation requirement (CheckOptions::synchronization): the
  // culprit took an element that `source` put in (the first such operation), and no operation
  // that put it in has its call happen-before the culprit's return. prefix_events ends with the
  // culprit's response.
  bool unsynchronized = false;
  history::OpIndex source = -1;
  // For partitioned checks: the key of the partition that failed, if any.
  std::optional<history::Value> partition_key;

  // kUnknown: why ("timeout after 10 s", "memory limit of 1 GiB reached", ...).
  std::string reason;

  // kViolation: false when a limit stopped the check before the shortest prefix was proven;
  // prefix_events is then an upper bound (and `reason` says which limit).
  bool prefix_exact = true;
  // Search statistics: sub-histories checked, configurations memoized, peak memo bytes (summed
  // over partitions).
  std::size_t partitions = 0;
  std::uint64_t states_explored = 0;
  std::size_t memo_bytes = 0;
};

}  // namespace linfault::detect

#endif  // LINFAULT_DETECT_VERDICT_H_
