#include "reentrant_counter.h"

namespace unmodified {

namespace {
// How deep the calling thread holds a ReentrantSpinLock (one lock per thread at a time here).
thread_local int held_depth = 0;
}  // namespace

void ReentrantSpinLock::lock() noexcept {
  const std::thread::id me = std::this_thread::get_id();
  if (held_depth > 0 && owner_.load(std::memory_order_relaxed) == me) {
    ++held_depth;
    return;
  }
  std::thread::id free = std::thread::id();
  while (!owner_.compare_exchange_weak(free, me, std::memory_order_acquire,
                                       std::memory_order_relaxed)) {
    free = std::thread::id();
    std::this_thread::yield();
  }
  held_depth = 1;
}

void ReentrantSpinLock::unlock() noexcept {
  if (--held_depth == 0) owner_.store(std::thread::id(), std::memory_order_release);
}

void ReentrantCounter::inc() {
  lock_.lock();
  lock_.lock();
  value_.store(value_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  lock_.unlock();
  lock_.unlock();
}

std::int64_t ReentrantCounter::get() {
  lock_.lock();
  const std::int64_t value = value_.load(std::memory_order_relaxed);
  lock_.unlock();
  return value;
}

}  // namespace unmodified
