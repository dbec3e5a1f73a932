#include <gtest/gtest.h>

#include <string>
#include <vector>

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

namespace linfault::history {
namespace {

using testing::expect_input_error;

LoadedHistory load_edn_file(const char* name) {
  const LoadedHistory loaded =
      load_history_file(std::string(LINFAULT_SOURCE_DIR "/tests/data/edn/") + name);
  EXPECT_EQ(loaded.format, Format::kEdn) << name;  // recognized by --format auto
  return loaded;
}

// Every operation as "p<process> <call> -> <outcome> <result>", and its call and return lines.
std::vector<std::string> described(const History& history) {
  std::vector<std::string> lines;
  for (const Operation& op : history.operations()) {
    lines.push_back(op.to_string() + " @" + std::to_string(op.source.call_line) + "-" +
                    std::to_string(op.source.return_line));
  }
  return lines;
}

TEST(EdnReaderFilesTest, WholeFileVector) {
  const LoadedHistory loaded = load_edn_file("whole_vector.edn");
  EXPECT_EQ(loaded.model, "cas-register");
  EXPECT_EQ(described(loaded.history),
            (std::vector<std::string>{"p0 write(1) -> nil @1-3", "p1 read() -> 1 @2-4",
                                      "p2 cas([1 2]) -> fail @5-6"}));
}

TEST(EdnReaderFilesTest, MapsOverSeveralLinesTakeTheLineOfTheirBrace) {
  const LoadedHistory loaded = load_edn_file("multiline_maps.edn");
  EXPECT_FALSE(loaded.model.has_value());
  EXPECT_EQ(described(loaded.history),
            (std::vector<std::string>{"p0 push(7) -> nil @1-7", "p1 pop() -> 7 @5-11"}));
}

TEST(EdnReaderFilesTest, CommentsAndDiscardsAnywhere) {
  const LoadedHistory loaded = load_edn_file("comments_discards.edn");
  EXPECT_EQ(described(loaded.history),
            (std::vector<std::string>{"p0 add(3) -> nil @2-4", "p1 read() -> [3] @6-8"}));
}

TEST(EdnReaderFilesTest, TaggedRecordsAndLiterals) {
  const LoadedHistory loaded = load_edn_file("tagged_records.edn");
  EXPECT_EQ(loaded.model, "cas-register");
  EXPECT_EQ(described(loaded.history),
            (std::vector<std::string>{"p0 write(3) -> nil @1-3", "p1 read() -> 3 @2-4"}));
}

TEST(EdnReaderFilesTest, JepsenHistoryWithIndexTimeNodeAndError) {
  const LoadedHistory loaded = load_edn_file("jepsen_history.edn");
  EXPECT_EQ(loaded.model, "cas-register");
  const History& h = loaded.history;
  EXPECT_EQ(described(h), (std::vector<std::string>{
                              "p0 write(1) -> nil @1-4", "p1 read() -> 1 @2-6",
                              "p2 cas([1 2]) -> fail \":precondition-failed\" @7-8",
                              "p3 write(4) -> pending @9-10",
                              "p1 read() -> fail \"{:type :unavailable :latency 0.25}\" @11-12"}));
  // The detail of a :fail is its :error; a map without a Value form keeps its text.
  EXPECT_EQ(h.op(2).outcome, Outcome::kFail);
  EXPECT_EQ(h.op(2).result, Value(":precondition-failed"));
  EXPECT_EQ(h.op(4).result, Value("{:type :unavailable :latency 0.25}"));
  EXPECT_TRUE(h.op(3).result.is_nil());  // :info: pending, its :error is not a result
}

TEST(EdnReaderFilesTest, KnossosCasRegisterAsATopLevelList) {
  const LoadedHistory loaded = load_edn_file("knossos_cas.edn");
  EXPECT_EQ(loaded.model, "cas-register");
  EXPECT_EQ(described(loaded.history),
            (std::vector<std::string>{"p0 write(0) -> nil @1-2", "p1 cas([0 4]) -> true @3-5",
                                      "p2 read() -> 4 @4-6", "p3 cas([0 1]) -> fail @7-8",
                                      "p4 write(2) -> pending @9-10"}));
}

TEST(EdnReaderFilesTest, NamespacedKeywordsAreOtherFieldsOrNames) {
  const LoadedHistory loaded = load_edn_file("namespaced_keys.edn");
  EXPECT_EQ(loaded.model, "kv");
  const History& h = loaded.history;
  ASSERT_EQ(h.size(), 2u);
  EXPECT_EQ(h.op(0).call.method, "kv/put");
  EXPECT_EQ(h.op(0).key, Value(":user/alice"));
  EXPECT_EQ(h.op(0).process, 0);  // :jepsen.history/process is not :process
  EXPECT_EQ(h.op(1).call.to_string(), "kv/get(\":user/alice\")");
  EXPECT_EQ(h.op(1).result, Value("x"));
}

TEST(EdnReaderFilesTest, StringsWithEscapes) {
  const LoadedHistory loaded = load_edn_file("string_escapes.edn");
  const History& h = loaded.history;
  ASSERT_EQ(h.size(), 3u);
  EXPECT_EQ(h.op(0).key, Value("say \"hi\""));
  EXPECT_EQ(h.op(0).call.args.at(1), Value("tab\there\\back"));
  EXPECT_EQ(h.op(1).key, Value("caf\xc3\xa9 \xf0\x9f\x98\x80"));  // \u escapes and UTF-8 agree
  EXPECT_EQ(h.op(1).call.args.at(1), Value("two\nlines"));
  EXPECT_EQ(h.op(1).source.return_line, 5u);  // the string spanned line 3 and 4
  EXPECT_EQ(h.op(2).result, Value("tab\there\\back"));
}

TEST(EdnReaderErrorsTest, NameLineAndColumnInsideMultiLineValues) {
  const std::string invoke = "{:process 3,\n :type :invoke,\n :f :read}\n";
  expect_input_error(invoke + "{:process 3, :type :ok,\n :f :read,\n :value [1 2}\n", Format::kEdn,
                     6, "column 13: unexpected `}`");
  expect_input_error("[{:process 1, :type :invoke, :f :x}\n {:process 1 :type :ok :f :x}",
                     Format::kEdn, 1, "column 1: `[` is never closed");
  expect_input_error("{:process 1,\n :type :invoke,\n :f :w,\n :value 1.5}\n", Format::kEdn, 4,
                     "column 9: :value: floating-point number 1.5 is not supported");
  expect_input_error("{:process 1, :type :invoke, :f :w, :value [1 [2 3/4]]}\n", Format::kEdn, 1,
                     "column 49: :value: ratio 3/4 is not supported");
  expect_input_error("{:process 1, :type :invoke, :f :w, :value \\a}\n", Format::kEdn, 1,
                     "column 43: :value: character \\a is not supported");
  expect_input_error("{:process 1, :type :invoke, :f :w, :value 123456789012345678901}\n",
                     Format::kEdn, 1,
                     "column 43: :value: integer 123456789012345678901 does not fit");
  expect_input_error("{:process 1, :type :invoke, :f :w, :value\n  sym}\n", Format::kEdn, 2,
                     "column 3: :value: symbol sym is not a value");
  expect_input_error("{:process 1, :type :invoke, :f :w, :value {:a 1.5}}\n", Format::kEdn, 1,
                     "column 43: :value: map {:a 1.5} cannot be an operation value");
  expect_input_error("{:process 1, :type :invoke, :f :w}\n{:process 1\n :type :ok\n :process 1}\n",
                     Format::kEdn, 4, "column 2: duplicate key :process in a map");
  expect_input_error("{:process 1, :type :invoke, :f :w, :time 1 :time 2}\n", Format::kEdn, 1,
                     "column 44: duplicate key :time in a map");
  expect_input_error("\n\n  {:type :invoke, :f :w}\n", Format::kEdn, 3,
                     "column 3: missing :process");
  expect_input_error("{:process 1, :type 3, :f :w}\n", Format::kEdn, 1,
                     "column 20: :type must be a keyword, got 3");
  expect_input_error("{:process 1, :type :invoke, :f \"\"}\n", Format::kEdn, 1,
                     "column 32: :f must be a keyword, got \"\"");
  expect_input_error("[{:process 1, :type :invoke, :f :w}] {:process 2}\n", Format::kEdn, 1,
                     "column 38: unexpected `{` after the history's closing `]`");
  expect_input_error(
      "#jepsen.history.Op [1 2]\n", Format::kEdn, 1,
      "column 20: expected one operation map {:process .. :type .. :f ..}, got `[1 2]`");
  expect_input_error("{:process 1, :type :invoke, :f :w, :node \"n1\n", Format::kEdn, 1,
                     "column 42: unterminated string");
  expect_input_error("{:process 1, :type :invoke, :f :w, :error #:db{:a 1}}\n", Format::kEdn, 1,
                     "column 43: namespaced maps");
  expect_input_error("{:process 1, :type :invoke, :f :w, :value #\"re\"}\n", Format::kEdn, 1,
                     "column 43: unsupported `#` dispatch");
}

TEST(EdnReaderErrorsTest, KeysThatAreNotKeywords) {
  const std::string long_key = "\"" + std::string(50, 'k');
  const LoadedHistory loaded = load_history_text(
      "{:process 1, :type :invoke, :f :w, " + long_key + "1\" 1, " + long_key + "2\" 2, [1] 3}\n",
      "in.txt", Format::kEdn);
  EXPECT_EQ(loaded.history.size(), 1u);
  expect_input_error("{:process 1, :type :invoke, :f :w, [1 2] 1, \"a\" 2, [1 2] 3}\n",
                     Format::kEdn, 1, "column 52: duplicate key [1 2] in a map");
}

TEST(EdnReaderErrorsTest, UnbalancedMaps) {
  expect_input_error("{:process 1, :type :invoke, :f :w, :value}\n", Format::kEdn, 1,
                     "column 1: map has a key without a value");
  expect_input_error("[{:process 1, :type]\n", Format::kEdn, 1, "column 20: unexpected `]`");
  expect_input_error("\n {:process 1, :type\n", Format::kEdn, 2, "column 2: `{` is never closed");
  expect_input_error("{:process 1, :type :invoke, :f :w, :x 1", Format::kEdn, 1,
                     "column 1: `{` is never closed");
}

TEST(EdnReaderErrorsTest, IndexMustIncrease) {
  expect_input_error(
      "{:process 0, :type :invoke, :f :w, :index 4}\n{:process :nemesis, :type :info, :f :x, "
      ":index 4}\n",
      Format::kEdn, 2, "column 48: :index 4 is not above :index 4 on line 1");
  expect_input_error("{:process 0, :type :invoke, :f :w, :index \"4\"}\n", Format::kEdn, 1,
                     "column 43: :index must be an integer, got \"4\"");
  // Operations without :index, and gaps in it, are fine.
  const LoadedHistory loaded = load_history_text(
      "{:process 0, :type :invoke, :f :w, :index 2}\n{:process 1, :type :invoke, :f :w}\n"
      "{:process 0, :type :ok, :f :w, :index 9}\n",
      "in.txt", Format::kEdn);
  EXPECT_EQ(loaded.history.size(), 2u);
}

TEST(EdnReaderErrorsTest, NemesisOperationsMayCarryAnything) {
  const LoadedHistory loaded = load_history_text(
      "{:process :nemesis, :type :info, :f :kill, :value {:a 1.5, :b 1/3, :c \\x, :d sym}}\n"
      "{:process :nemesis, :type :info, :value ##Inf}\n",
      "in.txt", Format::kEdn);
  EXPECT_TRUE(loaded.history.empty());
}

TEST(EdnReaderErrorsTest, LongChainsOfTagsAndDiscardsAreNotRecursion) {
  std::string tags;
  for (int i = 0; i < 100000; ++i) tags += "#t ";
  const LoadedHistory loaded =
      load_history_text("{:process 1, :type :invoke, :f :w, :value " + tags + "[1 " + tags +
                            "2]}\n" + tags + "{:process 1, :type :ok, :f :w}\n",
                        "in.txt", Format::kEdn);
  ASSERT_EQ(loaded.history.size(), 1u);
  EXPECT_EQ(loaded.history.op(0).call.to_string(), "w([1 2])");
  std::string discards;
  for (int i = 0; i < 100000; ++i) discards += "#_ ";
  expect_input_error("{:process 1, :type :invoke, :f :w, :value " + discards + "1}\n", Format::kEdn,
                     1, "#_ discards nested more than 200 deep");
}

TEST(EdnReaderFilesTest, TheSameHistoryInEveryShapeIsTheSameHistory) {
  const std::string ops[] = {"{:process 0, :type :invoke, :f :write, :value 1}",
                             "{:process 1, :type :invoke, :f :read, :value nil}",
                             "{:process 0, :type :ok, :f :write, :value 1}",
                             "{:process 1, :type :ok, :f :read, :value 1}"};
  std::string lines, vector = "[", list = "(", records;
  for (const std::string& op : ops) {
    lines += op + "\n";
    vector += op + "\n";
    list += op + "\n";
    records += "#jepsen.history.Op" + op + "\n";
  }
  vector += "]";
  list += ")";
  const History expected = load_history_text(lines, "a", Format::kAuto).history;
  for (const std::string& text : {vector, list, records}) {
    const LoadedHistory loaded = load_history_text(text, "a", Format::kAuto);
    EXPECT_EQ(loaded.format, Format::kEdn) << text;
    EXPECT_EQ(loaded.history, expected) << text;
  }
  EXPECT_TRUE(load_history_text("[]", "a", Format::kAuto).history.empty());
}

}  // namespace
}  // namespace linfault::history
