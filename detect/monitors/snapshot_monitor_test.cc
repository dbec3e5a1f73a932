// Hand-made cases for the one-pass snapshot monitor (monitors.md §2.3), in seed 003's action
// format.

#include <gtest/gtest.h>

#include "detect/checker.h"
#include "detect/monitors/monitor.h"
#include "history/formats.h"

namespace linfault::detect {
namespace {

history::History actions(const std::string& text) {
  return history::load_history_text(text, "test", history::Format::kSnapshot).history;
}

Verdict monitored(const history::History& h) {
  MonitorResult r = run_monitor("snapshot", h, CheckOptions{});
  EXPECT_TRUE(r.verdict) << r.unsupported;
  return r.verdict ? *r.verdict : Verdict{};
}

TEST(SnapshotMonitor, ReadingZeroAfterTheWriteIsAViolation) {
  const history::History h =
      actions("startUpdate!0,1;endUpdate!0,1;startScan!2;endScan!2,0,0;startScan!3;endScan!3,1,0");
  const Verdict v = monitored(h);
  EXPECT_EQ(v.result, Result::kViolation);
  EXPECT_EQ(v.algorithm, "monitor:snapshot");
  EXPECT_EQ(v.prefix_events, 4u);
  EXPECT_EQ(v.culprit, 1);
}

TEST(SnapshotMonitor, ConcurrentReadsMaySeeEitherState) {
  EXPECT_EQ(monitored(actions("startUpdate!0,1;startScan!2;endScan!2,1,0;startScan!3;endScan!3,1,0;"
                              "endUpdate!0,1"))
                .result,
            Result::kLinearizable);
  EXPECT_EQ(monitored(actions("startUpdate!0,1;startScan!2;endScan!2,1,0;startScan!3;endScan!3,0,0;"
                              "endUpdate!0,1"))
                .result,
            Result::kViolation);  // went back from 1 to 0
}

TEST(SnapshotMonitor, InvertedViewsAreAViolation) {
  const std::string both = "startUpdate!0,1;startUpdate!1,1;";
  EXPECT_EQ(monitored(actions(both + "startScan!2;endScan!2,0,1;startScan!3;endScan!3,1,0")).result,
            Result::kViolation);
  EXPECT_EQ(monitored(actions(both + "startScan!2;endScan!2,0,1;startScan!3;endScan!3,1,1")).result,
            Result::kLinearizable);
  // Segment 0 is set before segment 1 starts: nobody may see (0, 1).
  EXPECT_EQ(monitored(actions("startUpdate!0,1;endUpdate!0,1;startUpdate!1,1;startScan!2;"
                              "endScan!2,0,1"))
                .result,
            Result::kViolation);
}

TEST(SnapshotMonitor, PendingWritesMayTakeEffect) {
  EXPECT_EQ(monitored(actions("startUpdate!0,1;startScan!2;endScan!2,1,0")).result,
            Result::kLinearizable);
  EXPECT_EQ(monitored(actions("startScan!2;endScan!2,1,0;startUpdate!0,1")).result,
            Result::kViolation);
}

TEST(SnapshotMonitor, NonSimpleHistoriesAreUnsupported) {
  const char* cases[] = {
      "startUpdate!0,2;endUpdate!0,2",  // value 2
      "startUpdate!0,1;endUpdate!0,1;startUpdate!1,1;endUpdate!1,1;startUpdate!2,1;endUpdate!2,1",
      "startUpdate!0,1;endUpdate!0,1;startUpdate!0,0;endUpdate!0,0",  // back to 0
  };
  for (const char* text : cases) {
    const MonitorResult r = run_monitor("snapshot", actions(text), CheckOptions{});
    EXPECT_FALSE(r.verdict) << text;
    EXPECT_FALSE(r.unsupported.empty());
    EXPECT_NE(check_auto("snapshot", actions(text), CheckOptions{}, Algo::kAuto).result,
              Result::kUnknown);
  }
}

// The model refuses a segment of 2^20 or more as bad input; the monitor must not give a verdict
// where the search (and `check --algo search`) would reject the history.
TEST(SnapshotMonitor, SegmentsTheModelRefusesAreLeftToTheSearch) {
  const history::History h = actions("startUpdate!1048576,1;endUpdate!1048576,1");
  const MonitorResult r = run_monitor("snapshot", h, CheckOptions{});
  EXPECT_FALSE(r.verdict);
  EXPECT_NE(r.unsupported.find("out of range"), std::string::npos) << r.unsupported;
  EXPECT_THROW(check_auto("snapshot", h, CheckOptions{}, Algo::kAuto), std::exception);
  EXPECT_TRUE(monitored(actions("startUpdate!1048575,1;endUpdate!1048575,1")).result ==
              Result::kLinearizable);
}

}  // namespace
}  // namespace linfault::detect
