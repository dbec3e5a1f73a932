// FlaggedRegister: a 64-bit register in two 32-bit words with a "write in progress" flag.
// Writers take a mutex, raise the flag, store both words and lower it. Readers wait while the
// flag is up, then load high, low and high again, and start over when the two highs differ (the
// high-low-high idiom for 64-bit timers on 32-bit machines): a write that lands between a
// reader's loads is caught.
//
// The bug: a reader looks at the flag only before its loads, never after (a seqlock without its
// re-check), and high-low-high only catches a high word that changes while it reads. A reader
// that saw the flag down, was stopped, and resumed after a writer had stored its high word but
// not yet its low word returns a value nobody wrote. It takes two preemptions, one in each
// thread: the reader between its flag check and its loads, the writer between its two stores.
//
// Thread-safety: read() and write() may be called concurrently (the claim under test).

#ifndef USER_PROJECT_FLAGGED_REGISTER_H_
#define USER_PROJECT_FLAGGED_REGISTER_H_

#include <cstdint>

#include <linfault/target.h>

namespace user {

class FlaggedRegister {
 public:
  void write(std::int64_t value);
  std::int64_t read() const;

 private:
  linfault::Mutex writer_lock_;
  linfault::Atomic<bool> writing_{false};
  linfault::Atomic<std::uint32_t> high_{0};
  linfault::Atomic<std::uint32_t> low_{0};
};

}  // namespace user

#endif  // USER_PROJECT_FLAGGED_REGISTER_H_
