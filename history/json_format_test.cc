#include "history/json_format.h"

#include <gtest/gtest.h>

#include <random>

#include "history/formats.h"
#include "history/reader_test_util.h"

namespace linfault::history {
namespace {

using testing::expect_input_error;

Value random_value(std::mt19937& rng, int depth = 0) {
  switch (std::uniform_int_distribution<int>(0, depth < 2 ? 4 : 3)(rng)) {
    case 0:
      return Value();
    case 1:
      return Value(std::uniform_int_distribution<int>(0, 1)(rng) == 1);
    case 2:
      return Value(std::uniform_int_distribution<std::int64_t>(INT64_MIN, INT64_MAX)(rng));
    case 3: {
      std::string s;
      const int length = std::uniform_int_distribution<int>(0, 6)(rng);
      for (int i = 0; i < length; ++i) {
        s += "ab\"\\\n\t\x01z"[std::uniform_int_distribution<int>(0, 7)(rng)];
      }
      return Value(s);
    }
    default: {
      Value::List list;
      const int length = std::uniform_int_distribution<int>(0, 3)(rng);
      for (int i = 0; i < length; ++i) list.push_back(random_value(rng, depth + 1));
      return Value(std::move(list));
    }
  }
}

// A random well-formed history: processes call and respond (ok, fail or pending) in random order;
// a pending call may be followed by more calls of the same process.
History random_history(std::mt19937& rng) {
  HistoryBuilder builder("random");
  const int processes = std::uniform_int_distribution<int>(1, 5)(rng);
  const int steps = std::uniform_int_distribution<int>(0, 40)(rng);
  auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
  std::uint32_t line = 1;
  for (int step = 0; step < steps; ++step, ++line) {
    const ProcessId process = pick(processes) - 1;  // includes a negative id
    if (!builder.has_open_call(process)) {
      Call call{std::string(1, static_cast<char>('a' + pick(4))), {}};
      for (int a = pick(3); a > 0; --a) call.args.push_back(random_value(rng));
      std::optional<Value> key;
      if (pick(3) == 0) key = random_value(rng);
      builder.invoke(process, std::move(call), pick(2) ? line : 0, std::move(key));
    } else {
      const Outcome outcome = std::array{Outcome::kOk, Outcome::kFail, Outcome::kPending}[pick(3)];
      builder.respond(process, outcome, random_value(rng), pick(2) ? line : 0);
    }
  }
  return std::move(builder).build();
}

void expect_same_sources(const History& a, const History& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto index = static_cast<OpIndex>(i);
    if (a.op(index).source.call_line != 0) {
      EXPECT_EQ(a.op(index).source.call_line, b.op(index).source.call_line);
    }
    if (a.op(index).source.return_line != 0) {
      EXPECT_EQ(a.op(index).source.return_line, b.op(index).source.return_line);
    }
  }
}

TEST(JsonFormatTest, JsonTextWritesMalformedUtf8AsReplacementCharacters) {
  const nlohmann::json document = {{"file", "a\xa3.json"}, {"n", 1}};
  EXPECT_THROW(static_cast<void>(document.dump()), nlohmann::json::type_error);
  EXPECT_EQ(json_text(document), "{\"file\":\"a\xef\xbf\xbd.json\",\"n\":1}");
  EXPECT_EQ(json_text(document, 1), "{\n \"file\": \"a\xef\xbf\xbd.json\",\n \"n\": 1\n}");
}

TEST(JsonFormatTest, RandomHistoriesRoundTrip) {
  std::mt19937 rng(20240601);
  for (int round = 0; round < 300; ++round) {
    const History original = random_history(rng);
    const nlohmann::json document = history_to_json(original, "stack");
    const History copy = history_from_json(document, "copy.json");
    ASSERT_EQ(copy, original) << document.dump();
    expect_same_sources(original, copy);

    // The same through text, with one operation per line.
    const std::string text = history_to_json_text(original, std::nullopt);
    const LoadedHistory loaded = load_history_text(text, "copy.json", Format::kAuto);
    ASSERT_EQ(loaded.format, Format::kJson);
    ASSERT_EQ(loaded.history, original) << text;
    EXPECT_FALSE(loaded.model.has_value());
  }
}

TEST(JsonFormatTest, PendingResultsAndKeysSurvive) {
  HistoryBuilder builder("h");
  builder.invoke(1, Call{"write", {Value(1)}}, 3, Value());  // a nil key is still a key
  builder.respond(1, Outcome::kPending, Value(":timed-out"), 4);
  builder.invoke(1, Call{"read", {}}, 5);
  const History original = std::move(builder).build();
  const History copy = history_from_json(history_to_json(original, std::nullopt), "c");
  EXPECT_EQ(copy, original);
  ASSERT_TRUE(copy.op(0).key.has_value());
  EXPECT_EQ(copy.op(0).result, Value(":timed-out"));
  EXPECT_EQ(copy.op(0).source.return_line, 4u);
}

TEST(JsonFormatTest, ReadsHandWrittenDocumentsWithDefaults) {
  const LoadedHistory loaded = load_history_text(
      R"({"model": "stack", "operations": [
  {"process": 1, "method": "pop", "call": 20, "return": 40, "result": 7},
  {"process": 0, "method": "push", "args": [7], "call": 10, "return": 30},
  {"process": 2, "method": "pop", "call": 50}
]})",
      "hand.json", Format::kAuto);
  EXPECT_EQ(loaded.model, "stack");
  const History& h = loaded.history;
  ASSERT_EQ(h.size(), 3u);
  EXPECT_EQ(h.op(0).to_string(), "p0 push(7) -> nil");  // numbered by call position
  EXPECT_EQ(h.op(0).source.call_line, 3u);              // the operation's line in the JSON
  EXPECT_EQ(h.op(1).to_string(), "p1 pop() -> 7");
  EXPECT_EQ(h.op(2).outcome, Outcome::kPending);
  EXPECT_FALSE(h.precedes(0, 1));
  EXPECT_TRUE(h.precedes(0, 2));
}

TEST(JsonFormatTest, RejectsBadDocumentsWithTheOperationsLine) {
  expect_input_error("{\"operations\": [\n{\"process\": 1, \"call\": 0}\n]}", Format::kJson, 2,
                     "operations[0]: \"method\" must be a non-empty string");
  expect_input_error(
      "{\"operations\": [\n{\"process\": 1, \"method\": \"m\", \"call\": 0,\n"
      " \"return\": 1, \"args\": [1.5]}]}",
      Format::kJson, 2, "\"args\": value 1.5 is not null");
  expect_input_error(
      "{\"operations\": [\n"
      "{\"process\": 1, \"method\": \"m\", \"call\": 0, \"return\": 3},\n"
      "{\"process\": 1, \"method\": \"m\", \"call\": 1, \"return\": 2}]}",
      Format::kJson, 3, "process 1 calls while its operations[0] has not returned");
  expect_input_error(
      "{\"operations\": [\n{\"process\": 1, \"method\": \"m\", \"call\": 0, \"return\": 0}]}",
      Format::kJson, 2, "\"return\" 0 is not after \"call\" 0");
  expect_input_error(
      "{\"operations\": [\n{\"process\": 1, \"method\": \"m\", \"call\": 0, \"outcome\": \"ok\"}]}",
      Format::kJson, 2, "needs a \"return\" position");
  expect_input_error(
      "{\"operations\": [\n{\"process\": 1, \"method\": \"m\", \"call\": 0, \"colour\": 1}]}",
      Format::kJson, 2, "unknown field \"colour\"");
  expect_input_error("{\"operations\": [\n{\"process\": 1,,}]}", Format::kJson, 2, "invalid JSON");
  expect_input_error("{\"linfault\": \"verdict\", \"operations\": []}", Format::kJson, 1,
                     "not a history");
  expect_input_error("{\"ops\": []}", Format::kJson, 1, "unknown field \"ops\"");
  expect_input_error("{\"model\": \"stack\"}", Format::kJson, 1, "missing \"operations\" array");
  const std::string deep = std::string(5000, '[') + std::string(5000, ']');
  expect_input_error(
      "{\"operations\": [\n{\"process\": 1, \"method\": \"m\", \"call\": 0, \"args\": [" + deep +
          "]}]}",
      Format::kJson, 2, "nested more than 256 deep");
}

// Regression tests of issue #19: a number beyond a double's range was an internal error (exit 70)
// and a repeated key silently kept its last value.
TEST(JsonFormatTest, StrictParsingErrorsNameTheLine) {
  const std::string op = "{\"process\": 1, \"method\": \"m\", \"call\": 0, \"return\": 1";
  expect_input_error("{\"operations\": [\n" + op + ", \"result\": " + std::string(400, '1') + "}]}",
                     Format::kJson, 2,
                     "invalid JSON: number 111111111111111111111111111... is out of range");
  expect_input_error("{\"operations\": [\n" + op + ",\n\"call\": 5}]}", Format::kJson, 3,
                     "invalid JSON: duplicate key \"call\"");
  expect_input_error("{\"model\": \"stack\",\n\"model\": \"queue\", \"operations\": []}",
                     Format::kJson, 2, "duplicate key \"model\"");
}

TEST(JsonFormatTest, DeepValuesAreReadInLinearTime) {
  // 150 levels: within the nesting limit; each level used to double the time of the check.
  const std::string deep = std::string(150, '[') + "1" + std::string(150, ']');
  const std::string op = "{\"process\": 0, \"method\": \"m\", \"args\": [" + deep + "], \"call\": ";
  const LoadedHistory loaded = load_history_text(
      "{\"operations\": [\n" + op + "0, \"return\": 1},\n" + op + "2, \"return\": 3}]}", "in.txt",
      Format::kJson);
  ASSERT_EQ(loaded.history.size(), 2u);
  EXPECT_FALSE(loaded.history.op(0).call.args[0] < loaded.history.op(1).call.args[0]);
  EXPECT_EQ(history_from_json(history_to_json(loaded.history, std::nullopt), "c"), loaded.history);
}

}  // namespace
}  // namespace linfault::history
