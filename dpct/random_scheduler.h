// RandomScheduler: a random walk over interleavings.
//
// At every decision the next thread is drawn uniformly from the enabled threads, except that a
// thread at a spin/yield hint (dpct::spin_hint) is passed over whenever another thread is enabled
// (it waits for the others to make progress). The walk is a pure function of the seed.
//
// Schedule parameters: "random seed=S n=N".
//
// Thread-safety: see dpct/scheduler.h (one execution at a time).
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_DPCT_RANDOM_SCHEDULER_H_
#define LINFAULT_DPCT_RANDOM_SCHEDULER_H_

#include <cstdint>

#include "dpct/rng.h"
#include "dpct/scheduler.h"

namespace linfault::dpct {

class RandomScheduler final : public Scheduler {
 public:
  explicit RandomScheduler(std::uint64_t seed = 0) : seed_(seed) {}

  void begin(const RunInfo& info) override;
  ThreadId choose(const SchedulingPoint& point, std::span<const ThreadId> enabled) override;
  void end(Schedule& schedule) override;
  void reseed(std::uint64_t seed) override { seed_ = seed; }
  bool sees_last_thread() const override { return false; }  // it only draws at decisions

 private:
  std::uint64_t seed_;
  std::size_t threads_ = 0;
  SplitMix64 rng_;
};

}  // namespace linfault::dpct

#endif  // LINFAULT_DPCT_RANDOM_SCHEDULER_H_
