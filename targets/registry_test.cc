#include "targets/registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

#include "targets/serial_spec.h"

namespace linfault::targets {
namespace {

using ::testing::HasSubstr;

const std::set<std::string> kPageTargets = {"lf_list_buggy",
                                            "lf_list",
                                            "simple_list_buggy",
                                            "unsafe_size_list",
                                            "bu_list1",
                                            "bu_list2",
                                            "bu_list3",
                                            "bu_list4",
                                            "optimistic_queue_buggy",
                                            "optimistic_queue",
                                            "ms_queue_nocheck",
                                            "ms_queue",
                                            "k_stack_buggy",
                                            "treiber_stack_buggy",
                                            "treiber_stack",
                                            "pair_snapshot",
                                            "pair_snapshot_correct",
                                            "snark_deque"};
// Controls of our own: correct objects that spin-wait (targets/spin_waiting.h).
const std::set<std::string> kSpinWaitingTargets = {"ticket_lock_counter", "seqlock_register"};
// Line-Up's bugs only a stuck-history check sees (targets/lock_leak_counter.h).
const std::set<std::string> kStuckTargets = {"lock_leak_counter"};
// Objects whose only bugs are memory orders, each buggy with its fixed twin
// (targets/weak_memory_objects.h).
const std::set<std::string> kWeakMemoryTargets = {"wm_seqlock_buggy",
                                                  "wm_seqlock",
                                                  "wm_chase_lev_fence_buggy",
                                                  "wm_chase_lev_publish_buggy",
                                                  "wm_chase_lev",
                                                  "wm_mpmc_queue_buggy",
                                                  "wm_mpmc_queue",
                                                  "wm_spsc_eventcount_buggy",
                                                  "wm_spsc_eventcount",
                                                  "wm_dekker_buggy",
                                                  "wm_dekker",
                                                  "wm_rwlock_buggy",
                                                  "wm_rwlock",
                                                  "wm_mcs_lock_buggy",
                                                  "wm_mcs_lock",
                                                  "wm_ticket_lock_buggy",
                                                  "wm_ticket_lock",
                                                  "wm_rcu_buggy",
                                                  "wm_rcu"};

TEST(RegistryTest, HoldsExactlyThePageTargetsAndTheSpinWaitingControls) {
  const std::vector<std::string> names = target_names();
  std::set<std::string> expected = kPageTargets;
  expected.insert(kSpinWaitingTargets.begin(), kSpinWaitingTargets.end());
  expected.insert(kStuckTargets.begin(), kStuckTargets.end());
  expected.insert(kWeakMemoryTargets.begin(), kWeakMemoryTargets.end());
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()), expected);
  EXPECT_EQ(names.size(), expected.size()) << "duplicate names";
}

TEST(RegistryTest, EveryTargetIsComplete) {
  const std::set<std::string> models = {"set",      "queue",   "stack",    "deque",
                                        "snapshot", "counter", "register", "register(init=0)"};
  for (const Target& target : all()) {
    SCOPED_TRACE(target.name);
    EXPECT_TRUE(models.count(target.model) || is_serial_spec(target.model)) << target.model;
    EXPECT_FALSE(target.description.empty());
    EXPECT_FALSE(target.operations.empty());
    ASSERT_TRUE(target.factory);
    EXPECT_NE(target.factory(), nullptr);
    // Buggy targets carry the page's scenarios; controls carry none.
    EXPECT_EQ(target.bug_expected, !target.known_scenarios.empty());
    for (const KnownScenario& scenario : target.known_scenarios) {
      EXPECT_TRUE(scenario.type >= 1 && scenario.type <= 3) << scenario.description;
      // A stuck scenario blocks forever: only controlled runs, never native threads, may run it.
      if (scenario.type == 3) {
        EXPECT_TRUE(target.may_livelock) << scenario.description;
      }
      EXPECT_EQ(scenario.workload.threads.size(), 2u);
      EXPECT_EQ(scenario.type == 2, !scenario.workload.reveal.empty()) << scenario.description;
    }
  }
}

TEST(RegistryTest, WeakMemoryTargetsRunUnderTheCpp20Model) {
  for (const Target& target : all()) {
    EXPECT_EQ(target.memory_model == dpct::MemoryModel::kC11,
              kWeakMemoryTargets.count(target.name) == 1)
        << target.name;
  }
}

TEST(RegistryTest, ControlsAreTheCorrectVersions) {
  for (const char* control : {"lf_list", "optimistic_queue", "ms_queue_nocheck", "ms_queue",
                              "treiber_stack", "pair_snapshot_correct"}) {
    EXPECT_FALSE(find(control).bug_expected) << control;
  }
  EXPECT_EQ(find("ms_queue_nocheck").paper_name, "BUQueue");
  EXPECT_EQ(find("snark_deque").model, "deque");
}

TEST(RegistryTest, KnownScenariosMatchByMethodsPerThreadInAnyThreadOrder) {
  using history::Call;
  const Target& stack = find("treiber_stack_buggy");
  // push || pop, with other values and the threads swapped: the type-2 scenario.
  const KnownScenario* type2 =
      matching_known_scenario(stack, {{Call{"pop", {}}}, {Call{"push", {history::Value(7)}}}});
  ASSERT_NE(type2, nullptr);
  EXPECT_EQ(type2->type, 2);
  const KnownScenario* type1 =
      matching_known_scenario(stack, {{Call{"pop", {}}}, {Call{"pop", {}}}});
  ASSERT_NE(type1, nullptr);
  EXPECT_EQ(type1->type, 1);
  EXPECT_EQ(matching_known_scenario(stack, {{Call{"pop", {}}, Call{"pop", {}}}, {Call{"pop", {}}}}),
            nullptr);
  EXPECT_EQ(matching_known_scenario(find("treiber_stack"), {{Call{"pop", {}}}, {Call{"pop", {}}}}),
            nullptr);
}

TEST(RegistryTest, UnknownNameListsTheValidOnes) {
  try {
    find("no_such_stack");
    FAIL() << "find did not throw";
  } catch (const UnknownTarget& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown target 'no_such_stack'"));
    EXPECT_THAT(e.what(), HasSubstr("treiber_stack_buggy"));
    EXPECT_THAT(e.what(), HasSubstr("snark_deque"));
  }
}

TEST(RegistryTest, RandomWorkloadsAreDeterministicAndShaped) {
  const Target& target = find("ms_queue");
  const WorkloadShape shape{.setup = 3, .threads = 3, .ops_per_thread = 4, .reveal = 2};
  const dpct::Workload a = random_workload(target, shape, 42);
  const dpct::Workload b = random_workload(target, shape, 42);
  EXPECT_EQ(a.setup, b.setup);
  EXPECT_EQ(a.threads, b.threads);
  EXPECT_EQ(a.reveal, b.reveal);
  EXPECT_EQ(a.setup.size(), 3u);
  ASSERT_EQ(a.threads.size(), 3u);
  for (const auto& thread : a.threads) EXPECT_EQ(thread.size(), 4u);
  EXPECT_EQ(a.reveal.size(), 2u);
}

TEST(RegistryTest, RolesDecideWhatEachDrawnThreadCallsAndWhichWorkloadsFit) {
  Target target = find("ms_queue");  // enq/deq
  target.name = "mpsc";
  target.roles = {{"consumer", {"deq"}, 1}, {"producer", {"enq"}, 0}};
  const dpct::Workload w = random_workload(target, {.threads = 4, .ops_per_thread = 5}, 7);
  ASSERT_EQ(w.threads.size(), 4u);
  for (const history::Call& call : w.threads[0]) EXPECT_EQ(call.method, "deq");
  for (std::size_t t = 1; t < 4; ++t) {
    for (const history::Call& call : w.threads[t]) EXPECT_EQ(call.method, "enq");
  }
  EXPECT_EQ(roles_problem(target, w), std::nullopt);

  dpct::Workload two_consumers = w;
  two_consumers.threads[1] = {history::Call{"deq", {}}};
  ASSERT_TRUE(roles_problem(target, two_consumers).has_value());
  EXPECT_THAT(*roles_problem(target, two_consumers), HasSubstr("more threads of a role"));
  dpct::Workload mixed = w;
  mixed.threads[2].push_back(history::Call{"deq", {}});
  ASSERT_TRUE(roles_problem(target, mixed).has_value());
  EXPECT_THAT(*roles_problem(target, mixed), HasSubstr("thread 2 calls methods no single role"));
  // Any order of the threads fits: a consumer need not be thread 0.
  dpct::Workload swapped = w;
  std::swap(swapped.threads[0], swapped.threads[3]);
  EXPECT_EQ(roles_problem(target, swapped), std::nullopt);

  target.roles = {{"producer", {"enq"}, 1}, {"consumer", {"deq"}, 1}};
  EXPECT_EQ(thread_roles(target, 2).size(), 2u);
  EXPECT_THROW(thread_roles(target, 3), std::invalid_argument);
  EXPECT_THROW(random_workload(target, {.threads = 3, .ops_per_thread = 1}, 1),
               std::invalid_argument);
}

TEST(RegistryTest, AWorkloadDrawnIntoAUsedOneIsTheFreshlyDrawnOne) {
  // Every shape after every other, so the buffer holds more, as many and fewer lists and calls
  // than the next draw needs, and calls with arguments where the next has none (stack: push, pop).
  const std::vector<WorkloadShape> shapes = {
      {.setup = 3, .threads = 3, .ops_per_thread = 4, .reveal = 2},
      {.setup = 0, .threads = 2, .ops_per_thread = 1, .reveal = 0},
      {.setup = 1, .reveal = 3, .thread_ops = {1, 5}},
      {.setup = 2, .threads = 1, .ops_per_thread = 6, .reveal = 1}};
  for (const char* name : {"treiber_stack", "snark_deque", "pair_snapshot"}) {
    const Target& target = find(name);
    dpct::Workload reused;
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      for (const WorkloadShape& shape : shapes) {
        random_workload_into(target, shape, seed, reused);
        const dpct::Workload fresh = random_workload(target, shape, seed);
        EXPECT_EQ(reused.setup, fresh.setup) << name << " seed " << seed;
        EXPECT_EQ(reused.threads, fresh.threads) << name << " seed " << seed;
        EXPECT_EQ(reused.reveal, fresh.reveal) << name << " seed " << seed;
      }
    }
  }
}

TEST(RegistryTest, InsertedValuesAreUniqueWithinAWorkload) {
  for (const char* name : {"ms_queue", "treiber_stack", "snark_deque"}) {
    const dpct::Workload w = random_workload(
        find(name), {.setup = 10, .threads = 2, .ops_per_thread = 20, .reveal = 10}, 7);
    std::vector<std::int64_t> values;
    auto collect = [&](const std::vector<history::Call>& calls) {
      for (const auto& call : calls) {
        if (!call.args.empty()) values.push_back(call.args[0].as_int());
      }
    };
    collect(w.setup);
    for (const auto& thread : w.threads) collect(thread);
    collect(w.reveal);
    ASSERT_FALSE(values.empty()) << name;
    std::sort(values.begin(), values.end());
    EXPECT_EQ(std::adjacent_find(values.begin(), values.end()), values.end()) << name;
  }
}

TEST(RegistryTest, GeneratorsStayInTheirRanges) {
  ArgumentSource source(1);
  auto keys = key_in(0, 4);
  auto cells = distinct_cells(2);
  auto writes = cell_and_value(2, 0, 2);
  for (int i = 0; i < 200; ++i) {
    const auto key = keys(source).at(0).as_int();
    EXPECT_TRUE(key >= 0 && key <= 4);
    const auto pair = cells(source);
    EXPECT_NE(pair.at(0), pair.at(1));
    const auto write = writes(source);
    EXPECT_TRUE(write.at(0).as_int() >= 0 && write.at(0).as_int() <= 1);
    EXPECT_TRUE(write.at(1).as_int() >= 0 && write.at(1).as_int() <= 2);
  }
  EXPECT_THROW(key_in(3, 2), std::invalid_argument);
  EXPECT_THROW(distinct_cells(1), std::invalid_argument);
}

}  // namespace
}  // namespace linfault::targets
