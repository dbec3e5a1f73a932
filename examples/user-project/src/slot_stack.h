// SlotStack: an array stack of at most 256 values whose push claims a slot with a fetch_add on
// the top index and only then writes its value into the slot. Written before linfault's portfolio
// got its opening of random walks, to measure it on code it was not shaped on
// (bench/schedulers/README.md, "third held-out set").
//
// The bug: a pop that runs between a push's claim and its write takes the claimed slot and finds
// it empty (0, a value nobody pushed); a push that claims the slot of a pop that has moved the top
// down but not yet emptied the slot has its value taken by that pop, and the popped value is lost.
// The fix is a flag per slot that the pop waits for, or a lock. Pushing onto a full stack is
// outside the contract: it aborts the program (a claim past the array could not be taken back
// safely).
//
// Thread-safety: every method may be called concurrently (the claim under test).

#ifndef USER_PROJECT_SLOT_STACK_H_
#define USER_PROJECT_SLOT_STACK_H_

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include <linfault/target.h>

namespace user {

class SlotStack {
 public:
  // Values must be non-zero: an empty slot holds 0.
  void push(std::int64_t value) {
    const std::int64_t slot = top_.fetch_add(1);
    if (slot >= kCapacity) {
      std::fputs("SlotStack: push onto a full stack\n", stderr);
      std::abort();
    }
    slots_[static_cast<std::size_t>(slot)].store(value);  // the bug: the slot is already visible
  }
  std::optional<std::int64_t> pop() {
    std::int64_t top = top_.load();
    while (top > 0 && !top_.compare_exchange_strong(top, top - 1)) {
    }
    if (top == 0) return std::nullopt;
    return slots_[static_cast<std::size_t>(top - 1)].exchange(0);
  }

 private:
  static constexpr std::int64_t kCapacity = 256;
  std::array<linfault::Atomic<std::int64_t>, kCapacity> slots_{};
  linfault::Atomic<std::int64_t> top_{0};
};

}  // namespace user

#endif  // USER_PROJECT_SLOT_STACK_H_
