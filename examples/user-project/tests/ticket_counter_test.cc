// The ticket counters (src/ticket_counter.h) have no written model: their targets say
// t.model = "serial", so the GoogleTest check compares every concurrent run with the counter's
// own serial runs. The correct counter passes; the racy add_and_get is caught with two calls.

#include <linfault/check.h>
#include <linfault/gtest.h>

#include <string>

namespace {

linfault::testing::Options budget() {
  linfault::testing::Options options;
  options.histories = 2000;
  options.seconds = 60;
  options.threads = 2;
  options.ops = 3;
  return options;
}

TEST(TicketCounter, IsLinearizableWithRespectToItsSerialRuns) {
  EXPECT_TRUE(linfault::testing::Linearizable("ticket_counter", budget()));
}

TEST(TicketCounterBuggy, TwoCallsReturningOneTotalAreCaught) {
  const linfault::CheckResult result = linfault::check(
      "ticket_counter_buggy", linfault::testing::options_for_current_test(budget()));
  ASSERT_TRUE(result.violation) << "the racy add_and_get was not found";
  // add_and_get(a) || add_and_get(b), both returning a + b.
  EXPECT_EQ(result.concurrent_operations(), 2u) << result.report;
  EXPECT_NE(result.report.find("add_and_get"), std::string::npos) << result.report;
}

}  // namespace
