#include <gtest/gtest.h>

#include "history/formats.h"
#include "history/reader_test_util.h"

namespace linfault::history {
namespace {

using testing::expect_input_error;

TEST(EdnReaderTest, ReadsKeyValueOperations) {
  const LoadedHistory loaded = load_history_text(
      "{:process 0, :type :invoke, :f :append, :key \"0\", :value \"x 0 0 y\"}\n"
      "\n"
      "; a comment line\n"
      "{:process 1, :type :invoke, :f :get, :key \"0\", :value nil}\n"
      "{:process 0, :type :ok, :f :append, :key \"0\", :value \"x 0 0 y\"}\n"
      "{:process :nemesis, :type :info, :f :start}\n"
      "{:process 1, :type :ok, :f :get, :key \"0\", :value \"x 0 0 y\"}\n",
      "kv.txt", Format::kEdn);
  EXPECT_EQ(loaded.model, "kv");
  const History& h = loaded.history;
  ASSERT_EQ(h.size(), 2u);
  EXPECT_EQ(h.op(0).call.to_string(), "append(\"0\", \"x 0 0 y\")");
  EXPECT_EQ(h.op(0).key, Value("0"));
  EXPECT_TRUE(h.op(0).result.is_nil());
  EXPECT_EQ(h.op(0).source.return_line, 5u);
  EXPECT_EQ(h.op(1).call.to_string(), "get(\"0\")");
  EXPECT_EQ(h.op(1).result, Value("x 0 0 y"));
  EXPECT_EQ(h.op(1).source.call_line, 4u);
}

TEST(EdnReaderTest, ReadsTheBundledStackExample) {
  const LoadedHistory loaded =
      load_history_file(LINFAULT_SOURCE_DIR "/examples/stack-pop-pop.edn", Format::kAuto);
  EXPECT_EQ(loaded.format, Format::kEdn);
  EXPECT_FALSE(loaded.model.has_value());  // push/pop: the user names the model
  ASSERT_EQ(loaded.history.size(), 5u);
  EXPECT_EQ(loaded.history.op(0).call.to_string(), "push(1)");
  EXPECT_TRUE(loaded.history.op(0).result.is_nil());
  EXPECT_EQ(loaded.history.op(3).result, Value(2));
  EXPECT_EQ(loaded.history.op(2).call.to_string(), "pop()");
}

TEST(EdnReaderTest, RejectsMalformedLines) {
  const std::string invoke = "{:process 3, :type :invoke, :f :read, :value nil}\n";
  expect_input_error(invoke + "{:process 3, :type :ok, :f :read, :value [1}\n", Format::kEdn, 2,
                     "column 44: unexpected `}`");
  expect_input_error(invoke + "{:process 3, :type :oops, :f :read}\n", Format::kEdn, 2,
                     "unknown :type :oops");
  expect_input_error("{:process 3, :type :ok, :f :read, :value 1}\n", Format::kEdn, 1,
                     "unmatched :ok for process 3");
  expect_input_error("{:type :invoke, :f :read}\n", Format::kEdn, 1, "missing :process");
  expect_input_error("{:process 1, :f :read}\n", Format::kEdn, 1, "missing :type");
  expect_input_error("{:process 1, :type :invoke}\n", Format::kEdn, 1, "missing :f");
  expect_input_error("{:process \"a\", :type :invoke, :f :x}\n", Format::kEdn, 1,
                     ":process must be an integer");
  expect_input_error("\n[1 2]\n", Format::kEdn, 2, "expected one operation map");
  expect_input_error("{:process 1, :type :invoke, :f :x, :value {:a 1}}\n", Format::kEdn, 1,
                     ":value: map {:a 1} cannot be an operation value");
  expect_input_error(invoke + "{:process 3, :type :info, :f :read}\n" + invoke, Format::kEdn, 3,
                     "after its :info on line 2");
}

// Regression tests of issue #19: an :ok whose :key or value contradicts its invoke, and repeated
// map keys (the last one won), were accepted silently.
TEST(EdnReaderTest, RejectsCompletionsThatContradictTheirInvoke) {
  const std::string invoke = "{:process 3, :type :invoke, :f :put, :key \"a\", :value \"x\"}\n";
  expect_input_error(invoke + "{:process 3, :type :ok, :f :put, :key \"b\", :value \"x\"}\n",
                     Format::kEdn, 2,
                     ":ok :key \"b\" for process 3 contradicts its :invoke on line 1");
  expect_input_error(invoke + "{:process 3, :type :ok, :f :put, :key \"a\", :value \"y\"}\n",
                     Format::kEdn, 2, ":ok :put \"y\" for process 3 contradicts");
  // A transaction's reads are filled in by its completion.
  const LoadedHistory txn = load_history_text(
      "{:process 0, :type :invoke, :f :txn, :value [[:append 1 2] [:r 1 nil]]}\n"
      "{:process 0, :type :ok, :f :txn, :value [[:append 1 2] [:r 1 [2]]]}\n",
      "in.txt", Format::kEdn);
  EXPECT_EQ(txn.history.op(0).result.to_string(), "[[\":append\" 1 2] [\":r\" 1 [2]]]");
  expect_input_error(
      "{:process 0, :type :invoke, :f :txn, :value [[:append 1 2] [:r 1 nil]]}\n"
      "{:process 0, :type :ok, :f :txn, :value [[:append 1 3] [:r 1 [2]]]}\n",
      Format::kEdn, 2, "contradicts its :invoke on line 1");
}

TEST(EdnReaderTest, RepeatedMapKeysAreErrors) {
  expect_input_error("{:process 1, :type :invoke, :f :read, :process 2}\n", Format::kEdn, 1,
                     "duplicate key :process in a map");
}

}  // namespace
}  // namespace linfault::history
