#include "ttas_counter.h"

#include <mutex>
#include <thread>

namespace unmodified {

void TtasSpinLock::lock() noexcept {
  while (true) {
    while (locked_.load(std::memory_order_relaxed)) std::this_thread::yield();
    if (split_test_and_set_) {
      locked_.store(true, std::memory_order_relaxed);
      return;
    }
    if (!locked_.exchange(true, std::memory_order_acquire)) return;
  }
}

void TtasSpinLock::unlock() noexcept { locked_.store(false, std::memory_order_release); }

void TtasCounter::inc() {
  std::lock_guard<TtasSpinLock> guard(lock_);
  value_.store(value_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

void TtasCounter::dec() {
  std::lock_guard<TtasSpinLock> guard(lock_);
  value_.store(value_.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
}

std::int64_t TtasCounter::get() const { return value_.load(std::memory_order_acquire); }

}  // namespace unmodified
