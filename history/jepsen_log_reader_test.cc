#include <gtest/gtest.h>

#include "history/formats.h"
#include "history/reader_test_util.h"

namespace linfault::history {
namespace {

using testing::expect_input_error;

constexpr std::string_view kLog =
    "2015-05-01 12:00:00 INFO jepsen.core - Starting\n"
    "INFO  jepsen.util - 0\t:invoke\t:read\tnil\n"
    "INFO  jepsen.util - 1\t:invoke\t:cas\t[3 0]\n"
    "INFO  jepsen.util - 0\t:ok\t:read\t3\n"
    "INFO  jepsen.util - 1   :fail   :cas    [3 0]\n"     // spaces instead of tabs
    "INFO  jepsen.util - :nemesis\t:info\t:start\tnil\n"  // not a client process
    "INFO  jepsen.util - 2\t:invoke\t:write\t4\n"
    "INFO  jepsen.util - 2\t:info\t:write\t:timed-out\n"
    "INFO  jepsen.util - 3\t:invoke\t:read\tnil\n"
    "INFO  jepsen.util - 3\t:fail\t:read\t:timed-out\n"
    "INFO  jepsen.util - 4\t:invoke\t:cas\t[4 1]\n"
    "INFO  jepsen.util - 4\t:ok\t:cas\t[4 1]\n"
    "INFO  jepsen.util - 5\t:invoke\t:write\t1\n"
    "INFO  jepsen.util - 5\t:ok\t:write\t1\n"
    "some other noise\n";

TEST(JepsenLogReaderTest, ReadsOperationsWithJepsenSemantics) {
  const LoadedHistory loaded = load_history_text(kLog, "etcd.log", Format::kJepsenLog);
  EXPECT_EQ(loaded.format, Format::kJepsenLog);
  EXPECT_EQ(loaded.model, "cas-register");
  const History& h = loaded.history;
  EXPECT_EQ(h.origin(), "etcd.log");
  ASSERT_EQ(h.size(), 6u);

  const Operation& read = h.op(0);
  EXPECT_EQ(read.call.to_string(), "read()");
  EXPECT_EQ(read.outcome, Outcome::kOk);
  EXPECT_EQ(read.result, Value(3));
  EXPECT_EQ(read.source.call_line, 2u);
  EXPECT_EQ(read.source.return_line, 4u);

  const Operation& failed_cas = h.op(1);
  EXPECT_EQ(failed_cas.call.args, std::vector<Value>{Value(Value::List{3, 0})});
  EXPECT_EQ(failed_cas.outcome, Outcome::kFail);
  EXPECT_TRUE(failed_cas.result.is_nil());

  const Operation& timed_out_write = h.op(2);
  EXPECT_EQ(timed_out_write.outcome, Outcome::kPending);
  EXPECT_EQ(timed_out_write.return_event, kNoEvent);
  EXPECT_EQ(timed_out_write.source.return_line, 8u);

  const Operation& failed_read = h.op(3);
  EXPECT_EQ(failed_read.outcome, Outcome::kFail);
  EXPECT_EQ(failed_read.result, Value(":timed-out"));

  EXPECT_EQ(h.op(4).outcome, Outcome::kOk);
  EXPECT_EQ(h.op(4).result, Value(true));  // a successful cas returned true
  EXPECT_TRUE(h.op(5).result.is_nil());    // a write returns nothing
  EXPECT_EQ(h.op(5).call.args, std::vector<Value>{Value(1)});

  // Two events per completed op, one per pending op.
  EXPECT_EQ(h.events().size(), 11u);
  EXPECT_TRUE(h.precedes(0, 5));
  EXPECT_FALSE(h.precedes(2, 5));  // pending: no response bounds it
}

TEST(JepsenLogReaderTest, EmptyLogIsAnEmptyRegisterHistory) {
  const LoadedHistory loaded = load_history_text("", "empty.log", Format::kJepsenLog);
  EXPECT_TRUE(loaded.history.empty());
  EXPECT_EQ(loaded.model, "cas-register");
}

TEST(JepsenLogReaderTest, OtherMethodsImplyNoModel) {
  const LoadedHistory loaded = load_history_text(
      "INFO  jepsen.util - 0\t:invoke\t:push\t1\nINFO  jepsen.util - 0\t:ok\t:push\t1\n", "x",
      Format::kJepsenLog);
  EXPECT_FALSE(loaded.model.has_value());
  EXPECT_TRUE(loaded.history.op(0).result.is_nil());
}

TEST(JepsenLogReaderTest, RejectsMalformedLinesWithTheirLine) {
  const std::string invoke = "INFO  jepsen.util - 3\t:invoke\t:read\tnil\n";
  expect_input_error("noise\nINFO  jepsen.util - 3\t:ok\t:read\t1\n", Format::kJepsenLog, 2,
                     "unmatched :ok for process 3");
  expect_input_error(invoke + "INFO  jepsen.util - 3\t:oops\t:read\t1\n", Format::kJepsenLog, 2,
                     "unknown :type :oops");
  expect_input_error(invoke + "INFO  jepsen.util - 3\t:ok\t:write\t1\n", Format::kJepsenLog, 2,
                     "does not match its open call :read (line 1)");
  expect_input_error(invoke + "INFO  jepsen.util - 3\t:ok\t:read\t[1 2\n", Format::kJepsenLog, 2,
                     "never closed");
  expect_input_error(invoke + "INFO  jepsen.util - 3\t:ok\t:read\n", Format::kJepsenLog, 2,
                     "missing value");
  expect_input_error(invoke + invoke, Format::kJepsenLog, 2, "has no response");
  expect_input_error(invoke + "INFO  jepsen.util - 3\t:info\t:read\t:timed-out\n" + invoke,
                     Format::kJepsenLog, 3, "process 3 invokes :read after its :info on line 2");
  // Another format forced as a log has no jepsen.util line: not an empty history.
  expect_input_error("{:process 0, :type :invoke, :f :read, :value nil}\n", Format::kJepsenLog, 1,
                     "not a Jepsen log");
}

// Regression tests of issue #19: a completion that contradicts its invoke changed the verdict
// silently, and a process number beyond 64 bits was dropped as noise.
TEST(JepsenLogReaderTest, RejectsCompletionsThatContradictTheirInvoke) {
  const std::string line = "INFO  jepsen.util - 3\t";
  expect_input_error(line + ":invoke\t:write\t3\n" + line + ":ok\t:write\t4\n", Format::kJepsenLog,
                     2, ":ok :write 4 for process 3 contradicts its :invoke on line 1 (:write 3)");
  expect_input_error(line + ":invoke\t:cas\t[1 2]\n" + line + ":ok\t:cas\t[1 3]\n",
                     Format::kJepsenLog, 2, "contradicts its :invoke on line 1 (:cas [1 2])");
  expect_input_error(line + ":invoke\t:cas\t[1 2]\n" + line + ":fail\t:cas\t[2 2]\n",
                     Format::kJepsenLog, 2, ":fail :cas [2 2] for process 3 contradicts");
  expect_input_error(line + ":invoke\t:write\t3\n" + line + ":info\t:write\t5\n",
                     Format::kJepsenLog, 2, ":info :write 5 for process 3 contradicts");
  // What stays valid: an echo, a read's value, and a keyword detail on :fail and :info.
  const LoadedHistory loaded =
      load_history_text(line + ":invoke\t:cas\t[1 2]\n" + line + ":ok\t:cas\t[1 2]\n" + line +
                            ":invoke\t:read\tnil\n" + line + ":ok\t:read\t2\n" + line +
                            ":invoke\t:write\t3\n" + line + ":fail\t:write\t:timed-out\n" + line +
                            ":invoke\t:write\t4\n" + line + ":info\t:write\t:timed-out\n",
                        "in.txt", Format::kJepsenLog);
  ASSERT_EQ(loaded.history.size(), 4u);
  EXPECT_EQ(loaded.history.op(0).result, Value(true));
  EXPECT_EQ(loaded.history.op(1).result, Value(2));
}

// Found by fuzz/jepsen_log_fuzzer.cc: a method name with bytes that are not UTF-8 made writing
// the history as JSON throw.
TEST(JepsenLogReaderTest, TheMethodMustBeAKeyword) {
  expect_input_error("INFO  jepsen.util - 0\t:invoke\t:w\xa9rite\t1\n", Format::kJepsenLog, 1,
                     "expected the operation's :f keyword after :invoke, got `:w\\xa9rite`");
  expect_input_error("INFO  jepsen.util - 0\t:invoke\t:a\"b\t1\n", Format::kJepsenLog, 1,
                     ":f keyword");
  expect_input_error(std::string("INFO  jepsen.util - 0\t:invoke\t:wr;\0\xf6\t1\n", 39),
                     Format::kJepsenLog, 1, ":f keyword");
}

TEST(JepsenLogReaderTest, AProcessBeyond64BitsIsAnErrorNotNoise) {
  expect_input_error("INFO  jepsen.util - 99999999999999999999\t:invoke\t:read\tnil\n",
                     Format::kJepsenLog, 1, "process 99999999999999999999 does not fit in 64 bits");
}

TEST(JepsenLogReaderTest, LockAndTransactionMethodsImplyMutexAndMultiRegister) {
  const auto implied = [](std::string_view text) {
    return load_history_text(text, "x", Format::kJepsenLog).model;
  };
  EXPECT_EQ(implied("INFO  jepsen.util - 0\t:invoke\t:acquire\tnil\n"
                    "INFO  jepsen.util - 0\t:ok\t:acquire\tnil\n"
                    "INFO  jepsen.util - 0\t:invoke\t:release\tnil\n"
                    "INFO  jepsen.util - 0\t:fail\t:release\tnil\n"),
            "mutex");
  EXPECT_EQ(implied("INFO  jepsen.util - 0\t:invoke\t:txn\t[[:r :x nil] [:w :y 2]]\n"
                    "INFO  jepsen.util - 0\t:ok\t:txn\t[[:r :x 3] [:w :y 2]]\n"),
            "multi-register");
  EXPECT_FALSE(implied("INFO  jepsen.util - 0\t:invoke\t:acquire\tnil\n"
                       "INFO  jepsen.util - 1\t:invoke\t:read\tnil\n")
                   .has_value());
  // A txn's completion fills in its reads and must keep every micro-op's f and key.
  const LoadedHistory txn = load_history_text(
      "INFO  jepsen.util - 0\t:invoke\t:txn\t[[:r :x nil] [:w :y 2]]\n"
      "INFO  jepsen.util - 0\t:ok\t:txn\t[[:r :x 3] [:w :y 2]]\n",
      "x", Format::kJepsenLog);
  EXPECT_EQ(txn.history.op(0).result.to_string(), "[[\":r\" \":x\" 3] [\":w\" \":y\" 2]]");
  expect_input_error(
      "INFO  jepsen.util - 0\t:invoke\t:txn\t[[:r :x nil]]\n"
      "INFO  jepsen.util - 0\t:ok\t:txn\t[[:r :y 3]]\n",
      Format::kJepsenLog, 2, "contradicts its :invoke on line 1");
}

}  // namespace
}  // namespace linfault::history
