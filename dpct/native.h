// Native mode: runs a workload on real OS threads at full speed and records its history.
//
// The same object source as in controlled mode (dpct/shared.h): no ExecutionContext is installed,
// so Atomic/Var/Mutex are plain std::atomic / std::mutex. Ps runs on the calling thread, then one
// std::thread per Pc thread starts behind a barrier (so they really overlap), then Pr runs on the
// calling thread. Every invocation and response is stamped from one sequence counter (a
// sequentially consistent fetch_add, shared by the threads of this run only): an invocation is
// stamped before the call starts and a response after it returns, so the stamps order events
// consistently with real time and no two events tie. Process ids are as in controlled mode
// (Pc thread i = process i, Ps and Pr on process 0).
//
// Noise (NativeOptions::noise, dpct/noise.h): each Pc thread runs with a NoiseInjector of the
// given plan, which delays it at a random few of its accesses (a yield, a spin or a short
// sleep), ConTest-style, so that the few-instruction windows of atomicity bugs overlap with the
// other threads far more often than at full speed. Without a plan nothing is installed and each
// access costs one thread-local check, as before. Ps and Pr run single-threaded and quiet.
//
// The Pc threads start together: each spins (yielding) until all have arrived, rather than
// sleeping in a barrier whose wake-ups are tens of microseconds apart, longer than many a short
// Pc takes.
//
// Outcomes: kOk, or kCrash when an operation throws (that thread stops, its operation stays
// pending, the others finish, Pr is skipped). Native mode cannot stop a deadlock or a livelock:
// use controlled mode to find those. Run::schedule reads "native" with no decisions.
//
// Thread-safety: run_native may be called from several threads at once (no shared state).
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_DPCT_NATIVE_H_
#define LINFAULT_DPCT_NATIVE_H_

#include <cstdint>
#include <optional>
#include <string>

#include "dpct/executor.h"
#include "dpct/noise.h"
#include "dpct/workload.h"

namespace linfault::dpct {

struct NativeOptions {
  bool record_history = true;
  std::string origin = "native";
  std::optional<std::uint64_t> history_seed = std::nullopt;  // as ExecutionOptions::history_seed
  // Noise for the Pc threads (draw_noise_plan(seed) gives a per-run plan); none when empty.
  std::optional<NoisePlan> noise;
  // When set, receives what the injectors did in this run, summed over the Pc threads.
  NoiseCounts* noise_counts = nullptr;
};

Run run_native(const ObjectFactory& factory, const Workload& workload,
               const NativeOptions& options = {});

}  // namespace linfault::dpct

#endif  // LINFAULT_DPCT_NATIVE_H_
