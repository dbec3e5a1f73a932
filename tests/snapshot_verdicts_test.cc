// The 72 snapshot histories of ../shared/data/verdicts.tsv: with the default algorithm choice
// (auto) every one is decided, by the one-pass snapshot monitor, with the expected verdict. A
// generous per-file limit keeps a regression from hanging the suite; it is never reached
// normally (all 72 take about 50 ms together).

#include <gtest/gtest.h>

#include <iostream>

#include "detect/checker.h"
#include "detect/monitors/monitor.h"
#include "history/formats.h"
#include "tests/verdict_rows.h"

namespace linfault::tests {
namespace {

constexpr double kSecondsPerFile = 30;

TEST(SnapshotVerdictsTest, EveryHistoryIsDecidedByTheMonitor) {
  const std::vector<VerdictRow> rows = verdict_rows("snapshot/");
  ASSERT_EQ(rows.size(), 72u);
  int violations = 0;
  double total_ms = 0;
  for (const VerdictRow& row : rows) {
    SCOPED_TRACE(row.path);
    const history::LoadedHistory loaded = history::load_history_file(shared_data_path(row.path));
    ASSERT_EQ(loaded.format, history::Format::kSnapshot);
    ASSERT_EQ(loaded.model, "snapshot");
    detect::CheckOptions options;
    options.timeout_seconds = kSecondsPerFile;
    options.want_witness = false;
    const detect::Verdict verdict = detect::check_auto(row.model, loaded.history, options);
    total_ms += verdict.elapsed_ms;
    EXPECT_EQ(detect::result_name(verdict.result), row.expected) << verdict.reason;
    EXPECT_EQ(verdict.algorithm.rfind("monitor", 0), 0u) << verdict.algorithm;
    if (verdict.result == detect::Result::kViolation) ++violations;
  }
  std::cout << "snapshot histories: " << rows.size() << " decided (" << violations
            << " violations), " << total_ms / 1000 << " s in total\n";
  EXPECT_GT(violations, 0);
}

}  // namespace
}  // namespace linfault::tests
