// run_many: independent controlled executions (one per seed) spread over worker threads.
//
// Seeds first_seed, first_seed+1, ... are handed out in increasing order; each worker owns an
// Executor and a scheduler made by the factory, which it reseeds (Scheduler::reseed) before each
// run, so the run of a seed is the same whatever the number of workers. With a stop predicate,
// the result holds the run of the SMALLEST seed for which it returned true (seeds above it are
// skipped once found), which is also independent of the worker count; `executions` may then
// exceed that seed's position, since workers run ahead.
//
// Thread-safety: `stop` is called concurrently from the workers and must be thread-safe; the
// factories are called from the workers (the object factory once per run).
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_DPCT_PARALLEL_H_
#define LINFAULT_DPCT_PARALLEL_H_

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "dpct/executor.h"
#include "dpct/scheduler.h"

namespace linfault::dpct {

using SchedulerFactory = std::function<std::unique_ptr<Scheduler>()>;

struct ManyOptions {
  std::uint64_t first_seed = 1;
  std::uint64_t runs = 1000;
  unsigned workers = 0;  // 0: std::thread::hardware_concurrency()
  ExecutionOptions execution;
};

struct ManyResult {
  std::uint64_t executions = 0;
  std::uint64_t steps = 0;                  // scheduling points over all executions
  std::array<std::uint64_t, 4> outcomes{};  // executions per RunOutcome
  std::optional<std::uint64_t> stop_seed;   // smallest seed the predicate stopped at
  std::optional<Run> stopped;               // its run
  unsigned workers = 0;
  double seconds = 0;  // wall-clock time
};

// Rethrows the first exception a worker hit (from a factory, scheduler or predicate).
ManyResult run_many(const ObjectFactory& factory, const Workload& workload,
                    const SchedulerFactory& schedulers, const ManyOptions& options,
                    const std::function<bool(std::uint64_t seed, const Run&)>& stop = nullptr);

}  // namespace linfault::dpct

#endif  // LINFAULT_DPCT_PARALLEL_H_
