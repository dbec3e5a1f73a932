#include "cas_counter.h"

namespace user {

void CasCounter::add(std::int64_t amount) {
  std::int64_t seen = value_.load();
  while (!value_.compare_exchange(seen, seen + amount)) {
    // `seen` now holds the current value: retry from it.
  }
}

}  // namespace user
