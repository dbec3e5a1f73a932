// Mailbox: a one-message box. put(v) leaves v if the box is empty and says whether it did; take()
// empties the box and returns its message, or 0 if it was empty; full() says whether a message
// waits. Messages are non-zero. Written after linfault's split shapes gave their reading thread
// writes as well (the fifth held-out set); no scheduler or shape was chosen on it.
//
// CasMailbox fills the box with a compare-exchange and empties it with an exchange (correct).
// RacyMailbox loads, then stores, in both (buggy): two puts into an empty box both succeed and
// one message is lost, or two takes both return the same message.
//
// Thread-safety: every method may be called concurrently (the claim under test).

#ifndef USER_PROJECT_MAILBOX_H_
#define USER_PROJECT_MAILBOX_H_

#include <cstdint>

#include <linfault/target.h>

namespace user {

class CasMailbox {
 public:
  bool put(std::int64_t v) {
    std::int64_t empty = 0;
    return slot_.compare_exchange_strong(empty, v);
  }
  std::int64_t take() { return slot_.exchange(0); }
  bool full() const { return slot_.load() != 0; }

 private:
  linfault::Atomic<std::int64_t> slot_{0};
};

class RacyMailbox {
 public:
  bool put(std::int64_t v) {
    if (slot_.load() != 0) return false;
    slot_.store(v);  // the bug: another put may have filled the box since the load
    return true;
  }
  std::int64_t take() {
    const std::int64_t message = slot_.load();
    if (message != 0) slot_.store(0);  // the bug: another take may have the same message
    return message;
  }
  bool full() const { return slot_.load() != 0; }

 private:
  linfault::Atomic<std::int64_t> slot_{0};
};

}  // namespace user

#endif  // USER_PROJECT_MAILBOX_H_
