#include "minimize/test_case.h"

#include <gtest/gtest.h>

namespace linfault::minimize {
namespace {

using history::Call;
using history::HistoryBuilder;
using history::Outcome;
using history::Value;

TEST(TestCaseTest, SplitsSequentialHeadConcurrentMiddleAndSequentialTail) {
  HistoryBuilder b;
  b.call(0, Call{"push", {Value(1)}}, Value());  // Ps
  b.call(0, Call{"push", {Value(2)}}, Value());  // Ps
  b.invoke(0, Call{"pop", {}});
  b.invoke(1, Call{"pop", {}});
  b.respond(1, Outcome::kOk, Value(2));
  b.respond(0, Outcome::kOk, Value(2));
  b.call(1, Call{"pop", {}}, Value(1));  // Pr
  const history::History h = std::move(b).build();

  const TestCase tc = test_case_from_history("stack", h, 2);
  ASSERT_EQ(tc.ps.size(), 2u);
  EXPECT_EQ(tc.ps[1].call.to_string(), "push(2)");
  ASSERT_EQ(tc.pc.size(), 2u);
  EXPECT_EQ(tc.pc[0].size(), 1u);
  EXPECT_TRUE(tc.pc[0][0].culprit);
  EXPECT_EQ(tc.pc[1][0].result, Value(2));
  ASSERT_EQ(tc.pr.size(), 1u);
  EXPECT_EQ(tc.pr[0].result, Value(1));
  EXPECT_EQ(tc.violation, "no linearization explains p0 pop() -> 2");

  const nlohmann::json j = test_case_to_json(tc);
  EXPECT_TRUE(j["target"].is_null());
  EXPECT_EQ(j["model"], "stack");
  EXPECT_EQ(j["pc"].size(), 2u);
  EXPECT_EQ(j["pc"][0][0]["culprit"], true);
  EXPECT_EQ(j["pr"][0]["result"], 1);
  EXPECT_EQ(j["history"]["operations"].size(), 5u);

  const std::string text = test_case_to_text(tc);
  EXPECT_NE(text.find("Ps: push(1); push(2)"), std::string::npos) << text;
  EXPECT_NE(text.find("cannot be explained"), std::string::npos) << text;
}

TEST(TestCaseTest, FullySequentialHistoryKeepsTheLastCallAsReveal) {
  HistoryBuilder b;
  b.call(0, Call{"write", {Value(1)}}, Value());
  b.call(0, Call{"write", {Value(2)}}, Value());
  b.call(1, Call{"read", {}}, Value(1));
  const TestCase tc = test_case_from_history("register", std::move(b).build(), 2);
  EXPECT_EQ(tc.ps.size(), 2u);
  EXPECT_TRUE(tc.pc.empty());
  ASSERT_EQ(tc.pr.size(), 1u);
  EXPECT_TRUE(tc.pr[0].culprit);
}

TEST(TestCaseTest, ConcurrentFromTheStartHasNoSetup) {
  HistoryBuilder b;
  b.invoke(0, Call{"write", {Value(1)}});
  b.invoke(1, Call{"read", {}});
  b.respond(0, Outcome::kOk, Value());
  b.respond(1, Outcome::kOk, Value(3));
  const TestCase tc = test_case_from_history("register", std::move(b).build(), 1);
  EXPECT_TRUE(tc.ps.empty());
  EXPECT_TRUE(tc.pr.empty());
  EXPECT_EQ(tc.pc.size(), 2u);
}

}  // namespace
}  // namespace linfault::minimize
