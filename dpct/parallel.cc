#include "dpct/parallel.h"

#include <atomic>
#include <chrono>
#include <exception>
#include <limits>
#include <mutex>
#include <thread>
#include <vector>

namespace linfault::dpct {

ManyResult run_many(const ObjectFactory& factory, const Workload& workload,
                    const SchedulerFactory& schedulers, const ManyOptions& options,
                    const std::function<bool(std::uint64_t seed, const Run&)>& stop) {
  const auto started = std::chrono::steady_clock::now();
  ManyResult result;
  result.workers =
      options.workers != 0 ? options.workers : std::max(1u, std::thread::hardware_concurrency());

  constexpr std::uint64_t kNone = std::numeric_limits<std::uint64_t>::max();
  std::atomic<std::uint64_t> next_index{0};
  std::atomic<std::uint64_t> stop_index{kNone};
  std::mutex mutex;  // guards `result` and `error`
  std::exception_ptr error;

  auto work = [&] {
    ManyResult local;
    try {
      Executor executor;
      std::unique_ptr<Scheduler> scheduler = schedulers();
      while (true) {
        const std::uint64_t index = next_index.fetch_add(1);
        if (index >= options.runs || index > stop_index.load()) break;
        const std::uint64_t seed = options.first_seed + index;
        scheduler->reseed(seed);
        Run run = executor.execute(factory, workload, *scheduler, options.execution);
        ++local.executions;
        local.steps += run.steps;
        ++local.outcomes[static_cast<std::size_t>(run.outcome)];
        if (stop && stop(seed, run)) {
          std::lock_guard lock(mutex);
          if (index < stop_index.load()) {
            stop_index.store(index);
            result.stop_seed = seed;
            result.stopped = std::move(run);
          }
        }
      }
    } catch (...) {
      std::lock_guard lock(mutex);
      if (!error) error = std::current_exception();
      stop_index.store(0);
    }
    std::lock_guard lock(mutex);
    result.executions += local.executions;
    result.steps += local.steps;
    for (std::size_t i = 0; i < local.outcomes.size(); ++i) result.outcomes[i] += local.outcomes[i];
  };

  if (result.workers == 1) {
    work();
  } else {
    std::vector<std::thread> threads;
    threads.reserve(result.workers);
    for (unsigned w = 0; w < result.workers; ++w) threads.emplace_back(work);
    for (std::thread& t : threads) t.join();
  }
  if (error) std::rethrow_exception(error);
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace linfault::dpct
