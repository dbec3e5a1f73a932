#include "dpct/noise.h"

#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <thread>

namespace linfault::dpct {

namespace {

constexpr std::uint64_t kPlanSalt = 0x4015e5eedULL;
constexpr std::uint64_t kThreadSalt = 0x7e4dULL;
constexpr double kTwoToMinus53 = 0x1.0p-53;

// The per-run choices. Each run draws one entry of each list, so that over many runs the
// detector sees quieter and louder runs, half or all of the sites noisy, short and long delays.
// Measured on bench/table2 (README.md): a read-then-write window delayed with probability 0.9 or
// more, by a sleep, finds the most; yields and spins alone found far fewer races on the busy
// 2-core machine, so windows always sleep and the mixes (used elsewhere) lean on sleeps.
constexpr std::array kSiteFractions = {0.5, 1.0};
constexpr std::array kProbabilities = {0.02, 0.1};
constexpr std::array kWindowProbabilities = {0.9, 1.0};
struct DelayMix {
  double yield, spin, sleep;
};
constexpr std::array kDelayMixes = {DelayMix{0, 0, 1}, DelayMix{1, 0, 3}, DelayMix{0, 1, 3}};
constexpr std::array<std::uint32_t, 2> kMaxSpins = {1000, 10000};
constexpr std::array<std::uint32_t, 2> kMaxSleepsUs = {5, 20};

template <class T, std::size_t N>
T pick(SplitMix64& rng, const std::array<T, N>& options) {
  return options[rng.below(N)];
}

std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

bool is_write_like(AccessKind kind) {
  return modifies_memory(kind) || kind == AccessKind::kLock || kind == AccessKind::kTryLock;
}

void pause_once() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#else
  std::atomic_signal_fence(std::memory_order_seq_cst);
#endif
}

std::string percent(double fraction) {
  char text[16];
  std::snprintf(text, sizeof text, "%g%%", fraction * 100);
  return text;
}

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

}  // namespace

const char* delay_kind_name(DelayKind kind) {
  switch (kind) {
    case DelayKind::kNone:
      return "none";
    case DelayKind::kYield:
      return "yield";
    case DelayKind::kSpin:
      return "spin";
    case DelayKind::kSleep:
      return "sleep";
  }
  return "?";
}

bool NoisePlan::noisy_site(const SourceLocation& where) const {
  if (site_fraction >= 1) return true;
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a over the file name, then the line
  for (const char* c = where.file_name(); *c != '\0'; ++c) {
    h = (h ^ static_cast<unsigned char>(*c)) * 0x100000001b3ULL;
  }
  h = mix(h ^ (static_cast<std::uint64_t>(where.line()) << 32) ^ mix(seed));
  return static_cast<double>(h >> 11) * kTwoToMinus53 < site_fraction;
}

std::string NoisePlan::describe() const {
  return "p=" + number(probability) + " window=" + number(window_probability) +
         " sites=" + percent(site_fraction) + " yield/spin/sleep=" + number(yield_weight) + "/" +
         number(spin_weight) + "/" + number(sleep_weight) + " spin<=" + std::to_string(max_spin) +
         " sleep<=" + std::to_string(max_sleep_us) + "us";
}

NoisePlan draw_noise_plan(std::uint64_t seed) {
  SplitMix64 rng(mix(seed ^ kPlanSalt));
  NoisePlan plan;
  plan.seed = seed;
  plan.site_fraction = pick(rng, kSiteFractions);
  plan.probability = pick(rng, kProbabilities);
  plan.window_probability = pick(rng, kWindowProbabilities);
  const DelayMix delays = pick(rng, kDelayMixes);
  plan.yield_weight = delays.yield;
  plan.spin_weight = delays.spin;
  plan.sleep_weight = delays.sleep;
  plan.max_spin = pick(rng, kMaxSpins);
  plan.max_sleep_us = pick(rng, kMaxSleepsUs);
  return plan;
}

NoiseCounts& NoiseCounts::operator+=(const NoiseCounts& other) {
  accesses += other.accesses;
  yields += other.yields;
  spins += other.spins;
  sleeps += other.sleeps;
  return *this;
}

NoiseInjector::NoiseInjector(const NoisePlan& plan, std::uint64_t thread)
    : ExecutionContext(/*observer=*/true),
      plan_(plan),
      rng_(mix(plan.seed ^ mix(thread + kThreadSalt))) {}

Delay NoiseInjector::decide(const Access& access) {
  ++counts_.accesses;
  const bool in_window = after_load_ && is_write_like(access.kind);
  after_load_ = access.kind == AccessKind::kLoad;
  if (!in_window && !plan_.noisy_site(access.where)) return {};
  const double p = in_window ? plan_.window_probability : plan_.probability;
  if (rng_.unit() >= p) return {};
  // A window gets a sleep: the other thread needs real time inside it, which a yield or a spin
  // does not give when that thread is not running at the moment (README of bench/table2).
  DelayKind kind = DelayKind::kSleep;
  if (!in_window) {
    const double draw = rng_.unit() * (plan_.yield_weight + plan_.spin_weight + plan_.sleep_weight);
    if (draw < plan_.yield_weight) {
      kind = DelayKind::kYield;
    } else if (draw < plan_.yield_weight + plan_.spin_weight) {
      kind = DelayKind::kSpin;
    }
  }
  switch (kind) {
    case DelayKind::kYield:
      ++counts_.yields;
      return {DelayKind::kYield, 0};
    case DelayKind::kSpin:
      ++counts_.spins;
      return {DelayKind::kSpin, static_cast<std::uint32_t>(1 + rng_.below(plan_.max_spin))};
    default:
      ++counts_.sleeps;
      return {DelayKind::kSleep, static_cast<std::uint32_t>(1 + rng_.below(plan_.max_sleep_us))};
  }
}

void NoiseInjector::before_access(const Access& access) { perform_delay(decide(access)); }

void NoiseInjector::lock(const void*, bool&, const SourceLocation&) {
  throw std::logic_error("NoiseInjector::lock: an observer's thread locks natively");
}
bool NoiseInjector::try_lock(const void*, bool&, const SourceLocation&) {
  throw std::logic_error("NoiseInjector::try_lock: an observer's thread locks natively");
}
void NoiseInjector::unlock(const void*, bool&, const SourceLocation&) {
  throw std::logic_error("NoiseInjector::unlock: an observer's thread locks natively");
}

void perform_delay(const Delay& delay) {
  switch (delay.kind) {
    case DelayKind::kNone:
      return;
    case DelayKind::kYield:
      std::this_thread::yield();
      return;
    case DelayKind::kSpin:
      for (std::uint32_t i = 0; i < delay.amount; ++i) pause_once();
      return;
    case DelayKind::kSleep:
      std::this_thread::sleep_for(std::chrono::microseconds(delay.amount));
      return;
  }
}

}  // namespace linfault::dpct
