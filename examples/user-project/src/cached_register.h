// CachedRegister: a register with a read cache. read() answers from the cache while it is
// valid, and otherwise loads the value and fills the cache; write() stores the value and
// invalidates the cache.
//
// The bug: a read that loaded the value before a write, and fills the cache after the write
// invalidated it, leaves a stale value in a valid cache. Every later read returns it, also reads
// that start after the write has returned. It takes a read stopped between its load and its
// cache fill while a write completes, and then another read. (The fix: a version number checked
// when filling, or a lock around fill and invalidation.)
//
// Thread-safety: read() and write() may be called concurrently (the claim under test).

#ifndef USER_PROJECT_CACHED_REGISTER_H_
#define USER_PROJECT_CACHED_REGISTER_H_

#include <cstdint>

#include <linfault/target.h>

namespace user {

class CachedRegister {
 public:
  void write(std::int64_t value);
  std::int64_t read();

 private:
  linfault::Atomic<std::int64_t> value_{0};
  linfault::Atomic<std::int64_t> cached_{0};
  linfault::Atomic<bool> cache_valid_{false};
};

}  // namespace user

#endif  // USER_PROJECT_CACHED_REGISTER_H_
