// SplitMix64: the schedulers' random source.
//
// std::mt19937_64 costs about a microsecond to seed, which is a fifth of a whole 2x5 execution;
// schedulers reseed once per execution, so they use this 64-bit generator (Steele, Lea & Flood,
// "Fast splittable pseudorandom number generators", OOPSLA 2014): one add and three xor-shift-
// multiplies per draw, full period 2^64, passes BigCrush.
//
// Thread-safety: a value type; one generator per thread.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_DPCT_RNG_H_
#define LINFAULT_DPCT_RNG_H_

#include <cstdint>

namespace linfault::dpct {

class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed = 0) : state_(seed) {}

  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, bound), bound > 0 (Lemire's multiply-shift; the bias is < bound / 2^64).
  std::uint64_t below(std::uint64_t bound) {
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(next()) * bound) >> 64);
  }
  // Uniform in [0, 1), with 53 random bits.
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  std::uint64_t state_;
};

}  // namespace linfault::dpct

#endif  // LINFAULT_DPCT_RNG_H_
