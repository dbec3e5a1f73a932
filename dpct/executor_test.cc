#include "dpct/executor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include "dpct/exhaustive.h"
#include "dpct/pct_scheduler.h"
#include "dpct/random_scheduler.h"
#include "dpct/scripted_scheduler.h"
#include "dpct/test_objects.h"
#include "dpct/watchdog.h"

namespace linfault::dpct {
namespace {

using fixtures::factory_of;
using history::Call;
using history::Outcome;
using history::Value;

Call call(std::string method, std::vector<Value> args = {}) {
  return Call{std::move(method), std::move(args)};
}

// Locks two mutexes in the order the method names ("ab" or "ba"); "hold" locks a and returns.
class TwoLocks final : public ObjectUnderTest {
 public:
  Value invoke(const Call& c) override {
    if (c.method == "hold") {
      a_.lock();
      return {};
    }
    if (c.method == "a") {
      LockGuard guard(a_);
      return {};
    }
    Mutex& first = c.method == "ab" ? a_ : b_;
    Mutex& second = c.method == "ab" ? b_ : a_;
    LockGuard g1(first);
    LockGuard g2(second);
    return {};
  }

 private:
  Mutex a_, b_;
};

// "wait" spins until "set" stores the flag; "other" does not set it.
class SpinWait final : public ObjectUnderTest {
 public:
  explicit SpinWait(bool hint) : hint_(hint) {}
  Value invoke(const Call& c) override {
    if (c.method == "set") {
      flag_.store(1);
    } else if (c.method == "other") {
      noise_.load();
    } else {
      while (flag_.load() == 0) {
        if (hint_) spin_hint();
      }
    }
    return {};
  }

 private:
  bool hint_;
  Atomic<int> flag_{0};
  Atomic<int> noise_{0};
};

class Throwing final : public ObjectUnderTest {
 public:
  Value invoke(const Call& c) override {
    x_.store(1);
    if (c.method == "boom") throw std::runtime_error("kaboom");
    return {};
  }

 private:
  Atomic<int> x_{0};
};

Workload stack_workload() {
  Workload w;
  w.setup = {call("push", {1})};
  w.threads = {{call("push", {2}), call("pop")}, {call("pop"), call("push", {3})}};
  w.reveal = {call("pop"), call("pop"), call("pop")};
  return w;
}

TEST(ExecutorTest, RecordsSetupThreadsAndRevealAsProcesses) {
  Executor executor;
  const Workload w = stack_workload();
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    RandomScheduler scheduler(seed);
    dpct::Run run = executor.execute(factory_of<fixtures::TreiberStack>(), w, scheduler);
    ASSERT_EQ(run.outcome, RunOutcome::kOk) << run.message;
    const history::History& h = run.history;
    ASSERT_EQ(h.size(), 8u);
    EXPECT_EQ(h.events().size(), 16u);
    EXPECT_EQ(h.op(0).process, 0);
    EXPECT_EQ(h.op(0).call, call("push", {1}));
    // Ps first, Pr last, all on process 0; both Pc threads' ops in between.
    EXPECT_EQ(h.events()[1].op, 0);
    std::vector<std::int64_t> popped;
    for (const history::Operation& op : h.operations()) {
      EXPECT_EQ(op.outcome, Outcome::kOk);
      if (op.call.method == "pop" && !op.result.is_nil()) popped.push_back(op.result.as_int());
    }
    for (std::size_t e = h.events().size() - 6; e < h.events().size(); ++e) {
      EXPECT_EQ(h.op(h.events()[e].op).process, 0);
    }
    std::sort(popped.begin(), popped.end());
    EXPECT_EQ(popped, (std::vector<std::int64_t>{1, 2, 3})) << fixtures::render(h);
    EXPECT_GT(run.steps, 0u);
    EXPECT_EQ(run.schedule.scheduler, "random");
    EXPECT_EQ(run.schedule.points.size(), run.schedule.decisions.size());
  }
}

TEST(ExecutorTest, ReusedExecutorGivesTheSameRunAsAFreshOne) {
  Executor reused;
  const Workload w = stack_workload();
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    PctScheduler a(PctOptions{seed, 2, 20});
    PctScheduler b(PctOptions{seed, 2, 20});
    dpct::Run first = reused.execute(factory_of<fixtures::TreiberStack>(), w, a);
    dpct::Run second = execute(factory_of<fixtures::TreiberStack>(), w, b);
    EXPECT_EQ(fixtures::render(first.history), fixtures::render(second.history));
    EXPECT_EQ(first.schedule.to_text(), second.schedule.to_text());
  }
}

// A recycled run lends its buffers only: nothing of it shows in the next run, whatever the two
// runs' schedulers and outcomes.
TEST(ExecutorTest, RecycledRunsGiveTheSameRunsAsFreshOnes) {
  Executor recycling;
  const Workload w = stack_workload();
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    PctScheduler a(PctOptions{seed, 2, 20});
    RandomScheduler b(seed);
    Scheduler& used = seed % 2 == 0 ? static_cast<Scheduler&>(a) : b;
    dpct::Run run = recycling.execute(factory_of<fixtures::TreiberStack>(), w, used);
    PctScheduler fresh_a(PctOptions{seed, 2, 20});
    RandomScheduler fresh_b(seed);
    Scheduler& fresh_used = seed % 2 == 0 ? static_cast<Scheduler&>(fresh_a) : fresh_b;
    const dpct::Run fresh = execute(factory_of<fixtures::TreiberStack>(), w, fresh_used);
    EXPECT_EQ(fixtures::render(run.history), fixtures::render(fresh.history)) << seed;
    EXPECT_EQ(run.schedule.to_text(), fresh.schedule.to_text()) << seed;
    EXPECT_EQ(run.schedule.points.size(), fresh.schedule.points.size()) << seed;
    EXPECT_EQ(run.steps, fresh.steps) << seed;
    recycling.recycle(std::move(run));
  }
}

TEST(ExecutorTest, OperationsOfOtherThreadsFitBetweenTwoOperationsOfOneThread) {
  // Thread 0: inc(); inc(). Thread 1: get(). Some schedule must place get() strictly between
  // thread 0's two calls in real time (invocations are recorded at the first access).
  Workload w;
  w.threads = {{call("inc"), call("inc")}, {call("get")}};
  Executor executor;
  bool strictly_between = false;
  ExhaustiveOptions options;
  ExhaustiveResult result = explore_exhaustively(
      executor, factory_of<fixtures::LockedCounter>(), w, options, [&](const dpct::Run& run) {
        const history::History& h = run.history;
        // ops in invocation order; find thread 1's get and thread 0's two incs.
        history::OpIndex get = -1, inc1 = -1, inc2 = -1;
        for (std::size_t i = 0; i < h.size(); ++i) {
          const auto& op = h.operations()[i];
          if (op.process == 1)
            get = static_cast<history::OpIndex>(i);
          else if (inc1 < 0)
            inc1 = static_cast<history::OpIndex>(i);
          else
            inc2 = static_cast<history::OpIndex>(i);
        }
        strictly_between = h.precedes(inc1, get) && h.precedes(get, inc2);
        return strictly_between;
      });
  EXPECT_TRUE(strictly_between);
  ASSERT_TRUE(result.found);
  EXPECT_EQ(result.found->history.op(1).result, Value(std::int64_t{1}));
}

TEST(ExecutorTest, OppositeLockOrderDeadlocksAndIsReported) {
  Workload w;
  w.threads = {{call("ab")}, {call("ba")}};
  Executor executor;
  ExhaustiveResult all = explore_exhaustively(executor, factory_of<TwoLocks>(), w, {});
  EXPECT_TRUE(all.exhausted);
  EXPECT_GT(all.outcomes[static_cast<int>(RunOutcome::kDeadlock)], 0u);
  EXPECT_GT(all.outcomes[static_cast<int>(RunOutcome::kOk)], 0u);
  EXPECT_EQ(all.outcomes[static_cast<int>(RunOutcome::kDeadlock)] +
                all.outcomes[static_cast<int>(RunOutcome::kOk)],
            all.executions);

  ExhaustiveResult first = explore_exhaustively(
      executor, factory_of<TwoLocks>(), w, {},
      [](const dpct::Run& run) { return run.outcome == RunOutcome::kDeadlock; });
  ASSERT_TRUE(first.found);
  const dpct::Run& run = *first.found;
  EXPECT_NE(run.message.find("deadlock"), std::string::npos);
  EXPECT_NE(run.message.find("thread 0 waits for the mutex at executor_test.cc"), std::string::npos)
      << run.message;
  EXPECT_NE(run.message.find("thread 1 waits for the mutex at executor_test.cc"), std::string::npos)
      << run.message;
  // Both calls were invoked and never returned.
  ASSERT_EQ(run.history.size(), 2u);
  EXPECT_EQ(run.history.op(0).outcome, Outcome::kPending);
  EXPECT_EQ(run.history.op(1).outcome, Outcome::kPending);

  // PCT and random runs always terminate, with one of the two outcomes.
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    PctScheduler pct(PctOptions{seed, 2, 10});
    dpct::Run r = executor.execute(factory_of<TwoLocks>(), w, pct);
    EXPECT_TRUE(r.outcome == RunOutcome::kOk || r.outcome == RunOutcome::kDeadlock);
  }
}

TEST(ExecutorTest, RevealWaitingForAMutexLeftLockedIsADeadlock) {
  Workload w;
  w.threads = {{call("hold")}};
  w.reveal = {call("a")};
  RandomScheduler scheduler(1);
  dpct::Run run = execute(factory_of<TwoLocks>(), w, scheduler);
  EXPECT_EQ(run.outcome, RunOutcome::kDeadlock);
  EXPECT_NE(run.message.find("reveal call 0 waits forever"), std::string::npos) << run.message;
}

TEST(ExecutorTest, SpinningForeverHitsTheStepCapWithAndWithoutSpinHint) {
  for (bool hint : {false, true}) {
    Workload w;
    w.threads = {{call("wait")}, {call("other")}};
    ExecutionOptions options;
    options.max_steps = 5000;
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      PctScheduler pct(PctOptions{seed, 3, 50});
      dpct::Run run = execute(factory_of<SpinWait>(hint), w, pct, options);
      EXPECT_EQ(run.outcome, RunOutcome::kLivelock) << "hint=" << hint;
      EXPECT_EQ(run.steps, options.max_steps);
      EXPECT_NE(run.message.find("thread 0 at executor_test.cc"), std::string::npos) << run.message;
      EXPECT_NE(run.message.find("thread 1 finished"), std::string::npos) << run.message;
      RandomScheduler random(seed);
      EXPECT_EQ(execute(factory_of<SpinWait>(hint), w, random, options).outcome,
                RunOutcome::kLivelock);
    }
  }
}

// walk(n) makes n instrumented loads.
class Walker final : public ObjectUnderTest {
 public:
  Value invoke(const Call& c) override {
    for (std::int64_t i = 0; i < c.args.at(0).as_int(); ++i) cell_.load();
    return {};
  }

 private:
  Atomic<int> cell_{0};
};

// max_steps bounds each Ps/Pr call, not the sum of a phase's: a long setup of short calls used to
// be cut as a livelock (and a serial specification's run of many calls with it).
TEST(ExecutorTest, ASequentialCallsStepCapIsItsOwn) {
  ExecutionOptions options;
  options.max_steps = 1000;
  RandomScheduler scheduler(1);
  Workload w;
  w.setup.assign(5, Call{"walk", {600}});
  w.threads = {{Call{"walk", {1}}}};
  w.reveal.assign(5, Call{"walk", {600}});
  EXPECT_EQ(execute(factory_of<Walker>(), w, scheduler, options).outcome, RunOutcome::kOk);
  w.setup.push_back(Call{"walk", {1001}});
  const dpct::Run run = execute(factory_of<Walker>(), w, scheduler, options);
  EXPECT_EQ(run.outcome, RunOutcome::kLivelock);
  EXPECT_NE(run.message.find("setup call 5 did not terminate after 1000 accesses"),
            std::string::npos)
      << run.message;
}

TEST(ExecutorTest, SpinHintLetsTheSetterRunUnderPct) {
  // Without the hint PCT would starve the setter until a change point; with it the waiter
  // yields and every run terminates.
  Workload w;
  w.threads = {{call("wait")}, {call("set")}};
  ExecutionOptions options;
  options.max_steps = 1000;
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    PctScheduler pct(PctOptions{seed, 1, 10});
    dpct::Run run = execute(factory_of<SpinWait>(true), w, pct, options);
    EXPECT_EQ(run.outcome, RunOutcome::kOk) << run.message;
  }
}

// "wait" announces itself on an instrumented flag, then spins on a plain std::atomic that "set"
// stores: a controlled run cannot switch to the setter, so the waiter spins forever.
class UninstrumentedSpin final : public ObjectUnderTest {
 public:
  Value invoke(const Call& c) override {
    if (c.method == "set") {
      announced_.store(1);
      plain_.store(true);
    } else {
      announced_.store(1);  // the last access the watchdog names
      while (!plain_.load() && !released.load()) {
      }
    }
    return {};
  }
  static inline std::atomic<bool> released{false};  // set by the test's stall handler

 private:
  Atomic<int> announced_{0};
  std::atomic<bool> plain_{false};
};

// The watchdog signals the executor's thread, which abandons the spinning fiber: the run ends as
// a livelock that names the call, and the executor runs the next workload as usual.
TEST(ExecutorTest, ARunThatReachesNoSchedulingPointEndsAsALivelockAndTheNextRunIsFine) {
  Workload w;
  w.threads = {{call("set")}, {call("wait", {7})}};
  // Thread 1 first: it spins before thread 0 can set the flag.
  ScriptedScheduler scripted({{1, ScriptedScheduler::kUntilDone}});
  Executor executor;
  dpct::Run run;
  {
    const fixtures::StallCapture stalls(UninstrumentedSpin::released);
    run = executor.execute(factory_of<UninstrumentedSpin>(), w, scripted);
    EXPECT_TRUE(stalls.reports().empty());  // not the process-ending path
  }
  EXPECT_EQ(run.outcome, RunOutcome::kLivelock);
  EXPECT_NE(run.message.find("thread 1, call 0 wait(7) reached no scheduling point for 0.3 s"),
            std::string::npos)
      << run.message;
  EXPECT_EQ(run.history.size(), 1u);  // thread 0 never ran; thread 1's wait is pending

  Workload plain;
  plain.threads = {{call("set")}, {call("set")}};
  RandomScheduler random(3);
  const dpct::Run next = executor.execute(factory_of<UninstrumentedSpin>(), plain, random);
  EXPECT_EQ(next.outcome, RunOutcome::kOk) << next.message;
}

// Faults of the object under test end the run, not the process.
class Faulty final : public ObjectUnderTest {
 public:
  enum class Fault {
    kNone,
    kSegfaultInPc,
    kAbortInPr,
    kTerminate,
    kLoopingDestructor,
    kCyclingDestructor
  };
  explicit Faulty(Fault fault) : fault_(fault) {}
  ~Faulty() override {
    if (fault_ == Fault::kLoopingDestructor) {
      while (!stop_.load(std::memory_order_relaxed)) {
      }
    }
    // As a destructor walking a list whose nodes a bug linked into a cycle.
    while (fault_ == Fault::kCyclingDestructor && counter_.load() >= 0) {
    }
  }
  Value invoke(const Call& c) override {
    counter_.fetch_add(1);
    if (c.method == "crash" && fault_ == Fault::kSegfaultInPc) {
      volatile int* nowhere = nullptr;
      return Value(static_cast<std::int64_t>(*nowhere));
    }
    if (c.method == "crash" && fault_ == Fault::kAbortInPr) std::abort();
    if (c.method == "crash" && fault_ == Fault::kTerminate) throw_from_noexcept();
    return Value(static_cast<std::int64_t>(counter_.load()));
  }

 private:
  static void throws() { throw std::runtime_error("escaped"); }
  static void throw_from_noexcept() noexcept { throws(); }
  Fault fault_;
  Atomic<int> counter_{0};
  std::atomic<bool> stop_{false};
};

TEST(ExecutorTest, ASegfaultInAThreadIsACrashNamingTheSignalAndTheExecutorGoesOn) {
  Workload w;
  w.threads = {{call("inc"), call("crash")}, {call("inc"), call("inc")}};
  w.reveal = {call("inc")};
  Executor executor;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    RandomScheduler random(seed);
    const dpct::Run run = executor.execute(
        [] { return std::make_unique<Faulty>(Faulty::Fault::kSegfaultInPc); }, w, random);
    ASSERT_EQ(run.outcome, RunOutcome::kCrash) << seed;
    EXPECT_NE(run.message.find("thread 0, call 1 crash(): the object crashed with SIGSEGV"),
              std::string::npos)
        << run.message;
    // The crashing call is pending; Pr did not run.
    std::size_t pending = 0;
    for (const history::Operation& op : run.history.operations()) {
      pending += op.outcome == Outcome::kPending;
    }
    EXPECT_GE(pending, 1u);
  }
  RandomScheduler random(1);
  const dpct::Run fine =
      executor.execute([] { return std::make_unique<Faulty>(Faulty::Fault::kNone); }, w, random);
  EXPECT_EQ(fine.outcome, RunOutcome::kOk) << fine.message;
}

TEST(ExecutorTest, AnAbortInPrAndAnExceptionLeavingNoexceptAreCrashes) {
  Workload w;
  w.threads = {{call("inc")}, {call("inc")}};
  w.reveal = {call("crash")};
  Executor executor;
  RandomScheduler random(1);
  const dpct::Run aborted = executor.execute(
      [] { return std::make_unique<Faulty>(Faulty::Fault::kAbortInPr); }, w, random);
  EXPECT_EQ(aborted.outcome, RunOutcome::kCrash);
  EXPECT_NE(aborted.message.find("reveal call 0: the object crashed with SIGABRT"),
            std::string::npos)
      << aborted.message;

  w.reveal.clear();
  w.threads[1].push_back(call("crash"));
  const dpct::Run terminated = executor.execute(
      [] { return std::make_unique<Faulty>(Faulty::Fault::kTerminate); }, w, random);
  EXPECT_EQ(terminated.outcome, RunOutcome::kCrash);
  EXPECT_NE(terminated.message.find("thread 1, call 1 crash(): the object crashed with "
                                    "std::terminate"),
            std::string::npos)
      << terminated.message;
}

TEST(ExecutorTest, ADestructorThatNeverReturnsEndsTheRunAsALivelockAndKeepsItsHistory) {
  Workload w;
  w.threads = {{call("inc")}, {call("inc")}};
  w.reveal = {call("get")};
  std::atomic<bool> unused{false};
  const fixtures::StallCapture stalls(unused);
  Executor executor;
  RandomScheduler random(1);
  const dpct::Run run = executor.execute(
      [] { return std::make_unique<Faulty>(Faulty::Fault::kLoopingDestructor); }, w, random);
  EXPECT_EQ(run.outcome, RunOutcome::kLivelock);
  EXPECT_NE(run.message.find("the object's destructor reached no scheduling point"),
            std::string::npos)
      << run.message;
  ASSERT_EQ(run.history.size(), 3u);
  EXPECT_EQ(run.history.operations()[2].result, Value(std::int64_t{3}));
}

TEST(ExecutorTest, ADestructorThatLoopsOverSharedMemoryIsCutAtItsCapNotAtTheStallLimit) {
  Workload w;
  w.threads = {{call("inc")}, {call("inc")}};
  std::atomic<bool> unused{false};
  const fixtures::StallCapture stalls(unused);
  Executor executor;
  RandomScheduler random(1);
  ExecutionOptions options;
  options.max_steps = 1000;
  const auto started = std::chrono::steady_clock::now();
  const dpct::Run run =
      executor.execute([] { return std::make_unique<Faulty>(Faulty::Fault::kCyclingDestructor); },
                       w, random, options);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(200));
  EXPECT_EQ(run.outcome, RunOutcome::kLivelock);
  // The cap: max_steps, and 64 accesses per call of the workload.
  EXPECT_NE(run.message.find("the object's destructor did not return after 1128 accesses (last "
                             "at executor_test.cc:"),
            std::string::npos)
      << run.message;
  EXPECT_EQ(run.history.size(), 2u);
  // The next run is a normal one.
  const dpct::Run next =
      executor.execute([] { return std::make_unique<Faulty>(Faulty::Fault::kNone); }, w, random);
  EXPECT_EQ(next.outcome, RunOutcome::kOk) << next.message;
}

// A spin lock whose lock() is noexcept, and whose holder never unlocks ("leak"): the run is cut
// at the step cap, and stopping it must not throw through lock() into std::terminate.
class NoexceptSpinLock final : public ObjectUnderTest {
 public:
  Value invoke(const Call& c) override {
    lock();
    const auto v = static_cast<std::int64_t>(value_.fetch_add(1));
    if (c.method != "leak") unlock();
    return Value(v);
  }

 private:
  void lock() noexcept {
    while (held_.exchange(true, std::memory_order_acquire)) {
    }
  }
  void unlock() noexcept { held_.store(false, std::memory_order_release); }
  Atomic<bool> held_{false};
  Atomic<int> value_{0};
};

TEST(ExecutorTest, StoppingARunInsideANoexceptSpinLockLeavesTheThreadWithoutTerminating) {
  Workload w;
  w.setup = {call("leak")};  // leaves the lock held
  w.threads = {{call("inc")}, {call("inc"), call("inc")}, {call("inc")}};
  Executor executor;
  ExecutionOptions options;
  options.max_steps = 2000;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    PctScheduler pct(PctOptions{.seed = seed, .depth = 2, .steps = 40});
    const dpct::Run run = executor.execute(factory_of<NoexceptSpinLock>(), w, pct, options);
    EXPECT_EQ(run.outcome, RunOutcome::kLivelock)
        << seed << ": " << run.message << " steps " << run.steps << " ops " << run.history.size();
  }
  // And the same lock used correctly: never a livelock under PCT, whose highest-priority thread
  // would spin for ever if the executor did not see it spin.
  w.setup.clear();
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    PctScheduler pct(PctOptions{.seed = seed, .depth = 3, .steps = 40});
    const dpct::Run run = executor.execute(factory_of<NoexceptSpinLock>(), w, pct, options);
    ASSERT_EQ(run.outcome, RunOutcome::kOk) << seed << ": " << run.message;
  }
}

// Returns how many calls its OS thread made (thread_local), and records the thread's id.
class PerThreadTally final : public ObjectUnderTest {
 public:
  explicit PerThreadTally(bool identity) : identity_(identity) {}
  bool needs_thread_identity() const override { return identity_; }
  Value invoke(const Call&) override {
    static thread_local std::int64_t tally = 0;
    shared_.fetch_add(1);
    {
      std::lock_guard lock(ids_mutex_);
      ids_.insert(std::this_thread::get_id());
    }
    shared_.fetch_add(1);
    return Value(++tally);
  }
  static inline std::mutex ids_mutex_;
  static inline std::set<std::thread::id> ids_;

 private:
  bool identity_;
  Atomic<int> shared_{0};
};

TEST(ExecutorTest, WithThreadIdentityEachLogicalThreadIsAnOsThreadOfItsOwn) {
  Workload w;
  w.setup = {call("s")};
  w.threads = {{call("a"), call("b")}, {call("c"), call("d")}, {call("e")}};
  w.reveal = {call("r")};
  Executor executor;
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    PerThreadTally::ids_.clear();
    PctScheduler pct(PctOptions{.seed = seed, .depth = 3, .steps = 20});
    const dpct::Run run =
        executor.execute([] { return std::make_unique<PerThreadTally>(true); }, w, pct);
    ASSERT_EQ(run.outcome, RunOutcome::kOk) << run.message;
    EXPECT_EQ(PerThreadTally::ids_.size(), 3u);
    EXPECT_EQ(PerThreadTally::ids_.count(std::this_thread::get_id()), 0u);
    // Each thread's own thread_local: its calls count 1, 2 whatever ran in between. Ps and Pr
    // are thread 0's calls (the history says so) and run on its OS thread: s, a, b, r count 1..4.
    const std::map<std::string, std::int64_t> expected = {{"s", 1}, {"a", 2}, {"b", 3}, {"r", 4},
                                                          {"c", 1}, {"d", 2}, {"e", 1}};
    for (const history::Operation& op : run.history.operations()) {
      EXPECT_EQ(op.result, Value(expected.at(op.call.method)))
          << op.call.to_string() << " seed " << seed;
    }
  }
  // As fibers, every logical thread is the caller's OS thread.
  PerThreadTally::ids_.clear();
  RandomScheduler random(1);
  const dpct::Run fibers =
      executor.execute([] { return std::make_unique<PerThreadTally>(false); }, w, random);
  EXPECT_EQ(PerThreadTally::ids_.size(), 1u);
}

// Faults, stalls and stopping inside noexcept code behave on OS threads as on fibers.
class IdentityFaulty final : public ObjectUnderTest {
 public:
  bool needs_thread_identity() const override { return true; }
  Value invoke(const Call& c) override {
    counter_.fetch_add(1);
    if (c.method == "crash") {
      volatile int* nowhere = nullptr;
      return Value(static_cast<std::int64_t>(*nowhere));
    }
    if (c.method == "hold") {
      held_.store(true);
      return {};
    }
    if (c.method == "spin") spin_noexcept();
    if (c.method == "stall") {
      while (!never_.load(std::memory_order_relaxed)) {
      }
    }
    return Value(std::int64_t{counter_.load()});
  }

 private:
  void spin_noexcept() noexcept {
    while (held_.load()) {
    }
  }
  Atomic<int> counter_{0};
  Atomic<bool> held_{false};
  std::atomic<bool> never_{false};
};

TEST(ExecutorTest, OnOsThreadsFaultsStallsAndNoexceptStopsEndTheRunNotTheProcess) {
  Executor executor;
  const auto factory = [] { return std::make_unique<IdentityFaulty>(); };
  Workload crash;
  crash.threads = {{call("inc"), call("crash")}, {call("inc"), call("inc")}};
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    RandomScheduler random(seed);
    const dpct::Run run = executor.execute(factory, crash, random);
    ASSERT_EQ(run.outcome, RunOutcome::kCrash);
    EXPECT_NE(run.message.find("thread 0, call 1 crash(): the object crashed with SIGSEGV"),
              std::string::npos)
        << run.message;
  }
  Workload spin;
  spin.setup = {call("hold")};
  spin.threads = {{call("spin")}, {call("inc")}};
  ExecutionOptions capped;
  capped.max_steps = 1000;
  RandomScheduler random(1);
  const dpct::Run stopped = executor.execute(factory, spin, random, capped);
  EXPECT_EQ(stopped.outcome, RunOutcome::kLivelock) << stopped.message;

  Workload stall;
  stall.threads = {{call("stall")}, {call("inc")}};
  std::atomic<bool> unused{false};
  {
    const fixtures::StallCapture stalls(unused);
    ScriptedScheduler scripted({{0, ScriptedScheduler::kUntilDone}});
    const dpct::Run stalled = executor.execute(factory, stall, scripted);
    EXPECT_EQ(stalled.outcome, RunOutcome::kLivelock);
    EXPECT_NE(stalled.message.find("thread 0, call 0 stall() reached no scheduling point"),
              std::string::npos)
        << stalled.message;
    // Without concurrent threads Ps runs on the caller's stack, which holds the baton.
    Workload alone;
    alone.setup = {call("stall")};
    const dpct::Run stalled_alone = executor.execute(factory, alone, scripted);
    EXPECT_EQ(stalled_alone.outcome, RunOutcome::kLivelock) << stalled_alone.message;
  }
  // Ps and Pr run on thread 0's OS thread: a fault there is the run's crash too.
  Workload crash_in_setup;
  crash_in_setup.setup = {call("inc"), call("crash")};
  crash_in_setup.threads = {{call("inc")}, {call("inc")}};
  const dpct::Run setup_crashed = executor.execute(factory, crash_in_setup, random);
  EXPECT_EQ(setup_crashed.outcome, RunOutcome::kCrash);
  EXPECT_NE(setup_crashed.message.find("setup call 1: the object crashed with SIGSEGV"),
            std::string::npos)
      << setup_crashed.message;
  Workload crash_in_reveal;
  crash_in_reveal.threads = {{call("inc")}, {call("inc")}};
  crash_in_reveal.reveal = {call("crash")};
  const dpct::Run reveal_crashed = executor.execute(factory, crash_in_reveal, random);
  EXPECT_EQ(reveal_crashed.outcome, RunOutcome::kCrash);
  EXPECT_NE(reveal_crashed.message.find("call 0: the object crashed with SIGSEGV"),
            std::string::npos)
      << reveal_crashed.message;
  Workload fine;
  fine.setup = {call("inc")};
  fine.threads = {{call("inc")}, {call("inc")}};
  fine.reveal = {call("inc")};
  const dpct::Run after = executor.execute(factory, fine, random);
  EXPECT_EQ(after.outcome, RunOutcome::kOk) << after.message;
}

// Thread 0's thread_local objects are destroyed when its OS thread ends, after Pr, while the
// caller waits: a destructor that never returns there is a stall the caller recovers from.
std::atomic<bool> sticky_released{false};
struct Sticky {
  bool armed = false;
  ~Sticky() {
    while (armed && !sticky_released.load()) {
    }
  }
};

class ThreadLocalStall final : public ObjectUnderTest {
 public:
  bool needs_thread_identity() const override { return true; }
  Value invoke(const Call& c) override {
    counter_.fetch_add(1);
    if (c.method == "arm") {
      static thread_local Sticky sticky;
      sticky.armed = true;
    }
    return Value(std::int64_t{counter_.load()});
  }

 private:
  Atomic<int> counter_{0};
};

TEST(ExecutorTest, OnOsThreadsAThreadLocalDestructorThatNeverReturnsIsAStall) {
  sticky_released.store(false);
  Executor executor;
  Workload w;
  w.setup = {call("arm")};
  w.threads = {{call("inc")}, {call("inc")}};
  std::atomic<bool> unused{false};
  {
    const fixtures::StallCapture stalls(unused);
    RandomScheduler random(1);
    const dpct::Run run =
        executor.execute([] { return std::make_unique<ThreadLocalStall>(); }, w, random);
    EXPECT_EQ(run.outcome, RunOutcome::kLivelock) << run.message;
    EXPECT_NE(run.message.find("the destructors of thread 0's thread_local objects reached no "
                               "scheduling point"),
              std::string::npos)
        << run.message;
  }
  sticky_released.store(true);  // the abandoned thread ends
  w.setup.clear();
  RandomScheduler random(2);
  const dpct::Run after =
      executor.execute([] { return std::make_unique<ThreadLocalStall>(); }, w, random);
  EXPECT_EQ(after.outcome, RunOutcome::kOk) << after.message;
}

TEST(ExecutorTest, ExceptionInAnOperationIsACrash) {
  Workload w;
  w.threads = {{call("fine"), call("boom"), call("fine")}, {call("fine"), call("fine")}};
  w.reveal = {call("fine")};
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    RandomScheduler scheduler(seed);
    dpct::Run run = execute(factory_of<Throwing>(), w, scheduler);
    EXPECT_EQ(run.outcome, RunOutcome::kCrash);
    EXPECT_EQ(run.message, "thread 0, call 1 boom(): kaboom");
    // The crashed call is pending, the reveal was skipped, thread 0's last call never ran.
    int pending = 0;
    for (const auto& op : run.history.operations()) {
      if (op.call.method == "boom") {
        EXPECT_EQ(op.outcome, Outcome::kPending);
      }
      pending += op.outcome == Outcome::kPending;
    }
    EXPECT_GE(pending, 1);
    EXPECT_LE(run.history.size(), 4u);
  }
}

TEST(ExecutorTest, TraceRecordsEveryAccessWithValues) {
  Workload w;
  w.setup = {call("push", {7})};
  w.threads = {{call("pop")}};
  ExecutionOptions options;
  options.record_trace = true;
  RandomScheduler scheduler(3);
  dpct::Run run = execute(factory_of<fixtures::TreiberStack>(), w, scheduler, options);
  ASSERT_EQ(run.outcome, RunOutcome::kOk);
  ASSERT_FALSE(run.trace.empty());
  // Setup: lock, unlock (node registry), load top, store next, cas top.
  EXPECT_EQ(run.trace.front().phase, Phase::kSetup);
  EXPECT_EQ(run.trace.front().kind, AccessKind::kLock);
  EXPECT_EQ(run.trace.front().file, "test_objects.h");
  const TraceStep& last = run.trace.back();
  EXPECT_EQ(last.phase, Phase::kConcurrent);
  EXPECT_EQ(last.kind, AccessKind::kCompareExchange);
  EXPECT_TRUE(last.success);
  EXPECT_EQ(last.written, "null");
  const TraceStep& read_next = run.trace[run.trace.size() - 2];
  EXPECT_EQ(read_next.kind, AccessKind::kLoad);
  EXPECT_EQ(read_next.read, "null");
  EXPECT_GT(read_next.line, 0u);
  EXPECT_EQ(run.history.op(1).result, Value(std::int64_t{7}));
}

class BadScheduler final : public Scheduler {
 public:
  void begin(const RunInfo&) override {}
  ThreadId choose(const SchedulingPoint&, std::span<const ThreadId>) override { return 5; }
  void end(Schedule&) override {}
};

TEST(ExecutorTest, SchedulerChoosingADisabledThreadIsAnError) {
  Workload w;
  w.threads = {{call("pop")}, {call("pop")}};
  BadScheduler bad;
  Executor executor;
  EXPECT_THROW(executor.execute(factory_of<fixtures::TreiberStack>(), w, bad), std::logic_error);
  // The executor is still usable afterwards.
  RandomScheduler good(1);
  EXPECT_EQ(executor.execute(factory_of<fixtures::TreiberStack>(), w, good).outcome,
            RunOutcome::kOk);
}

// Counts the points it is asked at, and those where every other thread had finished.
class CountingScheduler final : public Scheduler {
 public:
  explicit CountingScheduler(bool sees_last_thread) : sees_last_thread_(sees_last_thread) {}
  void begin(const RunInfo& info) override {
    finished_.assign(info.threads, false);
    points = 0;
    last_thread_points = 0;
  }
  ThreadId choose(const SchedulingPoint& point, std::span<const ThreadId> enabled) override {
    ++points;
    if (point.kind == PointKind::kFinished) finished_[point.thread] = true;
    if (std::count(finished_.begin(), finished_.end(), false) == 1 && enabled.size() == 1) {
      ++last_thread_points;
    }
    return enabled[0];  // thread 0 runs to the end first
  }
  void end(Schedule& schedule) override { schedule.scheduler = "counting"; }
  bool sees_last_thread() const override { return sees_last_thread_; }

  std::uint64_t points = 0;
  std::uint64_t last_thread_points = 0;

 private:
  bool sees_last_thread_;
  std::vector<bool> finished_;
};

TEST(ExecutorTest, ASchedulerIsNotAskedWhereOnlyTheLastThreadCanRunUnlessItSaysItSeesThem) {
  Executor executor;
  CountingScheduler sees(true);
  const dpct::Run all =
      executor.execute(factory_of<fixtures::TreiberStack>(), stack_workload(), sees);
  CountingScheduler skips(false);
  const dpct::Run fewer =
      executor.execute(factory_of<fixtures::TreiberStack>(), stack_workload(), skips);
  // Thread 1 runs its two operations alone after thread 0 has finished.
  EXPECT_GT(sees.last_thread_points, 2u);
  EXPECT_EQ(skips.last_thread_points, 0u);
  EXPECT_EQ(skips.points, sees.points - sees.last_thread_points);
  // The same run: decisions, history and outcome.
  EXPECT_EQ(fewer.schedule.decisions, all.schedule.decisions);
  EXPECT_EQ(fixtures::render(fewer.history), fixtures::render(all.history));
  EXPECT_EQ(fewer.steps, all.steps);
  EXPECT_EQ(fewer.outcome, RunOutcome::kOk);
}

TEST(ExecutorTest, ThePointsOfTheLastThreadCountTowardsTheStepCap) {
  // Thread 0 runs "other" and finishes; thread 1 then waits alone for a flag nobody sets.
  Workload w;
  w.threads = {{call("other")}, {call("wait")}};
  ExecutionOptions options;
  options.max_steps = 200;
  CountingScheduler skips(false);
  const dpct::Run run = execute(factory_of<SpinWait>(false), w, skips, options);
  EXPECT_EQ(run.outcome, RunOutcome::kLivelock);
  EXPECT_EQ(run.steps, options.max_steps);
  EXPECT_LT(skips.points, 10u);  // the spinning thread's points alone were not asked
}

TEST(ExecutorTest, WithoutRecordingThereIsNoHistoryButTheScheduleRemains) {
  ExecutionOptions options;
  options.record_history = false;
  options.record_points = false;
  PctScheduler pct(PctOptions{9, 3, 30});
  dpct::Run run = execute(factory_of<fixtures::TreiberStack>(), stack_workload(), pct, options);
  EXPECT_EQ(run.outcome, RunOutcome::kOk);
  EXPECT_TRUE(run.history.empty());
  EXPECT_FALSE(run.schedule.decisions.empty());
  EXPECT_TRUE(run.schedule.points.empty());
}

}  // namespace
}  // namespace linfault::dpct
