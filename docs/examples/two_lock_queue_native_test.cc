// The example queue on real threads (label `native`, rerun under ThreadSanitizer by CI): no data
// race, and every enqueued value is dequeued exactly once.

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <thread>
#include <vector>

#include "docs/examples/two_lock_queue.h"

namespace linfault::examples {
namespace {

TEST(TwoLockQueueNativeTest, ConcurrentEnqueuersAndDequeuersLoseNothing) {
  constexpr int kPerThread = 2000;
  TwoLockQueue queue;
  std::vector<std::vector<std::int64_t>> taken(2);
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&queue, t] {
      for (int i = 0; i < kPerThread; ++i) queue.enq(t * kPerThread + i);
    });
    threads.emplace_back([&queue, &taken, t] {
      for (int i = 0; i < kPerThread; ++i) {
        if (std::optional<std::int64_t> v = queue.deq()) taken[t].push_back(*v);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  std::vector<std::int64_t> all = taken[0];
  all.insert(all.end(), taken[1].begin(), taken[1].end());
  while (std::optional<std::int64_t> v = queue.deq()) all.push_back(*v);
  std::sort(all.begin(), all.end());
  ASSERT_EQ(all.size(), 2u * kPerThread);
  for (std::size_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i], static_cast<std::int64_t>(i));
  // FIFO per producer: each dequeuer sees one producer's values in increasing order.
  for (const auto& seen : taken) {
    for (int producer = 0; producer < 2; ++producer) {
      std::vector<std::int64_t> mine;
      for (std::int64_t v : seen) {
        if (v / kPerThread == producer) mine.push_back(v);
      }
      EXPECT_TRUE(std::is_sorted(mine.begin(), mine.end()));
    }
  }
}

}  // namespace
}  // namespace linfault::examples
