// Correct objects that spin-wait: each blocks by looping on a shared word with dpct::spin_hint
// until another thread changes it. Controls for fair scheduling (dpct/exhaustive.h): exhaustive
// search and `linfault verify` must find no violation and no livelock on them.
//
//   TicketLockCounter (target ticket_lock_counter, model counter): inc() and get() under a ticket
//     lock: draw a ticket with fetch_add, spin until it is served, release by serving the next.
//   SeqlockRegister (target seqlock_register, model register): the value lives in two words; a
//     writer makes the sequence odd (a CAS from even, spinning while another writer holds it),
//     stores both words and makes it even again; a reader retries while the sequence is odd or
//     changed under it, so it never returns half of one write and half of another.
//
// Thread-safety: any number of threads may call any method concurrently.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_TARGETS_SPIN_WAITING_H_
#define LINFAULT_TARGETS_SPIN_WAITING_H_

#include <cstdint>
#include <optional>

#include "dpct/shared.h"

namespace linfault::targets {

class TicketLockCounter {
 public:
  void inc();
  std::int64_t get();

 private:
  void lock();
  void unlock();

  dpct::Atomic<std::uint64_t> next_ticket_{0};
  dpct::Atomic<std::uint64_t> now_serving_{0};
  dpct::Atomic<std::int64_t> value_{0};
};

class SeqlockRegister {
 public:
  void write(std::int64_t value);
  std::optional<std::int64_t> read();  // nullopt before the first write

 private:
  // A value v is stored split in two words, v / 4 and v % 4, so that most values use both and a
  // torn read would show a value never written. A sequence of 0 means "never written".
  static constexpr std::int64_t kLowBase = 4;

  dpct::Atomic<std::uint64_t> sequence_{0};
  dpct::Atomic<std::int64_t> high_{0};
  dpct::Atomic<std::int64_t> low_{0};
};

}  // namespace linfault::targets

#endif  // LINFAULT_TARGETS_SPIN_WAITING_H_
