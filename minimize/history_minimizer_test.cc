#include "minimize/history_minimizer.h"

#include <gtest/gtest.h>

#include <random>

#include "detect/checker.h"

namespace linfault::minimize {
namespace {

using history::Call;
using history::HistoryBuilder;
using history::Outcome;
using history::Value;

std::vector<std::string> calls_of(const history::History& h) {
  std::vector<std::string> out;
  for (const history::Operation& op : h.operations()) out.push_back(op.to_string());
  return out;
}

// A stale read buried in noise: write(1); write(2); read -> 1, with other processes reading and
// writing values that are never read back.
TEST(HistoryMinimizerTest, StaleReadKeepsTheSourceOfTheStaleValue) {
  HistoryBuilder b("stale");
  b.call(0, Call{"write", {Value(1)}}, Value());
  b.call(1, Call{"read", {}}, Value(1));
  b.call(0, Call{"write", {Value(2)}}, Value());
  b.call(2, Call{"read", {}}, Value(2));
  b.invoke(1, Call{"write", {Value(7)}});
  b.respond(1, Outcome::kOk, Value());
  b.call(1, Call{"write", {Value(2)}}, Value());
  b.call(2, Call{"read", {}}, Value(1));  // stale: 2 was written after 1, and 7 in between
  b.call(0, Call{"read", {}}, Value(2));
  const history::History h = std::move(b).build();

  const HistoryMinimization m = minimize_history("register", h, HistoryMinimizerOptions{});
  ASSERT_EQ(m.original.result, detect::Result::kViolation);
  EXPECT_TRUE(m.one_minimal);
  EXPECT_EQ(detect::check_history("register", m.minimal, {}).result, detect::Result::kViolation);
  // Removing "write(1)" would leave "read -> 1" with no source: rule 2 keeps it.
  EXPECT_EQ(
      calls_of(m.minimal),
      (std::vector<std::string>{"p0 write(1) -> nil", "p0 write(2) -> nil", "p2 read() -> 1"}));
  EXPECT_FALSE(m.strictly_one_minimal);
  EXPECT_EQ(m.minimal.op(m.culprit).call.method, "read");
  EXPECT_EQ(m.kept.size(), 3u);
  EXPECT_GT(m.checks, 0u);
}

TEST(HistoryMinimizerTest, StackPopPopShrinksToOnePushAndTwoPops) {
  HistoryBuilder b("pops");
  b.call(0, Call{"push", {Value(1)}}, Value());
  b.call(0, Call{"push", {Value(2)}}, Value());
  b.call(0, Call{"push", {Value(3)}}, Value());
  b.call(1, Call{"pop", {}}, Value(3));
  b.invoke(0, Call{"pop", {}});
  b.invoke(1, Call{"pop", {}});
  b.respond(1, Outcome::kOk, Value(2));
  b.respond(0, Outcome::kOk, Value(2));
  b.call(1, Call{"pop", {}}, Value(1));
  const history::History h = std::move(b).build();

  const HistoryMinimization m = minimize_history("stack", h, HistoryMinimizerOptions{});
  ASSERT_EQ(m.original.result, detect::Result::kViolation);
  // Three operations explain it: push(2) and a pop of 2, plus either the other pop of 2 (a double
  // pop) or push(3) (a pop that skips the top); which one depends on ddmin's order.
  EXPECT_EQ(m.minimal.size(), 3u);
  EXPECT_EQ(m.minimal.op(m.culprit).to_string(), "p0 pop() -> 2");
  EXPECT_EQ(detect::check_history("stack", m.minimal, {}).result, detect::Result::kViolation);
  EXPECT_TRUE(m.one_minimal);
}

TEST(HistoryMinimizerTest, LinearizableInputIsReportedNotMinimized) {
  HistoryBuilder b;
  b.call(0, Call{"write", {Value(1)}}, Value());
  b.call(1, Call{"read", {}}, Value(1));
  const HistoryMinimization m =
      minimize_history("register", std::move(b).build(), HistoryMinimizerOptions{});
  EXPECT_EQ(m.original.result, detect::Result::kLinearizable);
  EXPECT_TRUE(m.minimal.empty());
  EXPECT_FALSE(m.note.empty());
}

// Random register histories: the result fails, is no larger than the shortest prefix, and every
// single removal other than the culprit passes (linearizable, other culprit, or no source).
TEST(HistoryMinimizerTest, RandomRegisterHistoriesMinimizeToFailingSubHistories) {
  std::mt19937 rng(11);
  int minimized = 0;
  for (int round = 0; round < 200; ++round) {
    HistoryBuilder b;
    std::vector<std::string> open(3);
    for (int step = 0; step < 16; ++step) {
      const int p = static_cast<int>(rng() % 3);
      if (open[p].empty()) {
        const bool write = rng() % 2;
        open[p] = write ? "write" : "read";
        b.invoke(p, write ? Call{"write", {Value(static_cast<int>(rng() % 3))}} : Call{"read", {}});
      } else {
        b.respond(p, Outcome::kOk,
                  open[p] == "read" ? Value(static_cast<int>(rng() % 3)) : Value());
        open[p].clear();
      }
    }
    const history::History h = std::move(b).build();
    const HistoryMinimization m = minimize_history("register", h, HistoryMinimizerOptions{});
    if (m.original.result != detect::Result::kViolation) continue;
    ++minimized;
    ASSERT_FALSE(m.minimal.empty());
    EXPECT_TRUE(m.one_minimal) << m.note;
    EXPECT_LE(m.minimal.events().size(), m.original.prefix_events);
    const detect::Verdict v = detect::check_history("register", m.minimal, {});
    EXPECT_EQ(v.result, detect::Result::kViolation);
    EXPECT_EQ(v.culprit, m.culprit);
    if (m.strictly_one_minimal) {
      for (std::size_t i = 0; i < m.minimal.size(); ++i) {
        std::vector<history::OpIndex> fewer;
        for (std::size_t j = 0; j < m.minimal.size(); ++j) {
          if (j != i) fewer.push_back(static_cast<history::OpIndex>(j));
        }
        EXPECT_EQ(detect::check_history("register", m.minimal.subhistory(fewer), {}).result,
                  detect::Result::kLinearizable);
      }
    }
  }
  EXPECT_GT(minimized, 20);
}

}  // namespace
}  // namespace linfault::minimize
