// The 72 snapshot histories of ../shared/data/verdicts.tsv, each checked under a per-file time
// limit: the verdict must be right or `unknown`, never wrong. Prints how many were decided.

#include <gtest/gtest.h>

#include <iostream>

#include "detect/checker.h"
#include "history/formats.h"
#include "tests/verdict_rows.h"

namespace linfault::tests {
namespace {

constexpr double kSecondsPerFile = 2;

TEST(SnapshotVerdictsTest, RightOrUnknownWithinTheTimeLimit) {
  const std::vector<VerdictRow> rows = verdict_rows("snapshot/");
  ASSERT_EQ(rows.size(), 72u);
  int decided = 0;
  int decided_violations = 0;
  double total_ms = 0;
  for (const VerdictRow& row : rows) {
    SCOPED_TRACE(row.path);
    const history::LoadedHistory loaded = history::load_history_file(shared_data_dir() + row.path);
    ASSERT_EQ(loaded.format, history::Format::kSnapshot);
    ASSERT_EQ(loaded.model, "snapshot");
    detect::CheckOptions options;
    options.timeout_seconds = kSecondsPerFile;
    options.want_witness = false;
    const detect::Verdict verdict = detect::check_history(row.model, loaded.history, options);
    total_ms += verdict.elapsed_ms;
    if (verdict.result == detect::Result::kUnknown) continue;
    EXPECT_EQ(detect::result_name(verdict.result), row.expected) << "a wrong verdict";
    ++decided;
    if (verdict.result == detect::Result::kViolation) ++decided_violations;
  }
  std::cout << "snapshot histories decided within " << kSecondsPerFile << " s each: " << decided
            << " of " << rows.size() << " (" << decided_violations << " violations), "
            << total_ms / 1000 << " s in total\n";
  RecordProperty("decided", decided);
  RecordProperty("decided_violations", decided_violations);
  // Short non-linearizable histories (3 processes, 25 operations) are decided quickly by any
  // working checker; deciding none means the reader or the model is broken.
  EXPECT_GT(decided, 0);
}

}  // namespace
}  // namespace linfault::tests
