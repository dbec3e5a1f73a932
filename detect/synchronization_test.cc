// The synchronisation requirement end to end (detect::CheckOptions::synchronization): a
// single-producer single-consumer ring whose elements are plain data, run under the C++20 model.
// Published with a relaxed store, every value the consumer reads is still the right one (plain
// data holds the newest bytes), so the history is linearizable; only the missing happens-before
// from the enqueue to the dequeue shows the bug.

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <memory>

#include "detect/checker.h"
#include "dpct/executor.h"
#include "dpct/random_scheduler.h"
#include "dpct/shared.h"
#include "dpct/test_objects.h"
#include "dpct/weak_reads.h"

namespace linfault::detect {
namespace {

using history::Call;
using history::Value;

// With `fence`, enq publishes through a release fence before a relaxed store and keeps its own
// copy of the tail in plain memory, so its first access comes after the fence.
class PlainRing final : public dpct::ObjectUnderTest {
 public:
  PlainRing(std::memory_order publish, std::memory_order consume, bool fence = false)
      : publish_(publish), consume_(consume), fence_(fence) {}
  Value invoke(const Call& c) override {
    if (c.method == "enq" && fence_) {
      slots_[static_cast<std::size_t>(own_tail_) % slots_.size()] = c.args.at(0).as_int();
      dpct::atomic_thread_fence(std::memory_order_release);
      tail_.store(++own_tail_, std::memory_order_relaxed);
      return {};
    }
    if (c.method == "enq") {
      const std::int64_t tail = tail_.load(std::memory_order_relaxed);
      slots_[static_cast<std::size_t>(tail) % slots_.size()] = c.args.at(0).as_int();
      tail_.store(tail + 1, publish_);
      return {};
    }
    const std::int64_t head = head_.load(std::memory_order_relaxed);
    if (tail_.load(consume_) == head) return {};
    const std::int64_t value = slots_[static_cast<std::size_t>(head) % slots_.size()];
    head_.store(head + 1, std::memory_order_release);
    return value;
  }

 private:
  std::memory_order publish_, consume_;
  bool fence_;
  std::int64_t own_tail_ = 0;  // fence_: the producer's copy of the tail
  std::array<std::int64_t, 16> slots_{};
  dpct::Atomic<std::int64_t> head_{0};
  dpct::Atomic<std::int64_t> tail_{0};
};

struct Findings {
  int unsynchronized = 0;
  int other_violations = 0;
  int values_taken = 0;
};

Findings run(std::memory_order publish, std::memory_order consume, bool weak, bool fence = false) {
  dpct::Workload w;
  w.threads = {{Call{"enq", {1}}, Call{"enq", {2}}}, {Call{"deq", {}}, Call{"deq", {}}}};
  dpct::Executor executor;
  std::unique_ptr<dpct::Scheduler> scheduler = std::make_unique<dpct::RandomScheduler>(1);
  if (weak) {
    scheduler =
        std::make_unique<dpct::WeakReadScheduler>(std::move(scheduler), dpct::ReadPolicy{}, 1);
  }
  Findings found;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    scheduler->reseed(seed);
    const dpct::Run r = executor.execute(
        dpct::fixtures::factory_of<PlainRing>(publish, consume, fence), w, *scheduler);
    EXPECT_EQ(r.outcome, dpct::RunOutcome::kOk) << r.message;
    EXPECT_EQ(r.history.clocks().empty(), !weak);
    for (const auto& op : r.history.operations()) found.values_taken += op.result.is_int();
    const Verdict v = check_history("queue", r.history, {});
    if (v.result == Result::kViolation)
      ++(v.unsynchronized ? found.unsynchronized : found.other_violations);
  }
  return found;
}

TEST(SynchronizationTest, ARelaxedPublishOfPlainDataIsFoundOnlyUnderC11) {
  const Findings relaxed = run(std::memory_order_relaxed, std::memory_order_relaxed, true);
  EXPECT_GT(relaxed.unsynchronized, 0);
  EXPECT_EQ(relaxed.other_violations, 0);  // every value read is right: plain data
  const Findings sc = run(std::memory_order_relaxed, std::memory_order_relaxed, false);
  EXPECT_GT(sc.values_taken, 0);
  EXPECT_EQ(sc.unsynchronized + sc.other_violations, 0);
}

TEST(SynchronizationTest, ReleaseAndAcquireSatisfyIt) {
  const Findings ordered = run(std::memory_order_release, std::memory_order_acquire, true);
  EXPECT_GT(ordered.values_taken, 0);
  EXPECT_EQ(ordered.unsynchronized + ordered.other_violations, 0);
  // Half the pair is not enough.
  EXPECT_GT(run(std::memory_order_release, std::memory_order_relaxed, true).unsynchronized, 0);
  EXPECT_GT(run(std::memory_order_relaxed, std::memory_order_acquire, true).unsynchronized, 0);
}

// The release fence is the enqueue's first event, before its first access (where the history
// records its call): it still counts as the enqueue's, so the fence-to-acquire synchronisation
// orders it before the dequeue.
TEST(SynchronizationTest, AFenceBeforeTheFirstAccessIsTheOperations) {
  const Findings fenced = run(std::memory_order_relaxed, std::memory_order_acquire, true, true);
  EXPECT_GT(fenced.values_taken, 0);
  EXPECT_EQ(fenced.unsynchronized + fenced.other_violations, 0);
}

}  // namespace
}  // namespace linfault::detect
