// WeakReadScheduler: any scheduler, made to run C++20-model executions (dpct/memory_model.h):
// it draws each run's read decisions by a read policy and leaves the thread decisions to the
// scheduler it wraps.
//
// Read policies (what a load with several readable stores reads; candidates are newest first):
//   - uniform: any candidate, uniformly.
//   - biased:P: the newest with probability 1 - P, otherwise an older one uniformly. Most loads
//     then behave as under sequential consistency, and a few read stale values: bugs that need
//     one stale read among many loads are found far more often than under uniform.
//   - depth:D: PCTWM-like (Gao et al., "Probabilistic Concurrency Testing for Weak Memory
//     Programs", ASPLOS 2023): before the run, D read decisions are drawn uniformly among the
//     first 4 per concurrent call of the workload (at least 8); those read an older store
//     uniformly, every other load the newest. A bug that needs D stale reads is found with a
//     probability that depends on D and the run's length, not on how many other loads it makes.
//   - mixed: each run draws one of uniform, biased:0.1, biased:0.5, depth:1 and depth:2; the
//     default, since no single policy is best on every object.
// The recorded schedule is the wrapped scheduler's, with "reads=<the run's policy>" added; its
// read decisions are recorded by the executor.
//
// A run is a pure function of the wrapped scheduler's state and this scheduler's seed (reseed()
// sets both: the read seed is derived from the given one).
//
// Thread-safety: see dpct/scheduler.h (one execution at a time).
//
// Internal header: not part of linfault's public API (include/linfault/); it may change between
// versions.

#ifndef LINFAULT_DPCT_WEAK_READS_H_
#define LINFAULT_DPCT_WEAK_READS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dpct/rng.h"
#include "dpct/scheduler.h"

namespace linfault::dpct {

struct ReadPolicy {
  enum class Kind : std::uint8_t { kUniform, kBiased, kDepth, kMixed };
  Kind kind = Kind::kMixed;
  double stale = 0.25;  // biased: the probability of reading an older store
  unsigned depth = 1;   // depth: stale reads per run
};
// "uniform", "biased:0.25", "depth:2", "mixed".
std::string read_policy_text(const ReadPolicy& policy);
// That form ("biased" alone is biased:0.25, "depth" alone depth:1); nullopt otherwise.
std::optional<ReadPolicy> parse_read_policy(std::string_view text);

class WeakReadScheduler final : public Scheduler {
 public:
  WeakReadScheduler(std::unique_ptr<Scheduler> inner, ReadPolicy policy, std::uint64_t seed);

  void begin(const RunInfo& info) override;
  ThreadId choose(const SchedulingPoint& point, std::span<const ThreadId> enabled) override {
    return inner_->choose(point, enabled);
  }
  void end(Schedule& schedule) override;
  void reseed(std::uint64_t seed) override;
  bool sees_last_thread() const override { return inner_->sees_last_thread(); }
  MemoryModel memory_model() const override { return MemoryModel::kC11; }
  std::size_t choose_read(const ReadPoint& point, std::span<const StoreId> candidates) override;

  Scheduler& inner() { return *inner_; }

 private:
  std::unique_ptr<Scheduler> inner_;
  ReadPolicy policy_;
  ReadPolicy run_policy_;  // this run's (a draw of mixed)
  std::uint64_t seed_;
  SplitMix64 rng_;
  std::uint64_t reads_ = 0;           // read decisions of this run so far
  std::uint64_t reads_estimate_ = 8;  // depth: the read decisions stale ones are drawn among
  std::vector<std::uint64_t> stale_;  // depth: the read decisions that read an older store
};

}  // namespace linfault::dpct

#endif  // LINFAULT_DPCT_WEAK_READS_H_
