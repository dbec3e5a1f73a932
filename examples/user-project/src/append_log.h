// AppendLog: an append-only log of at most 1024 values that readers poll for its newest entry, as
// event logs and write-ahead buffers are read. append(v) adds v; read_last() returns the newest
// value (nil while the log is empty); size() counts the values. Written before linfault's mixed
// shapes pitted whole threads of readers against threads of writers (the fourth held-out set,
// bench/schedulers/README.md).
//
// AppendLog reserves a slot, writes it, then publishes it in slot order: readers see only
// published slots (correct). RacyAppendLog lets readers trust the reservation counter (buggy): a
// read_last between an append's reservation and its write returns the empty slot's marker, a
// value nobody appended. Appending to a full log is outside the contract: it aborts the program.
//
// Thread-safety: every method may be called concurrently (the claim under test).

#ifndef USER_PROJECT_APPEND_LOG_H_
#define USER_PROJECT_APPEND_LOG_H_

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>

#include <linfault/target.h>

namespace user {

namespace append_log_detail {

inline constexpr std::int64_t kCapacity = 1024;
// What a slot holds before its value is written.
inline constexpr std::int64_t kUnwritten = std::numeric_limits<std::int64_t>::min();

inline std::size_t claimed(std::int64_t slot) {
  if (slot >= kCapacity) {
    std::fputs("AppendLog: append to a full log\n", stderr);
    std::abort();
  }
  return static_cast<std::size_t>(slot);
}

}  // namespace append_log_detail

class AppendLog {
 public:
  AppendLog() {
    for (auto& slot : slots_) slot.store(append_log_detail::kUnwritten);
  }
  void append(std::int64_t value) {
    const std::int64_t slot = reserved_.fetch_add(1);
    slots_[append_log_detail::claimed(slot)].store(value);
    while (published_.load() != slot) linfault::spin_hint();  // earlier slots publish first
    published_.store(slot + 1);
  }
  std::optional<std::int64_t> read_last() {
    const std::int64_t count = published_.load();
    if (count == 0) return std::nullopt;
    return slots_[static_cast<std::size_t>(count - 1)].load();
  }
  std::int64_t size() { return published_.load(); }

 private:
  std::array<linfault::Atomic<std::int64_t>, append_log_detail::kCapacity> slots_;
  linfault::Atomic<std::int64_t> reserved_{0};
  linfault::Atomic<std::int64_t> published_{0};
};

class RacyAppendLog {
 public:
  RacyAppendLog() {
    for (auto& slot : slots_) slot.store(append_log_detail::kUnwritten);
  }
  void append(std::int64_t value) {
    const std::int64_t slot = next_.fetch_add(1);  // the bug: readers count this slot already
    slots_[append_log_detail::claimed(slot)].store(value);
  }
  std::optional<std::int64_t> read_last() {
    const std::int64_t count = next_.load();
    if (count == 0) return std::nullopt;
    return slots_[static_cast<std::size_t>(count - 1)].load();
  }
  std::int64_t size() { return next_.load(); }

 private:
  std::array<linfault::Atomic<std::int64_t>, append_log_detail::kCapacity> slots_;
  linfault::Atomic<std::int64_t> next_{0};
};

}  // namespace user

#endif  // USER_PROJECT_APPEND_LOG_H_
