// linfault's GoogleTest check on the unmodified std::atomic classes.

#include <linfault/gtest.h>

#include <iostream>

namespace {

linfault::testing::Options budget() {
  linfault::testing::Options options;
  options.histories = 3000;
  options.seconds = 60;
  return options;
}

TEST(LockFreeStack, CheckFindsTheStaleNextInPush) {
  const linfault::CheckResult result =
      linfault::check("lockfree_stack", linfault::testing::options_for_current_test(budget()));
  ASSERT_TRUE(result.violation) << result.report;
  EXPECT_LE(result.concurrent_operations(), 3u) << result.report;
  // The interleaving names the lines of the unmodified source.
  EXPECT_NE(result.report.find("lockfree_stack.cc:"), std::string::npos) << result.report;
  std::cout << result.report << "\n";
}

TEST(MsQueue, IsLinearizable) {
  EXPECT_TRUE(linfault::testing::Linearizable("msq_std", budget()));
}

}  // namespace
