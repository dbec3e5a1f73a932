#include "torn_register.h"

#include "words.h"

namespace user {

void TornRegister::write(std::int64_t value) {
  high_.store(high_word(value));
  low_.store(low_word(value));
}

std::int64_t TornRegister::read() const { return from_words(high_.load(), low_.load()); }

}  // namespace user
