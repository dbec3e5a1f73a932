// Splitting a 64-bit value into two 32-bit words and joining them again, for the registers that
// store their value in halves (TornRegister, VersionedRegister). Internal to the project.
//
// Thread-safety: pure functions.

#ifndef USER_PROJECT_WORDS_H_
#define USER_PROJECT_WORDS_H_

#include <cstdint>

namespace user {

inline std::uint32_t high_word(std::int64_t value) {
  return static_cast<std::uint32_t>(static_cast<std::uint64_t>(value) >> 32);
}

inline std::uint32_t low_word(std::int64_t value) {
  return static_cast<std::uint32_t>(static_cast<std::uint64_t>(value));
}

inline std::int64_t from_words(std::uint32_t high, std::uint32_t low) {
  return static_cast<std::int64_t>((static_cast<std::uint64_t>(high) << 32) | low);
}

}  // namespace user

#endif  // USER_PROJECT_WORDS_H_
