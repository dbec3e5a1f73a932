// Stall watchdog: a controlled run that stops reaching scheduling points ends the process with a
// one-line error instead of hanging it.
//
// A controlled run switches threads only at instrumented accesses (dpct/shared.h). An operation
// that loops without one -- typically a spin on a plain std::atomic or variable the user did not
// instrument, waiting for another logical thread that can never run meanwhile -- holds the
// executor's OS thread forever, and no step cap can stop it. The watchdog notices: each Executor
// publishes a RunProgress (a beat per access, the call in progress, the last access's file:line),
// and a background thread, started with the first watched progress, compares the beats every
// quarter of a second. When a run has made no access for the stall limit, the watchdog calls the
// stall handler with a message naming the thread, the call and the last access; the default
// handler prints it on stderr ("linfault: error: ...") and exits with kStallExitCode, because the
// spinning fiber cannot be unwound. A controlled executor marks its progress interruptible
// instead: the watchdog then signals the executor's own thread, which abandons the stalled code
// and ends that run as a livelock (the campaign goes on).
//
// The limit is LINFAULT_STALL_SECONDS from the environment (read once, when the watchdog starts;
// 0 turns it off), else kDefaultStallSeconds. Time the whole process spends stopped (at a
// debugger's breakpoint, by SIGSTOP) does not count: the watchdog's own sleep then overruns, and
// it starts every run's clock again. Native runs (dpct/native.h) are watched too, by
// their invocations and responses: their threads cannot be stopped either, so a deadlock or a
// livelock there (an object not marked may_livelock) would hang the process as well.
//
// Thread-safety: RunProgress is written by its executor's thread and read by the watchdog's (all
// atomics). watch, unwatch, set_stall_handler and set_stall_limit are thread-safe.
//
// Internal header: not part of linfault's public API (include/linfault/); it may change between
// versions.

#ifndef LINFAULT_DPCT_WATCHDOG_H_
#define LINFAULT_DPCT_WATCHDOG_H_

#include <pthread.h>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "history/history.h"

namespace linfault::dpct {

inline constexpr int kStallExitCode = 2;  // "unknown: a limit was hit" (docs/formats.md)
inline constexpr double kDefaultStallSeconds = 20;

// What an executor publishes while it runs. Stores are relaxed, except `call`, released so that
// the watchdog may read the call it points to (the workload outlives the run).
struct RunProgress {
  // The executor's thread only: plain loads and stores, no read-modify-write on the hot path.
  // A beat names the logical thread now running, its call, and the access it passes (file
  // nullptr when the call has made none yet).
  void beat(std::int32_t logical_thread, const history::Call* current, const char* file,
            std::uint32_t line) {
    beats.store(beats.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    thread.store(logical_thread, std::memory_order_relaxed);
    last_file.store(file, std::memory_order_relaxed);
    last_line.store(line, std::memory_order_relaxed);
    call.store(current, std::memory_order_release);
  }

  static constexpr std::int32_t kSequential = -1;   // a Ps or Pr call
  static constexpr std::int32_t kConstructor = -2;  // the object's constructor

  // At the start of a run: the history seed the message names, if any.
  void start(std::optional<std::uint64_t> history_seed) {
    seed.store(history_seed.value_or(0), std::memory_order_relaxed);
    has_seed.store(history_seed.has_value(), std::memory_order_relaxed);
    running.store(true, std::memory_order_relaxed);
  }

  // Native runs (dpct/native.h) beat at every invocation and response, from several threads.
  void native_beat(std::uint64_t stamp) { beats.store(stamp + 1, std::memory_order_relaxed); }

  // Set by an executor that can end a stalled run itself (dpct/executor.h): the watchdog then
  // sends stall_signal() to `os_thread`, with the beats it saw as the signal's value, instead of
  // calling the stall handler.
  std::atomic<bool> interruptible{false};
  std::atomic<pthread_t> os_thread{};

  std::atomic<bool> running{false};
  std::atomic<bool> has_seed{false};
  std::atomic<std::uint64_t> seed{0};
  bool native = false;  // set before watch(): real threads, no single call to name
  std::atomic<std::uint64_t> beats{0};
  std::atomic<std::int32_t> thread{kSequential};
  std::atomic<const history::Call*> call{nullptr};
  std::atomic<const char*> last_file{nullptr};
  std::atomic<std::uint32_t> last_line{0};
};

// The signal that asks an interruptible executor's thread to end its stalled run (a real-time
// signal; its value is the beat count the watchdog saw, so a late one is recognised).
int stall_signal();
// The stall limit in force (zero: no limit).
std::chrono::milliseconds stall_limit();

// Watches `progress` until unwatch; starts the watchdog's thread the first time.
void watch(RunProgress* progress);
void unwatch(RunProgress* progress);

// For tests: what a stall does (default: print, exit kStallExitCode); called on the watchdog's
// thread, once per stall. An empty function restores the default.
using StallHandler = std::function<void(const std::string& message)>;
void set_stall_handler(StallHandler handler);
// For tests: the limit, overriding the environment; zero turns the watchdog off.
void set_stall_limit(std::chrono::milliseconds limit);

}  // namespace linfault::dpct

#endif  // LINFAULT_DPCT_WATCHDOG_H_
