#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "history/formats.h"
#include "history/reader_test_util.h"

namespace linfault::history {
namespace {

using testing::expect_input_error;

TEST(FastlinReaderTest, ReadsAStackWithEmptyResultsAsNil) {
  const LoadedHistory loaded = load_history_text(
      "# stack\n"
      "push 1 1 3\n"
      "pop -1 0 2\n"
      "pop 1 3 4\n",
      "s.log", Format::kFastlin);
  EXPECT_EQ(loaded.model, "stack");
  const History& h = loaded.history;
  ASSERT_EQ(h.size(), 3u);
  // Operations are numbered by invocation: pop@0 first.
  EXPECT_EQ(h.op(0).call.to_string(), "pop()");
  EXPECT_TRUE(h.op(0).result.is_nil());
  EXPECT_EQ(h.op(0).source.call_line, 3u);
  EXPECT_EQ(h.op(1).call.to_string(), "push(1)");
  EXPECT_EQ(h.op(2).result, Value(1));
  // Every operation has its own process.
  EXPECT_NE(h.op(0).process, h.op(1).process);
  EXPECT_NE(h.op(1).process, h.op(2).process);
  // push ends at 3 and the second pop starts at 3: the response comes first.
  EXPECT_TRUE(h.precedes(1, 2));
  EXPECT_FALSE(h.precedes(0, 1));
}

TEST(FastlinReaderTest, MapsEveryObjectsMethods) {
  const History set = load_history_text(
                          "# set\ninsert 5 0 1\ncontains_true 5 2 3\ncontains_false 6 4 5\n"
                          "remove 5 6 7\n",
                          "x", Format::kFastlin)
                          .history;
  EXPECT_EQ(set.op(0).to_string(), "p0 insert(5) -> true");
  EXPECT_EQ(set.op(1).to_string(), "p1 contains(5) -> true");
  EXPECT_EQ(set.op(2).to_string(), "p2 contains(6) -> false");
  EXPECT_EQ(set.op(3).to_string(), "p3 remove(5) -> true");

  const History pq = load_history_text("# priorityqueue\ninsert 2 0 1\npeek 2 2 3\npoll -1 4 5\n",
                                       "x", Format::kFastlin)
                         .history;
  EXPECT_EQ(pq.op(0).to_string(), "p0 insert(2) -> nil");
  EXPECT_EQ(pq.op(1).to_string(), "p1 peek() -> 2");
  EXPECT_EQ(pq.op(2).to_string(), "p2 poll() -> nil");

  const History queue =
      load_history_text("# queue\nenq 2 0 1\ndeq 2 2 3\n", "x", Format::kFastlin).history;
  EXPECT_EQ(queue.op(1).to_string(), "p1 deq() -> 2");

  const History deque = load_history_text(
                            "# deque\npush_front 1 0 1\npush_back 2 0 1\npop_back 2 2 3\n"
                            "pop_front -1 4 5\n",
                            "x", Format::kFastlin)
                            .history;
  EXPECT_EQ(deque.op(0).call.method, "push_left");
  EXPECT_EQ(deque.op(1).call.method, "push_right");
  EXPECT_EQ(deque.op(2).to_string(), "p2 pop_right() -> 2");
  EXPECT_EQ(deque.op(3).to_string(), "p3 pop_left() -> nil");
}

TEST(FastlinReaderTest, ZeroLengthOperationsSitBetweenResponsesAndInvocations) {
  const History h =
      load_history_text("# stack\npush 1 0 5\npeek 1 5 5\npop 1 5 6\n", "x", Format::kFastlin)
          .history;
  EXPECT_TRUE(h.precedes(0, 1));
  EXPECT_TRUE(h.precedes(1, 2));
}

// The event order, against its definition computed naively: events sorted by time, at equal time
// responses, then zero-length operations (call, then response), then invocations, file order
// breaking the remaining ties. Random files with many equal times, with lines in start order (the
// reader's fast path) and shuffled.
TEST(FastlinReaderTest, EventOrderMatchesItsDefinition) {
  std::mt19937 random(15);
  for (int trial = 0; trial < 200; ++trial) {
    struct Line {
      int start;
      int end;
    };
    std::vector<Line> lines(1 + random() % 12);
    for (Line& line : lines) {
      line.start = static_cast<int>(random() % 6);
      line.end = line.start + static_cast<int>(random() % 3);
    }
    if (trial % 2 == 0) {
      std::stable_sort(lines.begin(), lines.end(),
                       [](const Line& a, const Line& b) { return a.start < b.start; });
    }
    std::string text = "# set\n";
    for (std::size_t i = 0; i < lines.size(); ++i) {
      text += "insert " + std::to_string(i) + " " + std::to_string(lines[i].start) + " " +
              std::to_string(lines[i].end) + "\n";
    }
    struct Expected {
      int time;
      int rank;
      std::size_t line;
      Event::Kind kind;
    };
    std::vector<Expected> expected;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const bool zero = lines[i].start == lines[i].end;
      expected.push_back({lines[i].start, zero ? 1 : 2, i, Event::Kind::kCall});
      expected.push_back({lines[i].end, zero ? 1 : 0, i, Event::Kind::kReturn});
    }
    std::stable_sort(expected.begin(), expected.end(), [](const Expected& a, const Expected& b) {
      return a.time != b.time ? a.time < b.time : a.rank < b.rank;
    });
    const History h = load_history_text(text, "x", Format::kFastlin).history;
    ASSERT_EQ(h.events().size(), expected.size()) << text;
    for (std::size_t e = 0; e < expected.size(); ++e) {
      const Event& event = h.events()[e];
      EXPECT_EQ(event.kind, expected[e].kind) << text << " event " << e;
      // The argument is the line's index among the operation lines.
      EXPECT_EQ(h.op(event.op).call.args.at(0), Value(static_cast<std::int64_t>(expected[e].line)))
          << text << " event " << e;
    }
  }
}

TEST(FastlinReaderTest, ReadsTheSharedData) {
  const LoadedHistory loaded = load_history_file(
      LINFAULT_SHARED_DIR "/data/fastlin/stack/nonlin_intermediate_0.log", Format::kAuto);
  EXPECT_EQ(loaded.format, Format::kFastlin);
  EXPECT_EQ(loaded.model, "stack");
  EXPECT_EQ(loaded.history.size(), 10u);
  EXPECT_EQ(loaded.history.events().size(), 20u);
}

TEST(FastlinReaderTest, RejectsMalformedLines) {
  expect_input_error("# stack\npush 1 2\n", Format::kFastlin, 2,
                     "expected 4 fields `method value start end`, got 3");
  expect_input_error("# stack\npush 1 1 2\npop 1 7 5\n", Format::kFastlin, 3, "end 5 < start 7");
  expect_input_error("# stack\nshove 1 1 2\n", Format::kFastlin, 2,
                     "unknown fastlin method `shove`");
  expect_input_error("# stack\npush x 1 2\n", Format::kFastlin, 2, "value `x` is not an integer");
  expect_input_error("# heap\n", Format::kFastlin, 1, "unknown fastlin object `heap`");
}

}  // namespace
}  // namespace linfault::history
