// ConTest-style noise for native runs: randomized delays at the scheduling points of real
// threads, so that the windows a concurrency bug needs (a read, then a write that depends on it)
// stay open long enough for another thread to run inside them.
//
// A native thread normally runs with no ExecutionContext installed (dpct/shared.h): each access
// is one thread-local check and the plain std operation, which is also the whole cost when no
// noise is asked for. With noise, run_native (dpct/native.h) installs one NoiseInjector per
// concurrent thread. It is an *observer* context (ExecutionContext::observer()): shared.h tells
// it of every access before the access runs, and the access itself, locks and waits included,
// stays the native std one. Before an access the injector may delay the thread by one of:
//   - a yield (std::this_thread::yield),
//   - a spin of a random number of pause instructions,
//   - a short sleep (a few microseconds asked; the kernel's timer slack makes it tens).
//
// What is noisy comes from a NoisePlan, drawn from one 64-bit seed (the driver uses each
// history's seed), ConTest-like:
//   - each access site (file:line) is noisy or quiet for the whole run, by a hash of the site
//     and the seed, so different runs stress different places;
//   - at a noisy site a delay is injected with a per-run probability, higher at a write-like
//     access (store, exchange, CAS, read-modify-write, lock) that follows a load of the same
//     thread: that is the read-then-write window most atomicity violations need;
//   - a delay in such a window is a sleep; elsewhere which delay is drawn from per-run weights,
//     and how long from per-run bounds.
// The plan and every decision of a thread (given the accesses it makes) are deterministic per
// seed; the interleaving of real threads is not, so a native run still cannot be replayed.
//
// Thread-safety: NoisePlan is a value; a NoiseInjector belongs to one thread (its counts are
// read by the creator after the thread ended).
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_DPCT_NOISE_H_
#define LINFAULT_DPCT_NOISE_H_

#include <cstdint>
#include <string>

#include "dpct/rng.h"
#include "dpct/shared.h"

namespace linfault::dpct {

enum class DelayKind : std::uint8_t { kNone, kYield, kSpin, kSleep };
const char* delay_kind_name(DelayKind kind);  // "none", "yield", "spin", "sleep"

// One decision of an injector: what to do before the access, and for how long (pause
// instructions for a spin, microseconds for a sleep, 0 otherwise).
struct Delay {
  DelayKind kind = DelayKind::kNone;
  std::uint32_t amount = 0;
  bool operator==(const Delay&) const = default;
};

// The per-run noise settings, a pure function of the seed (draw_noise_plan).
struct NoisePlan {
  std::uint64_t seed = 0;
  double site_fraction = 1;       // share of access sites that are noisy
  double probability = 0;         // delay probability at a noisy site
  double window_probability = 0;  // ... at a write-like access right after a load
  double yield_weight = 1;        // relative weights of the three delays
  double spin_weight = 0;
  double sleep_weight = 0;
  std::uint32_t max_spin = 0;      // pause instructions, drawn in 1..max_spin
  std::uint32_t max_sleep_us = 0;  // microseconds asked, drawn in 1..max_sleep_us
  bool operator==(const NoisePlan&) const = default;

  // Whether the site file:line is noisy in this plan (hash of the site text and the seed).
  bool noisy_site(const SourceLocation& where) const;
  // "p=0.02 window=0.3 sites=50% yield/spin/sleep=1/2/1 spin<=2000 sleep<=20us".
  std::string describe() const;
};

NoisePlan draw_noise_plan(std::uint64_t seed);

// What the injectors of a run did, summed over its threads.
struct NoiseCounts {
  std::uint64_t accesses = 0;  // accesses seen
  std::uint64_t yields = 0;
  std::uint64_t spins = 0;
  std::uint64_t sleeps = 0;
  std::uint64_t delays() const { return yields + spins + sleeps; }
  NoiseCounts& operator+=(const NoiseCounts& other);
};

// The observer context of one native thread (see the header comment). `thread` salts the
// thread's random stream so that two threads of a run do not delay in lockstep.
class NoiseInjector final : public ExecutionContext {
 public:
  NoiseInjector(const NoisePlan& plan, std::uint64_t thread);

  // Draws the delay before `access` and updates the thread's state (the read-then-write window),
  // without delaying: before_access is decide() followed by the delay.
  Delay decide(const Access& access);
  void before_access(const Access& access) override;

  const NoiseCounts& counts() const { return counts_; }

  // Never called: an observer's thread locks natively (shared.h checks observer()).
  void lock(const void* mutex, bool& held, const SourceLocation& where) override;
  bool try_lock(const void* mutex, bool& held, const SourceLocation& where) override;
  void unlock(const void* mutex, bool& held, const SourceLocation& where) override;

 private:
  const NoisePlan plan_;
  SplitMix64 rng_;
  bool after_load_ = false;
  NoiseCounts counts_;
};

// Performs `delay` on the calling thread.
void perform_delay(const Delay& delay);

}  // namespace linfault::dpct

#endif  // LINFAULT_DPCT_NOISE_H_
