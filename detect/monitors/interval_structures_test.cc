// The monitors' index structures against brute force on random data, and ScratchMemory's reuse.

#include "detect/monitors/interval_structures.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "detect/monitors/scratch_memory.h"

namespace linfault::detect::internal {
namespace {

TEST(TimeRanks, RanksCountSmallerTimes) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 50; ++round) {
    const std::int64_t max_time = 1 + static_cast<std::int64_t>(rng() % 700);
    ScratchMemory scratch;
    TimeRanks ranks(max_time, &scratch);
    std::set<std::int64_t> times;
    for (int k = 0; k < 40; ++k) {
      const auto t = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(max_time + 1));
      times.insert(t);
      ranks.insert(t);
    }
    ranks.freeze();
    ASSERT_EQ(ranks.size(), times.size());
    for (std::int64_t t = 0; t <= max_time; ++t) {
      const auto expected = std::distance(times.begin(), times.lower_bound(t));
      ASSERT_EQ(ranks.rank(t), expected) << "t = " << t;
    }
  }
}

TEST(CountingOrder, StableByKeyAndRestrictable) {
  ScratchMemory scratch;
  ScratchArray<std::int32_t> key({3, 1, 3, 0, 1, 2}, &scratch);
  const ScratchArray<std::int32_t> order = counting_order(key, 4);
  EXPECT_EQ(std::vector<std::int32_t>(order.begin(), order.end()),
            (std::vector<std::int32_t>{3, 1, 4, 5, 0, 2}));
  ScratchArray<std::int32_t> within({5, 2, 1, 0}, &scratch);
  const ScratchArray<std::int32_t> restricted = counting_order(key, 4, &within);
  EXPECT_EQ(std::vector<std::int32_t>(restricted.begin(), restricted.end()),
            (std::vector<std::int32_t>{1, 5, 2, 0}));
}

TEST(LowCountTree, ReportsExactlyTheSlotsThatFallToTheLimit) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 30; ++round) {
    const std::size_t n = 1 + rng() % 90;
    ScratchMemory scratch;
    ScratchArray<std::int32_t> initial(n, 0, &scratch);
    for (auto& c : initial) c = static_cast<std::int32_t>(rng() % 6);
    std::vector<std::int32_t> brute(initial.begin(), initial.end());
    LowCountTree tree(initial);
    for (int step = 0; step < 60; ++step) {
      std::size_t lo = rng() % n, hi = rng() % n;
      if (lo > hi) std::swap(lo, hi);
      const std::int32_t delta = rng() % 3 == 0 ? 1 : -1;
      const std::int32_t limit = static_cast<std::int32_t>(rng() % 3);
      std::vector<std::pair<std::size_t, std::int32_t>> reported, expected;
      tree.add(lo, hi, delta, limit,
               [&](std::size_t slot, std::int32_t count) { reported.emplace_back(slot, count); });
      for (std::size_t i = lo; i <= hi; ++i) {
        brute[i] += delta;
        if (brute[i] <= limit) expected.emplace_back(i, brute[i]);
      }
      ASSERT_EQ(reported, expected) << "round " << round << " step " << step;
    }
  }
}

TEST(RangeAddPoint, PointsSumTheRangesThatCoverThem) {
  std::mt19937_64 rng(3);
  const std::size_t n = 64;
  ScratchMemory scratch;
  ScratchArray<std::uint32_t> initial(n, 0, &scratch);
  for (auto& v : initial) v = static_cast<std::uint32_t>(rng() % 100);
  std::vector<std::uint32_t> brute(initial.begin(), initial.end());
  RangeAddPoint sums(initial);
  for (int step = 0; step < 200; ++step) {
    std::size_t lo = rng() % n, hi = rng() % n;
    if (lo > hi) std::swap(lo, hi);
    const auto delta = static_cast<std::uint32_t>(rng());  // wraps modulo 2^32
    sums.add(lo, hi, delta);
    for (std::size_t i = lo; i <= hi; ++i) brute[i] += delta;
    const std::size_t probe = rng() % n;
    ASSERT_EQ(sums.at(probe), brute[probe]);
  }
}

TEST(StabIndex, ReportsEachActiveMeetingItemOnce) {
  std::mt19937_64 rng(5);
  for (int round = 0; round < 40; ++round) {
    const std::size_t n = 1 + rng() % 70;
    // Two blocks, each sorted by lo.
    const std::size_t split = rng() % (n + 1);
    std::vector<std::pair<std::int32_t, std::int32_t>> items(n);
    for (auto& [lo, hi] : items) {
      lo = static_cast<std::int32_t>(rng() % 50);
      hi = lo + static_cast<std::int32_t>(rng() % 10);
    }
    std::sort(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(split));
    std::sort(items.begin() + static_cast<std::ptrdiff_t>(split), items.end());
    ScratchMemory scratch;
    ScratchArray<std::int32_t> lo(n, &scratch), hi(n, &scratch);
    for (std::size_t i = 0; i < n; ++i) std::tie(lo[i], hi[i]) = items[i];
    StabIndex index(lo, hi);
    std::vector<bool> active(n, true);
    for (int query = 0; query < 30; ++query) {
      const bool second = rng() % 2 == 1;
      const std::size_t begin = second ? split : 0, end = second ? n : split;
      auto first = static_cast<std::int32_t>(rng() % 60);
      auto last = first + static_cast<std::int32_t>(rng() % 4);
      std::vector<std::size_t> reported, expected;
      index.stab(begin, end, first, last, [&](std::size_t p) {
        reported.push_back(p);
        index.deactivate(p);
      });
      for (std::size_t p = begin; p < end; ++p) {
        if (active[p] && lo[p] <= last && hi[p] >= first) {
          expected.push_back(p);
          active[p] = false;
        }
      }
      std::sort(reported.begin(), reported.end());
      ASSERT_EQ(reported, expected) << "round " << round << " query " << query;
    }
  }
}

TEST(ScratchMemory, ReusesLargeBlocksAndPassesSmallOnesThrough) {
  ScratchMemory scratch;
  const std::size_t large = ScratchMemory::kLargeBlock * 4;
  {
    ScratchArray<std::uint8_t> a(large, 1, &scratch);
    EXPECT_EQ(a[large - 1], 1);
  }
  const std::size_t after_first = scratch.large_bytes();
  EXPECT_GE(after_first, large);
  for (int k = 0; k < 10; ++k) {
    ScratchArray<std::uint8_t> again(large - 100, 2, &scratch);  // fits the cached block
    EXPECT_EQ(again.front(), 2);
  }
  EXPECT_EQ(scratch.large_bytes(), after_first);
  {
    ScratchArray<std::uint8_t> small(100, 3, &scratch);
    EXPECT_EQ(small.back(), 3);
  }
  EXPECT_EQ(scratch.large_bytes(), after_first);
  // A request under half the cached block's size gets its own block instead.
  { ScratchArray<std::uint8_t> half(large / 4, 5, &scratch); }
  EXPECT_GT(scratch.large_bytes(), after_first);
}

}  // namespace
}  // namespace linfault::detect::internal
