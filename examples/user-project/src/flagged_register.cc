#include "flagged_register.h"

#include "words.h"

namespace user {

void FlaggedRegister::write(std::int64_t value) {
  linfault::LockGuard guard(writer_lock_);
  writing_.store(true);
  high_.store(high_word(value));
  low_.store(low_word(value));
  writing_.store(false);
}

std::int64_t FlaggedRegister::read() const {
  for (;;) {
    while (writing_.load()) linfault::spin_hint();  // a write is under way: wait for it
    const std::uint32_t high = high_.load();
    const std::uint32_t low = low_.load();
    if (high_.load() == high) return from_words(high, low);
    linfault::spin_hint();  // a write completed between the loads: read again
  }
}

}  // namespace user
