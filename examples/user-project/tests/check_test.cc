// linfault's GoogleTest check on the project's own objects.

#include <linfault/gtest.h>

#include <iostream>

namespace {

linfault::testing::Options budget() {
  linfault::testing::Options options;
  options.histories = 2000;  // at most
  options.seconds = 60;      // and at most this long
  options.threads = 2;
  options.ops = 3;
  return options;
}

// The buggy queue: the check must fail, and its failure message is the minimized test case.
TEST(RingQueue, CheckFindsTheUnlockedEmptyCheck) {
  const ::testing::AssertionResult verdict =
      linfault::testing::Linearizable("ring_queue", budget());
  ASSERT_FALSE(verdict) << "the known bug of ring_queue was not found";
  std::cout << verdict.message() << "\n";

  // The same campaign through <linfault/check.h>, to look at the test case itself.
  const linfault::CheckResult result =
      linfault::check("ring_queue", linfault::testing::options_for_current_test(budget()));
  ASSERT_TRUE(result.violation);
  EXPECT_LE(result.concurrent_operations(), 3u) << result.report;
  EXPECT_FALSE(result.testcase_path.empty());
  EXPECT_FALSE(result.repro_path.empty());
}

TEST(CasCounter, IsLinearizable) {
  EXPECT_TRUE(linfault::testing::Linearizable("cas_counter", budget()));
}

}  // namespace
