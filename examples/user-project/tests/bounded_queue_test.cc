// The project's own model "bounded-queue" (src/bounded_queue_model.h) and the two bounded queues
// checked against it: the model's sequential semantics, its capacity parameter and its errors,
// then linfault's GoogleTest check on the correct queue and on the buggy one, against the model
// and against the queues' own serial runs (options.spec = "serial"), with the same verdicts.

#include <linfault/check.h>
#include <linfault/gtest.h>
#include <linfault/model.h>
#include <linfault/recorder.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "../src/bounded_queue_model.h"

namespace {

// One call of a sequential (or hand-interleaved) history: a result, or none for a pending call.
struct Step {
  int thread;
  std::string method;
  std::vector<linfault::Value> args;
  std::optional<linfault::Value> result;
};

linfault::history::History sequential(const std::vector<Step>& steps) {
  linfault::Recorder recorder("bounded-queue");
  std::vector<linfault::Recorder::Op> pending;
  for (const Step& step : steps) {
    auto op = recorder.invoke(step.thread, step.method, step.args);
    if (step.result) {
      op.ok(*step.result);
    } else {
      pending.push_back(std::move(op));  // stays pending to the end
    }
  }
  return recorder.history();
}

linfault::Result verdict(const std::vector<Step>& steps, const std::string& model) {
  return linfault::check_history(sequential(steps), model, 10).result;
}

Step push(std::int64_t v, bool ok, int thread = 0) { return {thread, "try_push", {v}, ok}; }
Step pop(std::optional<std::int64_t> v, int thread = 0) {
  return {thread, "try_pop", {}, v ? linfault::Value(*v) : linfault::Value()};
}

TEST(BoundedQueueModel, SequentialSemanticsWithTheDefaultCapacityOfTwo) {
  // FIFO, full at 2, empty gives nil.
  EXPECT_EQ(verdict({push(1, true), push(2, true), push(3, false), pop(1), pop(2),
                     pop(std::nullopt), push(4, true), pop(4)},
                    "bounded-queue"),
            linfault::Result::kLinearizable);
  // Each wrong answer alone is a violation.
  EXPECT_EQ(verdict({push(1, true), push(2, true), push(3, true)}, "bounded-queue"),
            linfault::Result::kViolation);  // a third element in a queue of 2
  EXPECT_EQ(verdict({push(1, true), push(2, false)}, "bounded-queue"),
            linfault::Result::kViolation);  // refused while there is room
  EXPECT_EQ(verdict({push(1, true), push(2, true), pop(2)}, "bounded-queue"),
            linfault::Result::kViolation);  // not FIFO
  EXPECT_EQ(verdict({push(1, true), pop(std::nullopt)}, "bounded-queue"),
            linfault::Result::kViolation);  // nil from a non-empty queue
}

TEST(BoundedQueueModel, CapacityParameter) {
  const std::vector<Step> three = {push(1, true), push(2, true), push(3, true), pop(1)};
  EXPECT_EQ(verdict(three, "bounded-queue"), linfault::Result::kViolation);
  EXPECT_EQ(verdict(three, "bounded-queue(capacity=3)"), linfault::Result::kLinearizable);
  EXPECT_EQ(verdict({push(1, true), push(2, false)}, "bounded-queue(capacity=1)"),
            linfault::Result::kLinearizable);

  linfault::ModelParams params;
  params.add("capacity", linfault::Value(5));
  EXPECT_EQ(user::BoundedQueueModel(params).capacity(), 5u);
  EXPECT_TRUE(params.empty()) << "the model takes its parameter";
  EXPECT_EQ(user::BoundedQueueModel().capacity(), 2u);
}

TEST(BoundedQueueModel, BadParametersAreSpecErrors) {
  const std::vector<Step> steps = {push(1, true)};
  for (const char* spec :
       {"bounded-queue(size=3)", "bounded-queue(capacity=0)", "bounded-queue(capacity=\"two\")"}) {
    try {
      verdict(steps, spec);
      ADD_FAILURE() << spec << " was accepted";
    } catch (const linfault::ModelSpecError& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
      EXPECT_NE(
          message.find(std::string(spec).find("size") != std::string::npos ? "size" : "capacity"),
          std::string::npos)
          << message;
    }
  }
}

TEST(BoundedQueueModel, UnknownMethodsAndBadResultsAreModelErrors) {
  user::BoundedQueueModel model;
  const linfault::history::History h = sequential({{0, "push", {1}, linfault::Value()},
                                                   {0, "try_push", {1}, linfault::Value(3)},
                                                   {0, "try_pop", {7}, linfault::Value()}});
  for (const linfault::Operation& op : h.operations()) {
    const auto compiled = model.compile(op);
    ASSERT_TRUE(std::holds_alternative<linfault::ModelError>(compiled)) << op.to_string();
    EXPECT_NE(std::get<linfault::ModelError>(compiled).message.find("bounded-queue"),
              std::string::npos);
  }
}

TEST(BoundedQueueModel, PendingCallsMayOrMayNotHaveTakenEffect) {
  // A push that never returned, on a full queue: it changed nothing, or took the room the first
  // pop made.
  const std::vector<Step> before = {
      push(1, true, 0), push(2, true, 0), {1, "try_push", {3}, std::nullopt}, pop(1, 0), pop(2, 0)};
  std::vector<Step> without = before;
  without.push_back(pop(std::nullopt, 0));
  std::vector<Step> with = before;
  with.push_back(pop(3, 0));
  EXPECT_EQ(verdict(without, "bounded-queue"), linfault::Result::kLinearizable);
  EXPECT_EQ(verdict(with, "bounded-queue"), linfault::Result::kLinearizable);
  // But not both: a pending push of 3 cannot be popped twice.
  with.push_back(pop(3, 0));
  EXPECT_EQ(verdict(with, "bounded-queue"), linfault::Result::kViolation);
}

TEST(BoundedQueueModel, BuildAndRevealRecreateAndExposeAState) {
  user::BoundedQueueModel model;
  const user::BoundedQueueModel::State state = {4, 9};
  const std::vector<linfault::Call> build = model.build(state);
  ASSERT_EQ(build.size(), 2u);
  EXPECT_EQ(build[0].to_string(), "try_push(4)");
  EXPECT_EQ(build[1].to_string(), "try_push(9)");
  const std::vector<linfault::Call> reveal = model.reveal(state);
  EXPECT_EQ(reveal.size(), 3u);  // both elements, then nil
  EXPECT_EQ(reveal.back().to_string(), "try_pop()");
  EXPECT_EQ(model.describe(state), "[4 9] of 2");
}

linfault::testing::Options budget() {
  linfault::testing::Options options;
  options.histories = 3000;
  options.seconds = 60;
  options.threads = 2;
  options.ops = 3;
  return options;
}

TEST(BoundedQueue, IsLinearizable) {
  EXPECT_TRUE(linfault::testing::Linearizable("bounded_queue", budget()));
}

TEST(BoundedQueueBuggy, CheckFindsTheLostPush) {
  const linfault::CheckResult result =
      linfault::check("bounded_queue_buggy", linfault::testing::options_for_current_test(budget()));
  ASSERT_TRUE(result.violation) << "the two producers' race was not found";
  EXPECT_LE(result.concurrent_operations(), 3u) << result.report;
  EXPECT_FALSE(linfault::testing::Linearizable("bounded_queue_buggy", budget()));
}

linfault::testing::Options serial_budget() {
  linfault::testing::Options options = budget();
  options.spec = "serial";  // no model: each queue's own serial runs are the specification
  return options;
}

TEST(BoundedQueue, IsLinearizableWithRespectToItsSerialRuns) {
  EXPECT_TRUE(linfault::testing::Linearizable("bounded_queue", serial_budget()));
}

TEST(BoundedQueueBuggy, SerialSpecFindsTheLostPushToo) {
  const linfault::CheckResult result = linfault::check(
      "bounded_queue_buggy", linfault::testing::options_for_current_test(serial_budget()));
  ASSERT_TRUE(result.violation) << "the two producers' race was not found without the model";
  EXPECT_LE(result.concurrent_operations(), 3u) << result.report;
  EXPECT_NE(result.report.find("try_push"), std::string::npos) << result.report;
}

}  // namespace
