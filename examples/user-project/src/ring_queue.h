// RingQueue: a bounded FIFO queue over a ring of slots, guarded by a mutex -- with a fast path
// that answers "empty" without taking the lock.
//
// The fast path is the bug: deq() compares head and tail before it locks, so two dequeuers can
// both see one element, both go on, and the second reads a slot nobody wrote (0) and moves head
// past tail. The fix is to check for emptiness under the lock (RING_QUEUE_FIXED).
//
// Thread-safety: enq() and deq() may be called concurrently from any number of threads (that is
// the claim under test). At most kCapacity elements may be queued at once.

#ifndef USER_PROJECT_RING_QUEUE_H_
#define USER_PROJECT_RING_QUEUE_H_

#include <array>
#include <cstdint>
#include <optional>

#include <linfault/target.h>

namespace user {

class RingQueue {
 public:
  static constexpr std::int64_t kCapacity = 64;

  void enq(std::int64_t value);
  std::optional<std::int64_t> deq();  // std::nullopt when empty

 private:
  linfault::Mutex lock_;
  linfault::Atomic<std::int64_t> head_{0};  // next slot to read
  linfault::Atomic<std::int64_t> tail_{0};  // next slot to write
  std::array<linfault::Var<std::int64_t>, kCapacity> slots_;
};

}  // namespace user

#endif  // USER_PROJECT_RING_QUEUE_H_
