// ShardedCounter: a counter spread over two shards, so that increments on different shards do not
// contend; read() sums the shards and reset() sets the counter back to zero. Written before
// linfault's portfolio got its opening of random walks (the third held-out set).
//
// The bug: reset() zeroes the shards one after the other and read() loads them one after the
// other. A read that loads the first shard before a reset and the second after it returns part
// of the old total, a value the counter did not hold at any moment of the read. The fix is a lock
// around reset and read, or a single word.
//
// Thread-safety: every method may be called concurrently (the claim under test).

#ifndef USER_PROJECT_SHARDED_COUNTER_H_
#define USER_PROJECT_SHARDED_COUNTER_H_

#include <array>
#include <cstdint>

#include <linfault/target.h>

namespace user {

class ShardedCounter {
 public:
  // Any shard number: its lowest bit picks the shard.
  void increment(std::int64_t shard) { shards_[static_cast<std::size_t>(shard & 1)].fetch_add(1); }
  std::int64_t read() const { return shards_[0].load() + shards_[1].load(); }
  void reset() {
    for (auto& shard : shards_) shard.store(0);  // the bug: not one step for readers
  }

 private:
  std::array<linfault::Atomic<std::int64_t>, 2> shards_{};
};

}  // namespace user

#endif  // USER_PROJECT_SHARDED_COUNTER_H_
