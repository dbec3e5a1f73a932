// linfault's GoogleTest check on the libraries' containers, as installed: each correct one
// passes, and the wrapper's own bug (boost_stack_buggy) is found.

#include <linfault/gtest.h>

#include <string>

namespace {

linfault::testing::Options budget() {
  linfault::testing::Options options;
  options.histories = 2000;  // at most
  options.seconds = 60;      // and at most this long
  options.threads = 2;
  options.ops = 3;
  return options;
}

class CorrectContainer : public ::testing::TestWithParam<std::string> {};

TEST_P(CorrectContainer, IsLinearizable) {
  EXPECT_TRUE(linfault::testing::Linearizable(GetParam(), budget()));
}

INSTANTIATE_TEST_SUITE_P(Libraries, CorrectContainer,
                         ::testing::Values("boost_queue", "boost_stack", "boost_spsc_queue",
                                           "reader_writer_queue", "moodycamel_queue",
                                           "tbb_queue"));

TEST(BoostStackBuggy, CheckFindsTheWrappersPeek) {
  const ::testing::AssertionResult verdict =
      linfault::testing::Linearizable("boost_stack_buggy", budget());
  EXPECT_FALSE(verdict) << "the wrapper's non-atomic peek() was not found";
}

}  // namespace
