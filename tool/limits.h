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
//     naming the phase ("reading the input") once the timeout has passed since the command
//     started (tool_main's entry), unless the command has begun printing its own result;
//   - memory: the operator new and delete of the tool count the live heap bytes (see
//     tool/heap_limit.h for what is and is not counted); an allocation past the limit throws
//     std::bad_alloc, which the tool reports as exit 2 with the phase.
// In JSON mode both also print {"linfault": "verdict", "verdict": "unknown", ...} on stdout, with
// the fields of a checker's verdict that are known ("model" once set_model() named it, else null;
// "algorithm" null).
//
// Thread-safety: mark_command_start() and start_process_limits() are called from the main
// thread, in that order, before the command's work; the others are safe from any thread.
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
  bool json = false;                   // the command prints JSON (--json)
  // The share of the timeout seconds_left() gives the algorithms, so that they stop with their
  // partial result before the backstop. Minimization, whose last step checks the whole result
  // once more, leaves itself more room.
  double algorithm_share = 0.95;
};

// Where the time limit counts from: called first thing by tool_main.
void mark_command_start();

// Starts the watchdog and the heap accounting.
void start_process_limits(const ProcessLimits& limits);

// What the command is doing now, named when a limit ends it: "reading the input", "checking".
// `phase` must outlive the process (a string literal). set_phase(nullptr) says the command is
// printing its result: from then on the watchdog no longer fires (if it already fired, the call
// waits for the process to end, so that exactly one verdict is printed).
void set_phase(const char* phase);

// The sequential model the command checks against, once known (from --model, or from the
// input), for the unknown verdict a limit prints in JSON mode ("model": null before). An empty
// name changes nothing. Called from the main thread (the watchdog only reads it).
void set_model(const std::string& model);

// The time left of --timeout for an algorithm's own limit (its share of the timeout, at least a
// millisecond), or 0 when there is no time limit (the convention of every timeout option: 0
// means none).
double seconds_left();
// The heap bytes left under --memory-limit (at least 1), or 0 when there is no memory limit.
std::size_t heap_bytes_left();

// True once an allocation went past --memory-limit.
bool memory_limit_reached();
// Reports the memory limit as the watchdog reports the time limit, and ends the process (exit 2).
[[noreturn]] void exit_memory_limit();

}  // namespace linfault::tool

#endif  // LINFAULT_TOOL_LIMITS_H_
