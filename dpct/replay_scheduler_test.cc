#include "dpct/replay_scheduler.h"

#include <gtest/gtest.h>

#include <set>

#include "dpct/executor.h"
#include "dpct/pct_scheduler.h"
#include "dpct/random_scheduler.h"
#include "dpct/test_objects.h"

namespace linfault::dpct {
namespace {

using history::Call;

Workload stack_workload() {
  Workload w;
  w.setup = {Call{"push", {1}}};
  w.threads = {{Call{"push", {2}}, Call{"pop", {}}, Call{"push", {4}}},
               {Call{"pop", {}}, Call{"push", {3}}, Call{"pop", {}}},
               {Call{"pop", {}}, Call{"push", {5}}}};
  w.reveal = {Call{"pop", {}}, Call{"pop", {}}, Call{"pop", {}}};
  return w;
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ScheduleDivergence& e) {
    return e.what();
  }
  return "";
}

// The acceptance test of the issue: 1000 recorded schedules, each replayed from its text form,
// give byte-identical histories (and re-record the same schedule).
TEST(ReplaySchedulerTest, ReplayFromTextGivesByteIdenticalHistory1000Of1000) {
  const Workload w = stack_workload();
  const ObjectFactory factory = fixtures::factory_of<fixtures::TreiberStack>();
  Executor executor;
  int identical = 0;
  std::size_t interleavings = 0;
  std::set<std::string> distinct;
  for (std::uint64_t seed = 1; seed <= 1000; ++seed) {
    PctScheduler pct(PctOptions{seed, 3, 60});
    dpct::Run original = executor.execute(factory, w, pct);
    ASSERT_EQ(original.outcome, RunOutcome::kOk);
    const std::string text = original.schedule.to_text();
    ReplayScheduler replay(seed % 2 == 0 ? Schedule::from_text(text)
                                         : Schedule::from_json(nlohmann::json::parse(
                                               original.schedule.to_json().dump())));
    dpct::Run again = executor.execute(factory, w, replay);
    const std::string a = fixtures::render(original.history);
    identical += a == fixtures::render(again.history) && again.schedule == original.schedule;
    distinct.insert(a);
    interleavings += original.schedule.decisions.size();
  }
  EXPECT_EQ(identical, 1000);
  EXPECT_GT(distinct.size(), 50u);  // the replays covered many different histories
  EXPECT_GT(interleavings, 1000u);
}

TEST(ReplaySchedulerTest, DivergenceIsReportedWithDecisionThreadAndLocation) {
  const Workload w = stack_workload();
  const ObjectFactory factory = fixtures::factory_of<fixtures::TreiberStack>();
  Executor executor;
  RandomScheduler random(11);
  const Schedule recorded = executor.execute(factory, w, random).schedule;
  ASSERT_GE(recorded.decisions.size(), 4u);

  // Another workload: thread 0 pops first instead of pushing.
  Workload other = w;
  other.threads[0][0] = Call{"pop", {}};
  ReplayScheduler replay(recorded);
  const std::string moved = message_of([&] { executor.execute(factory, other, replay); });
  EXPECT_NE(moved.find("schedule divergence: decision "), std::string::npos) << moved;
  EXPECT_NE(moved.find("but the run is at thread "), std::string::npos) << moved;
  EXPECT_NE(moved.find("test_objects.h:"), std::string::npos) << moved;

  // A recorded thread that is not enabled: thread 2 finishes early, yet is chosen at the end.
  Schedule wrong = recorded;
  wrong.points.clear();
  wrong.decisions.back() = 7;
  ReplayScheduler replay_wrong(wrong);
  const std::string disabled = message_of([&] { executor.execute(factory, w, replay_wrong); });
  EXPECT_NE(disabled.find("recorded thread 7 is not enabled"), std::string::npos) << disabled;

  Schedule shorter = recorded;
  shorter.decisions.pop_back();
  shorter.points.pop_back();
  ReplayScheduler replay_short(shorter);
  EXPECT_NE(message_of([&] { executor.execute(factory, w, replay_short); }).find("records only"),
            std::string::npos);

  Schedule longer = recorded;
  longer.decisions.push_back(0);
  longer.points.push_back(longer.points.back());
  ReplayScheduler replay_long(longer);
  EXPECT_NE(message_of([&] { executor.execute(factory, w, replay_long); }).find("ended after"),
            std::string::npos);

  Schedule moved_line = recorded;
  moved_line.points[1].line += 1000;
  ReplayScheduler replay_line(moved_line);
  const std::string line = message_of([&] { executor.execute(factory, w, replay_line); });
  EXPECT_NE(line.find("decision 1 "), std::string::npos) << line;
  EXPECT_NE(line.find("recorded at thread"), std::string::npos) << line;
}

TEST(ReplaySchedulerTest, LenientReplayToleratesRemovedOperations) {
  const Workload w = stack_workload();
  const ObjectFactory factory = fixtures::factory_of<fixtures::TreiberStack>();
  Executor executor;
  RandomScheduler random(3);
  const Schedule recorded = executor.execute(factory, w, random).schedule;
  Workload smaller = w;
  smaller.threads[1].pop_back();
  smaller.threads[2].erase(smaller.threads[2].begin());
  ReplayScheduler replay(recorded, ReplayMode::kLenient);
  dpct::Run run = executor.execute(factory, smaller, replay);
  EXPECT_EQ(run.outcome, RunOutcome::kOk);
  EXPECT_GT(replay.divergences(), 0u);
  EXPECT_EQ(*run.schedule.parameter("diverged"), std::to_string(replay.divergences()));
  // The lenient run's own schedule replays strictly.
  ReplayScheduler strict(run.schedule);
  dpct::Run again = executor.execute(factory, smaller, strict);
  EXPECT_EQ(fixtures::render(again.history), fixtures::render(run.history));
}

}  // namespace
}  // namespace linfault::dpct
