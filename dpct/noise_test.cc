// Native noise (dpct/noise.h): plans and decisions are deterministic per seed, delays land where
// the plan says, and run_native really injects them (counted), locks included.

#include "dpct/noise.h"

#include <gtest/gtest.h>

#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "dpct/native.h"
#include "dpct/test_objects.h"

namespace linfault::dpct {
namespace {

using history::Call;

// A read-then-write pattern at one site, as a retry loop makes it.
std::vector<Access> read_then_write_sequence(std::size_t n) {
  const SourceLocation here = SourceLocation::current();
  std::vector<Access> accesses;
  for (std::size_t i = 0; i < n; ++i) {
    accesses.push_back({AccessKind::kLoad, nullptr, here});
    accesses.push_back({AccessKind::kCompareExchange, nullptr, here});
    accesses.push_back({AccessKind::kStore, nullptr, here});
  }
  return accesses;
}

std::vector<Delay> decisions(const NoisePlan& plan, std::uint64_t thread,
                             const std::vector<Access>& accesses) {
  NoiseInjector injector(plan, thread);
  std::vector<Delay> out;
  for (const Access& access : accesses) out.push_back(injector.decide(access));
  return out;
}

NoisePlan loud_plan(std::uint64_t seed) {
  NoisePlan plan = draw_noise_plan(seed);
  plan.site_fraction = 1;
  plan.probability = 0.5;
  plan.window_probability = 0.5;
  plan.yield_weight = plan.spin_weight = plan.sleep_weight = 1;
  return plan;
}

TEST(NoiseTest, ThePlanIsAFunctionOfTheSeedAndVariesAcrossSeeds) {
  std::set<std::string> distinct;
  bool yields = false, spins = false, sleeps = false;
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    const NoisePlan plan = draw_noise_plan(seed);
    EXPECT_EQ(plan, draw_noise_plan(seed));
    EXPECT_EQ(plan.seed, seed);
    EXPECT_GT(plan.probability, 0);
    EXPECT_GT(plan.window_probability, plan.probability * 0.99);
    EXPECT_GT(plan.site_fraction, 0);
    EXPECT_GT(plan.yield_weight + plan.spin_weight + plan.sleep_weight, 0);
    yields |= plan.yield_weight > 0;
    spins |= plan.spin_weight > 0;
    sleeps |= plan.sleep_weight > 0;
    distinct.insert(plan.describe());
  }
  EXPECT_TRUE(yields && spins && sleeps);
  EXPECT_GT(distinct.size(), 50u);  // 3 x 3 x 3 x 4 x 2 x 2 = 432 combinations
}

TEST(NoiseTest, DecisionsAreDeterministicPerSeedAndThread) {
  const std::vector<Access> accesses = read_then_write_sequence(200);
  const NoisePlan plan = loud_plan(7);
  const std::vector<Delay> first = decisions(plan, 0, accesses);
  EXPECT_EQ(first, decisions(plan, 0, accesses));
  EXPECT_NE(first, decisions(plan, 1, accesses));  // threads draw from their own streams
  EXPECT_NE(first, decisions(loud_plan(8), 0, accesses));
  std::size_t delayed = 0;
  for (const Delay& d : first) {
    if (d.kind == DelayKind::kNone) continue;
    ++delayed;
    if (d.kind == DelayKind::kSpin) {
      EXPECT_GE(d.amount, 1u);
      EXPECT_LE(d.amount, plan.max_spin);
    }
    if (d.kind == DelayKind::kSleep) {
      EXPECT_GE(d.amount, 1u);
      EXPECT_LE(d.amount, plan.max_sleep_us);
    }
  }
  // 600 draws at p = 0.5: far from 0 and from 600 whatever the stream.
  EXPECT_GT(delayed, 200u);
  EXPECT_LT(delayed, 400u);
}

TEST(NoiseTest, TheWindowProbabilityAppliesToAWriteRightAfterALoad) {
  NoisePlan plan = loud_plan(3);
  plan.probability = 0;
  plan.window_probability = 1;
  NoiseInjector injector(plan, 0);
  const SourceLocation here = SourceLocation::current();
  auto decide = [&](AccessKind kind) { return injector.decide({kind, nullptr, here}).kind; };
  EXPECT_EQ(decide(AccessKind::kLoad), DelayKind::kNone);
  EXPECT_NE(decide(AccessKind::kCompareExchange), DelayKind::kNone);  // load -> CAS
  EXPECT_EQ(decide(AccessKind::kStore), DelayKind::kNone);            // CAS -> store
  EXPECT_EQ(decide(AccessKind::kLoad), DelayKind::kNone);
  EXPECT_EQ(decide(AccessKind::kLoad), DelayKind::kNone);  // load -> load
  EXPECT_NE(decide(AccessKind::kFetchAdd), DelayKind::kNone);
  EXPECT_EQ(decide(AccessKind::kLoad), DelayKind::kNone);
  EXPECT_NE(decide(AccessKind::kLock), DelayKind::kNone);
  EXPECT_EQ(injector.counts().accesses, 8u);
  EXPECT_EQ(injector.counts().delays(), 3u);
}

TEST(NoiseTest, NoisySitesAreAShareOfTheSitesChosenBySeed) {
  // Two sites on one line (different columns): the plan is by file:line, so one choice for both.
  const SourceLocation a = SourceLocation::current(), b = SourceLocation::current();
  ASSERT_EQ(a.line(), b.line());
  ASSERT_NE(a.column(), b.column());
  NoisePlan plan = draw_noise_plan(11);
  plan.site_fraction = 0.5;
  std::size_t noisy_seeds = 0;
  for (std::uint64_t seed = 0; seed < 400; ++seed) {
    plan.seed = seed;
    EXPECT_EQ(plan.noisy_site(a), plan.noisy_site(b));
    noisy_seeds += plan.noisy_site(a) ? 1 : 0;
  }
  // Over 400 seeds a site is noisy in about half of them (deterministic: a fixed hash).
  EXPECT_GT(noisy_seeds, 140u);
  EXPECT_LT(noisy_seeds, 260u);
  plan.site_fraction = 1;
  EXPECT_TRUE(plan.noisy_site(a));
}

Workload two_threads(const Call& call, std::size_t per_thread) {
  Workload w;
  w.threads = {std::vector<Call>(per_thread, call), std::vector<Call>(per_thread, call)};
  return w;
}

TEST(NoiseTest, NativeRunsInjectTheDelaysOfThePlan) {
  NoisePlan plan = draw_noise_plan(5);
  plan.site_fraction = 1;
  plan.probability = 1;
  plan.window_probability = 1;
  plan.yield_weight = 1;
  plan.spin_weight = 1;
  plan.sleep_weight = 0;  // outside windows; a window always gets a sleep
  plan.max_sleep_us = 1;
  NoiseCounts counts;
  Workload w;
  for (int t = 0; t < 2; ++t) {
    std::vector<Call> calls;
    for (int i = 0; i < 50; ++i) {
      calls.push_back(Call{"push", {t * 100 + i}});
      calls.push_back(Call{"pop", {}});
    }
    w.threads.push_back(calls);
  }
  const dpct::Run run = run_native(fixtures::factory_of<fixtures::TreiberStack>(), w,
                                   {.noise = plan, .noise_counts = &counts});
  ASSERT_EQ(run.outcome, RunOutcome::kOk) << run.message;
  EXPECT_EQ(run.history.size(), 200u);
  // Each push: lock, unlock, load, store, CAS at least; each pop a load, a load and a CAS.
  EXPECT_GE(counts.accesses, 100u * 5 + 100u * 3);
  EXPECT_EQ(counts.delays(), counts.accesses);  // p = 1 everywhere
  EXPECT_GT(counts.yields, 0u);
  EXPECT_GT(counts.spins, 0u);
  // One window per push (load -> CAS) and per pop (load -> CAS): at least 200 sleeps.
  EXPECT_GE(counts.sleeps, 200u);

  NoiseCounts quiet;
  NativeOptions without_noise;
  without_noise.noise_counts = &quiet;
  const dpct::Run plain =
      run_native(fixtures::factory_of<fixtures::TreiberStack>(), w, without_noise);
  ASSERT_EQ(plain.outcome, RunOutcome::kOk);
  EXPECT_EQ(quiet.accesses, 0u);  // no plan: nothing installed
}

TEST(NoiseTest, ThreadsUnderNoiseLockNatively) {
  NoisePlan plan = draw_noise_plan(9);
  plan.site_fraction = 1;
  plan.probability = 0.3;
  plan.window_probability = 0.3;
  plan.yield_weight = 1;
  plan.spin_weight = 1;
  plan.sleep_weight = 1;
  plan.max_sleep_us = 2;
  NoiseCounts counts;
  Workload w = two_threads(Call{"inc", {}}, 300);
  w.reveal = {Call{"get", {}}};
  const dpct::Run run = run_native(fixtures::factory_of<fixtures::LockedCounter>(), w,
                                   {.noise = plan, .noise_counts = &counts});
  ASSERT_EQ(run.outcome, RunOutcome::kOk) << run.message;
  const history::History& h = run.history;
  EXPECT_EQ(h.op(static_cast<history::OpIndex>(h.size() - 1)).result.as_int(), 600);
  // lock, load, store, unlock per increment
  EXPECT_EQ(counts.accesses, 600u * 4);
  EXPECT_GT(counts.delays(), 0u);
}

// Every blocking member under an observer: the observer sees the access, the std primitive
// does the blocking (a controlled-mode path would throw: an observer has no other threads).
TEST(NoiseTest, BlockingMembersStayNativeUnderAnObserver) {
  NoisePlan plan = draw_noise_plan(2);
  plan.site_fraction = 1;
  plan.probability = 0.5;
  plan.window_probability = 0.5;
  plan.max_sleep_us = 2;
  SharedMutex shared;
  RecursiveMutex recursive;
  Mutex mutex;
  ConditionVariable ready_changed;
  Atomic<int> stage{0};
  bool ready = false;
  NoiseCounts waiter_counts;
  std::thread waiter([&] {
    NoiseInjector injector(plan, 1);
    ScopedContext observed(&injector);
    stage.wait(0);
    std::unique_lock lock(mutex);
    ready_changed.wait(lock, [&] { return ready; });
    waiter_counts = injector.counts();
  });
  NoiseInjector injector(plan, 0);
  {
    ScopedContext observed(&injector);
    shared.lock_shared();
    shared.unlock_shared();
    shared.lock();
    shared.unlock();
    recursive.lock();
    recursive.lock();
    recursive.unlock();
    recursive.unlock();
    stage.store(1);
    stage.notify_all();
    {
      std::lock_guard lock(mutex);
      ready = true;
    }
    ready_changed.notify_one();
  }
  waiter.join();
  // 4 shared-mutex, 4 recursive-mutex accesses, store, notify, lock, unlock, notify.
  EXPECT_EQ(injector.counts().accesses, 13u);
  // The wait on the atomic and the lock; the condition's wait (with its unlock and re-lock)
  // only when the waiter got there before `ready` was set.
  EXPECT_GE(waiter_counts.accesses, 2u);
}

}  // namespace
}  // namespace linfault::dpct
