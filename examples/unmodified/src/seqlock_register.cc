#include "seqlock_register.h"

#include <thread>

namespace unmodified {

void SeqlockRegister::write(std::int64_t value) {
  const auto bits = static_cast<std::uint64_t>(value);
  std::uint64_t sequence = sequence_.load(std::memory_order_relaxed);
  while (true) {
    if (sequence % 2 == 1) {  // another writer is in the middle of its stores
      std::this_thread::yield();
      sequence = sequence_.load(std::memory_order_relaxed);
      continue;
    }
    if (sequence_.compare_exchange_weak(sequence, sequence + 1, std::memory_order_acquire,
                                        std::memory_order_relaxed)) {
      break;
    }
  }
  // The odd sequence must be visible before either word changes.
  std::atomic_thread_fence(std::memory_order_release);
  low_.store(static_cast<std::uint32_t>(bits), std::memory_order_relaxed);
  high_.store(static_cast<std::uint32_t>(bits >> 32), std::memory_order_relaxed);
  sequence_.store(sequence + 2, std::memory_order_release);
}

std::optional<std::int64_t> SeqlockRegister::read() {
  while (true) {
    const std::uint64_t before = sequence_.load(std::memory_order_acquire);
    if (before % 2 == 1) {  // a write is in progress: wait until it is over
      std::this_thread::yield();
      continue;
    }
    if (before == 0) return std::nullopt;  // never written
    const std::uint32_t low = low_.load(std::memory_order_relaxed);
    const std::uint32_t high = high_.load(std::memory_order_relaxed);
    // The word loads must be done before the sequence is read again.
    std::atomic_thread_fence(std::memory_order_acquire);
    if (skip_recheck_ || sequence_.load(std::memory_order_relaxed) == before) {
      return static_cast<std::int64_t>((std::uint64_t{high} << 32) | low);
    }
  }
}

}  // namespace unmodified
