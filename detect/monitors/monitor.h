// Polynomial-time linearizability monitors, and the dispatch between them and the search.
//
//   MonitorResult r = detect::run_monitor("stack", history, options);
//   if (r.verdict) ... else std::cerr << r.unsupported;             // precondition that failed
//   Verdict v = detect::check_auto("queue", history, options, Algo::kAuto);
//
// Monitors (algorithm "monitor:<model>"): set (O(n)), stack, queue and priorityqueue
// (O(n log n), seed 001) for histories whose values are added at most once, and snapshot (one pass,
// seed 003) for "simple" snapshot histories. Each states its preconditions and answers
// unsupported, with the reason, when they do not hold (detect/monitors/*_monitor.h list them);
// check_auto then falls back to the cached search (detect/checker.h).
//
// Verdicts are exact, with the same meaning as the search's: for a violation, prefix_events is
// the length of the shortest non-linearizable prefix (history.prefix(n), in which ops responding
// beyond the cut are pending) and culprit the op responding at its last event. Sets find it value
// by value (a binary search over each violating value's own responses). Containers first look
// near the event the monitor names as its evidence: a counting certificate (values certainly
// present outnumber the pending removals that could empty the container for an empty result) and
// restrictions of the history to 2-5 values around it, each decided exactly by a case split over
// its pending removals (container_monitor.h), certify violating prefixes cheaply; a binary
// search over the restriction's own cuts gives the likely answer, which one exact decision of the
// prefix one event shorter confirms. Otherwise (or when that decision is a violation) they
// binary-search the cuts, galloping down from the evidence; each prefix is decided by the monitor
// (with under- and over-approximations of its pending removals) and, when those disagree, by the
// counting certificate, by restrictions around the under-approximation's evidence, on a
// neighbouring cut, or by the search if the prefix has at most 60,000 events. The searches share
// a time budget (options.timeout_seconds, or 2 s when
// it is 0) and a memory limit (1 GiB when unset); the whole refinement gets
// options.timeout_seconds too, or when it is 0 twice as long as deciding the whole history took
// (at least 2 s). When no exact answer is found the violation stands but prefix_exact is false,
// prefix_events is an upper bound, and `reason` gives the range the shortest prefix lies in. The
// snapshot monitor finds it in its single pass. Monitors
// give no witness and no longest_partial (both stay empty).
//
// Thread-safety: all functions are reentrant.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_DETECT_MONITORS_MONITOR_H_
#define LINFAULT_DETECT_MONITORS_MONITOR_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "detect/verdict.h"
#include "history/history.h"

namespace linfault::detect {

struct MonitorResult {
  std::optional<Verdict> verdict;  // set when the monitor decided
  std::string unsupported;         // otherwise: why the monitor cannot decide this history
};

// The models that have a monitor: set stack queue priorityqueue snapshot.
std::vector<std::string_view> monitored_models();
bool has_monitor(std::string_view model);

// Runs the monitor of `model`; a model without one yields unsupported. Only timeout_seconds and
// memory_limit_bytes of `options` matter (for the search on uncertain prefixes).
MonitorResult run_monitor(std::string_view model, const history::History& history,
                          const CheckOptions& options);

enum class Algo { kAuto, kSearch, kMonitor };
std::optional<Algo> parse_algo_name(std::string_view name);  // "auto" | "search" | "monitor"
const char* algo_name(Algo algo);

// kSearch: detect::check_history. kMonitor: the monitor, or history::InputError (naming
// history.origin()) when the model has none or the history breaks its preconditions. kAuto: the
// monitor when it applies, else the search, with Verdict::monitor_declined saying why the
// model's monitor did not decide. Throws like check_history for bad models and input.
Verdict check_auto(std::string_view model, const history::History& history,
                   const CheckOptions& options, Algo algo = Algo::kAuto);

}  // namespace linfault::detect

#endif  // LINFAULT_DETECT_MONITORS_MONITOR_H_
