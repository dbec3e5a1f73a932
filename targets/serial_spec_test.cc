// The serial specification (Line-Up): a target's own serial runs as its model, stuck histories,
// and objects that have no serial specification.

#include "targets/serial_spec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>

#include "detect/checker.h"
#include "detect/driver.h"
#include "detect/witness.h"
#include "dpct/executor.h"
#include "dpct/random_scheduler.h"
#include "history/history.h"
#include "linfault/target.h"
#include "spec/dynamic_model.h"
#include "spec/model_params.h"
#include "targets/lists.h"

namespace linfault::targets {
namespace {

using detect::Result;
using history::HistoryBuilder;
using history::Outcome;
using history::Value;
using ::testing::HasSubstr;

// Line-Up's Counter2: get() forgets to release the lock, so any later call blocks forever.
class LockLeakCounter {
 public:
  void inc() {
    mutex_.lock();
    value_.store(value_.load() + 1);
    mutex_.unlock();
  }
  std::int64_t get() {
    mutex_.lock();
    return value_.load();
  }

 private:
  linfault::Mutex mutex_;
  linfault::Atomic<std::int64_t> value_{0};
};

// A latch whose wait() blocks until open(): blocking is its specification.
class Latch {
 public:
  void open() {
    open_.store(true);
    open_.notify_all();
  }
  void wait() {
    while (!open_.load()) open_.wait(false);
  }

 private:
  linfault::Atomic<bool> open_{false};
};

// b() throws when a() ran and c() did not: a(); b() crashes, a(); c(); b() does not.
class Fragile {
 public:
  std::int64_t a() {
    a_ran_.store(true);
    return 0;
  }
  std::int64_t b() {
    if (a_ran_.load() && !c_ran_.load()) throw std::logic_error("b() after a() without c()");
    return 0;
  }
  std::int64_t c() {
    c_ran_.store(true);
    return 0;
  }

 private:
  linfault::Atomic<bool> a_ran_{false};
  linfault::Atomic<bool> c_ran_{false};
};

// a() returns whether c() ran before it; b() counts the calls it gets, across instances.
class Watched {
 public:
  static inline std::atomic<int> b_calls{0};
  std::int64_t a() { return c_ran_.load() ? 1 : 0; }
  std::int64_t b() {
    ++b_calls;
    return 0;
  }
  std::int64_t c() {
    c_ran_.store(true);
    return 0;
  }

 private:
  linfault::Atomic<bool> c_ran_{false};
};

// Every instance numbers itself from a process-wide counter: no two serial runs agree.
class Numbered {
 public:
  Numbered() : number_(next_++) {}
  std::int64_t number() { return number_; }

 private:
  static inline std::atomic<std::int64_t> next_{0};
  std::int64_t number_;
};

LINFAULT_REGISTER_TARGET([] {
  Target t;
  t.name = "serial_spec_test_lock_leak";
  t.model = "counter";
  t.operations = {{"inc", no_arguments(), "inc()"}, {"get", no_arguments(), "get() -> n"}};
  t.factory = Binding<LockLeakCounter>()
                  .method("inc", &LockLeakCounter::inc)
                  .method("get", &LockLeakCounter::get)
                  .factory();
  return t;
});

LINFAULT_REGISTER_TARGET([] {
  Target t;
  t.name = "serial_spec_test_latch";
  t.model = "serial";  // no model fits: its serial runs are the specification
  t.operations = {{"open", no_arguments(), "open()"}, {"wait", no_arguments(), "wait()"}};
  t.factory = Binding<Latch>().method("open", &Latch::open).method("wait", &Latch::wait).factory();
  return t;
});

LINFAULT_REGISTER_TARGET([] {
  Target t;
  t.name = "serial_spec_test_fragile";
  t.model = "serial";
  t.operations = {{"a", no_arguments(), "a() -> 0"},
                  {"b", no_arguments(), "b() -> 0"},
                  {"c", no_arguments(), "c() -> 0"}};
  t.factory = Binding<Fragile>()
                  .method("a", &Fragile::a)
                  .method("b", &Fragile::b)
                  .method("c", &Fragile::c)
                  .factory();
  return t;
});

LINFAULT_REGISTER_TARGET([] {
  Target t;
  t.name = "serial_spec_test_watched";
  t.model = "serial";
  t.operations = {{"a", no_arguments(), "a() -> 0 or 1"},
                  {"b", no_arguments(), "b() -> 0"},
                  {"c", no_arguments(), "c() -> 0"}};
  t.factory = Binding<Watched>()
                  .method("a", &Watched::a)
                  .method("b", &Watched::b)
                  .method("c", &Watched::c)
                  .factory();
  return t;
});

LINFAULT_REGISTER_TARGET([] {
  Target t;
  t.name = "serial_spec_test_numbered";
  t.model = "serial";
  t.operations = {{"number", no_arguments(), "number() -> n"}};
  t.factory = Binding<Numbered>().method("number", &Numbered::number).factory();
  return t;
});

// A counter whose binding names a state that tells nothing apart: every counter is "0".
class Counter {
 public:
  void inc() { value_.fetch_add(1); }
  std::int64_t get() { return value_.load(); }

 private:
  linfault::Atomic<std::int64_t> value_{0};
};

LINFAULT_REGISTER_TARGET([] {
  Target t;
  t.name = "serial_spec_test_forgetful_counter";
  t.model = "serial";
  t.operations = {{"inc", no_arguments(), "inc()"}, {"get", no_arguments(), "get() -> n"}};
  t.factory = Binding<Counter>()
                  .method("inc", &Counter::inc)
                  .method("get", &Counter::get)
                  .state([](Counter&) { return 0; })
                  .factory();
  return t;
});

// A counter whose state function reads the count and resets it: every serial run that names
// states after its calls sees each inc() start from zero.
class ResettingCounter {
 public:
  std::int64_t inc() { return value_.fetch_add(1) + 1; }
  std::int64_t take() { return value_.exchange(0); }

 private:
  linfault::Atomic<std::int64_t> value_{0};
};

LINFAULT_REGISTER_TARGET([] {
  Target t;
  t.name = "serial_spec_test_resetting_state";
  t.model = "serial";
  t.operations = {{"inc", no_arguments(), "inc() -> n"}};
  t.factory = Binding<ResettingCounter>()
                  .method("inc", &ResettingCounter::inc)
                  .state(&ResettingCounter::take)
                  .factory();
  return t;
});

// A counter whose state function reads its count through more instrumented loads than a serial
// call may make.
class SlowlyNamedCounter {
 public:
  void inc() { value_.fetch_add(1); }
  std::int64_t state() {
    std::int64_t value = 0;
    for (std::uint64_t i = 0; i <= kSerialMaxSteps; ++i) value = value_.load();
    return value;
  }

 private:
  linfault::Atomic<std::int64_t> value_{0};
};

LINFAULT_REGISTER_TARGET([] {
  Target t;
  t.name = "serial_spec_test_slow_state";
  t.model = "serial";
  t.operations = {{"inc", no_arguments(), "inc()"}};
  t.factory = Binding<SlowlyNamedCounter>()
                  .method("inc", &SlowlyNamedCounter::inc)
                  .state(&SlowlyNamedCounter::state)
                  .factory();
  return t;
});

// hold() keeps the lock; its state function takes the lock, so after hold() it waits forever.
class Holder {
 public:
  void hold() { mutex_.lock(); }
  std::int64_t total() {
    linfault::LockGuard guard(mutex_);
    return value_.load();
  }

 private:
  linfault::Mutex mutex_;
  linfault::Atomic<std::int64_t> value_{0};
};

LINFAULT_REGISTER_TARGET([] {
  Target t;
  t.name = "serial_spec_test_waiting_state";
  t.model = "serial";
  t.operations = {{"hold", no_arguments(), "hold()"}};
  t.factory = Binding<Holder>().method("hold", &Holder::hold).state(&Holder::total).factory();
  return t;
});

LINFAULT_REGISTER_TARGET([] {
  Target t;
  t.name = "serial_spec_test_throwing_state";
  t.model = "serial";
  t.operations = {{"inc", no_arguments(), "inc()"}};
  t.factory = Binding<Counter>()
                  .method("inc", &Counter::inc)
                  .state([](Counter&) -> std::int64_t { throw std::runtime_error("no state"); })
                  .factory();
  return t;
});

// lf_list_buggy bound without naming its state, so that its serial specification tells every
// order of its calls apart.
LINFAULT_REGISTER_TARGET([] {
  Target t;
  t.name = "serial_spec_test_stateless_list";
  t.model = "set";
  t.bug_expected = true;
  t.operations = find("lf_list_buggy").operations;
  t.factory = Binding<LockFreeList>(
                  [] { return std::make_unique<LockFreeList>(LockFreeList::Mark::kBookErrata); })
                  .method("add", &LockFreeList::add)
                  .method("remove", &LockFreeList::remove)
                  .method("contains", &LockFreeList::contains)
                  .factory();
  return t;
});

detect::Verdict check(const std::string& model, const history::History& h, bool stuck = false) {
  detect::CheckOptions options;
  options.stuck = stuck;
  return detect::check_history(model, h, options);
}

TEST(SerialSpecTest, ARegisteredTargetWithoutModelGetsItsSerialSpecification) {
  EXPECT_EQ(find("serial_spec_test_latch").model, "serial(target=\"serial_spec_test_latch\")");
  EXPECT_TRUE(is_serial_spec(find("serial_spec_test_latch").model));
  EXPECT_FALSE(is_serial_spec("stack"));
  EXPECT_EQ(with_serial_spec(find("treiber_stack")).model, serial_spec_of("treiber_stack"));
}

TEST(SerialSpecTest, AgreesWithTheStackModelOnHandWrittenHistories) {
  const std::string serial = serial_spec_of("treiber_stack");
  {
    HistoryBuilder b("sequential");
    b.call(0, {"push", {1}}, Value());
    b.call(1, {"push", {2}}, Value());
    b.call(0, {"pop", {}}, 2);
    b.call(1, {"pop", {}}, 1);
    const history::History h = std::move(b).build();
    EXPECT_EQ(check(serial, h).result, Result::kLinearizable);
    EXPECT_EQ(check("stack", h).result, Result::kLinearizable);
  }
  {
    // Two overlapping pops both return the only element: no serial order explains it.
    HistoryBuilder b("double pop");
    b.call(0, {"push", {1}}, Value());
    b.invoke(0, {"pop", {}});
    b.invoke(1, {"pop", {}});
    b.respond(0, Outcome::kOk, 1);
    b.respond(1, Outcome::kOk, 1);
    const history::History h = std::move(b).build();
    const detect::Verdict v = check(serial, h);
    EXPECT_EQ(v.result, Result::kViolation);
    EXPECT_EQ(check("stack", h).result, Result::kViolation);
    EXPECT_EQ(v.prefix_events, h.events().size());
  }
  {
    // Real-time order matters: pop() -> 1 returned before push(1) was called.
    HistoryBuilder b("pop before push");
    b.call(0, {"pop", {}}, 1);
    b.call(1, {"push", {1}}, Value());
    EXPECT_EQ(check(serial, std::move(b).build()).result, Result::kViolation);
  }
  const SerialSpecStats stats = serial_spec_stats("treiber_stack");
  EXPECT_GT(stats.nodes, 0u);
  EXPECT_GT(stats.serial_runs, 0u);
  EXPECT_GE(stats.serial_calls, stats.nodes);
}

// A call the target cannot take is the history's fault, named with its file and line, as a
// written model names a method it lacks; it is not run (it would be reported as the object's
// crash) and leaves the trie's calls as they were.
TEST(SerialSpecTest, ACallTheTargetCannotTakeIsAnInputErrorNamingTheLine) {
  const std::string serial = serial_spec_of("treiber_stack");
  const auto error_of = [&](const history::Call& call) -> std::string {
    HistoryBuilder b("jepsen.log");
    b.invoke(0, {"push", {1}}, 3);
    b.respond(0, Outcome::kOk, Value(), 4);
    b.invoke(1, call, 5);
    b.respond(1, Outcome::kOk, Value(), 6);
    try {
      check(serial, std::move(b).build());
    } catch (const history::InputError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(error_of({"enq", {1}}),
            "jepsen.log:5: the history calls enq(1), which is not a method of target "
            "treiber_stack");
  EXPECT_EQ(error_of({"push", {1, 2}}),
            "jepsen.log:5: the history calls push(1, 2), but treiber_stack's push takes 1 "
            "argument: push(unique value)");
  EXPECT_THAT(error_of({"push", {"x"}}),
              HasSubstr("jepsen.log:5: the history calls push(\"x\"), which treiber_stack "
                        "cannot take: "));
}

TEST(SerialSpecTest, PendingOperationsMayTakeEffectOrNot) {
  HistoryBuilder b("pending push");
  b.invoke(0, {"push", {7}});
  b.call(1, {"pop", {}}, 7);
  EXPECT_EQ(check(serial_spec_of("treiber_stack"), std::move(b).build()).result,
            Result::kLinearizable);
}

// get() -> 0, then inc() never returns: the run deadlocked.
history::History leaked_lock_history() {
  HistoryBuilder b("leak");
  b.call(0, {"get", {}}, 0);
  b.invoke(1, {"inc", {}});
  return std::move(b).build();
}

TEST(SerialSpecTest, OnlyTheStuckRuleCatchesALeakedLock) {
  const history::History h = leaked_lock_history();
  // The classic check passes it: a pending inc() may simply not have taken effect.
  EXPECT_EQ(check("counter", h, /*stuck=*/false).result, Result::kLinearizable);
  // The stuck rule with the written model, whose inc() always returns: a violation.
  const detect::Verdict v = check("counter", h, /*stuck=*/true);
  ASSERT_EQ(v.result, Result::kViolation);
  EXPECT_TRUE(v.stuck);
  EXPECT_EQ(h.op(v.culprit).call.method, "inc");
  // Its own serial runs block the same way (get() leaks the lock there too), so against them the
  // stuck history has a witness: the object is linearizable with respect to the deterministic
  // specification "get() locks the counter for good", and no spec-free check may flag it.
  EXPECT_EQ(check(serial_spec_of("serial_spec_test_lock_leak"), h, /*stuck=*/true).result,
            Result::kLinearizable);
}

TEST(SerialSpecTest, AStuckHistoryFailsWhenTheBlockedCallNeverBlocksSerially) {
  // inc() blocks although no get() ran before it: serially, inc() on a fresh counter returns.
  HistoryBuilder b("stuck inc");
  b.invoke(1, {"inc", {}});
  b.call(0, {"get", {}}, 0);
  const history::History h = std::move(b).build();
  const std::string serial = serial_spec_of("serial_spec_test_lock_leak");
  // Serially inc() may run after get() and block there: a witness.
  EXPECT_EQ(check(serial, h, /*stuck=*/true).result, Result::kLinearizable);

  HistoryBuilder alone("inc alone");
  alone.invoke(0, {"inc", {}});
  const detect::Verdict v = check(serial, std::move(alone).build(), /*stuck=*/true);
  ASSERT_EQ(v.result, Result::kViolation);
  EXPECT_TRUE(v.stuck);
  EXPECT_EQ(v.culprit, 0);
}

// A pending call that its process followed with another (an outcome reported unknown) returned:
// it is not the call a stuck run left blocked, with a written model or a serial specification.
// Before, the written model called it one that "never returns" (a violation), and the serial
// specification's check rebuilt a history with two open calls of one process (an error).
TEST(SerialSpecTest, APendingCallItsProcessFollowedIsNotTheStuckOne) {
  for (const std::string& model :
       {std::string("counter"), serial_spec_of("serial_spec_test_lock_leak")}) {
    HistoryBuilder b("inc outcome unknown");
    b.invoke(1, {"inc", {}});
    b.respond(1, Outcome::kPending, Value());
    b.call(1, {"get", {}}, 0);
    EXPECT_EQ(check(model, std::move(b).build(), /*stuck=*/true).result, Result::kLinearizable)
        << model;
  }
  // A call that returned with its outcome unknown may have taken effect: get() leaked the lock
  // after p1's inc(), and p0's inc() blocks on it, as the serial runs do. Before, H[e] of p0's
  // inc() left p1's inc() out, so get() -> 1 had no explanation: a false violation.
  {
    HistoryBuilder b("inc took effect, then get leaked the lock");
    b.invoke(1, {"inc", {}});
    b.respond(1, Outcome::kPending, Value());
    b.call(1, {"get", {}}, 1);
    b.invoke(0, {"inc", {}});  // never returns
    EXPECT_EQ(check(serial_spec_of("serial_spec_test_lock_leak"), std::move(b).build(),
                    /*stuck=*/true)
                  .result,
              Result::kLinearizable);
  }
  // The same calls with inc() the last of its process: the stuck rule applies to it.
  HistoryBuilder last("inc last");
  last.call(1, {"get", {}}, 0);
  last.invoke(1, {"inc", {}});
  const detect::Verdict v = check("counter", std::move(last).build(), /*stuck=*/true);
  ASSERT_EQ(v.result, Result::kViolation);
  EXPECT_TRUE(v.stuck);
  EXPECT_EQ(v.culprit, 1);
}

TEST(SerialSpecTest, BlockingThatTheSpecificationHasIsNoViolation) {
  const std::string serial = find("serial_spec_test_latch").model;
  HistoryBuilder waits("wait alone");
  waits.invoke(0, {"wait", {}});
  EXPECT_EQ(check(serial, std::move(waits).build(), /*stuck=*/true).result, Result::kLinearizable);

  // A wait() called after open() returned must not block.
  HistoryBuilder after("wait after open");
  after.call(0, {"open", {}}, Value());
  after.invoke(1, {"wait", {}});
  const detect::Verdict v = check(serial, std::move(after).build(), /*stuck=*/true);
  EXPECT_EQ(v.result, Result::kViolation);
  EXPECT_TRUE(v.stuck);
}

// a() returns first; then c(), which returns before b(), is tried before b(): the search finds
// a(); c(); b() and never asks for a(); b(). The serial run made for a() goes on with the
// history's other calls in its order, b() first, which crashes there. That crash is no failure:
// the history is linearizable, as without runs that go on.
TEST(SerialSpecTest, ACrashInTheCallsARunGoesOnWithIsNoFailure) {
  const std::string serial = find("serial_spec_test_fragile").model;
  HistoryBuilder b("b around c");
  b.call(0, {"a", {}}, 0);
  b.invoke(1, {"b", {}});
  b.call(0, {"c", {}}, 0);
  b.respond(1, Outcome::kOk, 0);
  EXPECT_EQ(check(serial, std::move(b).build()).result, Result::kLinearizable);
  // An order the search does ask for still fails as a crash.
  HistoryBuilder crash("a then b");
  crash.call(0, {"a", {}}, 0);
  crash.call(1, {"b", {}}, 0);
  EXPECT_THROW(check(serial, std::move(crash).build()), std::invalid_argument);
}

// a() returns first and is tried first, but returns 0 serially where the history says 1. The
// run made for it stops there: b(), next in the history's order, is not made on an object in a
// state the search leaves at once (a crash or an endless spin there would end the check). b() is
// made once, in c(); a(); b().
TEST(SerialSpecTest, ARunStopsAtTheFirstResultThatDiffersFromTheHistory) {
  reset_serial_spec("serial_spec_test_watched");  // a trie from an earlier pass knows the runs
  const std::string serial = find("serial_spec_test_watched").model;
  HistoryBuilder b("a overlaps b and c");
  b.invoke(0, {"a", {}});
  b.invoke(1, {"b", {}});
  b.invoke(2, {"c", {}});
  b.respond(0, Outcome::kOk, 1);
  b.respond(2, Outcome::kOk, 0);
  b.respond(1, Outcome::kOk, 0);
  Watched::b_calls = 0;
  EXPECT_EQ(check(serial, std::move(b).build()).result, Result::kLinearizable);
  EXPECT_EQ(Watched::b_calls.load(), 1);
}

TEST(SerialSpecTest, AnObjectThatIsNotDeterministicIsRejectedWithTheCalls) {
  reset_serial_spec("serial_spec_test_numbered");  // a trie from an earlier pass knows the runs
  const std::string serial = find("serial_spec_test_numbered").model;
  HistoryBuilder b("numbers");
  b.call(0, {"number", {}}, 0);
  b.call(0, {"number", {}}, 0);
  try {
    check(serial, std::move(b).build());
    FAIL() << "no exception";
  } catch (const NotDeterministic& e) {
    EXPECT_THAT(e.what(), HasSubstr("serial_spec_test_numbered' is not deterministic"));
    EXPECT_THAT(e.what(), HasSubstr("number()"));
  }
}

// A set whose serial behaviour is the set model's: over a whole campaign, with thousands of trie
// nodes (the trie's child table grows many times over), the serial specification must find
// exactly the histories the written model finds.
TEST(SerialSpecTest, AgreesWithTheWrittenModelOverACampaign) {
  detect::DriverOptions options;
  options.threads = 2;
  options.ops_per_thread = 4;
  options.histories = 3000;
  options.seed = 11;
  options.scheduler = detect::SchedulerKind::kRandom;
  options.shapes = detect::ShapeMix::kEven;
  const Target& target = find("serial_spec_test_stateless_list");
  reset_serial_spec(target.name);
  const detect::DetectionReport written = detect::run_detection(target, options);
  const detect::DetectionReport serial = detect::run_detection(with_serial_spec(target), options);
  EXPECT_GT(written.violations, 0u);
  EXPECT_EQ(serial.violations, written.violations);
  EXPECT_EQ(serial.first_failing_seed, written.first_failing_seed);
  const SerialSpecStats stats = serial_spec_stats(target.name);
  EXPECT_GT(stats.nodes, 4096u);
  EXPECT_GE(stats.serial_calls, stats.nodes);
  // A run goes on with the history's next calls, so it makes several nodes.
  EXPECT_LT(2 * stats.serial_runs, stats.nodes);
  EXPECT_EQ(stats.merged_nodes, 0u);  // no state named
}

// The verdict of every history, by seed.
std::map<std::uint64_t, Result> verdicts(const Target& target, detect::DriverOptions options) {
  std::map<std::uint64_t, Result> by_seed;
  options.on_result = [&by_seed](const detect::DetectionReport&, detect::HistoryResult& result) {
    by_seed[result.seed] = result.result;
  };
  detect::run_detection(target, options);
  return by_seed;
}

TEST(SerialSpecTest, EqualStatesMergeAndEveryVerdictStaysTheWrittenModels) {
  detect::DriverOptions options;
  options.threads = 2;
  options.ops_per_thread = 8;
  options.histories = 1000;
  options.seed = 5;
  options.scheduler = detect::SchedulerKind::kRandom;
  options.shapes = detect::ShapeMix::kEven;
  const Target& named = find("lf_list_buggy");  // its binding names the set's keys
  const Target& unnamed = find("serial_spec_test_stateless_list");
  reset_serial_spec(named.name);
  reset_serial_spec(unnamed.name);
  const std::map<std::uint64_t, Result> written = verdicts(named, options);
  const std::map<std::uint64_t, Result> merged = verdicts(with_serial_spec(named), options);
  const std::map<std::uint64_t, Result> apart = verdicts(with_serial_spec(unnamed), options);
  EXPECT_EQ(merged, written);
  EXPECT_EQ(apart, written);
  EXPECT_GT(std::count_if(written.begin(), written.end(),
                          [](const auto& entry) { return entry.second == Result::kViolation; }),
            10);
  const SerialSpecStats with_states = serial_spec_stats(named.name);
  const SerialSpecStats without = serial_spec_stats(unnamed.name);
  EXPECT_GT(with_states.merged_nodes, 0u);
  // Five keys make 32 states: the orders of the calls no longer multiply the nodes.
  EXPECT_LT(4 * with_states.nodes, without.nodes);
  EXPECT_LT(2 * with_states.serial_runs, without.serial_runs);
}

// Every built-in target whose binding names its state (its items or keys), bugs included:
// checked against its own serial runs with states merged, each history gets its written model's
// verdict. A state that told apart too little would merge states the model keeps apart.
TEST(SerialSpecTest, EveryBuiltInStateGivesTheWrittenModelsVerdicts) {
  detect::DriverOptions options;
  options.threads = 2;
  options.ops_per_thread = 6;
  options.histories = 300;
  options.seed = 11;
  options.scheduler = detect::SchedulerKind::kRandom;
  options.shapes = detect::ShapeMix::kMixed;
  for (const char* name :
       {"lf_list_buggy", "lf_list", "simple_list_buggy", "unsafe_size_list", "bu_list1", "bu_list2",
        "bu_list3", "bu_list4", "optimistic_queue_buggy", "optimistic_queue", "ms_queue_nocheck",
        "ms_queue", "k_stack_buggy", "treiber_stack_buggy", "treiber_stack", "snark_deque"}) {
    SCOPED_TRACE(name);
    const Target& target = find(name);
    reset_serial_spec(name);
    const std::map<std::uint64_t, Result> written = verdicts(target, options);
    EXPECT_EQ(verdicts(with_serial_spec(target), options), written);
    EXPECT_GT(serial_spec_stats(name).merged_nodes, 0u);
  }
}

TEST(SerialSpecTest, LongHistoriesAreDecidedOnceStatesMerge) {
  // 2 x 40: telling every order apart, such histories often end unknown (the time limit).
  detect::DriverOptions options;
  options.threads = 2;
  options.ops_per_thread = 40;
  options.histories = 20;
  options.seed = 3;
  options.scheduler = detect::SchedulerKind::kRandom;
  options.shapes = detect::ShapeMix::kEven;
  // Milliseconds each once states merge; the limit only keeps a regression from running for
  // hours (its histories would then end unknown, and differ from the model's verdicts).
  options.check_timeout_seconds = 30;
  const Target& target = find("lf_list_buggy");
  const std::map<std::uint64_t, Result> written = verdicts(target, options);
  EXPECT_EQ(verdicts(with_serial_spec(target), options), written);
}

// The message of the UnfaithfulState that checking `h` against `model` throws ("" and a test
// failure when it throws none).
std::string unfaithful_state_message(const std::string& model, const history::History& h) {
  try {
    check(model, h);
  } catch (const UnfaithfulState& e) {
    return e.what();
  }
  ADD_FAILURE() << "the state function's fault went unreported";
  return "";
}

// inc() changes the count, but the forgetful counter's state says it did not.
TEST(SerialSpecTest, AStateThatTellsApartTooLittleIsReportedWhereARunGoesOnFromIt) {
  // The serial run for the first inc() goes on with the history's next calls: after inc() and
  // after inc(); get(); inc() the state is "0", so the second get() is looked up under the
  // first's node, which says 1, not the 2 the run got.
  HistoryBuilder b("forgetful");
  b.call(0, {"inc", {}}, Value());
  b.call(0, {"get", {}}, 1);
  b.call(0, {"inc", {}}, Value());
  b.call(0, {"get", {}}, 2);
  reset_serial_spec("serial_spec_test_forgetful_counter");
  const std::string message = unfaithful_state_message(
      serial_spec_of("serial_spec_test_forgetful_counter"), std::move(b).build());
  EXPECT_THAT(message, HasSubstr("its state function tells apart too little"));
  EXPECT_THAT(message, HasSubstr("get()"));
}

TEST(SerialSpecTest, AStateThatTellsApartTooLittleIsReportedWhenACallIsMadeFromIt) {
  // The first history leaves inc() and inc(); inc() in the trie, both named "0". The second's
  // get() is then run after inc() alone (1), and made after inc(); inc() too, it returns 2.
  reset_serial_spec("serial_spec_test_forgetful_counter");
  const std::string spec = serial_spec_of("serial_spec_test_forgetful_counter");
  HistoryBuilder first("two incs");
  first.call(0, {"inc", {}}, Value());
  first.call(0, {"inc", {}}, Value());
  EXPECT_EQ(check(spec, std::move(first).build()).result, Result::kLinearizable);
  HistoryBuilder second("inc, get");
  second.call(0, {"inc", {}}, Value());
  second.call(0, {"get", {}}, 1);
  const std::string message = unfaithful_state_message(spec, std::move(second).build());
  EXPECT_THAT(message, HasSubstr("after inc() and after inc(); inc() the state is 0"));
  EXPECT_THAT(message, HasSubstr("get() returned 1 after the first and returned 2"));
}

// A state function that changes the object would make the serial runs, and so every verdict,
// those of another object: here inc(); inc() -> 1 would pass and inc() -> 1; inc() -> 2 fail.
TEST(SerialSpecTest, AStateFunctionThatChangesTheObjectIsReportedBeforeAnyVerdict) {
  const std::string spec = serial_spec_of("serial_spec_test_resetting_state");
  for (const std::int64_t second : {1, 2}) {
    reset_serial_spec("serial_spec_test_resetting_state");
    HistoryBuilder b("two incs");
    b.call(0, {"inc", {}}, 1);
    b.call(0, {"inc", {}}, second);
    const std::string message = unfaithful_state_message(spec, std::move(b).build());
    EXPECT_THAT(message, HasSubstr("its state function changes the object"));
    EXPECT_THAT(message, HasSubstr("inc() returned 1 with the state named after each call and "
                                   "returned 2 without"));
  }
}

TEST(SerialSpecTest, AStateFunctionThatWaitsOrThrowsIsReportedNotTakenForABlockedCall) {
  // Taken for a blocked hold(), the wait would make this sequential history a violation.
  HistoryBuilder held("hold");
  held.call(0, {"hold", {}}, Value());
  try {
    check(serial_spec_of("serial_spec_test_waiting_state"), std::move(held).build());
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("'serial_spec_test_waiting_state': its state function did not "
                                    "return"));
  }
  HistoryBuilder counted("inc");
  counted.call(0, {"inc", {}}, Value());
  try {
    check(serial_spec_of("serial_spec_test_throwing_state"), std::move(counted).build());
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("the state function threw after inc(): no state"));
  }
}

// The state function's accesses count towards its call's step cap: one that passes it is said to,
// not taken for a call that never returns.
TEST(SerialSpecTest, AStateFunctionThatPassesTheStepCapIsReportedAsSuch) {
  HistoryBuilder b("one");
  b.call(0, {"inc", {}}, Value());
  try {
    check(serial_spec_of("serial_spec_test_slow_state"), std::move(b).build());
    FAIL() << "no error";
  } catch (const StateFunctionFault& e) {
    EXPECT_THAT(e.what(), HasSubstr("its instrumented accesses count towards the run's cap"));
  }
}

// Long sequential histories of the built-in targets that name their state: their states are read
// without scheduling points, and a serial run's step cap is per call (executor_test.cc,
// ASequentialCallsStepCapIsItsOwn), so neither the walks nor the calls add up to a call that
// counts as blocking, which would be a violation of a correct object.
TEST(SerialSpecTest, BuiltInStatesCostNoStepsOnLongHistories) {
  const std::map<std::string, std::pair<std::string, std::string>> methods = {
      {"treiber_stack", {"push", "pop"}},
      {"k_stack_buggy", {"push", "pop"}},
      {"ms_queue", {"enq", "deq"}},
      {"optimistic_queue", {"offer", "poll"}},
      {"snark_deque", {"push_left", "pop_right"}}};
  for (const auto& [name, calls] : methods) {
    SCOPED_TRACE(name);
    const bool lifo = name.find("stack") != std::string::npos;
    HistoryBuilder b(name);
    constexpr int kItems = 300;
    for (int i = 0; i < kItems; ++i) b.call(0, {calls.first, {i}}, Value());
    for (int i = 0; i < kItems; ++i) b.call(0, {calls.second, {}}, lifo ? kItems - 1 - i : i);
    reset_serial_spec(name);
    EXPECT_EQ(check(serial_spec_of(name), std::move(b).build()).result, Result::kLinearizable);
  }
  HistoryBuilder b("keys");
  for (int i = 0; i < 300; ++i) b.call(0, {"add", {i}}, true);
  for (int i = 0; i < 300; ++i) b.call(0, {"contains", {i}}, true);
  reset_serial_spec("lf_list");
  EXPECT_EQ(check(serial_spec_of("lf_list"), std::move(b).build()).result, Result::kLinearizable);
}

TEST(SerialSpecTest, ListsNameEveryKeyTheyHoldNotOnlyTheGeneratedOnes) {
  // add(7) leaves a list other than the empty one, though the generators draw keys 0..4 only.
  HistoryBuilder b("key 7");
  b.call(0, {"contains", {7}}, false);
  b.invoke(1, {"add", {7}});
  b.call(0, {"contains", {7}}, true);
  const history::History h = std::move(b).build();
  EXPECT_EQ(check("set", h).result, Result::kLinearizable);
  EXPECT_EQ(check(serial_spec_of("lf_list"), h).result, Result::kLinearizable);
}

TEST(SerialSpecTest, AStateIsDescribedWithTheStateItsObjectNamed) {
  // add(3) -> true again after add(3); add(1): the witness check names the set's keys.
  HistoryBuilder b("add twice");
  b.call(0, {"add", {3}}, true);
  b.call(0, {"add", {1}}, true);
  b.call(0, {"add", {3}}, true);
  const history::History h = std::move(b).build();
  reset_serial_spec("lf_list_buggy");  // the first path to reach a state describes it
  const std::optional<spec::ErasedModel> model =
      spec::make_dynamic_model(spec::parse_model_spec(serial_spec_of("lf_list_buggy")));
  ASSERT_TRUE(model.has_value());
  EXPECT_THAT(detect::validate_witness(*model, h, {0, 1, 2}).value_or(""),
              HasSubstr("in state add(3) -> true; add(1) -> true (state [[1 3] []])"));
}

TEST(SerialSpecTest, DetectionCatchesTheLeakedLockByTheStuckRuleOfTheWrittenModel) {
  detect::DriverOptions options;
  options.threads = 2;
  options.ops_per_thread = 2;
  options.histories = 200;
  options.scheduler = detect::SchedulerKind::kRandom;
  options.shapes = detect::ShapeMix::kEven;
  const Target& target = find("serial_spec_test_lock_leak");
  const detect::DetectionReport classic = detect::run_detection(target, options);
  const std::uint64_t deadlocks =
      classic.outcomes[static_cast<std::size_t>(dpct::RunOutcome::kDeadlock)];
  EXPECT_GT(deadlocks, 0u);
  EXPECT_EQ(classic.violations, deadlocks);  // every deadlock, and nothing else

  const detect::DetectionReport serial = detect::run_detection(with_serial_spec(target), options);
  EXPECT_EQ(serial.violations, 0u);
}

}  // namespace
}  // namespace linfault::targets
