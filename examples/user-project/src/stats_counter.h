// StatsCounter: counts recorded events and how many of them were hits, as cache and request
// statistics do. record(hit) counts one event (hit: 0 or 1); misses() returns events minus hits.
// Written before linfault's mixed shapes pitted whole threads of readers against threads of
// writers (the fourth held-out set, bench/schedulers/README.md).
//
// StatsCounter keeps both counts in one word (hits in the high half) and updates and reads them
// together (correct). SplitStatsCounter keeps two counters, updated one after the other and read
// one after the other (buggy): a misses() that reads the events, then a hit recorded in between,
// then the hits, returns one miss fewer than there ever were (below zero on a fresh counter).
//
// Thread-safety: every method may be called concurrently (the claim under test).

#ifndef USER_PROJECT_STATS_COUNTER_H_
#define USER_PROJECT_STATS_COUNTER_H_

#include <cstdint>

#include <linfault/target.h>

namespace user {

class StatsCounter {
 public:
  void record(std::int64_t hit) { counts_.fetch_add(hit != 0 ? kOneHit + 1 : 1); }
  std::int64_t misses() {
    const std::int64_t counts = counts_.load();
    return (counts & (kOneHit - 1)) - (counts >> 32);
  }

 private:
  static constexpr std::int64_t kOneHit = std::int64_t{1} << 32;
  linfault::Atomic<std::int64_t> counts_{0};
};

class SplitStatsCounter {
 public:
  void record(std::int64_t hit) {
    events_.fetch_add(1);
    if (hit != 0) hits_.fetch_add(1);
  }
  std::int64_t misses() {
    const std::int64_t events = events_.load();
    return events - hits_.load();  // the bug: the hits may have moved since the events were read
  }

 private:
  linfault::Atomic<std::int64_t> events_{0};
  linfault::Atomic<std::int64_t> hits_{0};
};

}  // namespace user

#endif  // USER_PROJECT_STATS_COUNTER_H_
