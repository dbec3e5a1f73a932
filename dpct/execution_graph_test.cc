// find_axiom_violation on hand-made graphs: the classic shapes it must allow and those it must
// reject, one axiom at a time, and the graphs WeakMemory records.

#include "dpct/execution_graph.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "dpct/weak_memory.h"

namespace linfault::dpct {
namespace {

using Kind = GraphEvent::Kind;
constexpr std::memory_order kRelaxed = std::memory_order_relaxed;
constexpr std::memory_order kRelease = std::memory_order_release;
constexpr std::memory_order kAcquire = std::memory_order_acquire;
constexpr std::memory_order kSeqCst = std::memory_order_seq_cst;
constexpr std::uint32_t kNone = GraphEvent::kNoThread;

// Locations x = 0, y = 1; events 0 and 1 are their initial writes.
class Graph {
 public:
  explicit Graph(std::size_t threads) {
    graph_.threads = threads;
    add({Kind::kInit, kNone, 0});
    add({Kind::kInit, kNone, 1});
  }
  std::int64_t write(std::uint32_t t, std::uint64_t l, std::memory_order o) {
    return add({Kind::kWrite, t, l, o});
  }
  std::int64_t read(std::uint32_t t, std::uint64_t l, std::memory_order o, std::int64_t from) {
    return add({Kind::kRead, t, l, o, from});
  }
  std::int64_t update(std::uint32_t t, std::uint64_t l, std::memory_order o, std::int64_t from) {
    return add({Kind::kUpdate, t, l, o, from});
  }
  std::int64_t fence(std::uint32_t t, std::memory_order o) { return add({Kind::kFence, t, 0, o}); }
  std::int64_t add(GraphEvent event) {
    graph_.events.push_back(event);
    return static_cast<std::int64_t>(graph_.events.size()) - 1;
  }
  std::optional<std::string> check() const { return find_axiom_violation(graph_); }

 private:
  ExecutionGraph graph_;
};

// Message passing: T0 writes x then y; T1 reads y (the new value), then x (the initial one).
Graph message_passing(std::memory_order publish, std::memory_order consume, bool fences) {
  Graph g(2);
  g.write(0, 0, kRelaxed);
  if (fences) g.fence(0, kRelease);
  const std::int64_t flag = g.write(0, 1, publish);
  g.read(1, 1, consume, flag);
  if (fences) g.fence(1, kAcquire);
  g.read(1, 0, kRelaxed, 0);
  return g;
}

TEST(ExecutionGraphTest, StaleDataAfterARelaxedFlagIsAllowed) {
  EXPECT_EQ(message_passing(kRelaxed, kRelaxed, false).check(), std::nullopt);
  EXPECT_EQ(message_passing(kRelease, kRelaxed, false).check(), std::nullopt);
  EXPECT_EQ(message_passing(kRelaxed, kAcquire, false).check(), std::nullopt);
}

TEST(ExecutionGraphTest, StaleDataAfterReleaseAcquireIsCoWR) {
  for (const Graph& g :
       {message_passing(kRelease, kAcquire, false), message_passing(kSeqCst, kSeqCst, false),
        message_passing(kRelaxed, kRelaxed, true)}) {
    const auto violation = g.check();
    ASSERT_TRUE(violation.has_value());
    EXPECT_NE(violation->find("CoWR"), std::string::npos) << *violation;
  }
}

TEST(ExecutionGraphTest, OwnOlderWriteIsCoWR) {
  Graph g(1);
  g.write(0, 0, kRelaxed);
  g.read(0, 0, kRelaxed, 0);
  ASSERT_TRUE(g.check().has_value());
}

TEST(ExecutionGraphTest, ReadingBackwardsIsCoRR) {
  Graph g(2);
  const std::int64_t w = g.write(0, 0, kRelaxed);
  g.read(1, 0, kRelaxed, w);
  EXPECT_EQ(g.check(), std::nullopt);
  g.read(1, 0, kRelaxed, 0);
  const auto violation = g.check();
  ASSERT_TRUE(violation.has_value());
  EXPECT_NE(violation->find("CoRR"), std::string::npos) << *violation;
}

TEST(ExecutionGraphTest, AnUpdateReadsTheLatestWrite) {
  Graph g(2);
  g.write(0, 0, kRelaxed);
  g.update(1, 0, kRelaxed, 0);  // skips T0's write
  const auto violation = g.check();
  ASSERT_TRUE(violation.has_value());
  EXPECT_NE(violation->find("atomicity"), std::string::npos) << *violation;
}

// A release sequence continues through an RMW of another thread (C++20).
TEST(ExecutionGraphTest, ReleaseSequencesContinueThroughUpdates) {
  Graph g(3);
  g.write(0, 0, kRelaxed);                                  // data
  const std::int64_t flag = g.write(0, 1, kRelease);        // y = 1
  const std::int64_t rmw = g.update(1, 1, kRelaxed, flag);  // y += 1
  g.read(2, 1, kAcquire, rmw);
  g.read(2, 0, kRelaxed, 0);  // stale data: the acquire synchronized with T0
  ASSERT_TRUE(g.check().has_value());
}

// Store buffering: both threads read the other's initial value.
Graph store_buffering(std::memory_order order, bool fences) {
  Graph g(2);
  g.write(0, 0, order);
  if (fences) g.fence(0, kSeqCst);
  g.read(0, 1, order, 1);
  g.write(1, 1, order);
  if (fences) g.fence(1, kSeqCst);
  g.read(1, 0, order, 0);
  return g;
}

TEST(ExecutionGraphTest, StoreBufferingNeedsWeakerThanSeqCst) {
  EXPECT_EQ(store_buffering(kRelaxed, false).check(), std::nullopt);
  for (const Graph& g : {store_buffering(kSeqCst, false), store_buffering(kRelaxed, true)}) {
    const auto violation = g.check();
    ASSERT_TRUE(violation.has_value());
    EXPECT_NE(violation->find("SC"), std::string::npos) << *violation;
  }
}

TEST(ExecutionGraphTest, LocksAndBarriersSynchronize) {
  Graph g(2);
  g.write(0, 0, kRelaxed);
  g.add({Kind::kRelease, 0, 77});
  g.add({Kind::kAcquire, 1, 77});
  g.read(1, 0, kRelaxed, 0);
  ASSERT_TRUE(g.check().has_value());
  Graph h(2);
  h.write(0, 0, kRelaxed);
  h.add({Kind::kBarrier, kNone});
  h.read(1, 0, kRelaxed, 0);
  ASSERT_TRUE(h.check().has_value());
}

TEST(ExecutionGraphTest, MalformedGraphsAreReported) {
  Graph ahead(1);
  ahead.read(0, 0, kRelaxed, 3);
  EXPECT_TRUE(ahead.check().has_value());
  Graph other_location(1);
  other_location.read(0, 0, kRelaxed, 1);
  EXPECT_TRUE(other_location.check().has_value());
  Graph no_thread(1);
  no_thread.write(4, 0, kRelaxed);
  EXPECT_TRUE(no_thread.check().has_value());
}

// What WeakMemory records is what it did: a stale read where nothing synchronizes is allowed,
// and the graph names the write read.
TEST(ExecutionGraphTest, WeakMemoryRecordsItsEvents) {
  WeakMemory memory(2);
  memory.record(true);
  std::int64_t x = 0, y = 0;
  const std::int64_t one = 1;
  memory.store(0, &x, sizeof x, kRelaxed, &x, &one);
  x = 1;
  memory.fence(0, kRelease);
  memory.store(0, &y, sizeof y, kRelaxed, &y, &one);
  y = 1;
  memory.load_candidates(1, &y, sizeof y, kAcquire, &y);
  memory.commit_load(0);  // the new flag
  const auto stale = memory.load_candidates(1, &x, sizeof x, kRelaxed, &x);
  EXPECT_EQ(stale.size(), 1u);  // the fence and the acquire hide the initial x
  memory.commit_load(0);
  const ExecutionGraph& graph = memory.graph();
  ASSERT_EQ(graph.events.size(), 7u);  // init x, write x, fence, init y, write y, read y, read x
  EXPECT_EQ(graph.events[5].kind, Kind::kRead);
  EXPECT_EQ(graph.events[5].reads_from, 4);
  EXPECT_EQ(graph.events[6].reads_from, 1);
  EXPECT_EQ(find_axiom_violation(graph), std::nullopt);
  memory.reset(2);
  EXPECT_TRUE(memory.graph().events.empty());
}

}  // namespace
}  // namespace linfault::dpct
