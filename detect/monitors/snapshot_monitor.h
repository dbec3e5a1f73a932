// The one-pass snapshot monitor for "simple" histories (seed 003, Amram et al.; monitors.md §2),
// internal to detect/monitors/.
//
// Simple shape (else unsupported): updates write 0 or 1; at most two segments i < j are ever
// written 1; on each of them every 0-write responds before the first 1-write is called (so 0-writes
// are no-ops and the segment switches 0 -> 1 once, at the first 1-write to take effect); no 1-write
// fails; every completed scan returns integers and covers i and j. Other segments stay 0.
// Pending operations are handled natively: a pending scan constrains nothing, a pending 1-write may
// take effect or not.
//
// The check is the deterministic automaton of monitors.md §2.3 (No-Inversion, Non-Decreasing and
// the four cases of Lemma 14), one O(1) step per event. Prefixes of simple histories are simple
// and violations persist, so the first failing event ends the shortest non-linearizable prefix.
//
// Thread-safety: pure function.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_DETECT_MONITORS_SNAPSHOT_MONITOR_H_
#define LINFAULT_DETECT_MONITORS_SNAPSHOT_MONITOR_H_

#include <cstddef>
#include <string>
#include <variant>

#include "history/history.h"

namespace linfault::detect::internal {

struct SnapshotViolation {
  std::size_t prefix_events = 0;  // the failing event is prefix_events - 1
  history::OpIndex culprit = -1;  // the scan whose response fails
  std::string reason;
};
struct SnapshotLinearizable {};
struct SnapshotUnsupported {
  std::string reason;
};

using SnapshotOutcome = std::variant<SnapshotLinearizable, SnapshotViolation, SnapshotUnsupported>;

SnapshotOutcome check_simple_snapshot(const history::History& history);

}  // namespace linfault::detect::internal

#endif  // LINFAULT_DETECT_MONITORS_SNAPSHOT_MONITOR_H_
