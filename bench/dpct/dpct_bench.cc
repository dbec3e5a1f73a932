// Throughput of controlled execution: a 2-thread x 5-operation Treiber stack under PCT, with and
// without history recording, on one worker and on all cores; the cost of a scheduling point and
// of a thread switch, on fibers and on OS threads of their own (an object that needs thread
// identity). Run: build/bench/dpct/dpct_bench (figures: exec/s, ns/point).

#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include "dpct/executor.h"
#include "dpct/parallel.h"
#include "dpct/pct_scheduler.h"
#include "dpct/shared.h"
#include "dpct/workload.h"

namespace {

using linfault::history::Call;
using linfault::history::Value;
namespace dpct = linfault::dpct;

// The classic lock-free stack on the dpct API (nodes freed with the stack: no ABA, no reclamation).
class TreiberStack final : public dpct::ObjectUnderTest {
 public:
  explicit TreiberStack(bool os_threads = false) : os_threads_(os_threads) {}
  bool needs_thread_identity() const override { return os_threads_; }
  ~TreiberStack() override {
    for (Node* n = allocated_; n != nullptr;) {
      Node* next = n->chain;
      delete n;
      n = next;
    }
  }
  Value invoke(const Call& call) override {
    if (call.method == "push") {
      Node* node = new Node{call.args[0].as_int(), allocated_};
      allocated_ = node;  // one logical thread runs at a time in controlled mode
      Node* old = top_.load();
      do {
        node->next.store(old);
      } while (!top_.compare_exchange(old, node));
      return {};
    }
    if (call.method == "pop") {
      Node* old = top_.load();
      while (old != nullptr) {
        if (top_.compare_exchange(old, old->next.load())) return Value(old->value);
      }
      return {};
    }
    throw std::invalid_argument("no method " + call.method);
  }

 private:
  struct Node {
    std::int64_t value;
    Node* chain;
    dpct::Atomic<Node*> next{nullptr};
  };
  bool os_threads_;
  dpct::Atomic<Node*> top_{nullptr};
  Node* allocated_ = nullptr;
};

dpct::Workload treiber_2x5() {
  auto push = [](int v) { return Call{"push", {v}}; };
  const Call pop{"pop", {}};
  dpct::Workload w;
  w.threads = {{push(1), push(2), pop, push(3), pop}, {pop, push(4), pop, push(5), pop}};
  return w;
}

const dpct::ObjectFactory kFactory = [] { return std::make_unique<TreiberStack>(); };
constexpr std::uint64_t kSteps = 30;  // about 3 accesses per operation

void report(benchmark::State& state, std::uint64_t executions, std::uint64_t points) {
  state.counters["exec/s"] =
      benchmark::Counter(static_cast<double>(executions), benchmark::Counter::kIsRate);
  state.counters["ns/point"] =
      benchmark::Counter(static_cast<double>(points) * 1e-9,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["points/exec"] = static_cast<double>(points) / static_cast<double>(executions);
}

// One worker, one Executor reused; record 0: no recording, 1: history + decision points
// recorded; os_threads 1: each logical thread on an OS thread of its own.
void BM_PctTreiberOneCore(benchmark::State& state) {
  const bool record = state.range(0) != 0;
  const bool os_threads = state.range(1) != 0;
  const dpct::ObjectFactory factory = [os_threads] {
    return std::make_unique<TreiberStack>(os_threads);
  };
  const dpct::Workload w = treiber_2x5();
  dpct::Executor executor;
  dpct::PctScheduler pct(dpct::PctOptions{0, 3, kSteps});
  dpct::ExecutionOptions options;
  options.record_history = record;
  options.record_points = record;
  std::uint64_t seed = 0, points = 0;
  for (auto _ : state) {
    pct.reseed(++seed);
    dpct::Run run = executor.execute(factory, w, pct, options);
    points += run.steps;
    benchmark::DoNotOptimize(run);
  }
  report(state, seed, points);
}
BENCHMARK(BM_PctTreiberOneCore)
    ->ArgsProduct({{0, 1}, {0, 1}})
    ->ArgNames({"record", "os_threads"})
    ->UseRealTime();

// run_many over `workers` workers; arg 0: record, arg 1: workers (0 = all cores).
void BM_PctTreiberRunMany(benchmark::State& state) {
  const dpct::Workload w = treiber_2x5();
  dpct::ManyOptions options;
  options.runs = 200'000;
  options.workers = static_cast<unsigned>(state.range(1));
  options.execution.record_history = state.range(0) != 0;
  options.execution.record_points = state.range(0) != 0;
  dpct::SchedulerFactory pct = [] {
    return std::make_unique<dpct::PctScheduler>(dpct::PctOptions{0, 3, kSteps});
  };
  std::uint64_t executions = 0, points = 0;
  unsigned workers = 0;
  for (auto _ : state) {
    dpct::ManyResult r = dpct::run_many(kFactory, w, pct, options);
    executions += r.executions;
    points += r.steps;
    workers = r.workers;
  }
  report(state, executions, points);
  state.counters["workers"] = workers;
  state.counters["exec/s/worker"] =
      benchmark::Counter(static_cast<double>(executions) / workers, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PctTreiberRunMany)
    ->ArgsProduct({{0, 1}, {1, 0}})
    ->ArgNames({"record", "workers"})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

// Switches at every point: two threads alternate over 1000 loads each; ns/point ~ one fiber
// switch plus the scheduling bookkeeping.
class Alternate final : public dpct::Scheduler {
 public:
  void begin(const dpct::RunInfo&) override {}
  dpct::ThreadId choose(const dpct::SchedulingPoint& p,
                        std::span<const dpct::ThreadId> enabled) override {
    for (dpct::ThreadId t : enabled) {
      if (t != p.thread) return t;
    }
    return enabled[0];
  }
  void end(dpct::Schedule& s) override { s.scheduler = "alternate"; }
};

class Loads final : public dpct::ObjectUnderTest {
 public:
  explicit Loads(bool os_threads) : os_threads_(os_threads) {}
  bool needs_thread_identity() const override { return os_threads_; }
  Value invoke(const Call&) override {
    for (int i = 0; i < 1000; ++i) x_.load();
    return {};
  }

 private:
  bool os_threads_;
  dpct::Atomic<int> x_{0};
};

// os_threads 1: the switches hand a baton between OS threads.
void BM_SwitchEveryPoint(benchmark::State& state) {
  const bool os_threads = state.range(0) != 0;
  dpct::Workload w;
  w.threads = {{Call{"loads", {}}}, {Call{"loads", {}}}};
  dpct::Executor executor;
  Alternate alternate;
  dpct::ExecutionOptions options;
  options.record_history = false;
  options.record_points = false;
  const dpct::ObjectFactory factory = [os_threads] { return std::make_unique<Loads>(os_threads); };
  std::uint64_t runs = 0, points = 0;
  for (auto _ : state) {
    dpct::Run run = executor.execute(factory, w, alternate, options);
    points += run.steps;
    ++runs;
  }
  report(state, runs, points);
}
BENCHMARK(BM_SwitchEveryPoint)->Arg(0)->Arg(1)->ArgName("os_threads")->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
