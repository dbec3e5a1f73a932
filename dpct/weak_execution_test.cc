// Controlled executions under the C++20 model (memory model c11): Atomic<T>, AtomicFlag, locks
// and fences in the executor, read decisions drawn by WeakReadScheduler, recorded in the schedule
// and replayed by ReplayScheduler.

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <new>
#include <set>
#include <string>
#include <utility>

#include "dpct/executor.h"
#include "dpct/litmus.h"
#include "dpct/random_scheduler.h"
#include "dpct/replay_scheduler.h"
#include "dpct/schedule.h"
#include "dpct/test_objects.h"
#include "dpct/weak_reads.h"

namespace linfault::dpct {
namespace {

using fixtures::factory_of;
using history::Call;
using history::Value;

constexpr std::memory_order kRelaxed = std::memory_order_relaxed;
constexpr std::memory_order kRelease = std::memory_order_release;
constexpr std::memory_order kAcquire = std::memory_order_acquire;
constexpr std::memory_order kSeqCst = std::memory_order_seq_cst;

// Message passing: "send" writes the data, then raises the flag; "receive" returns the data when
// it sees the flag, -1 otherwise. With `publish` and `consume` orders, or relaxed accesses and
// fences.
class MessagePassing final : public ObjectUnderTest {
 public:
  MessagePassing(std::memory_order publish, std::memory_order consume, bool fences)
      : publish_(publish), consume_(consume), fences_(fences) {}
  Value invoke(const Call& c) override {
    if (c.method == "send") {
      data_.store(42, kRelaxed);
      if (fences_) dpct::atomic_thread_fence(kRelease);
      flag_.store(1, publish_);
      return {};
    }
    if (flag_.load(consume_) == 0) return -1;
    if (fences_) dpct::atomic_thread_fence(kAcquire);
    return data_.load(kRelaxed);
  }

 private:
  std::memory_order publish_, consume_;
  bool fences_;
  Atomic<int> data_{0};
  Atomic<int> flag_{0};
};

Workload send_receive() {
  Workload w;
  w.threads = {{Call{"send", {}}}, {Call{"receive", {}}}};
  return w;
}

// As litmus tests: the calls are not ordered by a client (ExecutionOptions::
// synchronize_operations), so a receive that starts after the send returned may still read
// stale.
ExecutionOptions unordered() {
  ExecutionOptions options;
  options.synchronize_operations = false;
  return options;
}

// The receiver's results over `runs` runs of the scheduler.
std::set<std::int64_t> received(const ObjectFactory& factory, Scheduler& scheduler, int runs,
                                const ExecutionOptions& options = unordered()) {
  std::set<std::int64_t> seen;
  Executor executor;
  for (int i = 0; i < runs; ++i) {
    scheduler.reseed(static_cast<std::uint64_t>(i) + 1);
    dpct::Run run = executor.execute(factory, send_receive(), scheduler, options);
    EXPECT_EQ(run.outcome, RunOutcome::kOk) << run.message;
    for (const auto& op : run.history.operations()) {
      if (op.call.method == "receive") seen.insert(op.result.as_int());
    }
  }
  return seen;
}

WeakReadScheduler weak(ReadPolicy::Kind kind = ReadPolicy::Kind::kUniform) {
  return WeakReadScheduler(std::make_unique<RandomScheduler>(1), ReadPolicy{.kind = kind}, 1);
}

TEST(WeakExecutionTest, RelaxedPublishingShowsStaleDataOnlyUnderC11) {
  const ObjectFactory relaxed = factory_of<MessagePassing>(kRelaxed, kRelaxed, false);
  WeakReadScheduler c11 = weak();
  EXPECT_EQ(received(relaxed, c11, 400), (std::set<std::int64_t>{-1, 0, 42}));
  RandomScheduler sc(1);
  EXPECT_EQ(received(relaxed, sc, 400), (std::set<std::int64_t>{-1, 42}));
}

// By default the operations a client orders are ordered: a receive that sees the flag started
// after the send returned (the flag is the send's last access), so it sees the data.
TEST(WeakExecutionTest, OperationsThatDoNotOverlapAreOrdered) {
  WeakReadScheduler c11 = weak();
  EXPECT_EQ(
      received(factory_of<MessagePassing>(kRelaxed, kRelaxed, false), c11, 400, ExecutionOptions{}),
      (std::set<std::int64_t>{-1, 42}));
}

TEST(WeakExecutionTest, ReleaseAcquireAndFencesNeverShowStaleData) {
  for (const ObjectFactory& factory : {factory_of<MessagePassing>(kRelease, kAcquire, false),
                                       factory_of<MessagePassing>(kSeqCst, kSeqCst, false),
                                       factory_of<MessagePassing>(kRelaxed, kRelaxed, true)}) {
    for (auto kind : {ReadPolicy::Kind::kUniform, ReadPolicy::Kind::kMixed}) {
      WeakReadScheduler c11 = weak(kind);
      EXPECT_EQ(received(factory, c11, 400), (std::set<std::int64_t>{-1, 42}));
    }
  }
}

TEST(WeakExecutionTest, ReadDecisionsAreRecordedAndReplayStrictly) {
  const ObjectFactory relaxed = factory_of<MessagePassing>(kRelaxed, kRelaxed, false);
  WeakReadScheduler c11 = weak();
  Executor executor;
  int stale_runs = 0;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    c11.reseed(seed);
    dpct::Run run = executor.execute(relaxed, send_receive(), c11, unordered());
    ASSERT_EQ(run.schedule.memory_model, MemoryModel::kC11);
    const std::string text = run.schedule.to_text();
    ASSERT_NE(text.find("| reads"), std::string::npos) << text;
    const Schedule parsed = Schedule::from_text(text);
    ASSERT_EQ(parsed, run.schedule) << text;
    ASSERT_EQ(Schedule::from_json(run.schedule.to_json()), run.schedule);
    ReplayScheduler replay(parsed);
    dpct::Run again = executor.execute(relaxed, send_receive(), replay, unordered());
    EXPECT_EQ(fixtures::real_time_form(again.history), fixtures::real_time_form(run.history));
    EXPECT_EQ(again.schedule.reads, run.schedule.reads);
    for (const auto& op : run.history.operations()) {
      if (op.call.method == "receive" && op.result.as_int() == 0) ++stale_runs;
    }
  }
  EXPECT_GT(stale_runs, 0);
}

TEST(WeakExecutionTest, AStrictReplayRejectsAStoreTheLoadCannotRead) {
  const ObjectFactory relaxed = factory_of<MessagePassing>(kRelaxed, kRelaxed, false);
  WeakReadScheduler c11 = weak();
  Executor executor;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    c11.reseed(seed);
    dpct::Run run = executor.execute(relaxed, send_receive(), c11, unordered());
    if (run.schedule.reads.empty()) continue;
    Schedule bad = run.schedule;
    bad.reads[0] = StoreId{7, 3, 0};
    ReplayScheduler strict(bad);
    EXPECT_THROW(executor.execute(relaxed, send_receive(), strict, unordered()),
                 ScheduleDivergence);
    ReplayScheduler lenient(bad, ReplayMode::kLenient);
    dpct::Run newest = executor.execute(relaxed, send_receive(), lenient, unordered());
    EXPECT_EQ(newest.schedule.reads[0], (StoreId{0, 0, 0}));  // the newest store: thread 0's first
    EXPECT_GT(lenient.divergences(), 0u);
    return;
  }
  FAIL() << "no run had a read decision";
}

TEST(WeakExecutionTest, SequentialSchedulesStaySequential) {
  RandomScheduler sc(3);
  dpct::Run run =
      execute(factory_of<MessagePassing>(kRelaxed, kRelaxed, false), send_receive(), sc);
  EXPECT_EQ(run.schedule.memory_model, MemoryModel::kSequential);
  EXPECT_EQ(run.schedule.to_text().find("reads"), std::string::npos);
}

// Store buffering: each thread stores its flag, then loads the other's.
class StoreBuffering final : public ObjectUnderTest {
 public:
  explicit StoreBuffering(std::memory_order order) : order_(order) {}
  Value invoke(const Call& c) override {
    Atomic<int>& mine = c.method == "a" ? x_ : y_;
    Atomic<int>& other = c.method == "a" ? y_ : x_;
    mine.store(1, order_);
    return other.load(order_);
  }

 private:
  std::memory_order order_;
  Atomic<int> x_{0}, y_{0};
};

// Whether some run of `runs` had both threads read 0.
bool both_read_zero(std::memory_order order, int runs) {
  Workload w;
  w.threads = {{Call{"a", {}}}, {Call{"b", {}}}};
  WeakReadScheduler c11 = weak();
  Executor executor;
  for (int i = 0; i < runs; ++i) {
    c11.reseed(static_cast<std::uint64_t>(i) + 1);
    dpct::Run run = executor.execute(factory_of<StoreBuffering>(order), w, c11, unordered());
    int zeros = 0;
    for (const auto& op : run.history.operations()) zeros += op.result.as_int() == 0 ? 1 : 0;
    if (zeros == 2) return true;
  }
  return false;
}

TEST(WeakExecutionTest, StoreBufferingNeedsWeakerThanSeqCst) {
  EXPECT_TRUE(both_read_zero(kRelaxed, 400));
  EXPECT_FALSE(both_read_zero(kSeqCst, 400));
}

// A counter protected by a lock, its accesses relaxed: the lock orders them.
class LockedCounter final : public ObjectUnderTest {
 public:
  Value invoke(const Call&) override {
    LockGuard guard(mutex_);
    const int v = value_.load(kRelaxed);
    value_.store(v + 1, kRelaxed);
    return v;
  }

 private:
  Mutex mutex_;
  Atomic<int> value_{0};
};

TEST(WeakExecutionTest, LocksSynchronize) {
  Workload w;
  w.threads = {{Call{"inc", {}}, Call{"inc", {}}}, {Call{"inc", {}}, Call{"inc", {}}}};
  w.reveal = {Call{"inc", {}}};
  WeakReadScheduler c11 = weak();
  Executor executor;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    c11.reseed(seed);
    dpct::Run run = executor.execute(factory_of<LockedCounter>(), w, c11);
    ASSERT_EQ(run.outcome, RunOutcome::kOk);
    EXPECT_TRUE(run.schedule.reads.empty());
    EXPECT_EQ(run.history.operations().back().result.as_int(), 4);
  }
}

// A spin-wait on a relaxed flag: the progress rule ends it although every load may read stale.
class RelaxedSpin final : public ObjectUnderTest {
 public:
  explicit RelaxedSpin(bool hint) : hint_(hint) {}
  Value invoke(const Call& c) override {
    if (c.method == "set") {
      flag_.store(1, kRelaxed);
      return {};
    }
    while (flag_.load(kRelaxed) == 0) {
      if (hint_) spin_hint();
    }
    return {};
  }

 private:
  bool hint_;
  Atomic<int> flag_{0};
};

TEST(WeakExecutionTest, SpinWaitsTerminate) {
  Workload w;
  w.threads = {{Call{"wait", {}}}, {Call{"set", {}}}};
  for (bool hint : {true, false}) {
    WeakReadScheduler c11 = weak();
    Executor executor;
    for (std::uint64_t seed = 1; seed <= 100; ++seed) {
      c11.reseed(seed);
      ExecutionOptions options;
      options.max_steps = 20'000;
      dpct::Run run = executor.execute(factory_of<RelaxedSpin>(hint), w, c11, options);
      EXPECT_EQ(run.outcome, RunOutcome::kOk) << "hint " << hint << ": " << run.message;
    }
  }
}

// Memory reused for a new atomic whose bytes equal the dead one's last store: the new object must
// not offer the dead one's stores. Thread 0 writes 5 then 0 to the old cell and frees it; thread 1
// reuses the memory (default construction leaves the bytes, 0) and publishes it; thread 2 reads
// it once an acquire saw it published. The allocator's own synchronization, which the model does
// not see, stands here as a relaxed flag: without it the old stores are unordered with the read,
// and 5 would be a stale read of an object that no longer exists.
class ReusedCell final : public ObjectUnderTest {
 public:
  ReusedCell() { new (storage_) Atomic<int>; }
  Value invoke(const Call& c) override {
    if (c.method == "use") {
      cell()->store(5, kRelaxed);
      cell()->store(0, kRelaxed);
      freed_.store(1, kRelaxed);
      return {};
    }
    if (c.method == "reuse") {
      while (freed_.load(kRelaxed) == 0) spin_hint();
      cell()->~Atomic<int>();
      new (storage_) Atomic<int>;
      published_.store(1, kRelease);
      return {};
    }
    while (published_.load(kAcquire) == 0) spin_hint();
    return cell()->load(kRelaxed);
  }

 private:
  Atomic<int>* cell() { return std::launder(reinterpret_cast<Atomic<int>*>(storage_)); }
  alignas(Atomic<int>) unsigned char storage_[sizeof(Atomic<int>)];
  Atomic<int> freed_{0};
  Atomic<int> published_{0};
};

TEST(WeakExecutionTest, AnAtomicConstructedOverReusedMemoryOffersNoStoreOfTheDeadOne) {
  Workload w;
  w.threads = {{Call{"use", {}}}, {Call{"reuse", {}}}, {Call{"read", {}}}};
  WeakReadScheduler c11 = weak();
  Executor executor;
  std::set<std::int64_t> read;
  for (std::uint64_t seed = 1; seed <= 400; ++seed) {
    c11.reseed(seed);
    dpct::Run run = executor.execute(factory_of<ReusedCell>(), w, c11, unordered());
    ASSERT_EQ(run.outcome, RunOutcome::kOk) << run.message;
    for (const auto& op : run.history.operations()) {
      if (op.call.method == "read") read.insert(op.result.as_int());
    }
  }
  EXPECT_EQ(read, (std::set<std::int64_t>{0}));
}

TEST(WeakExecutionTest, ReadPoliciesParseAndPrint) {
  for (const char* text : {"uniform", "biased:0.25", "biased:0.1", "depth:1", "depth:3", "mixed"}) {
    const std::optional<ReadPolicy> policy = parse_read_policy(text);
    ASSERT_TRUE(policy) << text;
    EXPECT_EQ(read_policy_text(*policy), text);
  }
  EXPECT_EQ(read_policy_text(*parse_read_policy("biased")), "biased:0.25");
  for (const char* bad :
       {"", "biased:", "biased:0", "biased:2", "depth:0", "depth:x", "uniform:1", "newest"}) {
    EXPECT_FALSE(parse_read_policy(bad)) << bad;
  }
}

TEST(WeakExecutionTest, StoreIdsRoundTrip) {
  for (const StoreId id : {StoreId{}, StoreId{0, 0, 0}, StoreId{3, 17, 0}, StoreId{1, 2, 5},
                           StoreId{StoreId::kInitialWriter, 0, 2}}) {
    EXPECT_EQ(parse_store_id(store_id_text(id)), id) << store_id_text(id);
  }
  for (const char* bad : {"", "1", "1.", ".1", "i.0", "1.0/", "x", "4294967295.0"}) {
    EXPECT_FALSE(parse_store_id(bad)) << bad;
  }
  EXPECT_THROW(Schedule::from_text("random | 0 1 | reads 1.0 zz"), ScheduleFormatError);
}

}  // namespace
}  // namespace linfault::dpct

namespace linfault::dpct {
namespace {

// The litmus suite run as objects through the executor (every interleaving and read decision):
// no outcome C++20 forbids, and every allowed one except in the tests phase 1 cannot cover
// (docs/weak-memory.md), which lack exactly the outcomes the model alone lacks.
TEST(WeakExecutionTest, TheLitmusSuiteThroughTheExecutorMatchesTheModel) {
  int short_tests = 0;
  for (const NamedLitmus& test : litmus_suite()) {
    SCOPED_TRACE(test.name + " " + test.variant + ": " + test.program.describe());
    const std::set<LitmusOutcome> allowed = axiomatic_outcomes(test.program);
    const std::set<LitmusOutcome> executed = executed_outcomes(test.program, MemoryModel::kC11);
    for (const LitmusOutcome& o : executed) EXPECT_TRUE(allowed.count(o)) << o.to_string();
    EXPECT_EQ(executed, weak_memory_outcomes(test.program));
    short_tests += executed != allowed ? 1 : 0;
    // Sequential consistency: a subset, and the seq_cst variants' whole set.
    const std::set<LitmusOutcome> sequential =
        executed_outcomes(test.program, MemoryModel::kSequential);
    for (const LitmusOutcome& o : sequential) EXPECT_TRUE(executed.count(o)) << o.to_string();
  }
  EXPECT_EQ(short_tests, 4);  // 2+2W relaxed and rel-acq, S relaxed, IRIW acq-sc
}

}  // namespace
}  // namespace linfault::dpct
