// Object names in traces (dpct/executor.h, "Object names"; dpct::render_value): pointers show as
// "<type>#<k>" numbered per type in first-seen order, independent of the addresses the objects
// happen to have, so two executions of one schedule give identical traces.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <regex>
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

#include "dpct/executor.h"
#include "dpct/pct_scheduler.h"
#include "dpct/random_scheduler.h"
#include "dpct/replay_scheduler.h"
#include "dpct/test_objects.h"

namespace linfault::dpct {
namespace {

using fixtures::factory_of;
using history::Call;
using history::Value;

struct Box {
  int payload = 0;
};

// Every call takes the next box of a pool and makes it the current one. With `reversed` the pool
// is used from its end: the same program and schedule over objects at other addresses, in the
// opposite address order.
class Boxes final : public ObjectUnderTest {
 public:
  explicit Boxes(bool reversed) : reversed_(reversed) {}
  Value invoke(const Call&) override {
    const int k = taken_.fetch_add(1);
    Box* box = &pool_[reversed_ ? pool_.size() - 1 - k : k];
    Box* before = current_.exchange(box);
    previous_.store(before);
    return Value(std::int64_t{k});
  }

 private:
  bool reversed_;
  std::array<Box, 4> pool_;
  Atomic<int> taken_{0};
  Atomic<Box*> current_{nullptr};
  Atomic<Box*> previous_{nullptr};
};

Workload boxes_workload() {
  Workload w;
  w.setup = {Call{"take", {}}};
  w.threads = {{Call{"take", {}}}, {Call{"take", {}}}};
  w.reveal = {Call{"take", {}}};
  return w;
}

Workload stack_workload() {
  Workload w;
  w.setup = {Call{"push", {Value(std::int64_t{1})}}, Call{"push", {Value(std::int64_t{2})}},
             Call{"push", {Value(std::int64_t{3})}}};
  w.threads = {{Call{"pop", {}}, Call{"push", {Value(std::int64_t{4})}}},
               {Call{"pop", {}}, Call{"pop", {}}}};
  w.reveal = {Call{"pop", {}}};
  return w;
}

// Every field of every step: equal texts <=> identical traces.
std::string text_of(const std::vector<TraceStep>& trace) {
  std::string out;
  for (const TraceStep& s : trace) {
    out += std::string(phase_name(s.phase)) + " t" + std::to_string(s.thread) + " op" +
           std::to_string(s.op_index) + " " + access_kind_name(s.kind) + " " + s.file + ":" +
           std::to_string(s.line) + " read=" + s.read + " written=" + s.written +
           (s.success ? "" : " failed") + "\n";
  }
  return out;
}

ExecutionOptions tracing() {
  ExecutionOptions options;
  options.record_trace = true;
  return options;
}

TEST(ObjectNamesTest, PointersAreNamedPerTypeInFirstSeenOrder) {
  RandomScheduler scheduler(5);
  const dpct::Run run =
      execute(factory_of<fixtures::TreiberStack>(), stack_workload(), scheduler, tracing());
  ASSERT_EQ(run.outcome, RunOutcome::kOk) << run.message;
  // Ps pushes 1, 2, 3: each cas of top swings it from the previous node to a new one.
  std::vector<std::pair<std::string, std::string>> setup_swings;
  for (const TraceStep& s : run.trace) {
    if (s.phase == Phase::kSetup && s.kind == AccessKind::kCompareExchange && s.success) {
      setup_swings.emplace_back(s.read, s.written);
    }
  }
  EXPECT_EQ(setup_swings, (std::vector<std::pair<std::string, std::string>>{
                              {"null", "node#1"}, {"node#1", "node#2"}, {"node#2", "node#3"}}));
  // Every value is a node (four were pushed) or null, and the names appear in order.
  const std::regex pointer_value("null|node#[1-4]");
  std::vector<std::string> first_seen;
  for (const TraceStep& s : run.trace) {
    for (const std::string* v : {&s.read, &s.written}) {
      if (v->empty()) continue;
      EXPECT_TRUE(std::regex_match(*v, pointer_value)) << *v;
      if (*v != "null" && std::find(first_seen.begin(), first_seen.end(), *v) == first_seen.end())
        first_seen.push_back(*v);
    }
  }
  EXPECT_EQ(first_seen, (std::vector<std::string>{"node#1", "node#2", "node#3", "node#4"}));
}

TEST(ObjectNamesTest, NamesDoNotDependOnAddresses) {
  PctScheduler pct(PctOptions{7, 2, 20});
  const dpct::Run forward = execute(factory_of<Boxes>(false), boxes_workload(), pct, tracing());
  ASSERT_EQ(forward.outcome, RunOutcome::kOk) << forward.message;
  ASSERT_FALSE(forward.schedule.decisions.empty());
  std::vector<std::string> made_current;
  for (const TraceStep& s : forward.trace) {
    if (s.kind == AccessKind::kExchange) made_current.push_back(s.written);
  }
  EXPECT_EQ(made_current, (std::vector<std::string>{"box#1", "box#2", "box#3", "box#4"}));

  ReplayScheduler replay(forward.schedule);
  const dpct::Run reversed = execute(factory_of<Boxes>(true), boxes_workload(), replay, tracing());
  ASSERT_EQ(reversed.outcome, RunOutcome::kOk) << reversed.message;
  EXPECT_EQ(text_of(reversed.trace), text_of(forward.trace));
}

TEST(ObjectNamesTest, TwoExecutionsOfOneScheduleGiveIdenticalTraces) {
  const ObjectFactory factory = factory_of<fixtures::TreiberStack>();
  Executor executor;
  // Blocks of a node's size held between the runs, so that the replay's nodes get addresses the
  // original's did not have.
  std::vector<std::unique_ptr<std::array<char, 32>>> ballast;
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    PctScheduler pct(PctOptions{seed, 3, 40});
    const dpct::Run original = executor.execute(factory, stack_workload(), pct, tracing());
    ASSERT_EQ(original.outcome, RunOutcome::kOk) << original.message;
    for (int i = 0; i < 8; ++i) ballast.push_back(std::make_unique<std::array<char, 32>>());
    ReplayScheduler replay(original.schedule);
    const dpct::Run again = executor.execute(factory, stack_workload(), replay, tracing());
    ASSERT_EQ(text_of(again.trace), text_of(original.trace)) << "seed " << seed;
    ReplayScheduler fresh_replay(original.schedule);
    const dpct::Run fresh = execute(factory, stack_workload(), fresh_replay, tracing());
    ASSERT_EQ(text_of(fresh.trace), text_of(original.trace)) << "seed " << seed;
  }
}

template <class T>
struct Outer {
  struct InnerNode {};
};

struct Node {};

struct BUListNode {};

TEST(ObjectNamesTest, TypeNamesAreShortSnakeCaseNamesOfThePointee) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {object_type_name(typeid(Box*)), "box"},
      {object_type_name(typeid(Node*)), "node"},
      {object_type_name(typeid(Node**)), "node"},
      {object_type_name(typeid(const Box*)), "box"},
      {object_type_name(typeid(BUListNode*)), "bu_list_node"},
      {object_type_name(typeid(Outer<std::map<int, Outer<int>>>::InnerNode*)), "inner_node"},
      {object_type_name(typeid(Outer<int>*)), "outer"},
      {object_type_name(typeid(int*)), "int"},
      {object_type_name(typeid(unsigned long*)), "unsigned_long"},
      {object_type_name(typeid(void*)), "obj"},
      {object_type_name(typeid(const void*)), "obj"},
  };
  for (const auto& [got, want] : cases) EXPECT_EQ(got, want);
}

// A pointer with a tag in its low bit (like targets/lists.h's MarkableRef) that shows itself
// through the linfault_render hook, naming the object it points to.
struct Tagged {
  std::uintptr_t bits = 0;
  static Tagged of(Box* box, bool tag) {
    return {reinterpret_cast<std::uintptr_t>(box) | static_cast<std::uintptr_t>(tag)};
  }
  friend std::string linfault_render(const Tagged& t) {
    const bool tag = (t.bits & 1) != 0;
    return render_value(reinterpret_cast<Box*>(t.bits & ~std::uintptr_t{1})) +
           (tag ? "(tagged)" : "");
  }
};

class TaggedSlot final : public ObjectUnderTest {
 public:
  Value invoke(const Call&) override {
    slot_.store(Tagged::of(&box_, true));
    return {};
  }

 private:
  Box box_;
  Atomic<Tagged> slot_{Tagged{}};
};

TEST(ObjectNamesTest, NativelyAnObjectIsItsTypeAndAddressAndHooksRenderTheirParts) {
  Box box;
  const std::string native = render_value(&box);
  EXPECT_TRUE(std::regex_match(native, std::regex("box@0x[0-9a-f]+"))) << native;
  EXPECT_EQ(render_value(static_cast<Box*>(nullptr)), "null");
  EXPECT_EQ(render_value(true), "true");
  EXPECT_EQ(render_value(-3), "-3");
  EXPECT_EQ(render_value(Tagged::of(&box, true)), native + "(tagged)");

  Workload w;
  w.threads = {{Call{"set", {}}}};
  RandomScheduler scheduler(1);
  const dpct::Run run = execute(factory_of<TaggedSlot>(), w, scheduler, tracing());
  ASSERT_EQ(run.trace.size(), 1u);
  EXPECT_EQ(run.trace[0].read, "null");
  EXPECT_EQ(run.trace[0].written, "box#1(tagged)");
}

}  // namespace
}  // namespace linfault::dpct
