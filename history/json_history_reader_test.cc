// The fast JSON history reader (simdjson On-Demand) against the DOM-based reference: on every
// document, hand-made or mutated at random, both must accept it with the same History (source
// lines and model too) or reject it with the same message; the fast reader must not decline what
// linfault writes.

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <string>
#include <vector>

#include "history/json_format.h"
#include "history/json_history_build.h"
#include "history/readers.h"

namespace linfault::history {
namespace {

struct ReadResult {
  std::optional<LoadedHistory> loaded;
  std::string error;  // the InputError's message when rejected
  bool declined = false;
};

// Runs `read` on `text`, keeping what it gave: a history, an InputError's message, or nothing
// (the one-pass reader declined).
template <typename Reader>
ReadResult read_with(Reader read, const std::string& text) {
  ReadResult out;
  try {
    out.loaded = read(text, "doc.json");
    out.declined = !out.loaded;
  } catch (const InputError& e) {
    out.error = e.what();
  }
  return out;
}

ReadResult read_fast(const std::string& text) {
  return read_with(json_detail::read_json_history_fast, text);
}

ReadResult read_reference(const std::string& text) {
  return read_with(read_json_history_reference, text);
}

void expect_same_lines(const History& a, const History& b, const std::string& text) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a.operations()[i].source.call_line, b.operations()[i].source.call_line) << text;
    EXPECT_EQ(a.operations()[i].source.return_line, b.operations()[i].source.return_line) << text;
  }
}

// The one-pass reader agrees with the reference on `text`; returns whether it declined.
bool expect_agreement(const std::string& text) {
  const ReadResult fast = read_fast(text);
  const ReadResult reference = read_reference(text);
  if (fast.declined) return true;
  if (fast.loaded) {
    EXPECT_TRUE(reference.loaded.has_value())
        << "only the one-pass reader accepts: " << text << "\nreference: " << reference.error;
    if (reference.loaded) {
      EXPECT_EQ(fast.loaded->history, reference.loaded->history) << text;
      EXPECT_EQ(fast.loaded->model, reference.loaded->model) << text;
      EXPECT_EQ(fast.loaded->history.origin(), reference.loaded->history.origin());
      expect_same_lines(fast.loaded->history, reference.loaded->history, text);
    }
  } else {
    EXPECT_EQ(fast.error, reference.error) << text;
  }
  // And the public entry point is one of the two.
  const ReadResult either = read_with(read_json_history, text);
  EXPECT_EQ(either.loaded.has_value(), reference.loaded.has_value()) << text;
  EXPECT_EQ(either.error, reference.error) << text;
  return false;
}

History varied_history() {
  HistoryBuilder builder("x");
  builder.invoke(0, Call{"push", {Value(std::numeric_limits<std::int64_t>::min())}}, 0, Value(3));
  builder.invoke(1, Call{"cas", {Value(1), Value(Value::List{Value(true), Value(), Value("s")})}});
  builder.respond(0, Outcome::kOk, Value(Value::List{}));
  builder.invoke(2, Call{"read", {}}, 0, Value());
  builder.respond(1, Outcome::kFail, Value(":timed-out"), 7);
  builder.invoke(3, Call{"write", {Value(std::numeric_limits<std::int64_t>::max())}}, 9);
  builder.respond(3, Outcome::kPending, Value(), 10);
  builder.invoke(3, Call{"read", {}});
  builder.respond(2, Outcome::kOk, Value(-42));
  return std::move(builder).build();
}

TEST(JsonHistoryReaderTest, ReadsWhatLinfaultWritesWithoutDeclining) {
  const History original = varied_history();
  for (const std::optional<std::string>& model :
       {std::optional<std::string>("queue"), std::optional<std::string>()}) {
    const std::string text = history_to_json_text(original, model);
    EXPECT_FALSE(expect_agreement(text)) << text;
    const std::string indented = history_to_json(original, model).dump(2);
    EXPECT_FALSE(expect_agreement(indented)) << indented;
    const LoadedHistory loaded = read_json_history(text, "doc.json");
    EXPECT_EQ(loaded.history, original);
    EXPECT_EQ(loaded.model, model);
  }
}

TEST(JsonHistoryReaderTest, AgreesOnHandWrittenDocuments) {
  const std::string op = R"({"process": 1, "method": "m", "call": 0)";
  const std::vector<std::string> documents = {
      R"({"operations": []})",
      R"({"linfault": "history", "version": 1, "model": "stack", "operations": []})",
      "{\"operations\": [\n" + op + ", \"return\": 1}\n]}",
      "{\"operations\": [\n" + op + ", \"return\": null}\n]}",
      "{\"operations\": [\n" + op + ", \"key\": null, \"return\": 2, \"line\": 0}]}",
      "{\"operations\": [\n" + op + ", \"outcome\": \"pending\", \"result\": [1, [2]]}]}",
      "{\"operations\": [\n" + op + ", \"outcome\": \"fail\", \"return\": 4, \"return_line\": 9}]}",
      "{\"operations\": [\n" + op + ", \"args\": [\"\xc3\xa9\"], \"return\": 1}]}",
      "{\"operations\": [\n" + op + ", \"args\": [-0], \"return\": 1}]}  \n\n",
      // The reference reads these; the fast reader leaves them to it.
      "{\"operations\": [\n" + op + ", \"args\": [\"\\u00e9\\n\"], \"return\": 1}]}",
      "{\"operations\": [\n{\"proc\\u0065ss\": 1, \"method\": \"m\", \"call\": 0}]}",
      "\xef\xbb\xbf{\"operations\": []}",
      // Errors, in both readers' words.
      "{\"operations\": [\n" + op + ", \"return\": 0}]}",
      "{\"operations\": [\n" + op + ", \"return\": 1},\n" + op + ", \"return\": 2}]}",
      "{\"operations\": [\n" + op + ", \"return\": 1},\n" + op + "}]}",
      "{\"operations\": [\n" + op + ", \"call\": 3}]}",
      "{\"operations\": [\n" + op + ", \"return\": 1, \"line\": 2, \"line\": 3}]}",
      "{\"operations\": [\n" + op + ", \"method\": \"m\\u0001\"}]}",
      "{\"operations\": [\n" + op + ", \"args\": [\"m\x01\"]}]}",
      "{\"operations\": [\n" + op + ", \"args\": [\"\xff\"]}]}",
      "{\"operations\": [\n" + op + ", \"args\": [\"\xc3\"]}]}",
      "{\"operations\": [\n" + op + ", \"args\": [1e2]}]}",
      "{\"operations\": [\n" + op + ", \"args\": [{}]}]}",
      "{\"operations\": [\n" + op + ", \"args\": [nul]}]}",
      "{\"operations\": [\n" + op + ", \"args\": [1 2]}]}",
      "{\"operations\": [\n" + op + ",}]}",
      "{\"operations\": [\n" + op + "}]} {}",
      "{\"operations\": [\n" + op + "}]",
      "{\"operations\": [\n" + op + ", \"args\": [\"abc]}]}",
      "{\"operations\": [\n" + op + ", \"args\": [1.5], \"return\": 1}]}",
      "{\"operations\": [\n" + op + ", \"args\": [01], \"return\": 1}]}",
      "{\"operations\": [\n" + op + ", \"args\": [9223372036854775808], \"return\": 1}]}",
      "{\"operations\": [\n" + op + ", \"line\": -1}]}",
      "{\"operations\": [\n" + op + ", \"outcome\": \"ok\"}]}",
      "{\"operations\": [\n" + op + ", \"outcome\": \"pending\", \"return\": 3}]}",
      "{\"operations\": [\n" + op + "}], \"version\": 2}",
      "{\"operations\": [\n" + op + "}]} trailing",
      "{\"linfault\": \"test-case\", \"operations\": []}",
      "{\"operations\": [], \"operations\": []}",
      "{\"model\": 3, \"operations\": []}",
      "{\"operations\": [5]}",
      "[]",
      "",
      "{\"operations\": [\n" + op + ", \"args\": [" + std::string(100, '[') +
          std::string(100, ']') + "], \"return\": 1}]}",
  };
  int declined = 0;
  for (const std::string& text : documents) declined += expect_agreement(text);
  // The escaped value and key and the deep list at least (simdjson 3.0 may also decline the BOM).
  EXPECT_GE(declined, 3);
  EXPECT_LT(declined, static_cast<int>(documents.size()));
}

// Operations over several lines, blank lines, CRLF line ends and UTF-8 text: read by the fast
// reader itself, each operation on the line where its object opens, as the reference says.
TEST(JsonHistoryReaderTest, CountsLinesAcrossLayouts) {
  // "puté" and "€" in UTF-8.
  const std::string first =
      "{\"process\": 1, \"method\": \"put\xc3\xa9\", \"call\": 0,\n"
      " \"args\": [\"\xe2\x82\xac\", [true, null]], \"return\": 3}";
  const std::string second = R"({"process": 2, "method": "get", "call": 1, "return": 2})";
  const std::vector<std::string> documents = {
      "{\"model\": \"register\",\n\n\"operations\": [\n" + first + ",\n\n\n" + second + "]}",
      "{\"operations\":\r\n[\r\n" + first + ",\r\n" + second + "\r\n]}\r\n",
      "{\"operations\": [" + first + ", " + second + "]}",
  };
  const std::vector<std::vector<std::uint32_t>> call_lines = {{4, 8}, {3, 5}, {1, 2}};
  for (std::size_t d = 0; d < documents.size(); ++d) {
    EXPECT_FALSE(expect_agreement(documents[d])) << documents[d];
    const ReadResult fast = read_fast(documents[d]);
    ASSERT_TRUE(fast.loaded) << documents[d] << "\n" << fast.error;
    const History& history = fast.loaded->history;
    ASSERT_EQ(history.size(), 2U);
    EXPECT_EQ(history.operations()[0].call.method, "put\xc3\xa9");
    EXPECT_EQ(history.operations()[0].call.args[0], Value("\xe2\x82\xac"));
    EXPECT_EQ(history.operations()[0].source.call_line, call_lines[d][0]) << documents[d];
    EXPECT_EQ(history.operations()[1].source.call_line, call_lines[d][1]) << documents[d];
  }
}

// Random edits of a small document: each must be read alike by both readers.
TEST(JsonHistoryReaderTest, AgreesOnMutatedDocuments) {
  const std::string base = history_to_json_text(varied_history(), "register");
  const std::string alphabet = "{}[],:\"\\ \n-0123456789.eEtrufalsn\xc3";
  std::mt19937_64 random(15);
  int accepted = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::string text = base;
    const int edits = 1 + static_cast<int>(random() % 3);
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = random() % text.size();
      const char c = alphabet[random() % alphabet.size()];
      switch (random() % 3) {
        case 0:
          text[at] = c;
          break;
        case 1:
          text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), c);
          break;
        default:
          text.erase(at, 1);
          break;
      }
    }
    const ReadResult fast = read_fast(text);
    accepted += fast.loaded.has_value();
    expect_agreement(text);
    if (::testing::Test::HasFailure()) break;
  }
  // Edits inside values and whitespace keep many documents valid.
  EXPECT_GT(accepted, 100);
}

}  // namespace
}  // namespace linfault::history
