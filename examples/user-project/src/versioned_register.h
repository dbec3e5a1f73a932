// VersionedRegister: a 64-bit register in two 32-bit words behind a seqlock. Writers take a
// mutex and make the version odd while they store the two words; a reader retries until it read
// the same even version before and after the words.
//
// The version is kept in `version_bits` bits (the rest of the word was meant for flags). Each
// write advances it by 2, so after 2^(version_bits-1) writes it is back where it was. With 3 bits
// that is 4 writes: a reader that loaded the high word, was preempted while another thread
// completed 4 writes, then loaded the low word, sees the same version and returns a torn value.
// Only a thread of readers against writers finds it (the split shapes of linfault's default
// --shapes mixed): one read against four writes (1 || 4), with the reader stopped between its
// two loads. With 32 bits it would take 2^31 writes inside one read: correct in
// practice (the control).
//
// Thread-safety: read() and write() may be called concurrently from any number of threads.

#ifndef USER_PROJECT_VERSIONED_REGISTER_H_
#define USER_PROJECT_VERSIONED_REGISTER_H_

#include <cstdint>

#include <linfault/target.h>

namespace user {

class VersionedRegister {
 public:
  // 2 <= version_bits <= 32.
  explicit VersionedRegister(unsigned version_bits);

  void write(std::int64_t value);
  std::int64_t read() const;

 private:
  std::uint32_t next_version(std::uint32_t version, std::uint32_t step) const {
    return (version + step) & mask_;
  }

  const std::uint32_t mask_;
  linfault::Mutex writer_lock_;
  linfault::Atomic<std::uint32_t> version_{0};  // odd while a write is under way
  linfault::Atomic<std::uint32_t> high_{0};
  linfault::Atomic<std::uint32_t> low_{0};
};

}  // namespace user

#endif  // USER_PROJECT_VERSIONED_REGISTER_H_
