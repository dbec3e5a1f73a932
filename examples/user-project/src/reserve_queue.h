// ReserveQueue: a lock-free FIFO queue over an array. An enqueuer reserves the next slot with a
// fetch_add on the tail and then stores its value there; a dequeuer claims the slot at the head
// with a compare-and-swap and reads it.
//
// The bug (a missed update): a slot is claimable as soon as it is reserved, not once it is
// filled. A dequeuer that claims a slot between an enqueuer's reservation and its store reads the
// slot's initial 0, a value never enqueued, and the enqueued value is lost. One preemption of the
// enqueuer exposes it. (Vyukov's bounded queue avoids it with a sequence number per slot.)
//
// Thread-safety: enq() and deq() may be called concurrently (the claim under test). The array is
// not a ring: at most kCapacity values may be enqueued over the life of an object.

#ifndef USER_PROJECT_RESERVE_QUEUE_H_
#define USER_PROJECT_RESERVE_QUEUE_H_

#include <array>
#include <cstdint>
#include <optional>

#include <linfault/target.h>

namespace user {

class ReserveQueue {
 public:
  static constexpr std::int64_t kCapacity = 256;

  void enq(std::int64_t value);
  std::optional<std::int64_t> deq();  // std::nullopt when empty

 private:
  linfault::Atomic<std::int64_t> head_{0};  // next slot to claim
  linfault::Atomic<std::int64_t> tail_{0};  // next slot to reserve
  std::array<linfault::Atomic<std::int64_t>, kCapacity> slots_{};
};

}  // namespace user

#endif  // USER_PROJECT_RESERVE_QUEUE_H_
