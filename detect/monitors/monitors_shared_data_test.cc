// The external histories of ../shared/data/verdicts.tsv: every fastlin and snapshot history is
// decided by its monitor with the expected verdict.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "detect/checker.h"
#include "detect/monitors/monitor.h"
#include "history/formats.h"
#include "tests/verdict_rows.h"

namespace linfault::detect {
namespace {

TEST(SharedData, FastlinAndSnapshotHistoriesAreDecidedByTheMonitors) {
  int checked = 0;
  for (const tests::VerdictRow& row : tests::verdict_rows("")) {
    if (row.path.rfind("fastlin/", 0) != 0 && row.path.rfind("snapshot/", 0) != 0) continue;
    SCOPED_TRACE(row.path);
    const history::LoadedHistory loaded =
        history::load_history_file(tests::shared_data_path(row.path));
    ASSERT_EQ(loaded.model, row.model);
    const MonitorResult r = run_monitor(row.model, loaded.history, CheckOptions{});
    ASSERT_TRUE(r.verdict) << r.unsupported;
    EXPECT_EQ(r.verdict->result,
              (row.expected == "linearizable" ? Result::kLinearizable : Result::kViolation));
    EXPECT_EQ(r.verdict->algorithm, "monitor:" + row.model);
    if (row.path.rfind("fastlin/", 0) == 0 && r.verdict->result == Result::kViolation) {
      const Verdict search = check_history(row.model, loaded.history, CheckOptions{});
      EXPECT_EQ(r.verdict->prefix_events, search.prefix_events);
      EXPECT_EQ(r.verdict->culprit, search.culprit);
    }
    ++checked;
  }
  EXPECT_EQ(checked, 81);
}

}  // namespace
}  // namespace linfault::detect
