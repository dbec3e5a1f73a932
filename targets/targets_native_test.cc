// Native mode: every target runs on real OS threads (no execution context installed). CI reruns
// these tests under ThreadSanitizer (`ctest -L native` with -DLINFAULT_SANITIZE=thread).
//
// No target has an intended C++ data race but the weak-memory ones: the other bugs under study are
// atomicity violations, every field read outside a lock is a dpct::Atomic or dpct::Var (an atomic
// natively), the Snark deque's words are guarded natively by a mutex, and node keys/values are
// immutable and published through those atomics. So ThreadSanitizer must stay silent on every
// target but a buggy weak-memory one, whose bug is a missing release or acquire: the plain data it
// publishes is then raced on, which ThreadSanitizer rightly reports. Those are skipped under it.
//
// Targets that may livelock (bu_list1's stranded marked node, bu_list4's resurrected one) get a
// workload that cannot strand a node: each thread works on its own key range, separated by a key
// added in the setup and never removed, so no thread's unlink ever depends on another's window.
//
// lock_leak_counter may deadlock (its get() keeps the lock): its threads only increment, with no
// get() at all, since a native thread blocked on a leaked lock can never be stopped, and a lock
// still held when the object is destroyed is undefined behaviour (ThreadSanitizer reports it).
//
// Controls are also checked against conservation invariants that every linearizable history
// satisfies; buggy targets only have to finish with well-typed results (their violations are
// shown under controlled scheduling, not here).

#include <gtest/gtest.h>

#include <algorithm>
#include <latch>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "targets/registry.h"
#include "targets/serial_spec.h"

namespace linfault::targets {
namespace {

using history::Call;
using history::Value;

constexpr std::size_t kThreads = 3;
constexpr std::size_t kOpsPerThread = 400;

// Runs `workload` natively and records its history. Each call is recorded between an invocation
// and a response taken under one mutex, so the recorded interval contains the real execution and
// real-time order is preserved.
history::History run_native(const Target& target, const dpct::Workload& workload) {
  auto object = target.factory();
  history::HistoryBuilder builder("native:" + target.name);
  std::mutex builder_mutex;
  auto run = [&](history::ProcessId process, const Call& call) {
    {
      std::lock_guard lock(builder_mutex);
      builder.invoke(process, call);
    }
    Value result = object->invoke(call);
    std::lock_guard lock(builder_mutex);
    builder.respond(process, history::Outcome::kOk, std::move(result));
  };
  for (const Call& call : workload.setup) run(0, call);
  std::latch start(static_cast<std::ptrdiff_t>(workload.threads.size()));
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < workload.threads.size(); ++t) {
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      for (const Call& call : workload.threads[t]) run(static_cast<history::ProcessId>(t), call);
    });
  }
  for (auto& thread : threads) thread.join();
  for (const Call& call : workload.reveal) run(0, call);
  return std::move(builder).build();
}

dpct::Workload partitioned_set_workload(std::uint64_t seed) {
  ArgumentSource source(seed);
  dpct::Workload workload;
  for (std::size_t t = 1; t < kThreads; ++t) {
    workload.setup.push_back(Call{"add", {static_cast<std::int64_t>(10 * t)}});
  }
  workload.threads.resize(kThreads);
  const char* methods[] = {"add", "remove", "contains"};
  for (std::size_t t = 0; t < kThreads; ++t) {
    const auto base = static_cast<std::int64_t>(10 * t);
    for (std::size_t i = 0; i < kOpsPerThread; ++i) {
      workload.threads[t].push_back(
          Call{methods[source.uniform(0, 2)], {base + source.uniform(1, 9)}});
    }
  }
  return workload;
}

// Increments only: the calls of a counter that cannot leave a lock held.
dpct::Workload increments_only_workload() {
  dpct::Workload workload;
  workload.threads.assign(kThreads, std::vector<Call>(kOpsPerThread, Call{"inc", {}}));
  return workload;
}

bool is_insert(const std::string& m) {
  return m == "push" || m == "enq" || m == "offer" || m == "push_left" || m == "push_right" ||
         m == "push_back";
}

// The model's name without parameters ("register" for "register(init=0)").
std::string model_kind(const Target& target) {
  return target.model.substr(0, target.model.find('('));
}

// kThreads, or fewer when the target's roles allow fewer (wm_dekker: two).
std::size_t threads_for(const Target& target) {
  std::size_t bound = 0;
  for (const ThreadRole& role : target.roles) {
    if (role.threads == 0) return kThreads;
    bound += role.threads;
  }
  return target.roles.empty() ? kThreads : std::min(bound, kThreads);
}

// Results have the types the target's model expects.
void expect_well_typed(const Target& target, const history::History& h) {
  for (const auto& op : h.operations()) {
    ASSERT_TRUE(op.completed()) << op.to_string();
    const std::string& m = op.call.method;
    const Value& r = op.result;
    if (target.model == "set") {
      EXPECT_TRUE(m == "size" ? r.is_int() : r.is_bool()) << op.to_string();
    } else if (target.model == "snapshot") {
      EXPECT_TRUE(m == "write" ? r.is_nil() : r.is_list() && r.as_list().size() == 2)
          << op.to_string();
    } else if (target.model == "counter" || model_kind(target) == "register") {
      EXPECT_TRUE(m == "inc" || m == "write" ? r.is_nil() : r.is_nil() || r.is_int())
          << op.to_string();
    } else {
      EXPECT_TRUE(is_insert(m) ? r.is_nil() : r.is_nil() || r.is_int()) << op.to_string();
    }
  }
}

// Linearizable set histories from the empty set: per key, successful adds and removes alternate
// starting with an add, so their difference is 0 or 1 and equals the final membership, which the
// reveal (contains(k) for every key, recorded last) reports.
void expect_set_conservation(const history::History& h) {
  std::map<std::int64_t, int> balance;
  std::map<std::int64_t, bool> final_membership;
  for (const auto& op : h.operations()) {  // invocation order: the reveal comes last
    if (op.call.method == "size") continue;
    const std::int64_t key = op.call.args.at(0).as_int();
    const bool success = op.result.as_bool();
    if (op.call.method == "add" && success) ++balance[key];
    if (op.call.method == "remove" && success) --balance[key];
    if (op.call.method == "contains") final_membership[key] = success;
  }
  for (const auto& [key, count] : balance) {
    EXPECT_TRUE(count == 0 || count == 1) << "key " << key << " balance " << count;
    EXPECT_EQ(count == 1, final_membership[key]) << "key " << key;
  }
}

// Linearizable collection histories with unique inserted values: every removed value was
// inserted, none is removed twice, and removed plus drained values are exactly the inserted ones.
void expect_collection_conservation(const history::History& h) {
  std::multiset<std::int64_t> inserted;
  std::multiset<std::int64_t> removed;
  for (const auto& op : h.operations()) {
    if (is_insert(op.call.method)) {
      inserted.insert(op.call.args.at(0).as_int());
    } else if (op.result.is_int()) {
      removed.insert(op.result.as_int());
    }
  }
  EXPECT_EQ(removed, inserted) << "the reveal drains the collection, so every inserted value "
                                  "must come out exactly once";
}

// Every value a readpair returns for a cell was written to that cell (or is the initial 0).
void expect_snapshot_values_written(const history::History& h) {
  std::map<std::int64_t, std::set<std::int64_t>> written = {{0, {0}}, {1, {0}}};
  for (const auto& op : h.operations()) {
    if (op.call.method == "write") {
      written[op.call.args.at(0).as_int()].insert(op.call.args.at(1).as_int());
    }
  }
  for (const auto& op : h.operations()) {
    if (op.call.method != "readpair") continue;
    for (std::size_t k = 0; k < 2; ++k) {
      EXPECT_TRUE(written[op.call.args.at(k).as_int()].count(op.result.as_list().at(k).as_int()))
          << op.to_string();
    }
  }
}
// Counter histories: the last call (the reveal's get) sees every increment.
void expect_counter_counts_every_increment(const history::History& h) {
  std::int64_t increments = 0;
  for (const auto& op : h.operations()) increments += op.call.method == "inc";
  ASSERT_FALSE(h.operations().empty());
  const auto& last = h.operations().back();
  ASSERT_EQ(last.call.method, "get");
  EXPECT_EQ(last.result.as_int(), increments);
}

// Register histories: every read returns nil (nothing written yet), `initial` when given, or a
// value some write wrote.
void expect_register_reads_written_values(const history::History& h,
                                          std::optional<std::int64_t> initial) {
  std::set<std::int64_t> written;
  if (initial) written.insert(*initial);
  for (const auto& op : h.operations()) {
    if (op.call.method == "write") written.insert(op.call.args.at(0).as_int());
  }
  for (const auto& op : h.operations()) {
    if (op.call.method != "read" || op.result.is_nil()) continue;
    EXPECT_TRUE(written.count(op.result.as_int())) << op.to_string();
  }
}

class NativeTest : public ::testing::TestWithParam<std::string> {};

TEST_P(NativeTest, ConcurrentRunCompletesAndKeepsInvariants) {
  const Target& target = find(GetParam());
#if defined(__SANITIZE_THREAD__)
  if (target.bug_expected && target.memory_model == dpct::MemoryModel::kC11) {
    GTEST_SKIP() << "its bug is a data race on the plain data it publishes";
  }
#endif
  if (is_serial_spec(target.model) && target.may_livelock) {
    // A blocking queue with no built-in model (wm_spsc_eventcount): its consumer's deq waits for
    // the producer's enq, so each makes as many calls and there is no reveal; the consumer gets
    // the producer's values in order. A buggy one may strand its consumer natively.
    if (target.bug_expected) GTEST_SKIP() << "its lost wake-up can strand the consumer natively";
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      dpct::Workload workload;
      workload.threads.resize(2);
      for (std::size_t i = 0; i < kOpsPerThread; ++i) {
        workload.threads[0].push_back(Call{"enq", {static_cast<std::int64_t>(seed * 1000 + i)}});
        workload.threads[1].push_back(Call{"deq", {}});
      }
      const history::History h = run_native(target, workload);
      expect_well_typed(target, h);
      std::vector<std::int64_t> taken;
      for (const auto& op : h.operations()) {
        if (op.call.method == "deq") taken.push_back(op.result.as_int());
      }
      ASSERT_EQ(taken.size(), kOpsPerThread);
      for (std::size_t i = 0; i < kOpsPerThread; ++i) {
        EXPECT_EQ(taken[i], static_cast<std::int64_t>(seed * 1000 + i));
      }
    }
    return;
  }
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const bool increments_only = target.may_livelock && target.model == "counter";
    if (increments_only) {
      const history::History h = run_native(target, increments_only_workload());
      expect_well_typed(target, h);
      EXPECT_EQ(h.size(), kThreads * kOpsPerThread);
      continue;
    }
    dpct::Workload workload = target.may_livelock
                                  ? partitioned_set_workload(seed)
                                  : random_workload(target,
                                                    {.setup = 4,
                                                     .threads = threads_for(target),
                                                     .ops_per_thread = kOpsPerThread,
                                                     .reveal = 0},
                                                    seed);
    std::size_t inserts = 0;
    for (const auto& thread : workload.threads) {
      for (const auto& call : thread) inserts += is_insert(call.method);
    }
    for (const auto& call : workload.setup) inserts += is_insert(call.method);
    if (target.model == "set") {
      for (std::int64_t key = 0; key < 10 * static_cast<std::int64_t>(kThreads); ++key) {
        workload.reveal.push_back(Call{"contains", {key}});
      }
    } else if (target.model == "counter") {
      workload.reveal.push_back(Call{"get", {}});
    } else if (target.model != "snapshot" && model_kind(target) != "register") {
      // Draining with one pop more than there were inserts also bounds a cyclic stack.
      const std::string extract = target.operations.at(1).method;
      workload.reveal.assign(inserts + 1, Call{extract, {}});
      if (target.model == "deque") {
        const bool has_pop_left =
            std::any_of(target.operations.begin(), target.operations.end(),
                        [](const OperationSpec& op) { return op.method == "pop_left"; });
        workload.reveal.assign(inserts + 1, Call{has_pop_left ? "pop_left" : "pop_front", {}});
      }
    }
    const history::History h = run_native(target, workload);
    expect_well_typed(target, h);
    if (target.bug_expected) continue;
    if (target.model == "set") {
      expect_set_conservation(h);
    } else if (target.model == "snapshot") {
      expect_snapshot_values_written(h);
    } else if (target.model == "counter") {
      expect_counter_counts_every_increment(h);
    } else if (model_kind(target) == "register") {
      expect_register_reads_written_values(
          h, target.model == "register(init=0)" ? std::optional<std::int64_t>(0) : std::nullopt);
    } else {
      expect_collection_conservation(h);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllTargets, NativeTest, ::testing::ValuesIn(target_names()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace linfault::targets
