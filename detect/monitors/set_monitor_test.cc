// Hand-made cases for the set monitor (monitors.md §1.3).

#include <gtest/gtest.h>

#include "detect/monitors/monitor.h"
#include "history/formats.h"
#include "history/history.h"

namespace linfault::detect {
namespace {

using history::Call;
using history::Value;

Result set_result(const history::History& h) {
  MonitorResult r = run_monitor("set", h, CheckOptions{});
  EXPECT_TRUE(r.verdict) << r.unsupported;
  return r.verdict ? r.verdict->result : Result::kUnknown;
}

history::History fastlin(const std::string& text) {
  return history::load_history_text("# set\n" + text, "test", history::Format::kFastlin).history;
}

TEST(SetMonitor, AbsentWhilePresentIsAViolation) {
  EXPECT_EQ(set_result(fastlin("insert 1 1 2\ncontains_false 1 3 4\n")), Result::kViolation);
  EXPECT_EQ(set_result(fastlin("insert 1 1 4\ncontains_false 1 2 3\n")), Result::kLinearizable);
}

TEST(SetMonitor, PresentWithoutAddOrAfterRemoveIsAViolation) {
  EXPECT_EQ(set_result(fastlin("contains_true 1 1 2\n")), Result::kViolation);
  EXPECT_EQ(set_result(fastlin("insert 1 1 2\nremove 1 3 4\ncontains_true 1 5 6\n")),
            Result::kViolation);
  EXPECT_EQ(set_result(fastlin("insert 1 1 2\nremove 1 3 6\ncontains_true 1 4 5\n")),
            Result::kLinearizable);
}

TEST(SetMonitor, FailedAddsAndRemovesAreObservations) {
  history::HistoryBuilder b("test");
  b.call(0, Call{"add", {Value("x")}}, Value(true));
  b.call(0, Call{"add", {Value("x")}}, Value(false));     // sees x present
  b.call(0, Call{"remove", {Value("y")}}, Value(false));  // sees y absent
  b.call(0, Call{"remove", {Value("x")}}, Value(true));
  b.call(0, Call{"add", {Value("y")}}, Value(false));  // y was never added
  const Verdict v = *run_monitor("set", std::move(b).build(), CheckOptions{}).verdict;
  EXPECT_EQ(v.result, Result::kViolation);
  EXPECT_EQ(v.prefix_events, 10u);
  EXPECT_EQ(v.culprit, 4);
}

TEST(SetMonitor, PendingAddOfAnObservedValue) {
  history::HistoryBuilder b("test");
  b.invoke(0, Call{"add", {Value(1)}});
  b.call(1, Call{"contains", {Value(1)}}, Value(true));
  EXPECT_EQ(set_result(std::move(b).build()), Result::kLinearizable);
}

TEST(SetMonitor, SizeAndRepeatedAddsAreUnsupported) {
  history::HistoryBuilder b("test");
  b.call(0, Call{"add", {Value(1)}}, Value(true));
  b.call(0, Call{"size", {}}, Value(1));
  EXPECT_FALSE(run_monitor("set", std::move(b).build(), CheckOptions{}).verdict);
  const MonitorResult twice =
      run_monitor("set", fastlin("insert 1 1 2\nremove 1 3 4\ninsert 1 5 6\n"), CheckOptions{});
  EXPECT_FALSE(twice.verdict);
  EXPECT_NE(twice.unsupported.find("twice"), std::string::npos);
  const Verdict v = check_auto("set", fastlin("insert 1 1 2\nremove 1 3 4\ninsert 1 5 6\n"),
                               CheckOptions{}, Algo::kAuto);
  EXPECT_EQ(v.result, Result::kLinearizable);
  EXPECT_EQ(v.algorithm, "search");
}

}  // namespace
}  // namespace linfault::detect
