// Bank: two accounts that start at 100 each; transfer(amount) moves an amount from the first to
// the second under a lock, and total() reports their sum. Written after linfault's window
// scheduler and its current portfolio were designed (the second held-out set).
//
// LockedBank::total takes the lock (correct: always 200). RacyBank::total reads both balances
// without it (buggy): read between a transfer's debit and its credit, the sum misses the amount in
// flight, a total no serial order gives.
//
// Thread-safety: every method may be called concurrently (the claim under test).

#ifndef USER_PROJECT_BANK_H_
#define USER_PROJECT_BANK_H_

#include <cstdint>

#include <linfault/target.h>

namespace user {

template <bool kLockedTotal>
class Bank {
 public:
  void transfer(std::int64_t amount) {
    linfault::LockGuard guard(lock_);
    first_.store(first_.load() - amount);
    second_.store(second_.load() + amount);
  }
  std::int64_t total() {
    if constexpr (kLockedTotal) {
      linfault::LockGuard guard(lock_);
      return first_.load() + second_.load();
    } else {
      return first_.load() + second_.load();  // the bug: may see the debit and not the credit
    }
  }

 private:
  linfault::Mutex lock_;
  linfault::Atomic<std::int64_t> first_{100};
  linfault::Atomic<std::int64_t> second_{100};
};

using LockedBank = Bank<true>;
using RacyBank = Bank<false>;

}  // namespace user

#endif  // USER_PROJECT_BANK_H_
