// `linfault check` with model parameters (--init, "cas-register(init=0)", "queue(fifo=...)") and
// the mutex, multi-register and bag models, on the hand-written histories of tests/data/ and
// JSON histories written by the tests.

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/cli_fixture.h"

namespace linfault::tests {
namespace {

using ModelsCliTest = CliFixture;

TEST_F(ModelsCliTest, CasRegisterStartingAtZeroNeedsInitZero) {
  const std::string file = "tests/data/cas-register-init0.edn";
  const RunResult without = run("check " + file);
  EXPECT_EQ(without.exit_code, 1) << without.out << without.err;
  EXPECT_NE(without.out.find("model cas-register,"), std::string::npos) << without.out;
  EXPECT_NE(without.out.find("cas([0 1]) -> true"), std::string::npos) << without.out;
  const RunResult with = run("check " + file + " --init 0");
  EXPECT_EQ(with.exit_code, 0) << with.out << with.err;
  EXPECT_NE(with.out.find("model cas-register(init=0)"), std::string::npos) << with.out;
  // The same as a model spec; the verdict names the model with its parameter.
  const RunResult spec = run("check " + file + " --json --model 'cas-register(init=0)'");
  EXPECT_EQ(spec.exit_code, 0) << spec.err;
  EXPECT_EQ(nlohmann::json::parse(spec.out)["model"], "cas-register(init=0)");
  // The string "0" is not the integer 0.
  EXPECT_EQ(run("check " + file + " --init '\"0\"'").exit_code, 1);
  // --init replaces an init the spec gives.
  EXPECT_EQ(run("check " + file + " --model 'cas-register(init=5)' --init 0").exit_code, 0);
}

TEST_F(ModelsCliTest, InitWorksForLocalizeAndMinimizeToo) {
  const std::string file = "tests/data/cas-register-init0.edn";
  EXPECT_EQ(run("localize " + file).exit_code, 1);
  EXPECT_EQ(run("localize " + file + " --init 0").exit_code, 0);
  const RunResult minimized = run("minimize " + file + " --init 0");
  EXPECT_NE(minimized.out.find("linearizable"), std::string::npos) << minimized.out;
  EXPECT_EQ(minimized.out.find("not linearizable"), std::string::npos) << minimized.out;
}

TEST_F(ModelsCliTest, BadParametersAreUsageErrorsOnTheCommandLine) {
  const std::string file = "tests/data/cas-register-init0.edn";
  const RunResult unknown = run("check " + file + " --model 'cas-register(size=2)'");
  EXPECT_EQ(unknown.exit_code, 64);
  expect_one_line_error(unknown, "model 'cas-register'", "takes no parameter 'size'");
  const RunResult none = run("check tests/data/mutex-handoff.edn --init 0");
  EXPECT_EQ(none.exit_code, 64);
  expect_one_line_error(none, "--init: ", "model 'mutex' takes no parameter 'init'");
  const RunResult bad_value = run("check " + file + " --init '[1'");
  EXPECT_EQ(bad_value.exit_code, 64);
  expect_one_line_error(bad_value, "--init: ", "bad parameter value '[1'");
  const RunResult syntax = run("check " + file + " --model 'cas-register(init=0'");
  EXPECT_EQ(syntax.exit_code, 64);
  expect_one_line_error(syntax, "bad model spec", "expected ',' or ')'");
}

TEST_F(ModelsCliTest, BadParametersInAFileAreDataErrorsWithFileAndLine) {
  const std::string path = (dir_ / "bad-model.json").string();
  std::ofstream(path) << "{\"linfault\": \"history\", \"version\": 1,\n"
                         " \"model\": \"register(init=0, depth=3)\",\n"
                         " \"operations\": []}\n";
  const RunResult result = run("check '" + path + "'");
  EXPECT_EQ(result.exit_code, 65);
  expect_one_line_error(result, path + ":2: ", "model 'register' takes no parameter 'depth'");
  // A parameter the file gives is honoured.
  std::ofstream(path) << "{\"linfault\": \"history\", \"version\": 1,\n"
                         " \"model\": \"register(init=7)\", \"operations\": [\n"
                         "{\"process\": 0, \"method\": \"read\", \"args\": [], \"result\": 7,"
                         " \"outcome\": \"ok\", \"call\": 0, \"return\": 1}]}\n";
  const RunResult honoured = run("check '" + path + "'");
  EXPECT_EQ(honoured.exit_code, 0) << honoured.out << honoured.err;
  EXPECT_NE(honoured.out.find("model register(init=7)"), std::string::npos) << honoured.out;
  EXPECT_EQ(run("check '" + path + "' --init nil").exit_code, 1);
}

TEST_F(ModelsCliTest, MutexIsImpliedAndADoubleAcquireIsAViolation) {
  const RunResult bad = run("check tests/data/mutex-double-acquire.edn");
  EXPECT_EQ(bad.exit_code, 1) << bad.out << bad.err;
  EXPECT_NE(bad.out.find("model mutex"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("p2 acquire()"), std::string::npos) << bad.out;
  const RunResult ok = run("check tests/data/mutex-handoff.edn");
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
}

TEST_F(ModelsCliTest, MultiRegisterTransactionsAreAtomic) {
  const RunResult torn = run("check tests/data/multi-register-torn-read.edn");
  EXPECT_EQ(torn.exit_code, 1) << torn.out << torn.err;
  EXPECT_NE(torn.out.find("model multi-register"), std::string::npos) << torn.out;
  EXPECT_NE(torn.out.find("-> [[\":r\" \":x\" 2] [\":r\" \":y\" 1]]"), std::string::npos)
      << torn.out;
  const RunResult atomic = run("check tests/data/multi-register-atomic.edn");
  EXPECT_EQ(atomic.exit_code, 0) << atomic.out << atomic.err;
}

// One call of a sequential JSON history: process, method, argument (or none), result.
struct Line {
  int process;
  std::string method;
  std::string arg;  // JSON, "" for no argument
  std::string result = "null";
};

// A JSON history whose calls run one after another; `model` is its "model" field, or none.
std::string sequential_history(const std::vector<Line>& lines, const std::string& model = "") {
  std::string out = "{\"linfault\": \"history\", \"version\": 1,";
  if (!model.empty()) out += " \"model\": " + nlohmann::json(model).dump() + ",";
  out += "\n \"operations\": [\n";
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const Line& l = lines[i];
    out += std::string(i ? ",\n" : "") + "{\"process\": " + std::to_string(l.process) +
           ", \"method\": \"" + l.method + "\", \"args\": [" + l.arg +
           "], \"result\": " + l.result +
           ", \"outcome\": \"ok\", \"call\": " + std::to_string(2 * i) +
           ", \"return\": " + std::to_string(2 * i + 1) + "}";
  }
  return out + "]}\n";
}

TEST_F(ModelsCliTest, PerProducerFifoOrdersOnlyOneProducersElements) {
  // 3 is enqueued after 1 and 2, by another producer, and dequeued first: a violation of a
  // global FIFO, not of FIFO per producer (moodycamel::ConcurrentQueue's contract).
  const std::string across = write("across.json", sequential_history({
                                                      {1, "enq", "1"},
                                                      {1, "enq", "2"},
                                                      {2, "enqueue", "3"},
                                                      {3, "deq", "", "3"},
                                                      {3, "try_dequeue", "", "1"},
                                                      {3, "deq", "", "2"},
                                                      {3, "deq", "", "null"},
                                                  }));
  // (The global queue has no try_dequeue.)
  const std::string global = write("global.json", sequential_history({
                                                      {1, "enq", "1"},
                                                      {1, "enq", "2"},
                                                      {2, "enqueue", "3"},
                                                      {3, "deq", "", "3"},
                                                      {3, "deq", "", "1"},
                                                      {3, "deq", "", "2"},
                                                  }));
  const RunResult fifo = run("check '" + global + "' --model queue");
  EXPECT_EQ(fifo.exit_code, 1) << fifo.out << fifo.err;
  const RunResult per_producer = run("check '" + across + "' --model 'queue(fifo=per-producer)'");
  EXPECT_EQ(per_producer.exit_code, 0) << per_producer.out << per_producer.err;
  EXPECT_NE(per_producer.out.find("model queue(fifo=\"per-producer\")"), std::string::npos)
      << per_producer.out;
  EXPECT_EQ(run("check '" + global + "' --model 'queue(fifo=per-producer)'").exit_code, 0);
  // Never the queue monitor: the search decides, with --algo auto.
  const RunResult json = run("check '" + global + "' --json --model 'queue(fifo=per-producer)'");
  EXPECT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json verdict = nlohmann::json::parse(json.out);
  EXPECT_EQ(verdict["model"], "queue(fifo=\"per-producer\")");
  EXPECT_EQ(verdict["algorithm"].get<std::string>().rfind("search", 0), 0u) << json.out;
  EXPECT_NE(
      run("check '" + global + "' --algo monitor --model 'queue(fifo=per-producer)'").exit_code, 0);
  // A file may name the model itself.
  const std::string named =
      write("named.json",
            sequential_history({{1, "enq", "1"}, {2, "enq", "2"}, {3, "try_dequeue", "", "2"}},
                               "queue(fifo=per-producer)"));
  const RunResult from_file = run("check '" + named + "'");
  EXPECT_EQ(from_file.exit_code, 0) << from_file.out << from_file.err;
  EXPECT_NE(from_file.out.find("model queue(fifo=\"per-producer\")"), std::string::npos)
      << from_file.out;
}

TEST_F(ModelsCliTest, PerProducerFifoStillOrdersOneProducer) {
  const std::string within = write("within.json", sequential_history({
                                                      {1, "enq", "1"},
                                                      {1, "enq", "2"},
                                                      {2, "enq", "3"},
                                                      {3, "try_dequeue", "", "2"},
                                                      {3, "try_dequeue", "", "1"},
                                                  }));
  const RunResult r = run("check '" + within + "' --model 'queue(fifo=per-producer)'");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("try_dequeue() -> 2"), std::string::npos) << r.out;
}

TEST_F(ModelsCliTest, OnlyTryDequeueMayFindNothingInAQueueThatHoldsSomething) {
  const auto history = [](const std::string& method) {
    return sequential_history({{1, "enq", "1"}, {2, method, "", "null"}, {2, "deq", "", "1"}});
  };
  const std::string spurious = write("spurious.json", history("try_dequeue"));
  const std::string strict = write("strict.json", history("deq"));
  EXPECT_EQ(run("check '" + spurious + "' --model 'queue(fifo=per-producer)'").exit_code, 0);
  EXPECT_EQ(run("check '" + strict + "' --model 'queue(fifo=per-producer)'").exit_code, 1);
  EXPECT_EQ(run("check '" + strict + "' --model queue").exit_code, 1);
}

TEST_F(ModelsCliTest, BadQueueParametersAreOneLineUsageErrors) {
  const std::string file = write("q.json", sequential_history({{1, "enq", "1"}}));
  const RunResult sideways = run("check '" + file + "' --model 'queue(fifo=sideways)'");
  EXPECT_EQ(sideways.exit_code, 64);
  expect_one_line_error(sideways,
                        "model 'queue': ", "fifo must be global or per-producer, got \"sideways\"");
  const RunResult init = run("check '" + file + "' --model 'queue(fifo=per-producer)' --init 0");
  EXPECT_EQ(init.exit_code, 64);
  expect_one_line_error(init, "--init: ", "model 'queue' takes no parameter 'init'");
  const RunResult bag = run("check '" + file + "' --model 'bag(fifo=global)'");
  EXPECT_EQ(bag.exit_code, 64);
  expect_one_line_error(bag, "model 'bag'", "takes no parameter 'fifo'");
  // fifo=global is the plain queue, named "queue".
  const RunResult global = run("check '" + file + "' --json --model 'queue(fifo=global)'");
  EXPECT_EQ(global.exit_code, 0) << global.err;
  EXPECT_EQ(nlohmann::json::parse(global.out)["model"], "queue");
}

TEST_F(ModelsCliTest, ABagTakesAnyElementButNilOnlyWhenEmpty) {
  const std::string any = write("any.json", sequential_history({
                                                {1, "add", "1"},
                                                {2, "put", "2"},
                                                {1, "add", "1"},
                                                {3, "take", "", "2"},
                                                {3, "take", "", "1"},
                                                {3, "take", "", "1"},
                                                {3, "take", "", "null"},
                                            }));
  const RunResult ok = run("check '" + any + "' --model bag");
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("model bag"), std::string::npos) << ok.out;
  const std::string empty =
      write("empty.json", sequential_history({{1, "add", "1"}, {3, "take", "", "null"}}, "bag"));
  const RunResult bad = run("check '" + empty + "'");
  EXPECT_EQ(bad.exit_code, 1) << bad.out << bad.err;
  EXPECT_NE(bad.out.find("take() -> nil"), std::string::npos) << bad.out;
}

}  // namespace
}  // namespace linfault::tests
