// TicketCounter: a counter whose add_and_get(n) adds n and returns the new total, the way ticket
// and sequence-number dispensers are written. No sequential model is written for it: the targets
// ticket_counter and ticket_counter_buggy are registered with t.model = "serial", so the
// counter's own serial runs are its specification (linfault's docs/serial-spec.md).
//
// TicketCounter::add_and_get is one fetch_add (correct). RacyTicketCounter::add_and_get does the
// fetch_add and then loads the total again (buggy): another thread's add between the two makes
// both calls return the same total, which no serial order gives.
//
// Thread-safety: every method may be called concurrently (the claim under test).

#ifndef USER_PROJECT_TICKET_COUNTER_H_
#define USER_PROJECT_TICKET_COUNTER_H_

#include <cstdint>

#include <linfault/target.h>

namespace user {

class TicketCounter {
 public:
  std::int64_t add_and_get(std::int64_t amount) { return value_.fetch_add(amount) + amount; }
  std::int64_t get() const { return value_.load(); }

 private:
  linfault::Atomic<std::int64_t> value_{0};
};

class RacyTicketCounter {
 public:
  std::int64_t add_and_get(std::int64_t amount) {
    value_.fetch_add(amount);
    return value_.load();  // the bug: reads the total again, after other threads' adds
  }
  std::int64_t get() const { return value_.load(); }

 private:
  linfault::Atomic<std::int64_t> value_{0};
};

}  // namespace user

#endif  // USER_PROJECT_TICKET_COUNTER_H_
