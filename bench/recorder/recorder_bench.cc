// Overhead of the native recorder (history/recorder.h):
//   - BM_InvokeOk, BM_Call: ns per recorded operation (invoke + response), 1, 2 and 4 threads
//     recording into one Recorder (2 and 4 threads contend on the shared sequence counter);
//     (reserve:1: after Recorder::reserve(), so that the run does not page-fault);
//   - BM_QueueStress, BM_StackStress: a real 2-thread stress loop (a mutex-protected std::queue, a
//     lock-free Treiber stack), N operations per thread, without (record:0) and with recording
//     (record:1; record:2 after reserve()): the slowdown a user sees;
//   - BM_HistoryAndJson: the post-run cost of history() and json_text().
// Run: build/bench/recorder/recorder_bench --benchmark_repetitions=9
//        --benchmark_report_aggregates_only=true   (figures in bench/recorder/README.md)

#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <queue>
#include <thread>
#include <vector>

#include "history/recorder.h"

namespace {

using linfault::history::Recorder;
using linfault::history::Value;

constexpr std::int64_t kMicroIterations = 500'000;  // per thread, so that memory stays bounded
constexpr int kStressOpsPerThread = 200'000;

Recorder* shared_recorder = nullptr;

// Thread 0 creates the recorder before the loop's start barrier and destroys it after its end
// barrier, so every repetition starts from an empty recorder.
void BM_InvokeOk(benchmark::State& state) {
  if (state.thread_index() == 0) {
    shared_recorder = new Recorder("queue");
    if (state.range(0) != 0) shared_recorder->reserve(kMicroIterations * state.threads());
  }
  const auto process = static_cast<linfault::history::ProcessId>(state.thread_index());
  std::int64_t i = 0;
  for (auto _ : state) {
    auto op = shared_recorder->invoke(process, "enq", {Value(i++)});
    op.ok();
  }
  state.SetItemsProcessed(state.iterations());
  if (state.thread_index() == 0) {
    delete shared_recorder;
    shared_recorder = nullptr;
  }
}
BENCHMARK(BM_InvokeOk)
    ->ArgName("reserve")
    ->Arg(0)
    ->Arg(1)
    ->Iterations(kMicroIterations)
    ->Threads(1)
    ->Threads(2)
    ->Threads(4)
    ->UseRealTime();

void BM_Call(benchmark::State& state) {
  if (state.thread_index() == 0) {
    shared_recorder = new Recorder("queue");
    if (state.range(0) != 0) shared_recorder->reserve(kMicroIterations * state.threads());
  }
  const auto process = static_cast<linfault::history::ProcessId>(state.thread_index());
  std::int64_t i = 0;
  for (auto _ : state) {
    auto r =
        shared_recorder->call(process, "deq", {}, [&] { return std::optional<std::int64_t>(i++); });
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations());
  if (state.thread_index() == 0) {
    delete shared_recorder;
    shared_recorder = nullptr;
  }
}
BENCHMARK(BM_Call)
    ->ArgName("reserve")
    ->Arg(0)
    ->Arg(1)
    ->Iterations(kMicroIterations)
    ->Threads(1)
    ->Threads(2)
    ->Threads(4)
    ->UseRealTime();

class LockedQueue {
 public:
  void enq(std::int64_t x) {
    std::lock_guard<std::mutex> lock(mu_);
    q_.push(x);
  }
  std::optional<std::int64_t> deq() {
    std::lock_guard<std::mutex> lock(mu_);
    if (q_.empty()) return std::nullopt;
    const std::int64_t x = q_.front();
    q_.pop();
    return x;
  }

 private:
  std::mutex mu_;
  std::queue<std::int64_t> q_;
};

// A Treiber stack whose nodes come from per-thread pools and are never reused during a run (no
// ABA, no reclamation).
class TreiberStack {
 public:
  struct Node {
    std::int64_t value;
    Node* next;
  };
  void push(Node* node) {
    Node* old = top_.load(std::memory_order_relaxed);
    do {
      node->next = old;
    } while (!top_.compare_exchange_weak(old, node, std::memory_order_release,
                                         std::memory_order_relaxed));
  }
  std::optional<std::int64_t> pop() {
    Node* old = top_.load(std::memory_order_acquire);
    while (old != nullptr && !top_.compare_exchange_weak(old, old->next, std::memory_order_acquire,
                                                         std::memory_order_acquire)) {
    }
    if (old == nullptr) return std::nullopt;
    return old->value;
  }

 private:
  std::atomic<Node*> top_{nullptr};
};

// Runs `body(thread)` on 2 threads released together; the manual time covers release to join.
template <class Body>
double timed_run(Body body) {
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      while (!go.load(std::memory_order_acquire)) {
      }
      body(t);
    });
  }
  const auto begin = std::chrono::steady_clock::now();
  go.store(true, std::memory_order_release);
  for (auto& th : threads) th.join();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
}

void BM_QueueStress(benchmark::State& state) {
  const bool record = state.range(0) != 0;
  for (auto _ : state) {
    LockedQueue q;
    auto rec = std::make_unique<Recorder>("queue");
    if (state.range(0) == 2) rec->reserve(2 * kStressOpsPerThread);
    const double seconds = timed_run([&](int t) {
      for (std::int64_t i = 0; i < kStressOpsPerThread; ++i) {
        const std::int64_t x = t * 1'000'000'000LL + i;
        if (!record) {
          if (i % 2 == 0) {
            q.enq(x);
          } else {
            benchmark::DoNotOptimize(q.deq());
          }
        } else if (i % 2 == 0) {
          rec->call(t, "enq", {Value(x)}, [&] { q.enq(x); });
        } else {
          benchmark::DoNotOptimize(rec->call(t, "deq", {}, [&] { return q.deq(); }));
        }
      }
    });
    state.SetIterationTime(seconds);
  }
  state.SetItemsProcessed(state.iterations() * 2 * kStressOpsPerThread);
}
BENCHMARK(BM_QueueStress)
    ->ArgName("record")
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->UseManualTime()
    ->Iterations(5);

void BM_StackStress(benchmark::State& state) {
  const bool record = state.range(0) != 0;
  for (auto _ : state) {
    TreiberStack s;
    std::vector<std::vector<TreiberStack::Node>> pools(
        2, std::vector<TreiberStack::Node>(kStressOpsPerThread / 2 + 1));
    auto rec = std::make_unique<Recorder>("stack");
    if (state.range(0) == 2) rec->reserve(2 * kStressOpsPerThread);
    const double seconds = timed_run([&](int t) {
      auto& pool = pools[static_cast<std::size_t>(t)];
      for (std::int64_t i = 0; i < kStressOpsPerThread; ++i) {
        if (i % 2 == 0) {
          TreiberStack::Node* node = &pool[static_cast<std::size_t>(i / 2)];
          node->value = t * 1'000'000'000LL + i;
          if (record) {
            rec->call(t, "push", {Value(node->value)}, [&] { s.push(node); });
          } else {
            s.push(node);
          }
        } else if (record) {
          benchmark::DoNotOptimize(rec->call(t, "pop", {}, [&] { return s.pop(); }));
        } else {
          benchmark::DoNotOptimize(s.pop());
        }
      }
    });
    state.SetIterationTime(seconds);
  }
  state.SetItemsProcessed(state.iterations() * 2 * kStressOpsPerThread);
}
BENCHMARK(BM_StackStress)
    ->ArgName("record")
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->UseManualTime()
    ->Iterations(5);

// history() and json_text() (which builds the history again) of a recorded 2-thread queue run of
// state.range(0) operations.
void BM_HistoryAndJson(benchmark::State& state) {
  const std::int64_t ops = state.range(0);
  Recorder rec("queue");
  LockedQueue q;
  timed_run([&](int t) {
    for (std::int64_t i = 0; i < ops / 2; ++i) {
      if (i % 2 == 0) {
        rec.call(t, "enq", {Value(t * ops + i)}, [&] { q.enq(t * ops + i); });
      } else {
        rec.call(t, "deq", {}, [&] { return q.deq(); });
      }
    }
  });
  double history_s = 0;
  double json_s = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto h = rec.history();
    const auto t1 = std::chrono::steady_clock::now();
    const std::string text = rec.json_text();
    const auto t2 = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(h.size() + text.size());
    history_s += std::chrono::duration<double>(t1 - t0).count();
    json_s += std::chrono::duration<double>(t2 - t1).count();
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["history_ms"] = 1e3 * history_s / n;
  state.counters["json_text_ms"] = 1e3 * json_s / n;
}
BENCHMARK(BM_HistoryAndJson)->Arg(100'000)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
