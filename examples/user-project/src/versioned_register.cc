#include "versioned_register.h"

#include <stdexcept>

#include "words.h"

namespace user {

VersionedRegister::VersionedRegister(unsigned version_bits)
    : mask_(version_bits >= 32 ? 0xffff'ffffu : (1u << version_bits) - 1) {
  if (version_bits < 2 || version_bits > 32) {
    throw std::invalid_argument("VersionedRegister: version_bits must be in 2..32");
  }
}

void VersionedRegister::write(std::int64_t value) {
  linfault::LockGuard guard(writer_lock_);
  const std::uint32_t version = version_.load();
  version_.store(next_version(version, 1));
  high_.store(high_word(value));
  low_.store(low_word(value));
  version_.store(next_version(version, 2));
}

std::int64_t VersionedRegister::read() const {
  for (;;) {
    const std::uint32_t before = version_.load();
    if ((before & 1) == 0) {
      const std::uint32_t high = high_.load();
      const std::uint32_t low = low_.load();
      if (version_.load() == before) return from_words(high, low);
    }
    linfault::spin_hint();  // a write is under way: wait for it
  }
}

}  // namespace user
