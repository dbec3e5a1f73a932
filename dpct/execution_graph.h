// ExecutionGraph: the memory events of one controlled execution under the C++20 model, as
// dpct::WeakMemory performed them, and an independent check that the execution is one C++20
// allows (find_axiom_violation).
//
// The events are in execution order. Each location's modification order is the order of its
// writes (phase 1 of docs/weak-memory.md); a read names the write it read. The check does not use
// WeakMemory's clocks or rules: it computes happens-before from the events alone (program order,
// C++20 release sequences, acquire and release fences, and the synchronisation of locks, thread
// starts and ends) and tests RC11's axioms (Lahav et al., PLDI 2017), as dpct/litmus.h states
// them:
//   - coherence (hb; eco? irreflexive), which with modification order = execution order comes to
//     CoWR and CoRR: a read does not read a write older than one that happens-before it, nor
//     older than what a read that happens-before it read;
//   - atomicity: a read-modify-write reads the write just before its own in modification order;
//   - SC: psc acyclic over the seq_cst accesses and fences;
//   - no thin air: a read reads a write made before it.
// Happens-before here leaves out what WeakMemory adds beyond C++20 (an SC fence as an RMW of one
// location), so the check is never stricter than C++20 on the events it is given, but for one
// convention it shares with WeakMemory: reading bytes written outside the model synchronises
// with everything before (GraphEvent::synchronizes_all).
//
// Thread-safety: a value type; find_axiom_violation is a function of its argument.
//
// Internal header: not part of linfault's public API (include/linfault/); it may change between
// versions.

#ifndef LINFAULT_DPCT_EXECUTION_GRAPH_H_
#define LINFAULT_DPCT_EXECUTION_GRAPH_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace linfault::dpct {

struct GraphEvent {
  enum class Kind : std::uint8_t {
    kInit,     // a location's first write: its bytes when the model first saw it
    kRead,     // a load, or a failed compare-exchange
    kWrite,    // a store
    kUpdate,   // a read-modify-write: reads `reads_from`, then writes
    kFence,    // atomic_thread_fence(order)
    kRelease,  // releases into `location`'s object (unlock, the end of an operation)
    kAcquire,  // acquires everything released into `location`'s object so far (lock, a start)
    kBarrier,  // everything before happens-before everything after (threads start or end)
  };
  static constexpr std::uint32_t kNoThread = 0xffffffff;

  Kind kind = Kind::kRead;
  std::uint32_t thread = kNoThread;  // kInit and kBarrier have none
  // The location (kInit, kRead, kWrite, kUpdate) or the object (kRelease, kAcquire): a number
  // that names it in this graph.
  std::uint64_t location = 0;
  std::memory_order order = std::memory_order_relaxed;
  std::int64_t reads_from = -1;  // kRead, kUpdate: the index of the write read
  // kInit of a location started afresh from bytes written outside the model (memory reused,
  // another access size): nobody knows who wrote them, so reading them synchronises with
  // everything before (as an acquire of it), as WeakMemory has it.
  bool synchronizes_all = false;

  bool reads() const { return kind == Kind::kRead || kind == Kind::kUpdate; }
  bool writes() const {
    return kind == Kind::kInit || kind == Kind::kWrite || kind == Kind::kUpdate;
  }
  bool access() const { return reads() || writes(); }
};

struct ExecutionGraph {
  std::size_t threads = 0;
  std::vector<GraphEvent> events;
};

// The first axiom the execution breaks, in a sentence naming the events by index, thread and
// kind; nullopt when C++20 allows it. Malformed graphs (a read of a non-write, of a write to
// another location or of a later event, a thread out of range) are reported the same way.
std::optional<std::string> find_axiom_violation(const ExecutionGraph& graph);

// A point of an execution: just after its first `events` events, in `thread`.
struct ClockPoint {
  std::uint32_t thread = 0;
  std::size_t events = 0;
};
// The happens-before clock of each point's thread there, computed as find_axiom_violation does:
// entry u counts thread u's events that happen-before the thread's next event. Synchronisation
// through the kRelease and kAcquire events of `ignored_object` is left out (the executor's
// ordering of a client's operations, when what the object itself orders is asked). Throws
// std::out_of_range for a point outside the graph.
std::vector<std::vector<std::uint32_t>> happens_before_at(
    const ExecutionGraph& graph, std::span<const ClockPoint> points,
    std::optional<std::uint64_t> ignored_object = std::nullopt);

}  // namespace linfault::dpct

#endif  // LINFAULT_DPCT_EXECUTION_GRAPH_H_
