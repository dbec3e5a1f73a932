#include "dpct/pct_scheduler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "dpct/executor.h"
#include "dpct/schedule.h"
#include "dpct/test_objects.h"

namespace linfault::dpct {
namespace {

using history::Call;
using history::Value;

struct BugCase {
  const char* name;
  unsigned depth;
  ObjectFactory factory;
  Workload workload;
  int accesses;  // shared accesses of both threads together
};

BugCase bug_case(unsigned depth, int padding) {
  Workload w;
  switch (depth) {
    case 1:
      w.threads = {{Call{"init", {}}}, {Call{"use", {}}}};
      return {"depth-1 ordering", 1, fixtures::factory_of<fixtures::Depth1Bug>(padding), w,
              4 * padding + 2};
    case 2:
      w.threads = {{Call{"check", {}}}, {Call{"clear", {}}}};
      return {"depth-2 atomicity", 2, fixtures::factory_of<fixtures::Depth2Bug>(padding), w,
              4 * padding + 3};
    default:
      w.threads = {{Call{"write", {}}}, {Call{"observe", {}}}};
      return {"depth-3 ordering", 3, fixtures::factory_of<fixtures::Depth3Bug>(padding), w,
              6 * padding + 4};
  }
}

bool bug_showed(const history::History& h) {
  for (const auto& op : h.operations()) {
    if (op.result == Value(true)) return true;
  }
  return false;
}

// PCT's guarantee, measured: over many seeds the hit rate of a depth-d bug is at least
// 1/(n*k^(d-1)), where k bounds the decisions of every run (accesses + the start point).
TEST(PctSchedulerTest, FindsDepthOneTwoThreeBugsWithTheGuaranteedProbability) {
  Executor executor;
  for (unsigned depth : {1u, 2u, 3u}) {
    const BugCase c = bug_case(depth, 2);
    const std::uint64_t k = static_cast<std::uint64_t>(c.accesses) + 1;
    const double bound = 1.0 / (2.0 * std::pow(static_cast<double>(k), depth - 1));
    const std::uint64_t runs = depth == 3 ? 20000 : 4000;
    std::uint64_t hits = 0;
    PctScheduler pct(PctOptions{0, depth, k});
    ExecutionOptions options;
    options.record_points = false;
    for (std::uint64_t seed = 1; seed <= runs; ++seed) {
      pct.reseed(seed);
      dpct::Run run = executor.execute(c.factory, c.workload, pct, options);
      ASSERT_EQ(run.outcome, RunOutcome::kOk);
      ASSERT_LE(run.schedule.decisions.size(), k);
      hits += bug_showed(run.history);
    }
    const double rate = static_cast<double>(hits) / static_cast<double>(runs);
    // One-sided test of "P(hit) >= bound": reject only when the measured rate lies more than
    // four standard errors below the bound (depth 1 has P = 1/n exactly, so a plain >= would
    // fail on half of all seed ranges).
    const double slack = 4.0 * std::sqrt(bound * (1 - bound) / static_cast<double>(runs));
    EXPECT_GE(rate, bound - slack) << c.name << ": k=" << k << " hits=" << hits << "/" << runs;
    if (depth > 1) {
      EXPECT_GE(rate, bound) << c.name << ": k=" << k << " hits=" << hits << "/" << runs;
    }
    // Enough hits that the comparison is not luck of a handful of runs.
    EXPECT_GE(static_cast<double>(hits), 10.0) << c.name;
    ::testing::Test::RecordProperty(std::string("rate_depth") + std::to_string(depth),
                                    std::to_string(rate));
  }
}

TEST(PctSchedulerTest, DepthOneFindsOrderingBugInAboutHalfTheRuns) {
  const BugCase c = bug_case(1, 3);
  Executor executor;
  std::uint64_t hits = 0;
  for (std::uint64_t seed = 1; seed <= 1000; ++seed) {
    PctScheduler pct(PctOptions{seed, 1, 20});
    hits += bug_showed(executor.execute(c.factory, c.workload, pct).history);
  }
  // d = 1: no change points, the higher-priority thread runs to completion: exactly 1/n.
  EXPECT_GT(hits, 400u);
  EXPECT_LT(hits, 600u);
}

TEST(PctSchedulerTest, PreemptsExactlyAtTheChangePoint) {
  Workload w;
  w.threads = {{Call{"push", {1}}, Call{"push", {2}}}, {Call{"push", {3}}, Call{"pop", {}}}};
  Executor executor;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    PctScheduler pct(PctOptions{seed, 2, 12});
    dpct::Run run = executor.execute(fixtures::factory_of<fixtures::TreiberStack>(), w, pct);
    ASSERT_EQ(pct.change_points().size(), 1u);
    const std::uint64_t cp = pct.change_points()[0];
    ASSERT_GE(cp, 1u);
    ASSERT_LE(cp, 12u);
    const auto& prio = pct.initial_priorities();
    const ThreadId top = prio[0] > prio[1] ? 0 : 1;
    const auto& d = run.schedule.decisions;
    for (std::size_t i = 0; i < d.size(); ++i) {
      if (i + 1 < cp) {
        EXPECT_EQ(d[i], top) << "seed " << seed << " decision " << i;
      } else {
        EXPECT_EQ(d[i], 1 - top) << "seed " << seed << " decision " << i;
      }
    }
    EXPECT_EQ(*run.schedule.parameter("cp"), std::to_string(cp));
    EXPECT_EQ(*run.schedule.parameter("d"), "2");
    EXPECT_EQ(*run.schedule.parameter("k"), "12");
  }
}

TEST(PctSchedulerTest, SameSeedSameRunDifferentSeedsDiffer) {
  const BugCase c = bug_case(3, 2);
  Executor executor;
  PctScheduler a(PctOptions{77, 3, 17});
  const std::string first = executor.execute(c.factory, c.workload, a).schedule.to_text();
  EXPECT_EQ(executor.execute(c.factory, c.workload, a).schedule.to_text(), first);
  int different = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    PctScheduler b(PctOptions{seed, 3, 17});
    different += executor.execute(c.factory, c.workload, b).schedule.to_text() != first;
  }
  EXPECT_GE(different, 15);
}

// A D-PCT-like estimator: starts low, then at a chosen point says "40 more decisions".
class RevisingEstimator final : public StepEstimator {
 public:
  std::uint64_t estimate(const RunInfo& info) override {
    points_ = 0;
    threads_seen_ = info.threads;
    return 3;
  }
  std::optional<std::uint64_t> revise(const SchedulingPoint& point, std::uint64_t left) override {
    ++points_;
    last_left_ = left;
    if (point.kind == PointKind::kAccess && point.step == 6) return 40;
    return std::nullopt;
  }
  std::uint64_t points_ = 0;
  std::uint64_t last_left_ = 0;
  std::size_t threads_seen_ = 0;
};

TEST(PctSchedulerTest, EstimatorSeesEveryPointAndRevisionRedrawsChangePoints) {
  const BugCase c = bug_case(3, 4);
  Executor executor;
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    auto estimator = std::make_unique<RevisingEstimator>();
    RevisingEstimator* observer = estimator.get();
    PctScheduler pct(PctOptions{seed, 3, 0}, std::move(estimator));
    dpct::Run run = executor.execute(c.factory, c.workload, pct);
    EXPECT_TRUE(pct.sees_last_thread());
    EXPECT_EQ(observer->threads_seen_, 2u);
    EXPECT_EQ(observer->points_, run.steps);
    ASSERT_EQ(pct.revisions().size(), 1u);
    const auto [at, remaining] = pct.revisions()[0];
    EXPECT_EQ(remaining, 40u);
    EXPECT_EQ(pct.steps(), at + 40);
    for (std::uint64_t cp : pct.change_points()) {
      if (cp > at) {
        EXPECT_LE(cp, at + 40);
      }
    }
    EXPECT_EQ(*run.schedule.parameter("k"), "3");
    EXPECT_EQ(*run.schedule.parameter("kre"), std::to_string(at) + ":40");
  }
}

// Changes of the running thread from one decision to the next.
int switches(const Run& run) {
  int count = 0;
  for (std::size_t i = 1; i < run.schedule.decisions.size(); ++i) {
    if (run.schedule.decisions[i] != run.schedule.decisions[i - 1]) ++count;
  }
  return count;
}

// Forwards to a scheduler, but asks to be called at every point, as every scheduler was before
// sees_last_thread() existed.
class AskedEverywhere final : public Scheduler {
 public:
  explicit AskedEverywhere(Scheduler& inner) : inner_(inner) {}
  void begin(const RunInfo& info) override { inner_.begin(info); }
  ThreadId choose(const SchedulingPoint& point, std::span<const ThreadId> enabled) override {
    return inner_.choose(point, enabled);
  }
  void end(Schedule& schedule) override { inner_.end(schedule); }
  bool sees_last_thread() const override { return true; }

 private:
  Scheduler& inner_;
};

// Plain PCT (a fixed k) makes no decision where only the last unfinished thread can run, so the
// executor need not ask it there: its decisions and histories are those it made when asked at
// every point, with epochs and the write bias too (their plans are redrawn at points).
TEST(PctSchedulerTest, PlainPctNeedsNoPointOfTheLastThread) {
  EXPECT_FALSE(PctScheduler(PctOptions{1, 3, 20}).sees_last_thread());
  EXPECT_FALSE(
      PctScheduler(PctOptions{1, 3, 0}, std::make_unique<FixedSteps>(20)).sees_last_thread());
  // Threads of unequal length, so that one runs alone for a while.
  Workload w;
  w.threads = {std::vector<Call>(2, Call{"inc", {}}), std::vector<Call>(12, Call{"inc", {}})};
  Executor executor;
  std::uint64_t runs_with_points_alone = 0;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    PctOptions options{seed, 3, 30};
    if (seed % 2 == 0) {
      options.epoch_operations = 2;
      options.defer_to_write = 0.5;
    }
    PctScheduler skipped(options);
    PctScheduler asked(options);
    AskedEverywhere everywhere(asked);
    const dpct::Run fewer =
        executor.execute(fixtures::factory_of<fixtures::LockedCounter>(), w, skipped);
    const dpct::Run all =
        executor.execute(fixtures::factory_of<fixtures::LockedCounter>(), w, everywhere);
    EXPECT_EQ(fewer.schedule.decisions, all.schedule.decisions) << seed;
    EXPECT_EQ(fixtures::render(fewer.history), fixtures::render(all.history)) << seed;
    EXPECT_EQ(fewer.steps, all.steps) << seed;
    runs_with_points_alone += all.steps > all.schedule.decisions.size() + 2;
  }
  EXPECT_GT(runs_with_points_alone, 30u);
}

TEST(PctSchedulerTest, EpochsRedrawThePlanSoLongRunsKeepBeingPreempted) {
  // Two threads of 40 locked increments: one plan per run gives at most d-1 = 1 preemption
  // (plus the switches forced by the lock and by a thread finishing); a plan per 2 operations
  // gives preemptions all along the run.
  Workload w;
  w.threads.assign(2, std::vector<Call>(40, Call{"inc", {}}));
  const ObjectFactory factory = fixtures::factory_of<fixtures::LockedCounter>();
  Executor executor;
  int single_plan = 0;
  int epochs = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    PctScheduler once(PctOptions{.seed = seed, .depth = 2, .steps = 400});
    single_plan += switches(executor.execute(factory, w, once));
    PctScheduler per_epoch(
        PctOptions{.seed = seed, .depth = 2, .steps = 400, .epoch_operations = 2});
    const dpct::Run run = executor.execute(factory, w, per_epoch);
    epochs += switches(run);
    const std::string* drawn = run.schedule.parameter("epochs");
    ASSERT_NE(drawn, nullptr);
    EXPECT_GE(std::stoi(*drawn), 30);  // about 80 operations / 2, less the last epoch's
    EXPECT_EQ(*run.schedule.parameter("epoch"), "2");
  }
  EXPECT_GT(epochs, 5 * single_plan);
}

// A check-then-act race behind a long read-only prelude: "inc" walks `padding` loads (a list
// traversal), reads the counter and stores it plus one; two concurrent incs that return the same
// value lost an update. The window is the single decision between the counter's load and its
// store.
class LostUpdate final : public ObjectUnderTest {
 public:
  explicit LostUpdate(int padding) : padding_(padding) {}
  Value invoke(const Call&) override {
    for (int i = 0; i < padding_; ++i) static_cast<void>(path_.load());
    const int seen = counter_.load();
    counter_.store(seen + 1);
    return std::int64_t{seen + 1};
  }

 private:
  int padding_;
  Atomic<int> path_{0};
  Atomic<int> counter_{0};
};

bool lost_an_update(const history::History& h) {
  std::vector<Value> results;
  for (const auto& op : h.operations()) {
    if (op.call.method != "inc") continue;
    if (std::find(results.begin(), results.end(), op.result) != results.end()) return true;
    results.push_back(op.result);
  }
  return false;
}

// Operations of two accesses each, and a k below the operation count (a pilot estimate on an
// object whose calls are mostly one load): the epoch's share of k, 10 x 2 / 20 = 1, rounded down
// to one step, put every change point on the epoch's first decision and no inc was ever preempted
// between its load and its store. The share is now rounded up and at least 2.
TEST(PctSchedulerTest, EpochsOfShortOperationsStillPreemptBetweenTheirAccesses) {
  Workload w;
  w.threads.assign(2, std::vector<Call>(10, Call{"inc", {}}));
  const ObjectFactory factory = fixtures::factory_of<LostUpdate>(0);
  Executor executor;
  ExecutionOptions options;
  options.record_points = false;
  int hits = 0;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    PctScheduler pct(PctOptions{.seed = seed, .depth = 3, .steps = 10, .epoch_operations = 2});
    hits += lost_an_update(executor.execute(factory, w, pct, options).history);
  }
  EXPECT_GT(hits, 20);
}

TEST(PctSchedulerTest, WriteBiasMovesPreemptionsIntoCheckThenActWindows) {
  Workload w;
  w.threads.assign(2, std::vector<Call>(3, Call{"inc", {}}));
  const ObjectFactory factory = fixtures::factory_of<LostUpdate>(20);
  Executor executor;
  ExecutionOptions options;
  options.record_points = false;
  auto hit_rate = [&](double bias) {
    int hits = 0;
    std::uint64_t deferred = 0;
    for (std::uint64_t seed = 1; seed <= 2000; ++seed) {
      PctScheduler pct(PctOptions{.seed = seed, .depth = 2, .steps = 130, .defer_to_write = bias});
      const dpct::Run run = executor.execute(factory, w, pct, options);
      hits += lost_an_update(run.history);
      if (const std::string* d = run.schedule.parameter("deferred")) deferred += std::stoull(*d);
    }
    if (bias > 0) {
      EXPECT_GT(deferred, 0u);
    }
    return hits;
  };
  const int plain = hit_rate(0);
  const int biased = hit_rate(1);
  // Plain PCT lands in the window with probability about 1/22 per change point; deferred change
  // points always do (after the first inc has shown that the method writes).
  EXPECT_GT(biased, 4 * plain) << "plain " << plain << ", biased " << biased;
  EXPECT_GT(plain, 0);
}

TEST(PctSchedulerTest, WriteBiasLeavesReadOnlyMethodsAlone) {
  // The depth-2 atomicity bug sits between two loads of the read-only "check": a full bias must
  // not move its change points away, so PCT's guarantee still holds.
  const BugCase c = bug_case(2, 2);
  const std::uint64_t k = static_cast<std::uint64_t>(c.accesses) + 1;
  Executor executor;
  int hits = 0;
  const int runs = 4000;
  for (int seed = 1; seed <= runs; ++seed) {
    PctScheduler pct(PctOptions{
        .seed = static_cast<std::uint64_t>(seed), .depth = 2, .steps = k, .defer_to_write = 1});
    hits += bug_showed(executor.execute(c.factory, c.workload, pct).history);
  }
  EXPECT_GE(static_cast<double>(hits) / runs, 1.0 / (2.0 * static_cast<double>(k)));
}

TEST(PctSchedulerTest, RejectsBadConfiguration) {
  EXPECT_THROW(PctScheduler(PctOptions{1, 0, 10}), std::invalid_argument);
  EXPECT_THROW(PctScheduler(PctOptions{1, 2, 10}, nullptr), std::invalid_argument);
}

}  // namespace
}  // namespace linfault::dpct
