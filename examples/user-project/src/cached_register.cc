#include "cached_register.h"

namespace user {

void CachedRegister::write(std::int64_t value) {
  value_.store(value);
  cache_valid_.store(false);
}

std::int64_t CachedRegister::read() {
  if (cache_valid_.load()) return cached_.load();
  const std::int64_t value = value_.load();
  cached_.store(value);
  cache_valid_.store(true);
  return value;
}

}  // namespace user
