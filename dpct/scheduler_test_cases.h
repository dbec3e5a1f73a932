// Test-only helpers shared by the scheduler tests (pos_, surw_ and window_scheduler_test.cc): the
// classic bug objects of dpct/test_objects.h as runnable cases, the determinism check every
// randomized scheduler passes, and a hand-driven RunView.
//
// Contract: BugCase::workload runs one operation per thread; bug_showed() tells whether any
// operation reported the bug. ScriptedView::pending() returns each thread's next scripted access.
//
// Thread-safety: none (single-threaded tests). Internal: tests only, never installed.

#ifndef LINFAULT_DPCT_SCHEDULER_TEST_CASES_H_
#define LINFAULT_DPCT_SCHEDULER_TEST_CASES_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "dpct/executor.h"
#include "dpct/schedule.h"
#include "dpct/scheduler.h"
#include "dpct/test_objects.h"

namespace linfault::dpct::testing {

struct BugCase {
  unsigned depth;
  ObjectFactory factory;
  Workload workload;
};

inline BugCase bug_case(unsigned depth, int padding) {
  using history::Call;
  Workload w;
  switch (depth) {
    case 1:
      w.threads = {{Call{"init", {}}}, {Call{"use", {}}}};
      return {1, fixtures::factory_of<fixtures::Depth1Bug>(padding), w};
    case 2:
      w.threads = {{Call{"check", {}}}, {Call{"clear", {}}}};
      return {2, fixtures::factory_of<fixtures::Depth2Bug>(padding), w};
    default:
      w.threads = {{Call{"write", {}}}, {Call{"observe", {}}}};
      return {3, fixtures::factory_of<fixtures::Depth3Bug>(padding), w};
  }
}

inline bool bug_showed(const history::History& h) {
  for (const auto& op : h.operations()) {
    if (op.result == history::Value(true)) return true;
  }
  return false;
}

// Runs of the depth-`depth` bug case (padding 2) with seeds 1..runs in which the bug showed.
inline std::uint64_t bug_hits(Scheduler& scheduler, unsigned depth, std::uint64_t runs) {
  Executor executor;
  ExecutionOptions options;
  options.record_points = false;
  const BugCase c = bug_case(depth, 2);
  std::uint64_t hits = 0;
  for (std::uint64_t seed = 1; seed <= runs; ++seed) {
    scheduler.reseed(seed);
    hits += bug_showed(executor.execute(c.factory, c.workload, scheduler, options).history);
  }
  return hits;
}

// The contract of reseed() (dpct/scheduler.h) for a randomized scheduler: for seeds 1..40, two
// runs of a three-thread stack workload give the same schedule and history, and the schedule's
// text starts with `expected_prefix(seed)`; every choice is enabled (the executor throws
// otherwise), also on a counter whose lock blocks threads; and the seeds give more than 20
// distinct schedules. `after_first_run`, if set, sees the scheduler after each seed's first run.
inline void expect_runs_are_functions_of_the_seed(
    Scheduler& scheduler, const std::function<std::string(std::uint64_t)>& expected_prefix,
    const std::function<void()>& after_first_run = nullptr) {
  using history::Call;
  Workload stack;
  stack.threads = {{Call{"push", {1}}, Call{"pop", {}}, Call{"push", {2}}},
                   {Call{"pop", {}}, Call{"push", {3}}, Call{"pop", {}}},
                   {Call{"push", {4}}, Call{"push", {5}}}};
  Workload counter;
  counter.threads = {{Call{"inc", {}}, Call{"get", {}}}, {Call{"inc", {}}, Call{"inc", {}}}};
  Executor executor;
  std::set<std::string> distinct;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    scheduler.reseed(seed);
    const Run a =
        executor.execute(fixtures::factory_of<fixtures::TreiberStack>(), stack, scheduler);
    if (after_first_run) after_first_run();
    const Run b =
        executor.execute(fixtures::factory_of<fixtures::TreiberStack>(), stack, scheduler);
    EXPECT_EQ(a.schedule.to_text(), b.schedule.to_text());
    EXPECT_EQ(fixtures::render(a.history), fixtures::render(b.history));
    EXPECT_EQ(a.schedule.to_text().rfind(expected_prefix(seed), 0), 0u) << a.schedule.to_text();
    distinct.insert(a.schedule.to_text());
    const Run c =
        executor.execute(fixtures::factory_of<fixtures::LockedCounter>(), counter, scheduler);
    EXPECT_EQ(c.outcome, RunOutcome::kOk) << "seed " << seed;
  }
  EXPECT_GT(distinct.size(), 20u);  // seeds lead to different schedules
}

// Each thread performs its scripted accesses in order; advance(t) marks t's next one done.
class ScriptedView final : public RunView {
 public:
  explicit ScriptedView(std::vector<std::vector<Access>> script)
      : script_(std::move(script)), next_(script_.size(), 0) {}
  PendingStep pending(ThreadId t) const override {
    PendingStep step;
    if (next_[t] < script_[t].size()) step.access = &script_[t][next_[t]];
    step.op_index = next_[t];
    return step;
  }
  void advance(ThreadId t) { ++next_[t]; }
  bool finished(ThreadId t) const { return next_[t] >= script_[t].size(); }
  std::size_t done(ThreadId t) const { return next_[t]; }

 private:
  std::vector<std::vector<Access>> script_;
  std::vector<std::size_t> next_;
};

inline Access access_of(AccessKind kind, const void* address) {
  return Access{kind, address, SourceLocation()};
}

// Drives `scheduler` over the scripted run to its end, as the executor would: one point per
// access (kStart first, kFinished after a thread's last one). Returns the threads in the order
// they performed their accesses. Every thread's op_index is the number of accesses it did.
inline std::vector<ThreadId> drive(Scheduler& scheduler, ScriptedView& view, const Workload& w) {
  const auto n = static_cast<ThreadId>(w.threads.size());
  scheduler.begin(RunInfo{n, &w, &view});
  std::vector<ThreadId> order;
  SchedulingPoint point;
  point.kind = PointKind::kStart;
  for (;;) {
    std::vector<ThreadId> enabled;
    for (ThreadId t = 0; t < n; ++t) {
      if (!view.finished(t)) enabled.push_back(t);
    }
    if (enabled.empty()) break;
    const ThreadId chosen = scheduler.choose(point, enabled);
    order.push_back(chosen);
    view.advance(chosen);
    point.thread = chosen;
    point.op_index = view.done(chosen);
    if (view.finished(chosen)) {
      point.kind = PointKind::kFinished;
    } else {
      point.kind = PointKind::kAccess;
      point.access = *view.pending(chosen).access;
    }
    ++point.step;
  }
  return order;
}

}  // namespace linfault::dpct::testing

#endif  // LINFAULT_DPCT_SCHEDULER_TEST_CASES_H_
