#include "detect/checker.h"

#include <gtest/gtest.h>

#include <chrono>

#include "detect/witness.h"
#include "history/formats.h"
#include "spec/generator.h"
#include "spec/registry.h"
#include "tests/verdict_rows.h"

namespace linfault::detect {
namespace {

using history::Call;
using history::HistoryBuilder;
using history::Outcome;
using history::Value;

// A queue history where p0 enqueues 7 while p1 dequeues it (they overlap, so linearizable),
// with happens-before clocks: p1's return has seen `seen` of p0's events, and p0's call is its
// event 1.
history::History overlapping_enqueue_dequeue(std::uint32_t seen, bool clocks = true) {
  HistoryBuilder b("sync");
  b.invoke(0, {"enq", {7}});
  b.invoke(1, {"deq", {}});
  b.respond(0, Outcome::kOk, Value());
  b.respond(1, Outcome::kOk, 7);
  history::History h = std::move(b).build();
  if (clocks) h.set_clocks({{0, 1, {2, 0}}, {1, 1, {seen, 2}}});
  return h;
}

TEST(Checker, ATakenElementNeedsHappensBeforeFromItsInsertion) {
  const Verdict unordered = check_history("queue", overlapping_enqueue_dequeue(0), {});
  ASSERT_EQ(unordered.result, Result::kViolation);
  EXPECT_TRUE(unordered.unsynchronized);
  EXPECT_EQ(unordered.culprit, 1);
  EXPECT_EQ(unordered.source, 0);
  EXPECT_EQ(unordered.prefix_events, 4u);
  // The enqueue's call (its event 1) happens-before the dequeue's return.
  EXPECT_EQ(check_history("queue", overlapping_enqueue_dequeue(1), {}).result,
            Result::kLinearizable);
  // Without clocks, or with the requirement off, only linearizability counts.
  EXPECT_EQ(check_history("queue", overlapping_enqueue_dequeue(0, false), {}).result,
            Result::kLinearizable);
  CheckOptions off;
  off.synchronization = false;
  EXPECT_EQ(check_history("queue", overlapping_enqueue_dequeue(0), off).result,
            Result::kLinearizable);
  // A prefix keeps the clocks, so the shortest failing prefix fails alone.
  const history::History h = overlapping_enqueue_dequeue(0);
  EXPECT_TRUE(check_history("queue", h.prefix(unordered.prefix_events), {}).unsynchronized);
}

TEST(Checker, ReadsOfTheInitialValueAndEmptyPopsNeedNoSynchronization) {
  // A register read of its initial value (nil here) and a pop of an empty stack take nothing.
  HistoryBuilder b("init");
  b.invoke(0, {"write", {3}});
  b.invoke(1, {"read", {}});
  b.respond(1, Outcome::kOk, Value());
  b.respond(0, Outcome::kOk, Value());
  history::History reg = std::move(b).build();
  reg.set_clocks({{0, 1, {1, 0}}, {1, 1, {0, 1}}});
  EXPECT_EQ(check_history("register", reg, {}).result, Result::kLinearizable);
  HistoryBuilder s("empty");
  s.invoke(0, {"push", {3}});
  s.invoke(1, {"pop", {}});
  s.respond(1, Outcome::kOk, Value());
  s.respond(0, Outcome::kOk, Value());
  history::History stack = std::move(s).build();
  stack.set_clocks({{0, 1, {1, 0}}, {1, 1, {0, 1}}});
  EXPECT_EQ(check_history("stack", stack, {}).result, Result::kLinearizable);
}

TEST(Checker, SequentialStackIsLinearizableWithWitness) {
  HistoryBuilder b("seq");
  b.call(0, {"push", {1}}, Value());
  b.call(1, {"push", {2}}, Value());
  b.call(0, {"pop", {}}, 2);
  const history::History h = std::move(b).build();
  const spec::StackModel model;
  const Verdict v = check(model, h, {});
  ASSERT_EQ(v.result, Result::kLinearizable);
  EXPECT_EQ(v.witness, (std::vector<history::OpIndex>{0, 1, 2}));
  EXPECT_EQ(validate_witness(model, h, v.witness), std::nullopt);
  EXPECT_EQ(v.model, "stack");
  EXPECT_EQ(v.algorithm, "search");
  EXPECT_EQ(v.operations, 3u);
}

// A pop that returns a value nobody pushed. The search's frontier stops at C's response (C's
// empty pop needs A to have removed 1, which A's recorded result forbids), but in the prefix
// that ends there A is pending and may return anything: the shortest non-linearizable prefix is
// the whole history, ending with A's response.
TEST(Checker, ShortestPrefixTreatsCutOffResponsesAsUnknown) {
  HistoryBuilder b("pop7");
  b.invoke(0, {"pop", {}});             // e0  A
  b.invoke(1, {"push", {1}});           // e1  B
  b.respond(1, Outcome::kOk, Value());  // e2
  b.invoke(2, {"pop", {}});             // e3  C
  b.respond(2, Outcome::kOk, Value());  // e4  C -> empty
  b.respond(0, Outcome::kOk, 7);        // e5  A -> 7
  const history::History h = std::move(b).build();
  const spec::StackModel model;
  const Verdict v = check(model, h, {});
  ASSERT_EQ(v.result, Result::kViolation);
  EXPECT_EQ(v.prefix_events, 6u);
  EXPECT_EQ(v.culprit, 0);
  EXPECT_TRUE(v.prefix_exact);
  EXPECT_EQ(brute_force_shortest_prefix(model, h), 6u);
  EXPECT_EQ(validate_witness(model, h, v.longest_partial, 5), std::nullopt);
}

TEST(Checker, ViolationPrefixAndCulpritComputedByHand) {
  // write(1) completes, then a read returns 2: the read's response (event 3) is the culprit.
  HistoryBuilder b("reg");
  b.call(0, {"write", {1}}, Value());  // e0 e1
  b.invoke(1, {"read", {}});           // e2
  b.respond(1, Outcome::kOk, 2);       // e3
  b.call(0, {"write", {2}}, Value());  // e4 e5
  const history::History h = std::move(b).build();
  const Verdict v = check(spec::RegisterModel{}, h, {});
  ASSERT_EQ(v.result, Result::kViolation);
  EXPECT_EQ(v.prefix_events, 4u);
  EXPECT_EQ(v.culprit, 1);
  EXPECT_EQ(v.longest_partial, (std::vector<history::OpIndex>{0}));
}

TEST(Checker, PendingOpsMayTakeEffectOrNot) {
  HistoryBuilder b("pending");
  b.invoke(0, {"write", {5}});  // never returns
  b.call(1, {"read", {}}, 5);   // sees it
  b.invoke(2, {"write", {6}});  // never returns, never seen
  b.call(1, {"read", {}}, 5);
  const history::History h = std::move(b).build();
  const spec::RegisterModel model;
  const Verdict v = check(model, h, {});
  ASSERT_EQ(v.result, Result::kLinearizable);
  EXPECT_EQ(validate_witness(model, h, v.witness), std::nullopt);
  EXPECT_EQ(std::count(v.witness.begin(), v.witness.end(), 2), 0);
}

TEST(Checker, FailedWritesAreLeftOutButFailedCasMeansFalse) {
  HistoryBuilder b("etcd");
  b.invoke(0, {"write", {1}});
  b.respond(0, Outcome::kFail, Value());
  b.call(1, {"read", {}}, Value());  // nil: the failed write did not happen
  const history::History h = std::move(b).build();
  EXPECT_EQ(check_history("cas-register", h, {}).result, Result::kLinearizable);

  HistoryBuilder c("etcd");
  c.call(0, {"write", {1}}, Value());
  c.invoke(1, {"cas", {Value::List{1, 2}}});
  c.respond(1, Outcome::kFail, Value());  // cas returned false although the value was 1
  const history::History bad = std::move(c).build();
  const Verdict v = check_history("cas-register", bad, {});
  ASSERT_EQ(v.result, Result::kViolation);
  EXPECT_EQ(v.culprit, 1);
}

TEST(Checker, PartitionsMapBackToFullHistory) {
  HistoryBuilder b("kv");
  b.call(0, {"put", {"a", "x"}}, Value());  // e0 e1
  b.call(1, {"put", {"b", "y"}}, Value());  // e2 e3
  b.call(0, {"get", {"a"}}, "x");           // e4 e5
  b.call(1, {"get", {"b"}}, "z");           // e6 e7: wrong
  b.call(0, {"get", {"a"}}, "q");           // e8 e9: wrong too, but later
  const history::History h = std::move(b).build();
  for (bool partition : {true, false}) {
    CheckOptions options;
    options.partition = partition;
    const Verdict v = check(spec::KvModel{}, h, options);
    ASSERT_EQ(v.result, Result::kViolation);
    EXPECT_EQ(v.prefix_events, 8u);
    EXPECT_EQ(v.culprit, 3);
    EXPECT_TRUE(v.prefix_exact);
    EXPECT_EQ(v.partitions, partition ? 2u : 1u);
    if (partition) {
      EXPECT_EQ(v.partition_key, Value("b"));
    }
  }
}

TEST(Checker, PartitionedWitnessRespectsRealTimeAcrossKeys) {
  HistoryBuilder b("kv");
  b.invoke(0, {"put", {"a", "1"}});
  b.invoke(1, {"put", {"b", "2"}});
  b.respond(0, Outcome::kOk, Value());
  b.call(0, {"get", {"b"}}, "2");
  b.respond(1, Outcome::kOk, Value());
  b.call(1, {"get", {"a"}}, "1");
  const history::History h = std::move(b).build();
  const spec::KvModel model;
  const Verdict v = check(model, h, {});
  ASSERT_EQ(v.result, Result::kLinearizable);
  EXPECT_EQ(v.partitions, 2u);
  EXPECT_EQ(validate_witness(model, h, v.witness), std::nullopt);
}

// Twenty overlapping writes, then a read of a value never written: exhaustive search would
// visit millions of configurations.
history::History hard_history() {
  HistoryBuilder b("hard");
  for (int p = 0; p < 20; ++p) b.invoke(p, {"write", {p}});
  for (int p = 0; p < 20; ++p) b.respond(p, Outcome::kOk, Value());
  for (int p = 0; p < 20; ++p) b.invoke(p, {"write", {p + 100}});
  for (int p = 0; p < 20; ++p) b.respond(p, Outcome::kOk, Value());
  b.call(0, {"read", {}}, 999);
  return std::move(b).build();
}

TEST(Checker, TimeoutIsHonouredPromptly) {
  CheckOptions options;
  options.timeout_seconds = 0.05;
  const auto start = std::chrono::steady_clock::now();
  const Verdict v = check(spec::RegisterModel{}, hard_history(), options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(v.result, Result::kUnknown);
  EXPECT_NE(v.reason.find("timeout"), std::string::npos) << v.reason;
  EXPECT_LT(seconds, 0.5);
}

TEST(Checker, MemoryLimitIsHonoured) {
  CheckOptions options;
  options.memory_limit_bytes = 1 << 20;
  options.timeout_seconds = 5;
  const Verdict v = check(spec::RegisterModel{}, hard_history(), options);
  EXPECT_EQ(v.result, Result::kUnknown);
  EXPECT_NE(v.reason.find("memory limit"), std::string::npos) << v.reason;
  EXPECT_LT(v.memo_bytes, std::size_t{4} << 20);
}

TEST(Checker, ModelErrorsNameFileAndLine) {
  HistoryBuilder b("etcd_003.log");
  b.invoke(0, {"foo", {}}, 57);
  b.respond(0, Outcome::kOk, Value(), 58);
  const history::History h = std::move(b).build();
  try {
    check_history("cas-register", h, {});
    FAIL() << "expected InputError";
  } catch (const history::InputError& e) {
    EXPECT_STREQ(e.what(), "etcd_003.log:57: cas-register has no method 'foo'");
  }
  EXPECT_THROW(check_history("no-such-model", h, {}), spec::UnknownModel);
}

// The search run in slices of a few steps ends exactly as one uninterrupted run: same end, same
// frontier, same order, same states.
TEST(Checker, SearchInSlicesEndsAsOneRun) {
  for (const bool violation : {false, true}) {
    for (const std::uint64_t seed : {1, 2, 3}) {
      spec::GeneratorOptions g;
      g.model = "queue";
      g.operations = 40;
      g.threads = 4;
      g.pending_fraction = 0.3;
      g.violation = violation;
      g.seed = seed;
      const history::History h = spec::generate_history(g).history;
      const spec::QueueModel model;
      std::vector<spec::QueueModel::Op> compiled;
      compiled.reserve(h.size());
      std::vector<internal::SearchOp<spec::QueueModel::Op>> ops;
      for (history::OpIndex i = 0; i < static_cast<history::OpIndex>(h.size()); ++i) {
        auto c = model.compile(h.op(i));
        if (!std::holds_alternative<spec::QueueModel::Op>(c)) continue;  // took no effect
        compiled.push_back(std::get<spec::QueueModel::Op>(c));
        ops.push_back({i, h.op(i).call_event, h.op(i).return_event, &compiled.back()});
      }
      std::sort(ops.begin(), ops.end(),
                [](const auto& a, const auto& b) { return a.call < b.call; });
      internal::SearchLimits limits_whole{CheckOptions{}};
      internal::SearchLimits limits_sliced{CheckOptions{}};
      const internal::SearchResult whole = internal::Search(model, ops, limits_whole).run();
      internal::Search sliced(model, ops, limits_sliced);
      std::optional<internal::SearchResult> result;
      int slices = 0;
      while (!(result = sliced.advance(7))) ++slices;
      SCOPED_TRACE(testing::Message() << "seed " << seed << " violation " << violation);
      EXPECT_GT(slices, 3);
      EXPECT_EQ(result->end, whole.end);
      EXPECT_EQ(result->frontier, whole.frontier);
      EXPECT_EQ(result->order, whole.order);
      EXPECT_EQ(result->states, whole.states);
      EXPECT_EQ(whole.end,
                violation ? internal::SearchEnd::kViolation : internal::SearchEnd::kLinearizable);
    }
  }
}

// Porcupine's c50-bad: key "3" fails at event 442 within a few thousand states, while key "0"
// alone needs millions of states to run its whole search. Partitions advance in slices, so the
// early violation bounds key "0" and the exact prefix costs little, even on one thread (before
// the slices: 17 million states and the memory limit).
TEST(Checker, CheapViolationInOnePartitionBoundsTheExpensiveOnes) {
  const auto loaded =
      history::load_history_file(tests::shared_data_path("porcupine/kv/c50-bad.txt"));
  CheckOptions options;
  options.threads = 1;
  options.timeout_seconds = 20;
  const Verdict v = check_history("kv", loaded.history, options);
  ASSERT_EQ(v.result, Result::kViolation) << v.reason;
  EXPECT_TRUE(v.prefix_exact) << v.reason;
  EXPECT_EQ(v.prefix_events, 443u);
  ASSERT_TRUE(v.partition_key.has_value());
  EXPECT_EQ(*v.partition_key, Value("3"));
  EXPECT_LT(v.states_explored, 1'000'000u);
  // From the outside: the prefix fails, and the one event shorter passes.
  const Verdict whole = check_history("kv", loaded.history.prefix(v.prefix_events), options);
  EXPECT_EQ(whole.result, Result::kViolation);
  const Verdict before = check_history("kv", loaded.history.prefix(v.prefix_events - 1), options);
  EXPECT_EQ(before.result, Result::kLinearizable);
}

// Every history of the shared data set whose verdict the search decides quickly.
TEST(Checker, AgreesWithPublishedVerdicts) {
  int checked = 0;
  for (const tests::VerdictRow& row : tests::verdict_rows("")) {
    const std::string& path = row.path;
    const bool wanted =
        path.find("jepsen/") != std::string::npos || path.find("fastlin/") != std::string::npos ||
        path.find("kv/c01") != std::string::npos || path.find("kv/c10") != std::string::npos;
    if (!wanted || path.find("etcd_095") != std::string::npos) continue;
    SCOPED_TRACE(path);
    const auto loaded = history::load_history_file(tests::shared_data_path(path));
    CheckOptions options;
    options.timeout_seconds = 10;
    const Verdict v = check_history(row.model, loaded.history, options);
    EXPECT_EQ(result_name(v.result), row.expected);
    if (v.result == Result::kLinearizable && row.model == "cas-register") {
      EXPECT_EQ(validate_witness(spec::CasRegisterModel{}, loaded.history, v.witness),
                std::nullopt);
    }
    ++checked;
  }
  EXPECT_GT(checked, 100);
}

}  // namespace
}  // namespace linfault::detect
