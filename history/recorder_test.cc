// Tests of the native recorder (history/recorder.h): real-time order across threads, pending
// operations, misuse, the JSON file read back by the history readers and checked by the checker.
// Labelled native: CI re-runs it under ThreadSanitizer.

#include "history/recorder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <queue>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "detect/checker.h"
#include "history/formats.h"

namespace linfault::history {
namespace {

using ::testing::HasSubstr;

// A correct queue for the recorded stress runs.
class LockedQueue {
 public:
  void enq(std::int64_t x) {
    std::lock_guard<std::mutex> lock(mu_);
    q_.push(x);
  }
  std::optional<std::int64_t> deq() {
    std::lock_guard<std::mutex> lock(mu_);
    if (q_.empty()) return std::nullopt;
    std::int64_t x = q_.front();
    q_.pop();
    return x;
  }

 private:
  std::mutex mu_;
  std::queue<std::int64_t> q_;
};

// A fresh directory under the system temporary directory, removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::temp_directory_path() /
            ("linfault-recorder-" + std::string(info->name()) + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

detect::Verdict check(const std::string& model, const History& h) {
  detect::CheckOptions options;
  options.timeout_seconds = 60;
  return detect::check_history(model, h, options);
}

std::vector<std::string> files_in(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

TEST(RecorderTest, RecordsSequentialOperationsInOrder) {
  Recorder rec("queue");
  auto op = rec.invoke(0, "enq", {Value(3)});
  op.ok();
  EXPECT_FALSE(op.open());
  rec.invoke(1, "deq").ok(3);
  rec.invoke(0, "deq", {}).ok(std::optional<int>());
  rec.invoke(1, "cas", {1, 2, 3}).fail("timeout");

  EXPECT_EQ(rec.model(), "queue");
  EXPECT_EQ(rec.size(), 4u);
  HistoryBuilder expected;
  expected.call(0, Call{"enq", {Value(3)}}, Value());
  expected.call(1, Call{"deq", {}}, Value(3));
  expected.call(0, Call{"deq", {}}, Value());
  expected.invoke(1, Call{"cas", {Value(1), Value(2), Value(3)}});
  expected.respond(1, Outcome::kFail, Value("timeout"));
  const History h = rec.history();
  EXPECT_EQ(h, std::move(expected).build());
  EXPECT_EQ(h.op(3).outcome, Outcome::kFail);
}

TEST(RecorderTest, CallConvertsResults) {
  Recorder rec;
  EXPECT_EQ(rec.call(0, "a", {}, [] { return std::optional<int>(); }), std::nullopt);
  EXPECT_EQ(rec.call(0, "b", {}, [] { return std::optional<int>(7); }), 7);
  EXPECT_TRUE(rec.call(0, "c", {}, [] { return true; }));
  EXPECT_EQ(rec.call(0, "d", {}, [] { return std::uint64_t{42}; }), 42u);
  EXPECT_EQ(rec.call(0, "e", {}, [] { return std::string("x"); }), "x");
  rec.call(0, "f", {Value("k")}, [] {});
  EXPECT_EQ(rec.call(0, "g", {}, [] { return std::vector<int>{1, 2}; }).size(), 2u);
  int cell = 5;
  int& ref = rec.call(0, "h", {}, [&]() -> int& { return cell; });
  EXPECT_EQ(&ref, &cell);
  const std::vector<Value> args = {Value(1), Value(2), Value(3)};
  EXPECT_EQ(rec.call(0, "i", args, [] { return Value("v"); }), Value("v"));

  const History h = rec.history();
  ASSERT_EQ(h.size(), 9u);
  const std::vector<Value> results = {Value(),
                                      Value(7),
                                      Value(true),
                                      Value(42),
                                      Value("x"),
                                      Value(),
                                      Value(Value::List{Value(1), Value(2)}),
                                      Value(5),
                                      Value("v")};
  for (std::size_t i = 0; i < results.size(); ++i) {
    EXPECT_EQ(h.op(static_cast<OpIndex>(i)).result, results[i])
        << h.op(static_cast<OpIndex>(i)).to_string();
    EXPECT_EQ(h.op(static_cast<OpIndex>(i)).outcome, Outcome::kOk);
  }
  EXPECT_EQ(h.op(5).call.args, std::vector<Value>{Value("k")});
  EXPECT_EQ(h.op(8).call.args, args);
}

TEST(RecorderTest, ExceptionLeavesTheOperationPending) {
  Recorder rec("queue");
  LockedQueue q;
  EXPECT_THROW(rec.call(0, "enq", {Value(1)},
                        [&]() -> void {
                          q.enq(1);
                          throw std::runtime_error("lost connection");
                        }),
               std::runtime_error);
  // The process may go on at once.
  EXPECT_EQ(rec.call(0, "deq", {}, [&] { return q.deq(); }), 1);

  const History h = rec.history();
  ASSERT_EQ(h.size(), 2u);
  EXPECT_EQ(h.op(0).outcome, Outcome::kPending);
  EXPECT_EQ(h.op(0).return_event, kNoEvent);
  EXPECT_TRUE(h.op(0).result.is_nil());
  EXPECT_EQ(h.op(1).outcome, Outcome::kOk);
  EXPECT_EQ(h.events().size(), 3u);  // no response for the pending enq
  EXPECT_EQ(check("queue", h).result, detect::Result::kLinearizable);
}

TEST(RecorderTest, DestroyedHandleLeavesTheOperationPending) {
  Recorder rec("stack");
  {
    auto op = rec.invoke(3, "push", {Value(9)});
    EXPECT_TRUE(op.open());
  }  // no ok(): the call never returned
  auto moved_from = rec.invoke(3, "pop");
  auto op = std::move(moved_from);
  EXPECT_FALSE(moved_from.open());
  EXPECT_THROW(moved_from.ok(), std::logic_error);
  op.ok(9);
  auto later = rec.invoke(3, "pop");
  later.abandon();
  EXPECT_FALSE(later.open());
  later.abandon();  // no-op

  const History h = rec.history();
  ASSERT_EQ(h.size(), 3u);
  EXPECT_EQ(h.op(0).outcome, Outcome::kPending);
  EXPECT_EQ(h.op(1).outcome, Outcome::kOk);
  EXPECT_EQ(h.op(2).outcome, Outcome::kPending);
  EXPECT_EQ(check("stack", h).result, detect::Result::kLinearizable);
}

TEST(RecorderTest, MisuseThrowsLogicError) {
  Recorder rec;
  auto op = rec.invoke(7, "enq", {Value(1)});
  try {
    auto second = rec.invoke(7, "deq");
    FAIL() << "a second open operation of process 7 was accepted";
  } catch (const std::logic_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("process 7 invokes deq while its enq is still open"));
  }
  // Another process, and another thread using process 7, are checked the same way.
  auto other = rec.invoke(8, "deq");
  std::thread([&] { EXPECT_THROW(rec.invoke(7, "x"), std::logic_error); }).join();
  op.ok();
  EXPECT_THROW(op.ok(), std::logic_error);
  EXPECT_THROW(op.fail(), std::logic_error);
  other.ok();
  rec.invoke(7, "deq").ok();  // fine once the first one returned
  EXPECT_EQ(rec.size(), 3u);  // the rejected invokes recorded nothing
  EXPECT_EQ(rec.history().size(), 3u);
}

TEST(RecorderTest, ValuesOfEveryKindRoundTrip) {
  Recorder rec("kv");
  const Value list(Value::List{Value(1), Value("two"), Value(Value::List{})});
  const std::vector<std::vector<Value>> arg_lists = {
      {},
      {Value()},
      {Value(true), Value(false)},
      {Value(std::int64_t{-9'000'000'000'000'000'000}), Value("a string longer than SSO, surely")},
      {list, Value(4), Value("x"), Value()},  // more than two: stored apart
  };
  const std::vector<Value> results = {Value(), Value(false), Value("result"), list, Value(-1)};
  for (std::size_t i = 0; i < arg_lists.size(); ++i) {
    auto op = rec.invoke(1, "m", arg_lists[i]);
    // A rejected invoke with values stored on the heap must not leak them (ASan job).
    EXPECT_THROW(rec.invoke(1, "m", {Value("boxed"), Value(Value::List{Value(1)})}),
                 std::logic_error);
    EXPECT_THROW(rec.invoke(1, "m", {1, 2, 3}), std::logic_error);
    if (i % 2 == 0) {
      op.ok(results[i]);
    } else {
      op.fail(results[i]);
    }
  }
  auto pending = rec.invoke(2, "put", {Value("k"), list});
  pending.abandon();
  const History h = rec.history();
  ASSERT_EQ(h.size(), arg_lists.size() + 1);
  for (std::size_t i = 0; i < arg_lists.size(); ++i) {
    const Operation& op = h.op(static_cast<OpIndex>(i));
    EXPECT_EQ(op.call.args, arg_lists[i]);
    EXPECT_EQ(op.result, results[i]);
    EXPECT_EQ(op.outcome, i % 2 == 0 ? Outcome::kOk : Outcome::kFail);
  }
  EXPECT_EQ(h.op(5).call.args, (std::vector<Value>{Value("k"), list}));
  EXPECT_TRUE(h.op(5).result.is_nil());
}

// reserve() hands prepared chunks to the threads; the records are the same.
TEST(RecorderTest, ReservedMemoryIsUsedByTheThreads) {
  constexpr int kOps = 50'000;  // more than one chunk per thread
  Recorder rec("queue");
  rec.reserve(3 * kOps);
  LockedQueue q;
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kOps; ++i) {
        if (i % 2 == 0) {
          rec.call(t, "enq", {Value(t * kOps + i)}, [&] { q.enq(t * kOps + i); });
        } else {
          rec.call(t, "deq", {}, [&] { return q.deq(); });
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(rec.size(), 2u * kOps);
  const History h = rec.history();
  ASSERT_EQ(h.size(), 2u * kOps);
  std::vector<int> next(2, 0);
  for (const Operation& op : h.operations()) {
    const int i = next[static_cast<std::size_t>(op.process)]++;
    ASSERT_EQ(op.call.method, i % 2 == 0 ? "enq" : "deq");
    if (i % 2 == 0) {
      ASSERT_EQ(op.call.args[0], Value(op.process * kOps + i));
    }
  }
}

TEST(RecorderTest, HandleMayBeCompletedOnAnotherThread) {
  Recorder rec;
  auto op = rec.invoke(0, "get");
  std::thread([&] { op.ok(5); }).join();
  rec.invoke(0, "get").ok(6);  // process 0 was released by the other thread
  const History h = rec.history();
  ASSERT_EQ(h.size(), 2u);
  EXPECT_EQ(h.op(0).result, Value(5));
  EXPECT_TRUE(h.precedes(0, 1));
}

// Four threads record a stress run on a correct queue. A ping-pong between pairs of threads gives
// known real-time orders: the recorder must report them; per-process program order must hold;
// the history must check as linearizable.
TEST(RecorderTest, ConcurrentRecordingKeepsRealTimeOrder) {
  constexpr int kThreads = 4;
  constexpr int kOpsPerThread = 3000;  // crosses several buffer chunks
  Recorder rec("queue");
  LockedQueue q;
  // turn[p] flips between the two threads of pair p; each handoff follows a completed op.
  std::atomic<int> turn[kThreads / 2] = {};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const int pair = t / 2;
      const int side = t % 2;
      for (int i = 0; i < kOpsPerThread; ++i) {
        if (i % 100 == 0) {  // ping-pong: wait for my turn, record, hand over
          while (turn[pair].load(std::memory_order_acquire) % 2 != side) std::this_thread::yield();
        }
        const std::int64_t x = t * 1'000'000 + i;
        if (i % 2 == 0) {
          rec.call(t, "enq", {Value(x)}, [&] { q.enq(x); });
        } else {
          rec.call(t, "deq", {}, [&] { return q.deq(); });
        }
        if (i % 100 == 0) turn[pair].fetch_add(1, std::memory_order_release);
      }
    });
  }
  for (auto& th : threads) th.join();

  const History h = rec.history();
  ASSERT_EQ(h.size(), static_cast<std::size_t>(kThreads * kOpsPerThread));
  EXPECT_EQ(h.events().size(), 2 * h.size());
  // Per-process program order and the ping-pong orders.
  std::vector<std::vector<OpIndex>> by_process(kThreads);
  for (OpIndex i = 0; i < static_cast<OpIndex>(h.size()); ++i) {
    const Operation& op = h.op(i);
    ASSERT_EQ(op.outcome, Outcome::kOk);
    by_process[static_cast<std::size_t>(op.process)].push_back(i);
  }
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_EQ(by_process[t].size(), static_cast<std::size_t>(kOpsPerThread));
    for (int i = 0; i + 1 < kOpsPerThread; ++i) {
      ASSERT_TRUE(h.precedes(by_process[t][i], by_process[t][i + 1])) << "process " << t;
    }
    for (int i = 0; i < kOpsPerThread; ++i) {  // arguments recorded as given
      if (i % 2 == 0) {
        ASSERT_EQ(h.op(by_process[t][i]).call.args, std::vector<Value>{Value(t * 1'000'000 + i)});
      }
    }
  }
  for (int pair = 0; pair < kThreads / 2; ++pair) {
    // Handoff k (k = 0, 1, ...) is done by side k % 2 at its op 100 * (k / 2), and the next
    // handoff's op by the other side comes after it in real time.
    const auto& a = by_process[2 * pair];
    const auto& b = by_process[2 * pair + 1];
    for (int round = 0; round < kOpsPerThread / 100; ++round) {
      EXPECT_TRUE(h.precedes(a[100 * round], b[100 * round])) << "round " << round;
      if (round + 1 < kOpsPerThread / 100) {
        EXPECT_TRUE(h.precedes(b[100 * round], a[100 * (round + 1)])) << "round " << round;
      }
    }
  }
  const detect::Verdict verdict = check("queue", h);
  EXPECT_EQ(verdict.result, detect::Result::kLinearizable) << verdict.reason;
}

// A start barrier makes the threads' operations overlap; the stamps still give each event a
// distinct position and every response follows its invocation.
TEST(RecorderTest, OverlappingOperationsFromManyThreads) {
  constexpr int kThreads = 4;
  Recorder rec("queue");
  LockedQueue q;
  std::barrier start(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      for (int i = 0; i < 200; ++i) {
        // Several process ids per thread, and several method names, exercise the caches.
        const ProcessId p = t * 10 + i % 3;
        const std::vector<Value> args = i % 2 ? std::vector<Value>{} : std::vector<Value>{Value(i)};
        auto op = rec.invoke(p, i % 2 ? "deq" : "enq", args);
        if (i % 2 == 0) {
          q.enq(i);
          op.ok();
        } else {
          op.ok(q.deq());
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  const History h = rec.history();
  ASSERT_EQ(h.size(), kThreads * 200u);
  for (const Operation& op : h.operations()) ASSERT_LT(op.call_event, op.return_event);
  EXPECT_EQ(check("queue", h).result, detect::Result::kLinearizable);
}

TEST(RecorderTest, ManyMethodNamesAndProcessesFromOneThread) {
  Recorder rec;
  for (int i = 0; i < 500; ++i) {
    const std::string method = "m" + std::to_string(i % 40);
    rec.invoke(i % 25, method, {i}).ok();
  }
  const History h = rec.history();
  ASSERT_EQ(h.size(), 500u);
  for (int i = 0; i < 500; ++i) {
    EXPECT_EQ(h.op(i).call.method, "m" + std::to_string(i % 40));
    EXPECT_EQ(h.op(i).process, i % 25);
  }
}

TEST(RecorderTest, SeveralRecordersOnTheSameThreads) {
  for (int round = 0; round < 3; ++round) {  // a new recorder may reuse a destroyed one's address
    Recorder a("queue"), b("stack");
    std::thread worker([&] {
      for (int i = 0; i < 50; ++i) {
        a.invoke(0, "enq", {i}).ok();
        b.invoke(0, "push", {i}).ok();
      }
    });
    for (int i = 0; i < 50; ++i) b.invoke(1, "pop").ok(std::optional<int>());
    worker.join();
    EXPECT_EQ(a.history().size(), 50u);
    EXPECT_EQ(b.history().size(), 100u);
    EXPECT_EQ(a.history().op(49).call.args, std::vector<Value>{Value(49)});
  }
}

TEST(RecorderTest, WritesJsonThatReadsBackAndChecks) {
  TempDir dir;
  Recorder rec("queue");
  LockedQueue q;
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 100; ++i) {
        if (i % 2 == 0) {
          rec.call(t, "enq", {Value(t * 100 + i)}, [&] { q.enq(t * 100 + i); });
        } else {
          rec.call(t, "deq", {}, [&] { return q.deq(); });
        }
      }
      auto crashed = rec.invoke(t, "enq", {Value(-1)});  // never returns: pending
    });
  }
  for (auto& th : threads) th.join();

  const std::filesystem::path path = dir.path() / "sub" / "queue.json";
  rec.write_json(path);
  EXPECT_EQ(files_in(dir.path() / "sub"), std::vector<std::string>{"queue.json"});
  const LoadedHistory loaded = load_history_file(path.string());
  EXPECT_EQ(loaded.format, Format::kJson);
  EXPECT_EQ(loaded.model, std::optional<std::string>("queue"));
  const History recorded = rec.history();
  ASSERT_EQ(loaded.history.size(), recorded.size());
  EXPECT_EQ(loaded.history.events(), recorded.events());
  for (std::size_t i = 0; i < recorded.size(); ++i) {
    const Operation& a = loaded.history.op(static_cast<OpIndex>(i));
    const Operation& b = recorded.op(static_cast<OpIndex>(i));
    EXPECT_EQ(a.process, b.process);
    EXPECT_EQ(a.call, b.call);
    EXPECT_EQ(a.result, b.result);
    EXPECT_EQ(a.outcome, b.outcome);
  }
  EXPECT_EQ(loaded.history.op(static_cast<OpIndex>(recorded.size() - 1)).outcome,
            Outcome::kPending);
  EXPECT_EQ(check("queue", loaded.history).result, detect::Result::kLinearizable);

  // Rewriting replaces the file; no temporary is left behind.
  rec.write_json(path);
  EXPECT_EQ(files_in(dir.path() / "sub"), std::vector<std::string>{"queue.json"});
  EXPECT_EQ(rec.json_text(), [&] {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }());
}

TEST(RecorderTest, WriteJsonReportsErrors) {
  TempDir dir;
  Recorder rec("queue");
  std::filesystem::create_directories(dir.path() / "taken");
  try {
    rec.write_json(dir.path() / "taken");  // a directory: the rename fails
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("taken"));
  }
  EXPECT_EQ(files_in(dir.path()), std::vector<std::string>{"taken"});  // temporary removed
}

// A fake queue that returns what it was never given: recorded faithfully, the violation is found.
TEST(RecorderTest, NonLinearizableRecordingIsDetected) {
  TempDir dir;
  Recorder rec("queue");
  std::thread([&] {
    rec.invoke(0, "enq", {Value(1)}).ok();
    rec.call(0, "deq", {}, [] { return std::optional<int>(1); });
  }).join();
  std::thread([&] {  // after the first deq returned: 1 is dequeued twice
    rec.call(1, "deq", {}, [] { return std::optional<int>(1); });
  })
      .join();
  const History h = rec.history();
  ASSERT_EQ(h.size(), 3u);
  EXPECT_TRUE(h.precedes(1, 2));
  const detect::Verdict verdict = check("queue", h);
  EXPECT_EQ(verdict.result, detect::Result::kViolation);
  EXPECT_EQ(verdict.culprit, 2);

  rec.write_json(dir.path() / "bad.json");
  const LoadedHistory loaded = load_history_file((dir.path() / "bad.json").string());
  ASSERT_TRUE(loaded.model.has_value());
  EXPECT_EQ(check(*loaded.model, loaded.history).result, detect::Result::kViolation);
}

TEST(RecorderTest, WriteJsonOnFailureWritesOnlyOnFailure) {
  TempDir dir;
  Recorder rec("queue");
  rec.invoke(0, "enq", {1}).ok();
  {
    WriteJsonOnFailure guard(rec, dir.path() / "passed.json", [] { return false; });
  }
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "passed.json"));
  {
    WriteJsonOnFailure guard(rec, dir.path() / "failed.json", [] { return true; });
  }
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "failed.json"));
  {
    WriteJsonOnFailure guard(rec, dir.path() / "dismissed.json", [] { return true; });
    guard.dismiss();
  }
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "dismissed.json"));
  try {
    WriteJsonOnFailure guard(rec, dir.path() / "threw.json", [] { return false; });
    throw std::runtime_error("boom");
  } catch (const std::runtime_error&) {
  }
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "threw.json"));
  // The GoogleTest predicate documented in the header.
  {
    WriteJsonOnFailure guard(rec, dir.path() / "gtest.json",
                             [] { return ::testing::Test::HasFailure(); });
  }
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "gtest.json"));
  EXPECT_EQ(load_history_file((dir.path() / "failed.json").string()).history, rec.history());
}

}  // namespace
}  // namespace linfault::history
