// Polynomial-time linearizability monitors for stacks, queues and priority queues with distinct
// values (seed 001, Lee & Mathur; ../shared/docs/monitors.md §1). Internal to detect/monitors/:
// users call detect/monitors/monitor.h.
//
// A history is first compiled to ContainerOps (one entry per recorded operation: add, remove or
// peek, the value added or returned, call and return event). decide_container_prefix() then
// decides history.prefix(cut) -- the first `cut` events, where an op whose response lies beyond
// the cut is pending -- in O(n log n):
//   1. the history is reduced to complete operations: pending peeks are dropped, a pending add
//      whose value nobody observed is dropped, an observed one completes at +infinity; a pending
//      removal is dropped in the under-approximations U (and takes effect with the result it
//      recorded later, when that fits, in a second one), while in the over-approximation O every
//      value without a completed removal may be removed at any time after the earliest pending
//      removal's call. U linearizable => prefix linearizable; O not linearizable => prefix not
//      linearizable; without pending removals U is exact.
//   2. well-matched extension (synthetic removals of values never removed), non-trivialisation,
//      and EmptyCheck (monitors.md §1.2); then the stack peeling (segment trees), the queue's
//      incremental MaxPermVals peeling, or the priority-queue sweep.
//
// Preconditions (else kUnsupported with the reason): each value added at most once, supported
// methods with the argument counts of the spec/ models, non-nil added values, integer values for
// priority queues (larger = higher priority).
//
// Thread-safety: pure functions over immutable inputs (each caller brings its own scratch).
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_DETECT_MONITORS_CONTAINER_MONITOR_H_
#define LINFAULT_DETECT_MONITORS_CONTAINER_MONITOR_H_

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "detect/monitors/scratch_memory.h"
#include "history/history.h"

namespace linfault::detect::internal {

enum class ContainerKind : std::uint8_t { kStack, kQueue, kPriorityQueue };

inline constexpr std::int32_t kEmptyValue = -1;  // a removal or peek that returned nil
inline constexpr std::int32_t kNoReturn = -1;    // pending: no response event

struct ContainerOp {
  enum class Kind : std::uint8_t { kAdd, kRemove, kPeek } kind;
  bool failed = false;  // Outcome::kFail: no effect once its response is inside the cut
  std::int32_t value = kEmptyValue;  // added value, or returned value (completed ops only)
  history::EventIndex call = 0;
  history::EventIndex ret = kNoReturn;
};

struct ContainerOps {
  ContainerKind kind = ContainerKind::kStack;
  std::vector<ContainerOp> ops;  // indexed like History::operations()
  std::int32_t values = 0;       // value ids are 0..values-1, in Value order
  std::int32_t events = 0;
};

// Compiles a history for the monitor of `kind`, or returns why it cannot (unknown method, ...).
std::variant<ContainerOps, std::string> compile_container_ops(ContainerKind kind,
                                                              const history::History& history);

enum class Decision : std::uint8_t { kLinearizable, kViolation, kUnsupported, kUncertain };

struct PrefixDecision {
  Decision decision = Decision::kUncertain;
  std::string reason;  // kUnsupported: the precondition that failed
  // kViolation: the event by which the violation showed (the last one the monitor needed), so
  // that prefix(evidence + 1) is likely non-linearizable too; -1 when the monitor cannot tell.
  // A hint for the shortest-prefix search, which verifies it.
  std::int32_t evidence = -1;
};

// Decides history.prefix(cut), with working arrays from `scratch` (reuse one across the prefixes
// of a history). kUncertain: the prefix has pending removals and no approximation decides it;
// `evidence` then comes from the under-approximation's violation (a hint for choosing values).
PrefixDecision decide_container_prefix(const ContainerOps& ops, std::int32_t cut,
                                       ScratchMemory& scratch);

// Exact decisions around pending removals (used by monitor.cc to find the shortest violating
// prefix without the search).
//
// A completion of prefix(cut) chooses for each pending removal either a value, which it removes
// at some moment after its call, or nothing. Two facts make a small case split exact:
//   - dropping every operation on a value, a pending operation, a peek or an op that returned
//     empty keeps a linearization legal, so if such a sub-history of prefix(cut) is not
//     linearizable, neither is prefix(cut);
//   - all pending removals respond after the cut, so an earlier-called one can do whatever a
//     later-called one can: a sub-history on s values needs only its s earliest-called pending
//     removals, each given one of the s values or nothing.

// A pending removal of prefix(cut) forced to remove `value` (kEmptyValue: to take no effect).
struct ForcedRemoval {
  std::int32_t op;
  std::int32_t value;
};

// Decides one completion of prefix(cut): the `forced` pending removals as given, the others with
// the result they recorded when that fits (as the second under-approximation does), else none. A
// forced value that is not available (never added in the prefix, or removed by another op) counts
// as none. kLinearizable is exact (the prefix is linearizable); kViolation speaks only for this
// completion.
PrefixDecision decide_completion(const ContainerOps& ops, std::int32_t cut,
                                 const std::vector<ForcedRemoval>& forced, ScratchMemory& scratch);

// A cheap certificate, by counting: an op that returned empty at some moment of its interval
// needs every value certainly present then (added before its call and not removed by a completed
// op of the prefix) removed before it, each by its own pending removal called before its
// response. When such values outnumber those pending removals, prefix(cut) is not linearizable
// (returned, with the op's response as evidence); otherwise kUncertain. O(n log n).
PrefixDecision empties_outnumbered(const ContainerOps& ops, std::int32_t cut);

// Per value its operations, and every removal by call: built once per history, O(n log n).
struct ContainerValueIndex {
  std::vector<std::int32_t> begin;     // value v's ops are ops[begin[v] .. begin[v + 1])
  std::vector<std::int32_t> ops;       // op indices, grouped by value
  std::vector<std::int32_t> removals;  // every removal op, by call
  // latest_return[k]: the latest response among removals[0..k] (INT32_MAX for a pending one), so
  // that the earliest removal pending at a cut is found by a binary search.
  std::vector<std::int32_t> latest_return;
};
ContainerValueIndex index_container_values(const ContainerOps& ops);

// Up to `count` values (sorted ids) around operation `op`: its own value first, then the values
// whose operations come nearest to op's interval (in events), the ones a violation shown by op
// most likely involves.
std::vector<std::int32_t> values_near(const ContainerOps& ops, const ContainerValueIndex& index,
                                      std::int32_t op, std::size_t count);

struct RestrictedDecision {
  // kViolation: prefix(cut) is certainly not linearizable. kLinearizable: its restriction is
  // linearizable (nothing certain about prefix(cut)) by the completion `forced` (op indices of
  // `ops`), worth trying on the whole prefix with decide_completion.
  Decision decision = Decision::kUncertain;
  std::vector<ForcedRemoval> forced;
};

// Decides the restriction of prefix(cut) to `values` (sorted ids, at most kMaxRestrictedValues)
// and `extra_ops` (complete operations that returned empty, kept as they are) exactly, by the
// case split above.
inline constexpr std::size_t kMaxRestrictedValues = 5;
RestrictedDecision decide_restricted_prefix(const ContainerOps& ops,
                                            const ContainerValueIndex& index,
                                            const std::vector<std::int32_t>& values,
                                            const std::vector<std::int32_t>& extra_ops,
                                            std::int32_t cut, ScratchMemory& scratch);

}  // namespace linfault::detect::internal

#endif  // LINFAULT_DETECT_MONITORS_CONTAINER_MONITOR_H_
