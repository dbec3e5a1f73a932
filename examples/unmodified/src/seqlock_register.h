// SeqlockRegister: a 64-bit register kept as two 32-bit words under a sequence lock, in plain
// std::atomic. A writer makes the sequence odd with a compare-and-swap (so writers exclude each
// other), stores both words and makes the sequence even again; a reader reads the sequence, both
// words and the sequence again, and retries while a write is in progress (odd, spinning with
// std::this_thread::yield()) or the sequence moved. A sequence of 0 means never written: read()
// then returns std::nullopt, the register model's initial nil.
//
// With `skip_recheck` (target seqlock_std_buggy) the reader does not read the sequence the
// second time: a write that runs between its two word loads goes unnoticed and it returns the new
// low word with the old high one (or the reverse), a value nobody wrote.
//
// Thread-safety: write() and read() may be called concurrently (the claim under test).

#ifndef UNMODIFIED_SEQLOCK_REGISTER_H_
#define UNMODIFIED_SEQLOCK_REGISTER_H_

#include <atomic>
#include <cstdint>
#include <optional>

namespace unmodified {

class SeqlockRegister {
 public:
  explicit SeqlockRegister(bool skip_recheck = false) : skip_recheck_(skip_recheck) {}
  SeqlockRegister(const SeqlockRegister&) = delete;
  SeqlockRegister& operator=(const SeqlockRegister&) = delete;

  void write(std::int64_t value);
  std::optional<std::int64_t> read();

 private:
  const bool skip_recheck_;
  std::atomic<std::uint64_t> sequence_{0};  // odd while a writer is between its stores
  std::atomic<std::uint32_t> low_{0};
  std::atomic<std::uint32_t> high_{0};
};

}  // namespace unmodified

#endif  // UNMODIFIED_SEQLOCK_REGISTER_H_
