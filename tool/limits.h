// The whole-process limits of one command: `--timeout` and `--memory-limit` hold on every path
// of it — reading the input, the search, the monitors, prefix refinement, minimization —
// not only where an algorithm checks its own budget.
//
// Each algorithm keeps its cooperative limit (detect::CheckOptions::timeout_seconds,
// memory_limit_bytes, ...), which ends it with an "unknown" verdict and its partial results; a
// command gives it what is left of the process's budget (seconds_left(), heap_bytes_left()).
// These limits are the backstop for what has no budget of its own, e.g. reading a 10^6-operation
// file:
//   - time: a watchdog thread ends the process with exit 2 (unknown) and one line on stderr
//     naming the phase ("reading the input") once the timeout has passed since the process
//     started;
//   - memory: every heap allocation of the process is counted (global operator new and delete,
//     tool/heap_limit.cc); an allocation past the limit throws std::bad_alloc, which the tool
//     reports as exit 2 with the phase. A small reserve lets the report itself allocate.
//
// Thread-safety: start_process_limits() is called once, from the main thread, before the
// command's work; set_phase() and the queries are safe from any thread.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_TOOL_LIMITS_H_
#define LINFAULT_TOOL_LIMITS_H_

#include <cstddef>
#include <string>

namespace linfault::tool {

struct ProcessLimits {
  double timeout_seconds = 0;          // 0: none
  std::size_t memory_limit_bytes = 0;  // 0: none
  std::string subject;                 // what the command works on, for the message (a file)
  // The command prints JSON (--json): a limit reached by the backstop also prints
  // {"linfault": "verdict", "verdict": "unknown", "reason": ..., "file": subject} on stdout.
  bool json = false;
};

// Starts the clock and the heap accounting.
void start_process_limits(const ProcessLimits& limits);

// What the command is doing now, named when a limit ends it: "reading the input", "checking".
// `phase` must outlive the process (a string literal).
void set_phase(const char* phase);

// The time left of --timeout for an algorithm's own limit, 5 % of the timeout short of it so
// that the algorithm's partial result is printed before the backstop (at least a millisecond), or
// 0 when there is no time limit (the convention of every timeout option: 0 means none).
double seconds_left();
// The heap bytes left under --memory-limit (at least 1), or 0 when there is no memory limit.
std::size_t heap_bytes_left();

// True once an allocation went past --memory-limit; then the one line to print for it.
bool memory_limit_reached();
std::string memory_limit_message();

// Live heap bytes of the process (counted only while a memory limit is set; else 0).
std::size_t heap_bytes_in_use();

}  // namespace linfault::tool

#endif  // LINFAULT_TOOL_LIMITS_H_
