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

// The correct halves of the other pairs; their buggy halves are checked by
// scripts/check-unmodified.sh (`run` of each exits 1).
TEST(SeqlockRegister, IsLinearizable) {
  EXPECT_TRUE(linfault::testing::Linearizable("seqlock_std", budget()));
}

TEST(VyukovQueue, IsLinearizable) {
  EXPECT_TRUE(linfault::testing::Linearizable("vyukov_queue", budget()));
}

TEST(FutexQueue, IsLinearizable) {
  EXPECT_TRUE(linfault::testing::Linearizable("futex_queue", budget()));
}

TEST(TtasCounter, IsLinearizable) {
  EXPECT_TRUE(linfault::testing::Linearizable("ttas_counter", budget()));
}

TEST(TreiberStack, IsLinearizable) {
  EXPECT_TRUE(linfault::testing::Linearizable("treiber_std", budget()));
}

}  // namespace
