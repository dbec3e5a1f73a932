#include "dpct/random_scheduler.h"

#include "dpct/schedule.h"

namespace linfault::dpct {

void RandomScheduler::begin(const RunInfo& info) {
  threads_ = info.threads;
  rng_ = SplitMix64(seed_);
}

ThreadId RandomScheduler::choose(const SchedulingPoint& point, std::span<const ThreadId> enabled) {
  if (enabled.size() == 1) return enabled[0];
  if (point.is_yield()) {
    // Draw among the others: skip the yielding thread's slot.
    std::size_t pick = rng_.below(enabled.size() - 1);
    for (std::size_t i = 0; i < enabled.size(); ++i) {
      if (enabled[i] == point.thread) continue;
      if (pick-- == 0) return enabled[i];
    }
  }
  return enabled[rng_.below(enabled.size())];
}

void RandomScheduler::end(Schedule& schedule) {
  schedule.scheduler = "random";
  schedule.set_parameter("seed", std::to_string(seed_));
  schedule.set_parameter("n", std::to_string(threads_));
}

}  // namespace linfault::dpct
