#include "dpct/surw_scheduler.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <set>
#include <string>

#include "dpct/executor.h"
#include "dpct/rng.h"
#include "dpct/schedule.h"
#include "dpct/scheduler_test_cases.h"
#include "dpct/test_objects.h"

namespace linfault::dpct {
namespace {

using history::Call;
using testing::access_of;

// Exact per-thread counts for scripted runs: each call is one access, and SURW asks about a run
// of two copies of one thread's calls.
class ExactEvents final : public StepEstimator {
 public:
  std::uint64_t estimate(const RunInfo& info) override {
    return info.workload == nullptr ? 1 : info.workload->threads.at(0).size();
  }
};

struct Sampled {
  std::map<std::string, std::uint64_t> counts;
  std::uint64_t runs = 0;
};

// Interleavings of a stores by thread 0 and b stores by thread 1, sampled `runs` times.
Sampled sample_interleavings(Scheduler& scheduler, int a, int b, std::uint64_t runs) {
  static int cell = 0;
  Workload w;
  w.threads = {std::vector<Call>(a, Call{"w", {}}), std::vector<Call>(b, Call{"w", {}})};
  Sampled out;
  out.runs = runs;
  for (std::uint64_t seed = 1; seed <= runs; ++seed) {
    scheduler.reseed(seed);
    testing::ScriptedView view({std::vector<Access>(a, access_of(AccessKind::kStore, &cell)),
                                std::vector<Access>(b, access_of(AccessKind::kFetchAdd, &cell))});
    std::string order;
    for (ThreadId t : testing::drive(scheduler, view, w)) order += static_cast<char>('0' + t);
    ++out.counts[order];
  }
  return out;
}

// Pearson's chi-square of the counts against the uniform distribution over `cells` outcomes.
double chi_square(const Sampled& s, std::uint64_t cells) {
  const double expected = static_cast<double>(s.runs) / static_cast<double>(cells);
  double chi = 0;
  std::uint64_t seen = 0;
  for (const auto& [order, count] : s.counts) {
    const double d = static_cast<double>(count) - expected;
    chi += d * d / expected;
    ++seen;
  }
  chi += static_cast<double>(cells - seen) * expected;  // outcomes never drawn
  return chi;
}

// A walk that picks uniformly among the enabled threads at every step: the baseline SURW fixes.
class UniformPerStep final : public Scheduler {
 public:
  void begin(const RunInfo&) override { rng_ = SplitMix64(seed_); }
  ThreadId choose(const SchedulingPoint&, std::span<const ThreadId> enabled) override {
    return enabled[rng_.below(enabled.size())];
  }
  void end(Schedule&) override {}
  void reseed(std::uint64_t seed) override { seed_ = seed; }

 private:
  std::uint64_t seed_ = 0;
  SplitMix64 rng_;
};

// With exact remaining counts and every event interesting, each of the C(a+b, a) interleavings
// is equally likely. Each bound is about the 1e-6 upper quantile of chi-square with cells-1
// degrees of freedom (fixed seeds, so it cannot flake anyway); the walk that picks uniformly per
// step lands more than ten times above it on the same shapes, so the check can fail.
TEST(SurwSchedulerTest, SamplesInterleavingsUniformlyWithExactCounts) {
  struct Shape {
    int a, b;
    std::uint64_t cells;
    double bound;  // about the 1e-6 upper quantile of chi-square with cells-1 degrees of freedom
  };
  for (const Shape& shape : {Shape{3, 2, 10, 45}, Shape{4, 2, 15, 53}, Shape{5, 1, 6, 36}}) {
    SurwScheduler surw(SurwOptions{}, std::make_unique<ExactEvents>());
    const Sampled s = sample_interleavings(surw, shape.a, shape.b, 20000);
    EXPECT_EQ(s.counts.size(), shape.cells);
    EXPECT_LT(chi_square(s, shape.cells), shape.bound) << shape.a << "+" << shape.b;
    UniformPerStep naive;
    const Sampled biased = sample_interleavings(naive, shape.a, shape.b, 20000);
    EXPECT_GT(chi_square(biased, shape.cells), 10 * shape.bound) << shape.a << "+" << shape.b;
  }
}

// Loads are not interesting: they interleave freely (every position of thread 1's store among
// thread 0's loads occurs), while each interesting event needs a draw.
TEST(SurwSchedulerTest, LoadsInterleaveFreelyAndStoresFollowTheDraws) {
  int x = 0;
  Workload w;
  w.threads = {{Call{"r", {}}, Call{"r", {}}, Call{"w", {}}}, {Call{"w", {}}}};
  std::set<std::string> orders;
  for (std::uint64_t seed = 1; seed <= 400; ++seed) {
    testing::ScriptedView view({{access_of(AccessKind::kLoad, &x), access_of(AccessKind::kLoad, &x),
                                 access_of(AccessKind::kStore, &x)},
                                {access_of(AccessKind::kStore, &x)}});
    SurwScheduler surw(SurwOptions{.seed = seed}, std::make_unique<ExactEvents>());
    std::string order;
    for (ThreadId t : testing::drive(surw, view, w)) order += static_cast<char>('0' + t);
    orders.insert(order);
    EXPECT_LE(surw.draws(), 2u) << order;
  }
  EXPECT_EQ(orders, (std::set<std::string>{"0001", "0010", "0100", "1000"}));
}

TEST(SurwSchedulerTest, RevisesAnEstimateThatRunsOut) {
  Workload stack;
  stack.threads = {{Call{"push", {1}}, Call{"pop", {}}}, {Call{"pop", {}}, Call{"push", {3}}}};
  Executor executor;
  SurwScheduler surw(SurwOptions{.seed = 3, .events_per_operation = 1});
  dpct::Run run = executor.execute(fixtures::factory_of<fixtures::TreiberStack>(), stack, surw);
  EXPECT_EQ(surw.initial_estimates(), (std::vector<std::uint64_t>{2, 2}));
  EXPECT_GT(surw.revisions(), 0u);
  ASSERT_NE(run.schedule.parameter("rev"), nullptr);
  EXPECT_EQ(*run.schedule.parameter("rev"), std::to_string(surw.revisions()));
  ASSERT_NE(run.schedule.parameter("epo"), nullptr);
  EXPECT_EQ(*run.schedule.parameter("epo"), "1");
}

TEST(SurwSchedulerTest, RunIsAPureFunctionOfTheSeedAndEveryChoiceIsEnabled) {
  SurwScheduler surw(SurwOptions{});
  testing::expect_runs_are_functions_of_the_seed(surw, [](std::uint64_t seed) {
    return "surw seed=" + std::to_string(seed) + " n=3 est=24,24,16";
  });
}

// As for POS: at least 1% of 2000 runs expose each bug. Measured with seeds 1..2000: depth 1
// 1521, depth 2 171, depth 3 95 hits.
TEST(SurwSchedulerTest, FindsTheDepthOneTwoThreeBugs) {
  for (unsigned depth : {1u, 2u, 3u}) {
    const std::uint64_t runs = 2000;
    SurwScheduler surw(SurwOptions{});
    const std::uint64_t hits = testing::bug_hits(surw, depth, runs);
    EXPECT_GE(hits, runs / 100) << "depth " << depth << ": " << hits << "/" << runs;
    std::printf("SURW depth %u: %llu/%llu runs\n", depth, static_cast<unsigned long long>(hits),
                static_cast<unsigned long long>(runs));
  }
}

// A thread at a spin/yield hint waits until the others are done.
TEST(SurwSchedulerTest, SpinningThreadWaitsForTheOthers) {
  int x = 0;
  Workload w;
  w.threads = {{Call{"spin", {}}}, {Call{"set", {}}}};
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    testing::ScriptedView view(
        {{access_of(AccessKind::kYield, nullptr), access_of(AccessKind::kYield, nullptr),
          access_of(AccessKind::kLoad, &x)},
         {access_of(AccessKind::kStore, &x)}});
    SurwScheduler scheduler(SurwOptions{.seed = seed});
    std::string order;
    for (ThreadId t : testing::drive(scheduler, view, w)) order += static_cast<char>('0' + t);
    EXPECT_EQ(order, "1000") << "seed " << seed;
  }
}

}  // namespace
}  // namespace linfault::dpct
