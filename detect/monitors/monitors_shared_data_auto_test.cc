// With Algo::kAuto every history of ../shared/data/verdicts.tsv gets its expected verdict (none
// unknown): monitors where they apply, the search elsewhere. Slow: it runs the search on every
// Porcupine history.

#include <gtest/gtest.h>

#include <string>

#include "detect/monitors/monitor.h"
#include "history/formats.h"
#include "tests/verdict_rows.h"

namespace linfault::detect {
namespace {

TEST(SharedData, AutoGivesEveryHistoryItsVerdict) {
  int checked = 0;
  for (const tests::VerdictRow& row : tests::verdict_rows("")) {
    if (row.path.find("etcd_095") != std::string::npos)
      continue;  // empty: the cluster never started
    SCOPED_TRACE(row.path);
    const history::LoadedHistory loaded =
        history::load_history_file(tests::shared_data_path(row.path));
    CheckOptions options;
    options.want_witness = false;
    options.timeout_seconds = 60;
    const Verdict v = check_auto(row.model, loaded.history, options, Algo::kAuto);
    EXPECT_EQ(v.result,
              (row.expected == "linearizable" ? Result::kLinearizable : Result::kViolation));
    ++checked;
  }
  EXPECT_GE(checked, 180);
}

}  // namespace
}  // namespace linfault::detect
