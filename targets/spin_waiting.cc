#include "targets/spin_waiting.h"

namespace linfault::targets {

void TicketLockCounter::lock() {
  const std::uint64_t ticket = next_ticket_.fetch_add(1);
  while (now_serving_.load() != ticket) dpct::spin_hint();
}

void TicketLockCounter::unlock() { now_serving_.store(now_serving_.load() + 1); }

void TicketLockCounter::inc() {
  lock();
  value_.store(value_.load() + 1);
  unlock();
}

std::int64_t TicketLockCounter::get() {
  lock();
  const std::int64_t value = value_.load();
  unlock();
  return value;
}

void SeqlockRegister::write(std::int64_t value) {
  std::uint64_t sequence = sequence_.load();
  while ((sequence & 1) != 0 || !sequence_.compare_exchange_strong(sequence, sequence + 1)) {
    dpct::spin_hint();
    sequence = sequence_.load();
  }
  high_.store(value / kLowBase);
  low_.store(value % kLowBase);
  sequence_.store(sequence + 2);
}

std::optional<std::int64_t> SeqlockRegister::read() {
  while (true) {
    const std::uint64_t before = sequence_.load();
    if ((before & 1) == 0) {
      const std::int64_t high = high_.load();
      const std::int64_t low = low_.load();
      if (sequence_.load() == before) {
        if (before == 0) return std::nullopt;
        return high * kLowBase + low;
      }
    }
    dpct::spin_hint();
  }
}

}  // namespace linfault::targets
