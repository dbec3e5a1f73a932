// Interleaving reports: a controlled run (dpct::Run recorded with ExecutionOptions::record_trace)
// shown step by step, the way Lincheck prints the trace of a failing test.
//
// Rows are the run's events in execution order: an operation starts (its invocation), one
// shared access of an operation (source file:line, the access kind, the value read and/or
// written, whether a compare-exchange or try_lock succeeded), an operation returns (with its
// result). A pointer value names its object by type and first use in the run ("stack_node#2"),
// never by address, so the report of one schedule is the same text in every process. The
// invocations and responses come from Run::history, placed among the accesses the way the executor
// records them (an invocation just before the operation's first access, a response right after its
// last); an operation without shared accesses appears where the history puts it. The response no
// linearization explains (the checker's culprit) is marked.
//
// Two layouts:
//   columns  Ps first (sequential, thread 0), then Pc with one column per thread, then Pr;
//   compact  one line per row: step, who (Ps, t0, t1, ..., Pr), operation, access, place, value —
//            for narrow terminals and for grep.
// format_interleaving picks the columns layout unless it is wider than `max_width`.
//
// The history must be the run's own (Run::history, process i = Pc thread i, Ps and Pr on process
// 0); without one (record_history off) there are no start/return rows.
//
// Thread-safety: pure functions.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_MINIMIZE_INTERLEAVING_H_
#define LINFAULT_MINIMIZE_INTERLEAVING_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "dpct/executor.h"
#include "dpct/workload.h"
#include "history/history.h"

namespace linfault::minimize {

struct InterleavingRow {
  enum class Kind : std::uint8_t { kStart, kAccess, kReturn };
  Kind kind = Kind::kAccess;
  dpct::Phase phase = dpct::Phase::kConcurrent;
  dpct::ThreadId thread = 0;  // Pc thread; 0 for Ps and Pr
  std::size_t op_index = 0;   // index of the call in its list (setup, threads[thread], reveal)
  history::OpIndex op = -1;   // the operation in Run::history, -1 when unknown
  std::size_t step = 0;       // kAccess: 1-based index in Run::trace
  std::string operation;      // "pop()"
  std::string text;           // kAccess: "cas node#2 -> null (stacks.h:43)"; kReturn: "pop() -> 1"
  bool culprit = false;       // kReturn of the operation no linearization explains
  // For an unsynchronized verdict (detect::Verdict::unsynchronized): `culprit` marks the
  // operation that took an element without happens-before from where it was put in, and `source`
  // the kReturn of the operation that put it in.
  bool unsynchronized = false;
  bool source = false;
  // kReturn of an operation still pending when a stuck run (deadlock, livelock) ended: it blocks
  // forever. As the culprit, it is one that no serial order makes block (Line-Up's rule).
  bool blocked = false;
};

// The rows of `run` in execution order; `culprit` (an operation of run.history) is marked, and,
// when given, `source`: then the culprit is unsynchronized (it took the element `source` put in).
std::vector<InterleavingRow> interleaving_rows(const dpct::Workload& workload, const dpct::Run& run,
                                               std::optional<history::OpIndex> culprit = {},
                                               std::optional<history::OpIndex> source = {});

// "cas node#2 -> null", "load 3", "cas failed (found node#1)", "try_lock failed", "unlock"; an
// order other than seq_cst follows in brackets: "load 3 [acquire]", "cas 1 -> 2 [acq_rel/relaxed]".
// Objects are named as the trace names them (dpct/executor.h, "Object names").
std::string describe_access(const dpct::TraceStep& step);

struct InterleavingOptions {
  std::optional<history::OpIndex> culprit;
  std::optional<history::OpIndex> source;  // detect::Verdict::source, for an unsynchronized one
  bool compact = false;                    // always the compact layout
  std::size_t max_width = 0;  // columns wider than this fall back to compact; 0: no limit
};

std::string format_interleaving(const dpct::Workload& workload, const dpct::Run& run,
                                const InterleavingOptions& options = {});
std::string format_interleaving_columns(const dpct::Workload& workload, const dpct::Run& run,
                                        std::optional<history::OpIndex> culprit = {},
                                        std::optional<history::OpIndex> source = {});
std::string format_interleaving_compact(const dpct::Workload& workload, const dpct::Run& run,
                                        std::optional<history::OpIndex> culprit = {},
                                        std::optional<history::OpIndex> source = {});

}  // namespace linfault::minimize

#endif  // LINFAULT_MINIMIZE_INTERLEAVING_H_
