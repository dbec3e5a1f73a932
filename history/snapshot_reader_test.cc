#include <gtest/gtest.h>

#include "history/formats.h"
#include "history/reader_test_util.h"

namespace linfault::history {
namespace {

using testing::expect_input_error;

TEST(SnapshotReaderTest, ReadsUpdatesAndScans) {
  const LoadedHistory loaded =
      load_history_text("startScan!1;startUpdate!0,1;endScan!1,0,0;endUpdate!0,1;startScan!2",
                        "snap", Format::kSnapshot);
  EXPECT_EQ(loaded.model, "snapshot");
  const History& h = loaded.history;
  ASSERT_EQ(h.size(), 3u);
  EXPECT_EQ(h.op(0).to_string(), "p1 scan() -> [0 0]");
  EXPECT_EQ(h.op(1).to_string(), "p0 update(0, 1) -> nil");
  EXPECT_EQ(h.op(2).to_string(), "p2 scan() -> pending");
  EXPECT_EQ(h.events().size(), 5u);
  EXPECT_EQ(h.op(0).source.call_line, 1u);
}

TEST(SnapshotReaderTest, ReadsTheSharedData) {
  const LoadedHistory loaded = load_history_file(
      LINFAULT_SHARED_DIR "/data/snapshot/non_linearizable-3-25-0", Format::kAuto);
  EXPECT_EQ(loaded.format, Format::kSnapshot);
  EXPECT_FALSE(loaded.history.empty());
  for (const Operation& op : loaded.history.operations()) {
    EXPECT_EQ(op.outcome, Outcome::kOk) << op.to_string();
  }
}

TEST(SnapshotReaderTest, RejectsMalformedActions) {
  expect_input_error("startScan!1;endScan!2,0,0", Format::kSnapshot, 1,
                     "action 2 `endScan!2,0,0`: no open scan for process 2");
  expect_input_error("startScan!1;jump!1", Format::kSnapshot, 1, "unknown action `jump`");
  expect_input_error("startUpdate!1", Format::kSnapshot, 1,
                     "expected `startUpdate!process,value`, got 1 number(s)");
  expect_input_error("startScan!x", Format::kSnapshot, 1, "`x` is not an integer");
  expect_input_error("startUpdate!1,1;endUpdate!1,0", Format::kSnapshot, 1, "started with value 1");
  expect_input_error("startScan!1;\nstartScan!1", Format::kSnapshot, 2, "has not ended");
  expect_input_error("startScan", Format::kSnapshot, 1, "expected `name!process,...`");
}

}  // namespace
}  // namespace linfault::history
