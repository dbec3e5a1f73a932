// The std-compatible interface of dpct/shared.h in native mode, on real threads: no execution
// context is installed, so every member is the std operation with the caller's memory order.
// CI reruns these under ThreadSanitizer (label native), which checks that the orders given are
// passed through (a relaxed publication would be reported as a race).

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <vector>

#include "dpct/shared.h"

namespace linfault::dpct {
namespace {

template <class T>
using atomic = linfault::dpct::Atomic<T>;

constexpr int kThreads = 4;

template <class Body>
void run_threads(Body body) {
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(body, t);
  for (std::thread& thread : threads) thread.join();
}

TEST(StdInterfaceNativeTest, ArithmeticMembersAndOperatorsCountEveryUpdate) {
  atomic<long> count{0};
  atomic<unsigned> bits{0};
  run_threads([&](int t) {
    for (int i = 0; i < 1000; ++i) {
      count.fetch_add(2, std::memory_order_relaxed);
      ++count;
      count--;
      count -= 1;
      count += 1;
    }
    bits.fetch_or(1u << t, std::memory_order_acq_rel);
    bits ^= 1u << (t + 8);
  });
  EXPECT_EQ(count.load(), 2L * 1000 * kThreads);
  EXPECT_EQ(bits.load(std::memory_order_acquire), 0x0f0fu);
  bits &= 0xffu;
  EXPECT_EQ(static_cast<unsigned>(bits), 0x0fu);
}

// Release/acquire publication through a compare_exchange_weak loop: the node's plain field,
// written before the push, is read after the pop without a race.
TEST(StdInterfaceNativeTest, TreiberStackWrittenForStdAtomicKeepsEveryValue) {
  struct Node {
    int value;
    Node* next;
  };
  atomic<Node*> top{nullptr};
  std::vector<std::vector<Node>> nodes(kThreads, std::vector<Node>(500));
  atomic<long> popped_sum{0};
  run_threads([&](int t) {
    for (int i = 0; i < 500; ++i) {
      Node* node = &nodes[t][i];
      node->value = t * 1000 + i;
      node->next = top.load(std::memory_order_relaxed);
      while (!top.compare_exchange_weak(node->next, node, std::memory_order_release,
                                        std::memory_order_relaxed)) {
      }
      if (i % 2 == 1) {
        // Pop one. Nodes are never reused, so there is no ABA.
        Node* old = top.load(std::memory_order_acquire);
        while (old != nullptr &&
               !top.compare_exchange_strong(old, old->next, std::memory_order_acquire)) {
        }
        if (old != nullptr) popped_sum.fetch_add(old->value, std::memory_order_relaxed);
      }
    }
  });
  long sum = popped_sum.load();
  for (Node* n = top.load(std::memory_order_acquire); n != nullptr; n = n->next) sum += n->value;
  long expected = 0;
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < 500; ++i) expected += t * 1000 + i;
  }
  EXPECT_EQ(sum, expected);
}

TEST(StdInterfaceNativeTest, LocksThroughStdRaiiTypesExcludeEachOther) {
  Mutex mutex, other;
  SharedMutex shared;
  RecursiveMutex recursive;
  long plain = 0;  // guarded by mutex
  long guarded_by_shared = 0;
  long guarded_by_recursive = 0;
  std::atomic<int> readers_seen{0};
  run_threads([&](int t) {
    for (int i = 0; i < 500; ++i) {
      {
        std::lock_guard<Mutex> lock(mutex);
        ++plain;
      }
      {
        std::scoped_lock lock(other, mutex);
        ++plain;
      }
      {
        std::unique_lock<Mutex> lock(mutex);
        ++plain;
      }
      if ((i + t) % 4 == 0) {
        std::unique_lock<SharedMutex> lock(shared);
        ++guarded_by_shared;
      } else {
        std::shared_lock<SharedMutex> lock(shared);
        if (guarded_by_shared >= 0) readers_seen.fetch_add(1, std::memory_order_relaxed);
      }
      std::lock_guard<RecursiveMutex> outer(recursive);
      std::lock_guard<RecursiveMutex> inner(recursive);
      ++guarded_by_recursive;
    }
  });
  EXPECT_EQ(plain, 3L * 500 * kThreads);
  EXPECT_EQ(guarded_by_shared, 500L * kThreads / 4);
  EXPECT_EQ(readers_seen.load(), 500 * kThreads * 3 / 4);
  EXPECT_EQ(guarded_by_recursive, 500L * kThreads);
}

TEST(StdInterfaceNativeTest, ConditionVariableHandsEveryItemToAConsumer) {
  Mutex mutex;
  ConditionVariable changed;
  std::vector<int> queue;  // guarded by mutex
  int done_producers = 0;
  long consumed = 0;
  std::vector<std::thread> threads;
  for (int p = 0; p < 2; ++p) {
    threads.emplace_back([&, p] {
      for (int i = 1; i <= 1000; ++i) {
        std::lock_guard<Mutex> lock(mutex);
        queue.push_back(p * 1000 + i);
        changed.notify_one();
      }
      std::lock_guard<Mutex> lock(mutex);
      ++done_producers;
      changed.notify_all();
    });
  }
  for (int c = 0; c < 2; ++c) {
    threads.emplace_back([&] {
      std::unique_lock<Mutex> lock(mutex);
      while (true) {
        changed.wait(lock, [&] { return !queue.empty() || done_producers == 2; });
        if (queue.empty()) return;
        consumed += queue.back();
        queue.pop_back();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  long expected = 0;
  for (int p = 0; p < 2; ++p) {
    for (int i = 1; i <= 1000; ++i) expected += p * 1000 + i;
  }
  EXPECT_EQ(consumed, expected);

  std::unique_lock<Mutex> lock(mutex);
  EXPECT_EQ(changed.wait_for(lock, std::chrono::milliseconds(1)), std::cv_status::timeout);
  EXPECT_TRUE(changed.wait_for(lock, std::chrono::milliseconds(1), [] { return true; }));
}

TEST(StdInterfaceNativeTest, AtomicWaitAndNotifyHandOver) {
  atomic<int> turn{0};
  AtomicFlag spin_lock;
  int inside = 0;  // guarded by spin_lock
  std::thread other([&] {
    for (int i = 0; i < 200; ++i) {
      turn.wait(2 * i, std::memory_order_acquire);  // until it is 2i + 1
      turn.store(2 * i + 2, std::memory_order_release);
      turn.notify_one();
    }
  });
  for (int i = 0; i < 200; ++i) {
    turn.store(2 * i + 1, std::memory_order_release);
    turn.notify_all();
    turn.wait(2 * i + 1, std::memory_order_acquire);
  }
  other.join();
  EXPECT_EQ(turn.load(), 400);

  run_threads([&](int) {
    for (int i = 0; i < 500; ++i) {
      while (spin_lock.test_and_set(std::memory_order_acquire)) {
        spin_lock.wait(true, std::memory_order_relaxed);
      }
      ++inside;
      spin_lock.clear(std::memory_order_release);
      spin_lock.notify_one();
    }
  });
  EXPECT_EQ(inside, 500 * kThreads);
  EXPECT_FALSE(spin_lock.test());
}

}  // namespace
}  // namespace linfault::dpct
