#include "history/history.h"

#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>
#include <unordered_set>
#include <vector>

#include "history/value.h"

namespace linfault::history {
namespace {

TEST(ValueTest, PrintsLikeEdn) {
  EXPECT_EQ(Value().to_string(), "nil");
  EXPECT_EQ(Value(true).to_string(), "true");
  EXPECT_EQ(Value(-3).to_string(), "-3");
  EXPECT_EQ(Value("a\"b\n").to_string(), "\"a\\\"b\\n\"");
  EXPECT_EQ(Value(Value::List{1, Value::List{}, "x"}).to_string(), "[1 [] \"x\"]");
  EXPECT_EQ(Value(Value::List{}).kind_name(), "list");
}

TEST(ValueTest, ControlCharactersArePrintedAsEscapes) {
  EXPECT_EQ(printable("a\x1b[31mb\x07\x7f"), "a\\u001b[31mb\\u0007\\u007f");
  EXPECT_EQ(printable("tab\there\r\n"), "tab\\there\\r\\n");
  EXPECT_EQ(printable("csi \xc2\x9b, caf\xc3\xa9, \xc2\xa0"),
            "csi \\u009b, caf\xc3\xa9, \xc2\xa0");  // C1 escaped, other UTF-8 kept
  EXPECT_EQ(Value(std::string("\x1b\"x\\")).to_string(), "\"\\u001b\\\"x\\\\\"");
}

// Bytes that are not well-formed UTF-8 come out as \xNN, so printable()'s text is always UTF-8.
TEST(ValueTest, MalformedUtf8IsPrintedAsByteEscapes) {
  EXPECT_EQ(printable("a\xa3-b"), "a\\xa3-b");     // a stray continuation byte
  EXPECT_EQ(printable("\xe2\x82"), "\\xe2\\x82");  // a cut sequence
  EXPECT_EQ(printable("a\xc2"), "a\\xc2");         // cut at the end, where C1 would start
  EXPECT_EQ(printable("\xc0\xaf \xed\xa0\x80"),
            "\\xc0\\xaf \\xed\\xa0\\x80");                                // overlong, surrogate
  EXPECT_EQ(printable("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");       // above U+10FFFF
  EXPECT_EQ(printable("\xf0\x9f\x98\x80\xff"), "\xf0\x9f\x98\x80\\xff");  // U+1F600 kept
  EXPECT_EQ(Value(std::string("\xff")).to_string(), "\"\\xff\"");
}

TEST(ValueTest, Utf8CharacterLengths) {
  const std::string_view text = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\x80";
  EXPECT_EQ(utf8_character_length(text, 0), 1u);
  EXPECT_EQ(utf8_character_length(text, 1), 2u);
  EXPECT_EQ(utf8_character_length(text, 3), 3u);
  EXPECT_EQ(utf8_character_length(text, 6), 4u);
  EXPECT_EQ(utf8_character_length(text, 10), 0u);  // a continuation byte alone
  EXPECT_EQ(utf8_character_length(text, 2), 0u);
  EXPECT_EQ(utf8_character_length(std::string_view("\xe2\x82"), 0), 0u);
}

TEST(ValueTest, EqualityOrderAndHashAgree) {
  EXPECT_EQ(Value(1), Value(std::int64_t{1}));
  EXPECT_NE(Value(1), Value("1"));
  EXPECT_NE(Value(), Value(false));
  EXPECT_TRUE(Value() < Value(false));  // by kind first
  EXPECT_TRUE(Value(1) < Value(2));
  std::unordered_set<Value, ValueHash> set = {Value(1), Value("1"), Value(Value::List{1})};
  EXPECT_EQ(set.count(Value(Value::List{1})), 1u);
  EXPECT_EQ(set.count(Value(Value::List{2})), 0u);
}

History overlapping_pair() {
  HistoryBuilder builder("h");
  builder.invoke(0, Call{"push", {Value(1)}}, 1);  // op 0
  builder.invoke(1, Call{"pop", {}}, 2);           // op 1
  builder.respond(0, Outcome::kOk, Value(), 3);
  builder.invoke(0, Call{"pop", {}}, 4);  // op 2
  builder.respond(1, Outcome::kOk, Value(1), 5);
  return std::move(builder).build();
}

// Regression test of issue #19: std::variant's operator< compares equal list elements twice, so
// ordering two equal values nested 60 deep never finished.
TEST(ValueTest, OrderIsLinearInTheNesting) {
  Value a(1), b(1), c(2);
  for (int level = 0; level < 60; ++level) {
    a = Value(Value::List{a});
    b = Value(Value::List{b});
    c = Value(Value::List{c});
  }
  EXPECT_FALSE(a < b);
  EXPECT_FALSE(b < a);
  EXPECT_TRUE(a < c);
  EXPECT_FALSE(c < a);
  EXPECT_EQ(Value::compare(a, b), 0);
  EXPECT_TRUE(Value(Value::List{1, 2}) < Value(Value::List{1, 2, 0}));
  EXPECT_TRUE(Value(true) < Value(0));  // by kind first
}

TEST(HistoryTest, ClocksTellCallHappensBeforeReturnAndFollowPrefixesAndSubhistories) {
  HistoryBuilder b("clocks");
  b.invoke(0, {"enq", {1}});  // op 0
  b.invoke(1, {"deq", {}});   // op 1
  b.respond(0, Outcome::kOk, Value());
  b.invoke(0, {"enq", {2}});  // op 2
  b.respond(1, Outcome::kOk, 1);
  b.respond(0, Outcome::kOk, Value());
  History h = std::move(b).build();
  EXPECT_FALSE(h.call_happens_before_return(0, 1));  // no clocks
  EXPECT_TRUE(h.call_happens_before_return(0, 2));   // the same process, in program order
  EXPECT_THROW(h.set_clocks({{0, 1, {}}}), std::invalid_argument);
  h.set_clocks({{0, 1, {3, 0}}, {1, 1, {2, 4}}, {0, 4, {5, 0}}});
  EXPECT_TRUE(h.call_happens_before_return(0, 1));   // 2 >= 1
  EXPECT_FALSE(h.call_happens_before_return(2, 1));  // 2 < 4
  EXPECT_FALSE(h.call_happens_before_return(1, 0));
  // Cut before op 1's response: it is pending, so nothing happens-before its return.
  const History cut = h.prefix(4);
  ASSERT_EQ(cut.clocks().size(), 3u);
  EXPECT_TRUE(cut.clocks()[1].at_return.empty());
  EXPECT_FALSE(cut.call_happens_before_return(0, 1));
  const History sub = h.subhistory({2, 1});
  ASSERT_EQ(sub.clocks().size(), 2u);
  EXPECT_EQ(sub.clocks()[0], h.clocks()[1]);
  EXPECT_EQ(sub, h.subhistory({2, 1}));
}

TEST(HistoryTest, BuilderOrdersEventsAndLeavesOpenCallsPending) {
  const History h = overlapping_pair();
  ASSERT_EQ(h.size(), 3u);
  EXPECT_EQ(h.events().size(), 5u);
  EXPECT_EQ(h.op(2).outcome, Outcome::kPending);
  EXPECT_EQ(h.op(2).return_event, kNoEvent);
  EXPECT_TRUE(h.precedes(0, 2));
  EXPECT_FALSE(h.precedes(0, 1));
  EXPECT_FALSE(h.precedes(2, 0));
  EXPECT_EQ(h.op(1).to_string(), "p1 pop() -> 1");
  EXPECT_EQ(h.op(2).to_string(), "p0 pop() -> pending");
}

TEST(HistoryTest, BuilderReusingASpentHistoryKeepsNoneOfItsContents) {
  HistoryBuilder builder("reused");
  builder.reuse(overlapping_pair());
  builder.call(4, Call{"push", {Value(7)}}, Value());
  const History h = std::move(builder).build();
  ASSERT_EQ(h.size(), 1u);
  EXPECT_EQ(h.events().size(), 2u);
  EXPECT_EQ(h.op(0).to_string(), "p4 push(7) -> nil");
  EXPECT_EQ(h.origin(), "reused");

  HistoryBuilder started;
  started.invoke(0, Call{"read", {}});
  EXPECT_THROW(started.reuse(overlapping_pair()), std::logic_error);
}

// reuse() keeps the spent operations as slots and copies each new call into one: whatever the
// spent operation held (a key, a result, lines, a longer or shorter argument list), the history
// built must equal the one a fresh builder builds, with fewer, as many or more operations.
TEST(HistoryTest, BuilderReusingSlotsBuildsWhatAFreshBuilderBuilds) {
  auto spent = [] {
    HistoryBuilder builder("spent");
    builder.invoke(3, Call{"cas", {Value(1), Value("long enough to be on the heap"), Value(3)}}, 11,
                   Value("key"));
    builder.respond(3, Outcome::kFail, Value("timeout"), 12);
    builder.invoke(4, Call{"read", {}}, 13);
    builder.respond(4, Outcome::kOk, Value(Value::List{Value(1), Value(2)}), 14);
    builder.invoke(5, Call{"write", {Value(9)}}, 15);  // left pending
    return std::move(builder).build();
  };
  const std::vector<std::function<void(HistoryBuilder&)>> recordings = {
      [](HistoryBuilder& b) {
        b.call(0, Call{"push", {Value(7)}}, Value());
      },
      [](HistoryBuilder& b) {
        const Call pop{"pop", {}};
        b.invoke(0, Call{"push", {Value(1), Value(2)}});
        b.invoke(1, pop);  // by reference: copied into the slot
        b.respond(0, Outcome::kOk, Value());
        b.respond(1, Outcome::kOk, Value(1));
        b.invoke(2, Call{"write", {Value("x")}});
      },
      [](HistoryBuilder& b) {
        for (ProcessId p = 0; p < 5; ++p) b.call(p, Call{"enq", {Value(p)}}, Value(true));
      },
  };
  for (std::size_t i = 0; i < recordings.size(); ++i) {
    HistoryBuilder fresh("h");
    recordings[i](fresh);
    HistoryBuilder reused("h");
    reused.reuse(spent());
    recordings[i](reused);
    const History expected = std::move(fresh).build();
    const History got = std::move(reused).build();
    EXPECT_EQ(got, expected) << "recording " << i;
    for (OpIndex op = 0; op < static_cast<OpIndex>(got.size()); ++op) {
      EXPECT_EQ(got.op(op).key, std::nullopt) << "recording " << i << ", op " << op;
      EXPECT_EQ(got.op(op).source.call_line, expected.op(op).source.call_line);
      EXPECT_EQ(got.op(op).source.return_line, expected.op(op).source.return_line);
    }
  }
}

TEST(HistoryTest, BuilderRejectsIllFormedSequencesWithTheLine) {
  HistoryBuilder builder("f.txt");
  builder.invoke(0, Call{"read", {}}, 7);
  try {
    builder.invoke(0, Call{"write", {Value(1)}}, 9);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 9u);
    EXPECT_EQ(e.file(), "f.txt");
    EXPECT_EQ(std::string(e.what()).rfind("f.txt:9: process 0 invokes write(1)", 0), 0u)
        << e.what();
  }
  EXPECT_THROW(builder.respond(5, Outcome::kOk, Value(), 10), InputError);
}

// The open-call table keeps a few processes in an array and many in a hash map: both, and the
// moves between them, must pair each response with its own process's call.
TEST(HistoryTest, BuilderPairsResponsesWithManyProcessesOpen) {
  constexpr ProcessId kProcesses = 40;  // more than the table's array holds
  HistoryBuilder builder("many");
  for (int round = 0; round < 2; ++round) {
    for (ProcessId p = 0; p < kProcesses; ++p) builder.invoke(p * 7, Call{"read", {Value(p)}});
    for (ProcessId p = 0; p < kProcesses; ++p) EXPECT_TRUE(builder.has_open_call(p * 7));
    EXPECT_FALSE(builder.has_open_call(3));
    EXPECT_THROW(builder.invoke(5 * 7, Call{"read", {}}), InputError);
    // Close them in an order unlike the opening one; the table goes back to its array, and the
    // second round spills into the map again.
    for (ProcessId p = kProcesses; p-- > 0;) {
      const OpIndex index = builder.respond(p * 7, Outcome::kOk, Value(p));
      EXPECT_FALSE(builder.has_open_call(p * 7));
      ASSERT_EQ(index, static_cast<OpIndex>(round * kProcesses + p));
    }
    EXPECT_THROW(builder.respond(0, Outcome::kOk, Value()), InputError);
  }
  builder.invoke(1, Call{"read", {}});
  builder.invoke(2, Call{"read", {}});
  builder.respond(1, Outcome::kOk, Value(1));
  EXPECT_EQ(builder.open_call(2), std::optional<OpIndex>(2 * kProcesses + 1));
  const History h = std::move(builder).build();
  ASSERT_EQ(h.size(), static_cast<std::size_t>(2 * kProcesses + 2));
  for (OpIndex i = 0; i < 2 * kProcesses; ++i) {
    const ProcessId p = i % kProcesses;
    EXPECT_EQ(h.op(i).process, p * 7);
    EXPECT_EQ(h.op(i).result, Value(p)) << h.op(i).to_string();  // its own call's argument
  }
  EXPECT_EQ(h.op(static_cast<OpIndex>(2 * kProcesses + 1)).outcome, Outcome::kPending);
}

TEST(HistoryTest, PrefixTurnsCutResponsesIntoPending) {
  const History h = overlapping_pair();
  const History p = h.prefix(3);  // push call, pop call, push return
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p.op(0).outcome, Outcome::kOk);
  EXPECT_EQ(p.op(1).outcome, Outcome::kPending);
  EXPECT_TRUE(p.op(1).result.is_nil());
  EXPECT_EQ(h.prefix(100), h);
}

TEST(HistoryTest, SubhistoryKeepsRelativeOrder) {
  const History h = overlapping_pair();
  const History s = h.subhistory({2, 0});
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s.op(0).call.method, "push");
  EXPECT_EQ(s.op(1).call.method, "pop");
  EXPECT_EQ(s.events().size(), 3u);
  EXPECT_TRUE(s.precedes(0, 1));
}

}  // namespace
}  // namespace linfault::history
