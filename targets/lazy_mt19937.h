// LazyMt19937_64: exactly std::mt19937_64's output sequence, for the cost of the numbers drawn.
//
// Seeding std::mt19937_64 fills 312 words and its first draw twists all of them: about a
// microsecond, a large share of a whole 2 x 5 detection history, of which a workload draws some
// twenty numbers. This engine fills and twists the state one word at a time, as far as the draws
// so far need (output k of the first round needs state words k, k + 1 and k + 156), and runs the
// standard whole-state twist from the second round on. Every seed gives the same numbers as
// std::mt19937_64 (lazy_mt19937_test.cc checks it across rounds), so the workloads drawn with it
// are the ones drawn before, and saved seeds keep their meaning.
//
// A UniformRandomBitGenerator (std::uniform_int_distribution accepts it).
//
// Thread-safety: a value type; one engine per thread.
//
// Internal header: not part of linfault's public API (include/linfault/); it may change between
// versions.

#ifndef LINFAULT_TARGETS_LAZY_MT19937_H_
#define LINFAULT_TARGETS_LAZY_MT19937_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace linfault::targets {

class LazyMt19937_64 {
 public:
  using result_type = std::uint64_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }

  explicit LazyMt19937_64(result_type seed) {
    state_[0] = seed;
    seeded_ = 1;
  }

  result_type operator()() {
    if (next_ == kN) {
      twist_whole_state();
      next_ = 0;
      first_round_ = false;
    } else if (first_round_) {
      twist_word_of_first_round(next_);
    }
    return temper(state_[next_++]);
  }

 private:
  static constexpr std::size_t kN = 312;
  static constexpr std::size_t kM = 156;
  static constexpr result_type kMatrix = 0xb5026f5aa96619e9ULL;
  static constexpr result_type kUpper = ~result_type{0} << 31;
  static constexpr result_type kLower = ~kUpper;
  static constexpr result_type kInitMultiplier = 6364136223846793005ULL;

  static result_type temper(result_type z) {
    z ^= (z >> 29) & 0x5555555555555555ULL;
    z ^= (z << 17) & 0x71d67fffeda60000ULL;
    z ^= (z << 37) & 0xfff7eee000000000ULL;
    z ^= z >> 43;
    return z;
  }
  static result_type twisted(result_type word, result_type next, result_type far) {
    const result_type y = (word & kUpper) | (next & kLower);
    return far ^ (y >> 1) ^ ((y & 1) ? kMatrix : 0);
  }

  // Makes state words [0, end) hold their seeded values (or later ones).
  void seed_up_to(std::size_t end) {
    for (; seeded_ < end; ++seeded_) {
      const result_type previous = state_[seeded_ - 1];
      state_[seeded_] = kInitMultiplier * (previous ^ (previous >> 62)) + seeded_;
    }
  }

  // Word k of the first twist, in place and in order, as std::mt19937_64 does it: words below k
  // are already twisted, words above it not yet.
  void twist_word_of_first_round(std::size_t k) {
    if (k + 1 < kN) {
      seed_up_to(k + kM < kN ? k + kM + 1 : k + 2);
      state_[k] = twisted(state_[k], state_[k + 1], state_[(k + kM) % kN]);
    } else {
      state_[k] = twisted(state_[k], state_[0], state_[kM - 1]);
    }
  }

  void twist_whole_state() {
    for (std::size_t k = 0; k < kN; ++k) {
      state_[k] = twisted(state_[k], state_[(k + 1) % kN], state_[(k + kM) % kN]);
    }
  }

  std::array<result_type, kN> state_;
  std::size_t seeded_ = 0;
  std::size_t next_ = 0;
  bool first_round_ = true;
};

}  // namespace linfault::targets

#endif  // LINFAULT_TARGETS_LAZY_MT19937_H_
