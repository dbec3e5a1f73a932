#include "targets/arena.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace linfault::targets {
namespace {

struct Counted {
  Counted(int v, std::string t, int& destroyed) : value(v), text(std::move(t)), gone(destroyed) {}
  ~Counted() { ++gone; }
  int value;
  std::string text;
  int& gone;
};

// Nodes live in chunks: every node keeps its address and its contents while later ones are made
// (across several chunks), and each is destroyed exactly once, with the arena.
TEST(NodeArenaTest, NodesStayPutUntilTheArenaDiesAndAreDestroyedOnce) {
  int destroyed = 0;
  {
    NodeArena<Counted> arena;
    std::vector<Counted*> nodes;
    for (int i = 0; i < 5000; ++i) {
      nodes.push_back(arena.make(i, "node " + std::to_string(i), destroyed));
    }
    EXPECT_EQ(arena.size(), 5000u);
    EXPECT_EQ(std::set<Counted*>(nodes.begin(), nodes.end()).size(), nodes.size());
    for (int i = 0; i < 5000; ++i) {
      ASSERT_EQ(nodes[i]->value, i);
      ASSERT_EQ(nodes[i]->text, "node " + std::to_string(i));
      ASSERT_EQ(reinterpret_cast<std::uintptr_t>(nodes[i]) % alignof(Counted), 0u);
    }
    EXPECT_EQ(destroyed, 0);
  }
  EXPECT_EQ(destroyed, 5000);
}

struct Throwing {
  explicit Throwing(bool fail) {
    if (fail) throw std::runtime_error("constructor");
  }
};

// A constructor that throws leaves no node behind, and the next make() still works.
TEST(NodeArenaTest, AThrowingConstructorAddsNoNode) {
  NodeArena<Throwing> arena;
  arena.make(false);
  EXPECT_THROW(arena.make(true), std::runtime_error);
  arena.make(false);
  EXPECT_EQ(arena.size(), 2u);
}

// Natively, objects make nodes from several threads at once.
TEST(NodeArenaTest, MakesFromSeveralThreadsAtOnce) {
  int destroyed = 0;
  {
    NodeArena<Counted> arena;
    std::vector<std::vector<Counted*>> made(4);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < 1000; ++i) made[t].push_back(arena.make(t * 1000 + i, "", destroyed));
      });
    }
    for (std::thread& thread : threads) thread.join();
    EXPECT_EQ(arena.size(), 4000u);
    for (int t = 0; t < 4; ++t) {
      for (int i = 0; i < 1000; ++i) ASSERT_EQ(made[t][i]->value, t * 1000 + i);
    }
  }
  EXPECT_EQ(destroyed, 4000);
}

}  // namespace
}  // namespace linfault::targets
