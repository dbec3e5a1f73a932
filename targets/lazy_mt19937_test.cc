#include "targets/lazy_mt19937.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>

namespace linfault::targets {
namespace {

// Three rounds of the state (312 words each) from many seeds, including the edge values.
TEST(LazyMt19937, DrawsExactlyStdMt19937_64) {
  for (std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{5489},
                             ~std::uint64_t{0}, std::uint64_t{1} << 63}) {
    std::mt19937_64 reference(seed);
    LazyMt19937_64 lazy(seed);
    for (int i = 0; i < 3 * 312 + 7; ++i) ASSERT_EQ(lazy(), reference()) << seed << " " << i;
  }
  for (std::uint64_t seed = 100; seed < 1100; ++seed) {
    std::mt19937_64 reference(seed);
    LazyMt19937_64 lazy(seed);
    for (int i = 0; i < 40; ++i) ASSERT_EQ(lazy(), reference()) << seed << " " << i;
  }
}

TEST(LazyMt19937, GivesStdDistributionsTheSameNumbers) {
  for (std::uint64_t seed = 1; seed < 200; ++seed) {
    std::mt19937_64 reference(seed);
    LazyMt19937_64 lazy(seed);
    for (int i = 0; i < 30; ++i) {
      std::uniform_int_distribution<std::int64_t> range(-3, 1000 + i);
      ASSERT_EQ(range(lazy), range(reference)) << seed << " " << i;
    }
  }
}

}  // namespace
}  // namespace linfault::targets
