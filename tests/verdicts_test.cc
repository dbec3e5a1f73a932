// Every history of ../shared/data/verdicts.tsv with an exact expected verdict (Porcupine's etcd
// and kv histories, fastlin's small cases), read in its original format by content and checked
// with the model verdicts.tsv names. tests/snapshot_verdicts_test.cc covers the snapshot rows.

#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>

#include "detect/checker.h"
#include "detect/monitors/monitor.h"
#include "history/formats.h"
#include "tests/verdict_rows.h"

namespace linfault::tests {
namespace {

// A safety net so that a checker regression fails the test instead of hanging it; every one of
// these histories is decided in well under a second normally.
constexpr double kTimeoutSeconds = 60;

// `algorithm_prefix`: what must have decided ("monitor" for the fastlin histories, which the
// polynomial monitors cover; "" for any).
int check_group(const std::string& prefix, history::Format expected_format,
                std::size_t expected_rows, const std::string& algorithm_prefix = "") {
  const std::vector<VerdictRow> rows = verdict_rows(prefix);
  EXPECT_EQ(rows.size(), expected_rows) << prefix;
  int checked = 0;
  for (const VerdictRow& row : rows) {
    const std::string path = shared_data_path(row.path);
    SCOPED_TRACE(row.path);
    const history::LoadedHistory loaded = history::load_history_file(path);
    EXPECT_EQ(loaded.format, expected_format);
    EXPECT_EQ(loaded.model, row.model) << "the model the file implies";
    detect::CheckOptions options;
    options.timeout_seconds = kTimeoutSeconds;
    options.want_witness = false;
    const detect::Verdict verdict = detect::check_auto(row.model, loaded.history, options);
    EXPECT_EQ(detect::result_name(verdict.result), row.expected)
        << verdict.reason << " (" << verdict.elapsed_ms << " ms)";
    EXPECT_EQ(verdict.algorithm.rfind(algorithm_prefix, 0), 0u) << verdict.algorithm;
    if (verdict.result == detect::Result::kViolation) {
      EXPECT_GT(verdict.prefix_events, 0u);
      EXPECT_LE(verdict.prefix_events, loaded.history.events().size());
      EXPECT_GE(verdict.culprit, 0);
      if (verdict.culprit >= 0) {
        EXPECT_GT(loaded.history.op(verdict.culprit).source.call_line, 0u);
      }
    }
    ++checked;
  }
  return checked;
}

TEST(VerdictsTest, EtcdLogsMatchExactly) {
  EXPECT_EQ(check_group("porcupine/jepsen/", history::Format::kJepsenLog, 102), 102);
}

// etcd_095 has no row in verdicts.tsv: the cluster never started, so the log is empty and there
// is nothing to judge. It still reads (as an explicitly named jepsen-log) as an empty history.
TEST(VerdictsTest, EmptyEtcdLogIsSkipped) {
  const std::string path = shared_data_path("porcupine/jepsen/etcd_095.log");
  ASSERT_EQ(std::filesystem::file_size(path), 0u);
  EXPECT_TRUE(verdict_rows("porcupine/jepsen/etcd_095").empty());
  EXPECT_TRUE(history::load_history_file(path, history::Format::kJepsenLog).history.empty());
  EXPECT_THROW(history::load_history_file(path), history::InputError);  // nothing to recognize
  std::cout << "note: skipped porcupine/jepsen/etcd_095.log (empty: the run never started)\n";
}

TEST(VerdictsTest, KvHistoriesMatchExactly) {
  EXPECT_EQ(check_group("porcupine/kv/", history::Format::kEdn, 6), 6);
}

TEST(VerdictsTest, FastlinHistoriesMatchExactly) {
  EXPECT_EQ(check_group("fastlin/", history::Format::kFastlin, 9, "monitor"), 9);
}

}  // namespace
}  // namespace linfault::tests
