// The std-compatible interface of dpct/shared.h under the controlled executor: every member and
// operator of Atomic and AtomicFlag is an access with its kind and memory order; the lock types
// work with std::lock_guard, std::unique_lock, std::scoped_lock and std::shared_lock and block
// under the scheduler; ConditionVariable and Atomic::wait block until notified; an object written
// against std::atomic runs through a type alias.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <new>
#include <set>
#include <shared_mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "dpct/executor.h"
#include "dpct/exhaustive.h"
#include "dpct/pct_scheduler.h"
#include "dpct/random_scheduler.h"
#include "dpct/scripted_scheduler.h"
#include "dpct/shared.h"
#include "dpct/test_objects.h"

namespace linfault::dpct {
namespace {

using fixtures::factory_of;
using history::Call;
using history::Value;

Call call(std::string method, std::vector<Value> args = {}) {
  return Call{std::move(method), std::move(args)};
}

// Runs `method` of a fresh T as the only setup call and returns the trace of its accesses.
template <class T>
std::vector<TraceStep> trace_of(const std::string& method) {
  Workload w;
  w.setup = {call(method)};
  ExecutionOptions options;
  options.record_trace = true;
  RandomScheduler scheduler(1);
  dpct::Run run = execute(factory_of<T>(), w, scheduler, options);
  EXPECT_EQ(run.outcome, RunOutcome::kOk) << run.message;
  return run.trace;
}

// The result of the `nth` call of Pc thread `thread` (history order is invocation order).
Value result_of(const dpct::Run& run, std::size_t thread, std::size_t nth = 0) {
  for (const history::Operation& op : run.history.operations()) {
    if (op.process == static_cast<history::ProcessId>(thread) && nth-- == 0) return op.result;
  }
  ADD_FAILURE() << "no call " << nth << " of thread " << thread;
  return {};
}

struct Expected {
  AccessKind kind;
  std::memory_order order = std::memory_order_seq_cst;
  std::string read = {};
  std::string written = {};
};

void expect_trace(const std::vector<TraceStep>& trace, const std::vector<Expected>& expected) {
  ASSERT_EQ(trace.size(), expected.size());
  for (std::size_t i = 0; i < trace.size(); ++i) {
    SCOPED_TRACE("access " + std::to_string(i));
    EXPECT_EQ(access_kind_name(trace[i].kind), std::string(access_kind_name(expected[i].kind)));
    EXPECT_EQ(memory_order_name(trace[i].order), std::string(memory_order_name(expected[i].order)));
    if (!expected[i].read.empty()) {
      EXPECT_EQ(trace[i].read, expected[i].read);
    }
    if (!expected[i].written.empty()) {
      EXPECT_EQ(trace[i].written, expected[i].written);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Atomic and AtomicFlag members.

class AtomicMembers final : public ObjectUnderTest {
 public:
  Value invoke(const Call& c) override {
    using std::memory_order_acq_rel;
    using std::memory_order_acquire;
    using std::memory_order_relaxed;
    using std::memory_order_release;
    if (c.method == "members") {
      x_.store(5, memory_order_release);
      (void)x_.load(memory_order_acquire);
      (void)x_.exchange(6, memory_order_acq_rel);
      (void)x_.fetch_add(4, memory_order_relaxed);
      (void)x_.fetch_sub(2);
      (void)x_.fetch_and(0b1100, memory_order_relaxed);
      (void)x_.fetch_or(0b0011);
      (void)x_.fetch_xor(0b0101, memory_order_release);
      x_.notify_one();
      x_.notify_all();
      x_.wait(0, memory_order_acquire);  // the value is 14: returns at once
      return {};
    }
    if (c.method == "operators") {
      x_ = 1;      // store 1
      int v = x_;  // load 1
      ++x_;        // 1 -> 2
      x_++;        // 2 -> 3
      --x_;        // 3 -> 2
      x_--;        // 2 -> 1
      x_ += 9;     // 1 -> 10
      x_ -= 3;     // 10 -> 7
      x_ &= 6;     // 7 -> 6
      x_ |= 1;     // 6 -> 7
      x_ ^= 2;     // 7 -> 5
      return Value(std::int64_t{v + x_.unsafe_peek()});
    }
    if (c.method == "flag") {
      (void)flag_.test_and_set(std::memory_order_acquire);
      (void)flag_.test(std::memory_order_relaxed);
      flag_.clear(std::memory_order_release);
      flag_.wait(true);  // clear: returns at once
      flag_.notify_one();
      flag_.notify_all();
      return {};
    }
    throw std::invalid_argument(c.method);
  }

 private:
  Atomic<int> x_ = 0;
  AtomicFlag flag_ = ATOMIC_FLAG_INIT;
};

TEST(StdInterfaceTest, EveryAtomicMemberIsAnAccessWithItsKindAndOrder) {
  using std::memory_order_acq_rel;
  using std::memory_order_acquire;
  using std::memory_order_relaxed;
  using std::memory_order_release;
  using std::memory_order_seq_cst;
  expect_trace(trace_of<AtomicMembers>("members"),
               {{AccessKind::kStore, memory_order_release, "", "5"},
                {AccessKind::kLoad, memory_order_acquire, "5"},
                {AccessKind::kExchange, memory_order_acq_rel, "5", "6"},
                {AccessKind::kFetchAdd, memory_order_relaxed, "6", "10"},
                {AccessKind::kFetchSub, memory_order_seq_cst, "10", "8"},
                {AccessKind::kFetchAnd, memory_order_relaxed, "8", "8"},
                {AccessKind::kFetchOr, memory_order_seq_cst, "8", "11"},
                {AccessKind::kFetchXor, memory_order_release, "11", "14"},
                {AccessKind::kNotifyOne},
                {AccessKind::kNotifyAll},
                {AccessKind::kWait, memory_order_acquire, "14"}});
}

TEST(StdInterfaceTest, OperatorsAreAccessesOfTheirMembersKind) {
  const std::vector<TraceStep> trace = trace_of<AtomicMembers>("operators");
  expect_trace(trace, {{AccessKind::kStore, std::memory_order_seq_cst, "", "1"},
                       {AccessKind::kLoad, std::memory_order_seq_cst, "1"},
                       {AccessKind::kFetchAdd, std::memory_order_seq_cst, "1", "2"},
                       {AccessKind::kFetchAdd, std::memory_order_seq_cst, "2", "3"},
                       {AccessKind::kFetchSub, std::memory_order_seq_cst, "3", "2"},
                       {AccessKind::kFetchSub, std::memory_order_seq_cst, "2", "1"},
                       {AccessKind::kFetchAdd, std::memory_order_seq_cst, "1", "10"},
                       {AccessKind::kFetchSub, std::memory_order_seq_cst, "10", "7"},
                       {AccessKind::kFetchAnd, std::memory_order_seq_cst, "7", "6"},
                       {AccessKind::kFetchOr, std::memory_order_seq_cst, "6", "7"},
                       {AccessKind::kFetchXor, std::memory_order_seq_cst, "7", "5"}});
  // Through an operator the location is the member call inside it, in shared.h.
  for (const TraceStep& step : trace) EXPECT_EQ(step.file, "shared.h");
}

TEST(StdInterfaceTest, MemberCallsRecordTheCallersLine) {
  for (const TraceStep& step : trace_of<AtomicMembers>("members")) {
    EXPECT_EQ(step.file, "std_interface_test.cc");
  }
}

TEST(StdInterfaceTest, AtomicFlagMembersAreAccesses) {
  expect_trace(trace_of<AtomicMembers>("flag"),
               {{AccessKind::kExchange, std::memory_order_acquire, "false", "true"},
                {AccessKind::kLoad, std::memory_order_relaxed, "true"},
                {AccessKind::kStore, std::memory_order_release, "", "false"},
                {AccessKind::kWait, std::memory_order_seq_cst, "false"},
                {AccessKind::kNotifyOne},
                {AccessKind::kNotifyAll}});
}

TEST(StdInterfaceTest, OperatorResultsAndAssignmentMatchStdAtomic) {
  Atomic<int> a = 1;
  std::atomic<int> s = 1;
  EXPECT_EQ(a = 4, s = 4);
  EXPECT_EQ(++a, ++s);
  EXPECT_EQ(a++, s++);
  EXPECT_EQ(--a, --s);
  EXPECT_EQ(a--, s--);
  EXPECT_EQ(a += 7, s += 7);
  EXPECT_EQ(a -= 2, s -= 2);
  EXPECT_EQ(a &= 12, s &= 12);
  EXPECT_EQ(a |= 3, s |= 3);
  EXPECT_EQ(a ^= 5, s ^= 5);
  EXPECT_EQ(static_cast<int>(a), s.load());
  EXPECT_EQ(Atomic<int>::is_always_lock_free, std::atomic<int>::is_always_lock_free);
  EXPECT_TRUE(a.is_lock_free());

  Atomic<std::int8_t> wraps = 127;
  EXPECT_EQ(++wraps, -128);
  Atomic<double> real = 1.5;
  EXPECT_EQ(real.fetch_add(1.0), 1.5);
  EXPECT_EQ(real += 0.5, 3.0);
}

// Construction leaves the value's bytes exactly as std::atomic<T>'s does, over bytes that are
// already there (placement-new over recycled memory): both initializations run T() in place.
struct Tagged {  // Boost.Lockfree's tagged_ptr: a user-provided constructor that sets nothing
  Tagged() noexcept {}  // NOLINT(modernize-use-equals-default): the point of the test
  std::uint32_t index;
  std::uint16_t tag;
};
struct Plain {
  std::uint32_t a;
  std::uint16_t b;
};
struct WithValue {
  std::uint32_t a = 7;
  std::uint16_t b = 9;
};

template <class Wrapper, bool kValueInitialize>
std::vector<unsigned char> bytes_after_construction() {
  alignas(16) unsigned char memory[64];
  std::memset(memory, 0xA5, sizeof memory);
  // The old bytes are seen by code the compiler cannot look into (as a recycled node's are).
  asm volatile("" : : "r"(memory) : "memory");
  Wrapper* object = kValueInitialize ? new (memory) Wrapper() : new (memory) Wrapper;
  asm volatile("" : : "r"(memory) : "memory");
  // Read as volatile: the compiler takes bytes a constructor did not set for indeterminate.
  const volatile unsigned char* raw = memory;
  std::vector<unsigned char> bytes(sizeof(Wrapper));
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = raw[i];
  object->~Wrapper();
  // Destruction leaves the bytes too (both destructors are trivial).
  for (std::size_t i = 0; i < bytes.size(); ++i) EXPECT_EQ(raw[i], bytes[i]);
  return bytes;
}

// The bytes of T's value: all of them but trailing padding, which GCC may leave or zero (the
// constructor's T() is zeroed whole, then copied in or built in place), and which no program reads
// through the object.
template <class T>
constexpr std::size_t kValueBytes = sizeof(T);
template <>
constexpr std::size_t kValueBytes<Tagged> = offsetof(Tagged, tag) + sizeof(Tagged::tag);
template <>
constexpr std::size_t kValueBytes<Plain> = offsetof(Plain, b) + sizeof(Plain::b);
template <>
constexpr std::size_t kValueBytes<WithValue> = offsetof(WithValue, b) + sizeof(WithValue::b);

template <class Wrapper, bool kValueInitialize, class T>
std::vector<unsigned char> value_bytes_after_construction() {
  std::vector<unsigned char> bytes = bytes_after_construction<Wrapper, kValueInitialize>();
  bytes.resize(kValueBytes<T>);
  return bytes;
}

// `value_initialization`: compare `new (memory) X()` too. Not for a T whose constructor is
// user-provided and sets nothing (Tagged): what value-initializing std::atomic<T> leaves in its
// fields then depends on GCC's optimization level (all old bytes at -O2, the first field zeroed
// at -O1), and the language leaves them indeterminate; Atomic<T> keeps the old bytes.
template <class T>
void expect_same_bytes_as_std_atomic(bool value_initialization = true) {
  static_assert(sizeof(Atomic<T>) == sizeof(std::atomic<T>));
  static_assert(alignof(Atomic<T>) == alignof(std::atomic<T>));
  static_assert(std::is_trivially_destructible_v<Atomic<T>>);
  static_assert(!std::is_copy_constructible_v<Atomic<T>> && !std::is_copy_assignable_v<Atomic<T>>);
  EXPECT_EQ((value_bytes_after_construction<Atomic<T>, false, T>()),
            (value_bytes_after_construction<std::atomic<T>, false, T>()));
  if (!value_initialization) return;
  EXPECT_EQ((value_bytes_after_construction<Atomic<T>, true, T>()),
            (value_bytes_after_construction<std::atomic<T>, true, T>()));
}

TEST(StdInterfaceTest, ConstructionLeavesTheBytesStdAtomicLeaves) {
  expect_same_bytes_as_std_atomic<Tagged>(/*value_initialization=*/false);
  expect_same_bytes_as_std_atomic<Plain>();
  expect_same_bytes_as_std_atomic<WithValue>();
  expect_same_bytes_as_std_atomic<int>();
  expect_same_bytes_as_std_atomic<void*>();
  // The case Boost.Lockfree depends on: the tag a recycled node held is still there.
  const std::vector<unsigned char> kept = bytes_after_construction<Atomic<Tagged>, false>();
  EXPECT_TRUE(std::all_of(kept.begin(), kept.end(), [](unsigned char b) { return b == 0xA5; }));
  EXPECT_EQ((bytes_after_construction<AtomicFlag, false>()),
            (bytes_after_construction<std::atomic_flag, false>()));
}

// The locks hold their std type and nothing else (controlled mode keeps their state in the
// executor): the same size, alignment and bytes, constructed over recycled memory.
template <class Lock, class StdLock>
void expect_same_bytes_as_std_lock() {
  static_assert(sizeof(Lock) == sizeof(StdLock));
  static_assert(alignof(Lock) == alignof(StdLock));
  EXPECT_EQ((bytes_after_construction<Lock, false>()),
            (bytes_after_construction<StdLock, false>()));
  EXPECT_EQ((bytes_after_construction<Lock, true>()), (bytes_after_construction<StdLock, true>()));
}

TEST(StdInterfaceTest, LocksAreTheSizeAndBytesOfTheirStdTypes) {
  expect_same_bytes_as_std_lock<Mutex, std::mutex>();
  expect_same_bytes_as_std_lock<SharedMutex, std::shared_mutex>();
  expect_same_bytes_as_std_lock<RecursiveMutex, std::recursive_mutex>();
}

TEST(StdInterfaceTest, PointersMoveByElements) {
  int cells[8] = {};
  Atomic<int*> p = cells;
  EXPECT_EQ(p.fetch_add(2, std::memory_order_relaxed), cells);
  EXPECT_EQ(p.load(), cells + 2);
  EXPECT_EQ(++p, cells + 3);
  EXPECT_EQ(p++, cells + 3);
  EXPECT_EQ(p -= 4, cells);
  EXPECT_EQ(p += 5, cells + 5);
  EXPECT_EQ(p.fetch_sub(1), cells + 5);
  EXPECT_EQ(--p, cells + 3);
  static_assert(std::is_same_v<Atomic<int*>::difference_type, std::ptrdiff_t>);
  static_assert(std::is_same_v<Atomic<long>::value_type, long>);
}

class CompareExchanges final : public ObjectUnderTest {
 public:
  Value invoke(const Call&) override {
    std::vector<Value> seen;
    int expected = 1;  // wrong: the value is 0
    bool ok =
        x_.compare_exchange_weak(expected, 5, std::memory_order_acq_rel, std::memory_order_relaxed);
    seen.emplace_back(ok);
    seen.emplace_back(expected);  // 0
    ok = x_.compare_exchange_weak(expected, 5, std::memory_order_acq_rel);
    seen.emplace_back(ok);
    seen.emplace_back(expected);  // still 0
    expected = 7;
    ok = x_.compare_exchange_strong(expected, 8);
    seen.emplace_back(ok);
    seen.emplace_back(expected);  // 5
    ok = x_.compare_exchange_strong(expected, 9, std::memory_order_release,
                                    std::memory_order_acquire);
    seen.emplace_back(ok);
    seen.emplace_back(expected);  // still 5
    ok = x_.compare_exchange(expected, 10);
    seen.emplace_back(ok);
    seen.emplace_back(expected);  // 9
    return Value(std::move(seen));
  }

 private:
  Atomic<int> x_{0};
};

TEST(StdInterfaceTest, CompareExchangeFormsUpdateExpectedAndRecordBothOrders) {
  Workload w;
  w.setup = {call("cas")};
  ExecutionOptions options;
  options.record_trace = true;
  RandomScheduler scheduler(1);
  dpct::Run run = execute(factory_of<CompareExchanges>(), w, scheduler, options);
  ASSERT_EQ(run.outcome, RunOutcome::kOk) << run.message;
  EXPECT_EQ(run.history.op(0).result.to_string(),
            Value(std::vector<Value>{Value(false), Value(0), Value(true), Value(0), Value(false),
                                     Value(5), Value(true), Value(5), Value(false), Value(9)})
                .to_string());
  ASSERT_EQ(run.trace.size(), 5u);
  const std::vector<std::pair<std::memory_order, std::memory_order>> orders = {
      {std::memory_order_acq_rel, std::memory_order_relaxed},
      {std::memory_order_acq_rel, std::memory_order_acquire},  // derived as std does
      {std::memory_order_seq_cst, std::memory_order_seq_cst},
      {std::memory_order_release, std::memory_order_acquire},
      {std::memory_order_seq_cst, std::memory_order_seq_cst}};
  for (std::size_t i = 0; i < orders.size(); ++i) {
    EXPECT_EQ(run.trace[i].kind, AccessKind::kCompareExchange);
    EXPECT_EQ(run.trace[i].order, orders[i].first) << i;
    EXPECT_EQ(run.trace[i].failure_order, orders[i].second) << i;
    EXPECT_EQ(run.trace[i].success, i == 1 || i == 3) << i;
  }
}

// ---------------------------------------------------------------------------------------------
// A Treiber stack written exactly as with std::atomic; only the alias differs.

template <class T>
using atomic = linfault::dpct::Atomic<T>;

template <bool kBuggy>
class StdStyleTreiberStack final : public ObjectUnderTest {
 public:
  ~StdStyleTreiberStack() override {
    for (Node* n : all_) delete n;
  }
  Value invoke(const Call& c) override {
    if (c.method == "push") {
      push(c.args.at(0).as_int());
      return {};
    }
    const std::optional<std::int64_t> v = pop();
    return v ? Value(*v) : Value();
  }

 private:
  struct Node {
    std::int64_t value;
    atomic<Node*> next;
  };
  void push(std::int64_t v) {
    Node* node = new Node{v, nullptr};
    all_.push_back(node);  // not shared: the executor runs one logical thread at a time
    Node* old = top_.load(std::memory_order_relaxed);
    do {
      node->next.store(old, std::memory_order_relaxed);
    } while (!top_.compare_exchange_weak(old, node, std::memory_order_release,
                                         std::memory_order_relaxed));
  }
  std::optional<std::int64_t> pop() {
    Node* old = top_.load(std::memory_order_acquire);
    while (old != nullptr) {
      Node* next = old->next.load(std::memory_order_relaxed);
      if (kBuggy) {
        // The bug: a failed CAS is not retried, the value read is returned anyway.
        Node* read = old;
        top_.compare_exchange_strong(old, next, std::memory_order_acq_rel);
        return read->value;
      }
      if (top_.compare_exchange_weak(old, next, std::memory_order_acq_rel,
                                     std::memory_order_acquire)) {
        return old->value;
      }
    }
    return std::nullopt;
  }

  atomic<Node*> top_{nullptr};
  std::vector<Node*> all_;
};

// A stack violation a two-pop workload can show: both pops return the one pushed value.
bool popped_twice(const dpct::Run& run) {
  const history::History& h = run.history;
  if (run.outcome != RunOutcome::kOk) return true;
  return h.op(1).result == h.op(2).result && !h.op(1).result.is_nil();  // op 0 is the setup
}

TEST(StdInterfaceTest, StdStyleTreiberStackRunsExhaustivelyAndItsBuggyVariantFails) {
  Workload w;
  w.setup = {call("push", {1})};
  w.threads = {{call("pop")}, {call("pop")}};
  Executor executor;
  ExhaustiveResult correct = explore_exhaustively(
      executor, factory_of<StdStyleTreiberStack<false>>(), w, {}, popped_twice);
  EXPECT_FALSE(correct.found);
  EXPECT_TRUE(correct.exhausted);
  EXPECT_GT(correct.executions, 2u);

  ExhaustiveResult buggy =
      explore_exhaustively(executor, factory_of<StdStyleTreiberStack<true>>(), w, {}, popped_twice);
  ASSERT_TRUE(buggy.found);
  EXPECT_EQ(buggy.found->history.op(1).result, Value(std::int64_t{1}));

  // Pushes and pops of both threads keep every value exactly once.
  Workload mixed;
  mixed.threads = {{call("push", {1}), call("pop")}, {call("push", {2}), call("pop")}};
  mixed.reveal = {call("pop")};
  ExhaustiveOptions bounded;
  bounded.max_preemptions = 2;
  ExhaustiveResult all = explore_exhaustively(
      executor, factory_of<StdStyleTreiberStack<false>>(), mixed, bounded,
      [](const dpct::Run& run) {
        std::multiset<std::int64_t> popped;
        for (const history::Operation& op : run.history.operations()) {
          if (op.call.method == "pop" && !op.result.is_nil()) popped.insert(op.result.as_int());
        }
        return run.outcome != RunOutcome::kOk || popped != std::multiset<std::int64_t>{1, 2};
      });
  EXPECT_FALSE(all.found);
  EXPECT_TRUE(all.exhausted);
}

// ---------------------------------------------------------------------------------------------
// Locks through the std RAII types.

// "inc" increments a plain counter with a separate load and store, under the lock the
// constructor argument names; "get" reads it.
class GuardedCounter final : public ObjectUnderTest {
 public:
  enum class Guard { kNone, kLockGuard, kUniqueLock, kScopedLock, kSharedMutex, kRecursive };
  explicit GuardedCounter(Guard guard) : guard_(guard) {}
  Value invoke(const Call& c) override {
    if (c.method == "get") return Value(std::int64_t{count_.load()});
    switch (guard_) {
      case Guard::kNone:
        increment();
        break;
      case Guard::kLockGuard: {
        std::lock_guard<Mutex> lock(mutex_);
        increment();
        break;
      }
      case Guard::kUniqueLock: {
        std::unique_lock<Mutex> lock(mutex_);
        increment();
        lock.unlock();
        lock.lock();
        break;
      }
      case Guard::kScopedLock: {
        std::scoped_lock lock(mutex_, other_);
        increment();
        break;
      }
      case Guard::kSharedMutex: {
        std::unique_lock<SharedMutex> lock(shared_);
        increment();
        break;
      }
      case Guard::kRecursive: {
        std::lock_guard<RecursiveMutex> outer(recursive_);
        std::lock_guard<RecursiveMutex> inner(recursive_);
        increment();
        break;
      }
    }
    return {};
  }

 private:
  void increment() { count_.store(count_.load() + 1); }

  Guard guard_;
  Mutex mutex_, other_;
  SharedMutex shared_;
  RecursiveMutex recursive_;
  Var<int> count_{0};
};

TEST(StdInterfaceTest, StdRaiiLocksGiveMutualExclusionUnderExhaustiveExploration) {
  using Guard = GuardedCounter::Guard;
  Workload w;
  w.threads = {{call("inc")}, {call("inc")}};
  w.reveal = {call("get")};
  auto lost_update = [](const dpct::Run& run) {
    return run.outcome != RunOutcome::kOk ||
           run.history.op(run.history.size() - 1).result != Value(std::int64_t{2});
  };
  Executor executor;
  ExhaustiveResult unguarded =
      explore_exhaustively(executor, factory_of<GuardedCounter>(Guard::kNone), w, {}, lost_update);
  EXPECT_TRUE(unguarded.found) << "the unguarded counter loses an update";
  for (Guard guard : {Guard::kLockGuard, Guard::kUniqueLock, Guard::kScopedLock,
                      Guard::kSharedMutex, Guard::kRecursive}) {
    SCOPED_TRACE(static_cast<int>(guard));
    ExhaustiveResult result =
        explore_exhaustively(executor, factory_of<GuardedCounter>(guard), w, {}, lost_update);
    EXPECT_FALSE(result.found) << (result.found ? result.found->message : "");
    EXPECT_TRUE(result.exhausted);
    EXPECT_GT(result.executions, 1u);
  }
}

// Locks two mutexes with std::lock_guard in the order the method names, or both at once with
// std::scoped_lock ("both_ab", "both_ba"), which never deadlocks.
class StdTwoLocks final : public ObjectUnderTest {
 public:
  Value invoke(const Call& c) override {
    if (c.method == "both_ab") {
      std::scoped_lock lock(a_, b_);
      return {};
    }
    if (c.method == "both_ba") {
      std::scoped_lock lock(b_, a_);
      return {};
    }
    Mutex& first = c.method == "ab" ? a_ : b_;
    Mutex& second = c.method == "ab" ? b_ : a_;
    std::lock_guard<Mutex> g1(first);
    std::lock_guard<Mutex> g2(second);
    return {};
  }

 private:
  Mutex a_, b_;
};

TEST(StdInterfaceTest, OppositeLockOrderThroughStdLockGuardDeadlocksAndScopedLockDoesNot) {
  Executor executor;
  Workload w;
  w.threads = {{call("ab")}, {call("ba")}};
  ExhaustiveResult deadlock = explore_exhaustively(
      executor, factory_of<StdTwoLocks>(), w, {},
      [](const dpct::Run& run) { return run.outcome == RunOutcome::kDeadlock; });
  ASSERT_TRUE(deadlock.found);
  EXPECT_NE(deadlock.found->message.find("deadlock"), std::string::npos);

  Workload both;
  both.threads = {{call("both_ab")}, {call("both_ba")}};
  ExhaustiveOptions bounded;
  bounded.max_preemptions = 3;
  ExhaustiveResult none =
      explore_exhaustively(executor, factory_of<StdTwoLocks>(), both, bounded,
                           [](const dpct::Run& run) { return run.outcome != RunOutcome::kOk; });
  EXPECT_FALSE(none.found) << (none.found ? none.found->message : "");
  EXPECT_TRUE(none.exhausted);
}

// Readers hold a SharedMutex through std::shared_lock, a writer through std::unique_lock. Each
// records how many readers and writers it saw inside (besides itself).
class ReadersWriter final : public ObjectUnderTest {
 public:
  Value invoke(const Call& c) override {
    if (c.method == "read") {
      std::shared_lock<SharedMutex> lock(mutex_);
      readers_.fetch_add(1);  // readers run together: their updates must be atomic
      const int writers = writers_.load();
      const int others = readers_.load() - 1;
      readers_.fetch_sub(1);
      return Value(std::vector<Value>{Value(others), Value(writers)});
    }
    std::unique_lock<SharedMutex> lock(mutex_);
    writers_.store(1);
    const int readers = readers_.load();
    writers_.store(0);
    return Value(std::vector<Value>{Value(readers), Value(0)});
  }

 private:
  SharedMutex mutex_;
  Atomic<int> readers_{0};
  Var<int> writers_{0};
};

TEST(StdInterfaceTest, SharedLockAdmitsReadersTogetherAndKeepsTheWriterAlone) {
  Executor executor;
  Workload readers;
  readers.threads = {{call("read")}, {call("read")}};
  ExhaustiveResult together = explore_exhaustively(
      executor, factory_of<ReadersWriter>(), readers, {},
      [](const dpct::Run& run) { return result_of(run, 0).as_list().at(0) == Value(1); });
  EXPECT_TRUE(together.found) << "two readers can be inside at once";

  Workload mixed;
  mixed.threads = {{call("read")}, {call("write")}, {call("read")}};
  ExhaustiveOptions bounded;
  bounded.max_preemptions = 3;
  ExhaustiveResult exclusive = explore_exhaustively(
      executor, factory_of<ReadersWriter>(), mixed, bounded, [](const dpct::Run& run) {
        if (run.outcome != RunOutcome::kOk) return true;
        const Value reader0 = result_of(run, 0);
        const Value writer = result_of(run, 1);
        const Value reader2 = result_of(run, 2);
        return reader0.as_list().at(1) != Value(0) || reader2.as_list().at(1) != Value(0) ||
               writer.as_list().at(0) != Value(0);
      });
  EXPECT_FALSE(exclusive.found) << (exclusive.found ? exclusive.found->message + " " +
                                                          fixtures::render(exclusive.found->history)
                                                    : "");
  EXPECT_TRUE(exclusive.exhausted);
}

TEST(StdInterfaceTest, TryLockFormsReportSuccessInTheTrace) {
  struct TryLocks final : ObjectUnderTest {
    Value invoke(const Call&) override {
      std::vector<Value> got;
      got.emplace_back(shared.try_lock_shared());
      got.emplace_back(shared.try_lock());  // fails: a reader holds it
      shared.unlock_shared();
      got.emplace_back(shared.try_lock());
      shared.unlock();
      got.emplace_back(recursive.try_lock());
      got.emplace_back(recursive.try_lock());  // the holder may lock again
      recursive.unlock();
      recursive.unlock();
      std::unique_lock<Mutex> lock(mutex, std::try_to_lock);
      got.emplace_back(lock.owns_lock());
      return Value(std::move(got));
    }
    SharedMutex shared;
    RecursiveMutex recursive;
    Mutex mutex;
  };
  Workload w;
  w.setup = {call("go")};
  ExecutionOptions options;
  options.record_trace = true;
  RandomScheduler scheduler(1);
  dpct::Run run = execute(factory_of<TryLocks>(), w, scheduler, options);
  ASSERT_EQ(run.outcome, RunOutcome::kOk) << run.message;
  EXPECT_EQ(run.history.op(0).result.to_string(),
            Value(std::vector<Value>{Value(true), Value(false), Value(true), Value(true),
                                     Value(true), Value(true)})
                .to_string());
  std::vector<std::string> kinds;
  for (const TraceStep& step : run.trace) {
    kinds.push_back(std::string(access_kind_name(step.kind)) + (step.success ? "" : "!"));
  }
  EXPECT_EQ(kinds, (std::vector<std::string>{"try_lock_shared", "try_lock!", "unlock_shared",
                                             "try_lock", "unlock", "try_lock", "try_lock", "unlock",
                                             "unlock", "try_lock", "unlock"}));
}

TEST(StdInterfaceTest, RecursiveMutexMakesOthersWaitUntilTheLastUnlock) {
  struct Nested final : ObjectUnderTest {
    Value invoke(const Call& c) override {
      if (c.method == "nested") {
        std::lock_guard<RecursiveMutex> outer(mutex);
        inside.store(1);
        {
          std::lock_guard<RecursiveMutex> inner(mutex);
          inside.store(2);
        }
        inside.store(0);
        return {};
      }
      std::lock_guard<RecursiveMutex> lock(mutex);
      return Value(inside.load());
    }
    RecursiveMutex mutex;
    Var<int> inside{0};
  };
  Workload w;
  w.threads = {{call("nested")}, {call("peek")}};
  Executor executor;
  ExhaustiveResult result =
      explore_exhaustively(executor, factory_of<Nested>(), w, {}, [](const dpct::Run& run) {
        return run.outcome != RunOutcome::kOk || result_of(run, 1) != Value(0);
      });
  EXPECT_FALSE(result.found) << (result.found ? result.found->message : "");
  EXPECT_TRUE(result.exhausted);
}

// ---------------------------------------------------------------------------------------------
// ConditionVariable.

// A bounded buffer of one slot: "put v" waits until it is empty, "take" until it is full. With
// `forget_notify`, put does not notify.
class OneSlot final : public ObjectUnderTest {
 public:
  explicit OneSlot(bool forget_notify = false) : forget_notify_(forget_notify) {}
  Value invoke(const Call& c) override {
    std::unique_lock<Mutex> lock(mutex_);
    if (c.method == "put") {
      changed_.wait(lock, [&] { return !full_.load(); });
      slot_.store(static_cast<int>(c.args.at(0).as_int()));
      full_.store(true);
      if (!forget_notify_) changed_.notify_all();
      return {};
    }
    changed_.wait(lock, [&] { return full_.load(); });
    const int v = slot_.load();
    full_.store(false);
    changed_.notify_all();
    return Value(v);
  }

 private:
  bool forget_notify_;
  Mutex mutex_;
  ConditionVariable changed_;
  Var<bool> full_{false};
  Var<int> slot_{0};
};

TEST(StdInterfaceTest, ProducerConsumerWorksUnderExhaustiveExplorationWithoutFalseDeadlocks) {
  Workload w;
  w.threads = {{call("put", {1}), call("put", {2})}, {call("take"), call("take")}};
  Executor executor;
  ExhaustiveOptions bounded;
  bounded.max_preemptions = 3;
  ExhaustiveResult result =
      explore_exhaustively(executor, factory_of<OneSlot>(), w, bounded, [](const dpct::Run& run) {
        return run.outcome != RunOutcome::kOk || result_of(run, 1, 0) != Value(1) ||
               result_of(run, 1, 1) != Value(2);
      });
  EXPECT_FALSE(result.found) << (result.found ? result.found->message : "");
  EXPECT_TRUE(result.exhausted);
  EXPECT_GT(result.executions, 10u);

  // Two producers, two consumers.
  Workload four;
  four.threads = {{call("put", {1})}, {call("put", {2})}, {call("take")}, {call("take")}};
  bounded.max_preemptions = 2;
  ExhaustiveResult many = explore_exhaustively(
      executor, factory_of<OneSlot>(), four, bounded, [](const dpct::Run& run) {
        if (run.outcome != RunOutcome::kOk) return true;
        std::set<std::int64_t> taken = {result_of(run, 2).as_int(), result_of(run, 3).as_int()};
        return taken != std::set<std::int64_t>{1, 2};
      });
  EXPECT_FALSE(many.found) << (many.found ? many.found->message : "");
}

TEST(StdInterfaceTest, AMissingNotifyIsADeadlockOfWaitingThreads) {
  Workload w;
  w.threads = {{call("put", {1})}, {call("take")}};
  Executor executor;
  ExhaustiveResult result = explore_exhaustively(
      executor, factory_of<OneSlot>(true), w, {},
      [](const dpct::Run& run) { return run.outcome == RunOutcome::kDeadlock; });
  ASSERT_TRUE(result.found);
  EXPECT_NE(result.found->message.find("thread 1 waits (wait) at std_interface_test.cc"),
            std::string::npos)
      << result.found->message;
  // The schedule where the producer runs first has no waiting and succeeds.
  EXPECT_GT(result.outcomes[static_cast<int>(RunOutcome::kOk)] +
                result.outcomes[static_cast<int>(RunOutcome::kDeadlock)],
            0u);
}

// "wait" waits for a notify without predicate and returns its turn; "timed" waits at most 10 ms;
// "notify_one"/"notify_all" notify at once (a notify before the wait is lost, as with std).
class Waiters final : public ObjectUnderTest {
 public:
  Value invoke(const Call& c) override {
    std::unique_lock<Mutex> lock(mutex_);
    if (c.method == "wait") {
      waiting_.store(waiting_.load() + 1);
      changed_.wait(lock);
      const int turn = woken_.load();
      woken_.store(turn + 1);
      return Value(turn);
    }
    if (c.method == "timed") {
      waiting_.store(waiting_.load() + 1);
      const std::cv_status status = changed_.wait_for(lock, std::chrono::milliseconds(10));
      return Value(status == std::cv_status::timeout ? "timeout" : "notified");
    }
    if (c.method == "notify_one") {
      changed_.notify_one();
    } else {
      changed_.notify_all();
    }
    return {};
  }

 private:
  Mutex mutex_;
  ConditionVariable changed_;
  Var<int> waiting_{0};
  Var<int> woken_{0};
};

TEST(StdInterfaceTest, NotifyOneWakesOneWaiterChosenByTheSchedule) {
  Workload w;
  w.threads = {{call("wait")}, {call("wait")}, {call("notify_one"), call("notify_one")}};
  Executor executor;
  std::set<std::string> orders;
  ExhaustiveOptions bounded;
  bounded.max_preemptions = 2;
  ExhaustiveResult result =
      explore_exhaustively(executor, factory_of<Waiters>(), w, bounded, [&](const dpct::Run& run) {
        if (run.outcome == RunOutcome::kOk) {
          orders.insert(result_of(run, 0).to_string() + result_of(run, 1).to_string());
        }
        return false;
      });
  EXPECT_TRUE(result.exhausted);
  // Either waiter may be the one the first notify_one wakes.
  EXPECT_EQ(orders, (std::set<std::string>{"01", "10"}));
  EXPECT_GT(result.outcomes[static_cast<int>(RunOutcome::kOk)], 0u);
}

TEST(StdInterfaceTest, ASingleNotifyOneLeavesTheOtherWaiterBlockedAndNotifyAllWakesBoth) {
  Executor executor;
  Workload one;
  one.threads = {{call("wait")}, {call("wait")}, {call("notify_one")}};
  ExhaustiveResult stuck = explore_exhaustively(executor, factory_of<Waiters>(), one, {});
  EXPECT_GT(stuck.outcomes[static_cast<int>(RunOutcome::kDeadlock)], 0u);

  Workload all;
  all.threads = {{call("wait")}, {call("wait")}, {call("notify_all")}};
  ExhaustiveResult woken = explore_exhaustively(executor, factory_of<Waiters>(), all, {});
  EXPECT_TRUE(woken.exhausted);
  EXPECT_GT(woken.outcomes[static_cast<int>(RunOutcome::kOk)], 0u);
  // Deadlocks remain where a waiter arrives after the notify_all (no notify is stored).
  EXPECT_LT(woken.outcomes[static_cast<int>(RunOutcome::kDeadlock)], woken.executions);
}

TEST(StdInterfaceTest, TimedWaitTimesOutOrIsNotifiedAsTheScheduleChooses) {
  Workload w;
  w.threads = {{call("timed")}, {call("notify_one")}};
  Executor executor;
  std::set<std::string> outcomes;
  ExhaustiveResult result =
      explore_exhaustively(executor, factory_of<Waiters>(), w, {}, [&](const dpct::Run& run) {
        EXPECT_EQ(run.outcome, RunOutcome::kOk) << run.message;
        outcomes.insert(result_of(run, 0).as_string());
        return false;
      });
  EXPECT_TRUE(result.exhausted);
  EXPECT_EQ(outcomes, (std::set<std::string>{"notified", "timeout"}));
}

// ---------------------------------------------------------------------------------------------
// Atomic and AtomicFlag wait/notify.

// "wait" waits until the value is not 0; "set" stores 1 and notifies unless `forget_notify`.
class AtomicWaiter final : public ObjectUnderTest {
 public:
  explicit AtomicWaiter(bool forget_notify = false, bool use_flag = false)
      : forget_notify_(forget_notify), use_flag_(use_flag) {}
  Value invoke(const Call& c) override {
    if (use_flag_) {
      if (c.method == "wait") {
        flag_.wait(false, std::memory_order_acquire);
        return Value(flag_.test());
      }
      flag_.test_and_set(std::memory_order_release);
      if (!forget_notify_) flag_.notify_all();
      return {};
    }
    if (c.method == "wait") {
      value_.wait(0, std::memory_order_acquire);
      return Value(value_.load());
    }
    value_.store(1, std::memory_order_release);
    if (!forget_notify_) value_.notify_one();
    return {};
  }

 private:
  bool forget_notify_;
  bool use_flag_;
  Atomic<int> value_{0};
  AtomicFlag flag_;
};

TEST(StdInterfaceTest, AtomicWaitBlocksWithoutSpinningUntilNotified) {
  for (bool use_flag : {false, true}) {
    SCOPED_TRACE(use_flag ? "AtomicFlag" : "Atomic");
    Workload w;
    w.threads = {{call("wait")}, {call("set")}};
    Executor executor;
    ExhaustiveResult result = explore_exhaustively(
        executor, factory_of<AtomicWaiter>(false, use_flag), w, {}, [](const dpct::Run& run) {
          if (run.outcome != RunOutcome::kOk) return true;
          const Value seen = result_of(run, 0);
          return seen != Value(1) && seen != Value(true);
        });
    EXPECT_FALSE(result.found) << (result.found ? result.found->message : "");
    EXPECT_TRUE(result.exhausted);

    // The waiter that arrives first blocks: the setter alone is enabled at every later point,
    // so the run takes a handful of scheduling points, not a spin to the step cap.
    ScriptedScheduler first_the_waiter({{0, ScriptedScheduler::kUntilDone}});
    ExecutionOptions options;
    options.record_trace = true;
    dpct::Run run =
        executor.execute(factory_of<AtomicWaiter>(false, use_flag), w, first_the_waiter, options);
    ASSERT_EQ(run.outcome, RunOutcome::kOk) << run.message;
    EXPECT_LT(run.steps, 10u);
    EXPECT_EQ(run.trace.front().kind, AccessKind::kWait);
    EXPECT_EQ(run.trace.front().order, std::memory_order_acquire);
  }
}

TEST(StdInterfaceTest, AtomicWaitWithoutNotifyIsADeadlock) {
  for (bool use_flag : {false, true}) {
    Workload w;
    w.threads = {{call("wait")}, {call("set")}};
    Executor executor;
    ExhaustiveResult result = explore_exhaustively(
        executor, factory_of<AtomicWaiter>(true, use_flag), w, {},
        [](const dpct::Run& run) { return run.outcome == RunOutcome::kDeadlock; });
    ASSERT_TRUE(result.found);
    EXPECT_NE(result.found->message.find("thread 0 waits (wait)"), std::string::npos)
        << result.found->message;
    // Waiting in Ps or Pr, with nobody to notify, is a deadlock too.
    Workload alone;
    alone.setup = {call("wait")};
    RandomScheduler scheduler(1);
    dpct::Run run = executor.execute(factory_of<AtomicWaiter>(true, use_flag), alone, scheduler);
    EXPECT_EQ(run.outcome, RunOutcome::kDeadlock);
    EXPECT_NE(run.message.find("setup call 0 waits forever"), std::string::npos) << run.message;
  }
}

TEST(StdInterfaceTest, PctAndRandomRunsOfWaitersTerminate) {
  Workload w;
  w.threads = {{call("put", {1}), call("put", {2})}, {call("take"), call("take")}};
  Executor executor;
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    PctScheduler pct(PctOptions{seed, 2, 20});
    dpct::Run run = executor.execute(factory_of<OneSlot>(), w, pct);
    EXPECT_EQ(run.outcome, RunOutcome::kOk) << run.message;
    RandomScheduler random(seed);
    run = executor.execute(factory_of<OneSlot>(), w, random);
    EXPECT_EQ(run.outcome, RunOutcome::kOk) << run.message;
  }
}

}  // namespace
}  // namespace linfault::dpct
