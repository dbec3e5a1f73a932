#include "history/formats.h"

#include <gtest/gtest.h>

#include <sstream>

#include "history/reader_test_util.h"

namespace linfault::history {
namespace {

TEST(FormatsTest, NamesRoundTrip) {
  for (std::string_view name : format_names()) {
    const std::optional<Format> format = parse_format_name(name);
    ASSERT_TRUE(format.has_value()) << name;
    EXPECT_EQ(format_name(*format), name);
  }
  EXPECT_EQ(format_names().size(), 6u);
  EXPECT_FALSE(parse_format_name("yaml").has_value());
}

TEST(FormatsTest, DetectsEachFormatByContent) {
  EXPECT_EQ(detect_format("  {\"operations\": []}", "x"), Format::kJson);
  EXPECT_EQ(detect_format("{:process 0, :type :invoke}", "x"), Format::kEdn);
  EXPECT_EQ(detect_format("; comment\n{:process 0}", "x"), Format::kEdn);
  EXPECT_EQ(detect_format("noise\nINFO  jepsen.util - 0\t:invoke\t:read\tnil\n", "x"),
            Format::kJepsenLog);
  EXPECT_EQ(detect_format("# queue\nenq 1 0 1\n", "x"), Format::kFastlin);
  EXPECT_EQ(detect_format("push 1 0 1\n", "x"), Format::kFastlin);
  EXPECT_EQ(detect_format("startScan!1;endScan!1,0,0", "x"), Format::kSnapshot);
  EXPECT_EQ(detect_format("startUpdate!0,1;endUpdate!0,1", "x"), Format::kSnapshot);
}

TEST(FormatsTest, DetectsEveryShapeOfEdn) {
  const char* const edn[] = {
      "[{:process 0, :type :invoke}]",
      "\n[\n  {:process 0}]",
      "({:process 0})",
      "[]",
      " ( ) ",
      "#jepsen.history.Op{:index 0, :process 0}",
      "#jepsen.history.Op {:index 0}",
      "[#jepsen.history.Op{:index 0}]",
      "; a comment\n;; another\n[{:process 0}]",
      "#_ {:a 1} {:process 0}",
      "[#_ 1 {:process 0}]",
      ", {:process 0}",
      "{\n :process 0}",
  };
  for (const char* text : edn) EXPECT_EQ(detect_format(text, "x"), Format::kEdn) << text;
  // Neighbours that are not EDN operations keep their formats.
  EXPECT_EQ(detect_format("#stack\npush 1 0 1\n", "x"), Format::kFastlin);
  EXPECT_EQ(detect_format("#queue {x}\nenq 1 0 1\n", "x"), Format::kFastlin);
  EXPECT_EQ(
      detect_format("[2015-04-01 10:00:00] INFO  jepsen.util - 0\t:invoke\t:read\tnil\n", "x"),
      Format::kJepsenLog);
  EXPECT_EQ(detect_format("{}", "x"), Format::kJson);
  EXPECT_THROW(detect_format("[1 2 3]", "x"), InputError);
  EXPECT_THROW(detect_format("; only a comment\n", "x"), InputError);
}

// A run of `#word` tags is walked in a loop: a file of 200,000 of them must not exhaust the
// stack (it did when each tag recursed, in sanitizer builds).
TEST(FormatsTest, LongRunsOfTagsAreRecognizedWithoutRecursion) {
  std::string text = "#stack\n";
  for (int i = 0; i < 200000; ++i) text += "#comment ";
  EXPECT_EQ(detect_format(text, "tags"), Format::kFastlin);
  std::string edn;
  for (int i = 0; i < 200000; ++i) edn += "#a.b ";
  edn += "{:process 0, :type :invoke, :f :read, :value nil}";
  EXPECT_EQ(detect_format(edn, "tags"), Format::kEdn);
}

// Blank actions count for nothing: a snapshot of one scan and many empty lines reads as one op.
TEST(FormatsTest, SnapshotBlankLinesAreSkippedCheaply) {
  std::string text = "startScan!1";
  text.append(1'000'000, '\n');
  const LoadedHistory loaded = load_history_text(text, "blank", Format::kSnapshot);
  EXPECT_EQ(loaded.history.size(), 1u);
}

TEST(FormatsTest, UnrecognizableInputIsAClearError) {
  EXPECT_THROW(detect_format("", "x"), InputError);
  EXPECT_THROW(detect_format(" \n\n", "x"), InputError);
  try {
    detect_format("hello world\n", "in.txt");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("in.txt: cannot recognize the format", 0), 0u)
        << e.what();
  }
}

TEST(FormatsTest, DetectsEveryKindOfSharedFile) {
  const std::pair<const char*, Format> cases[] = {
      {"/data/porcupine/jepsen/etcd_000.log", Format::kJepsenLog},
      {"/data/porcupine/kv/c01-ok.txt", Format::kEdn},
      {"/data/fastlin/queue/lin_simple_1.log", Format::kFastlin},
      {"/data/snapshot/linearizable-5-100-0", Format::kSnapshot},
  };
  for (const auto& [path, format] : cases) {
    const LoadedHistory loaded = load_history_file(std::string(LINFAULT_SHARED_DIR) + path);
    EXPECT_EQ(loaded.format, format) << path;
    EXPECT_TRUE(loaded.model.has_value()) << path;
    EXPECT_FALSE(loaded.history.empty()) << path;
  }
}

TEST(FormatsTest, LoadsFromStreams) {
  std::istringstream in("# stack\npush 1 0 1\n");
  const LoadedHistory loaded = load_history(in, "<stdin>", Format::kAuto);
  EXPECT_EQ(loaded.history.size(), 1u);
  EXPECT_EQ(loaded.history.origin(), "<stdin>");
}

TEST(FormatsTest, MissingFilesAreOpenErrors) {
  EXPECT_THROW(load_history_file("/nonexistent/history.edn"), OpenError);
  EXPECT_THROW(load_history_file(LINFAULT_SOURCE_DIR), OpenError);
  try {
    load_history_file("/nonexistent/history.edn");
  } catch (const OpenError& e) {
    EXPECT_EQ(std::string(e.what()),
              "/nonexistent/history.edn: cannot open: No such file or directory");
  }
}

}  // namespace
}  // namespace linfault::history
