// TornRegister: a 64-bit register kept in two 32-bit atomic words, written for a platform without
// 64-bit atomics. Each half is atomic; the pair is not.
//
// The bug: write() stores the high word, then the low word, and read() loads them one after the
// other, so a read that runs between a write's two stores returns the new high word with the old
// low word -- a value nobody wrote. One preemption of the writer exposes it. (The fix is a
// seqlock or a lock around the pair; see VersionedRegister.)
//
// Thread-safety: read() and write() may be called concurrently from any number of threads (that
// is the claim under test).

#ifndef USER_PROJECT_TORN_REGISTER_H_
#define USER_PROJECT_TORN_REGISTER_H_

#include <cstdint>

#include <linfault/target.h>

namespace user {

class TornRegister {
 public:
  void write(std::int64_t value);
  std::int64_t read() const;

 private:
  linfault::Atomic<std::uint32_t> high_{0};
  linfault::Atomic<std::uint32_t> low_{0};
};

}  // namespace user

#endif  // USER_PROJECT_TORN_REGISTER_H_
