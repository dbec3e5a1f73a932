#include "detect/driver.h"

#include <gtest/gtest.h>

#include <signal.h>
#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "dpct/executor.h"
#include "dpct/random_scheduler.h"
#include "dpct/shared.h"
#include "dpct/test_objects.h"
#include "targets/bind.h"

namespace linfault::detect {
namespace {

DriverOptions pct_options(std::uint64_t histories, std::size_t ops) {
  DriverOptions options;
  options.threads = 2;
  options.ops_per_thread = ops;
  options.histories = histories;
  options.scheduler = SchedulerKind::kPct;
  options.shapes = ShapeMix::kEven;
  options.seed = 1;
  options.jobs = 2;
  options.check_timeout_seconds = 5;
  return options;
}

TEST(DriverTest, PctFindsThePopPopBugOfTheBuggyTreiberStack) {
  const DetectionReport report =
      run_detection(targets::find("treiber_stack_buggy"), pct_options(60, 6));
  EXPECT_GT(report.violations, 0u) << report.scheduler;
  ASSERT_TRUE(report.first_failing_seed.has_value());
  EXPECT_EQ(report.histories, 60u);
  const auto failing = report.failing_runs();
  ASSERT_FALSE(failing.empty());
  // Every failing run keeps its workload, schedule and history, and its verdict.
  const SavedRun& first = *failing.front();
  EXPECT_EQ(first.target, "treiber_stack_buggy");
  EXPECT_EQ(first.model, "stack");
  EXPECT_EQ(first.schedule.scheduler, "pct");
  EXPECT_FALSE(first.schedule.decisions.empty());
  EXPECT_EQ(first.workload.threads.size(), 2u);
  EXPECT_EQ(first.history.size(), 12u);
  EXPECT_NE(report.scheduler.find("pilot"), std::string::npos) << report.scheduler;
}

// Without kept runs, violations the quick check proves skip the full checker: the counts, the
// first failing seed and every history's verdict stay those of a campaign that keeps its runs.
TEST(DriverTest, CountsTheSameViolationsWhenFailingRunsAreNotKept) {
  for (const char* name : {"treiber_stack_buggy", "optimistic_queue_buggy", "lf_list_buggy"}) {
    DriverOptions options = pct_options(400, 5);
    const DetectionReport kept = run_detection(targets::find(name), options);
    options.keep_failing_runs = false;
    const DetectionReport counted = run_detection(targets::find(name), options);
    EXPECT_GT(kept.violations, 0u) << name;
    EXPECT_EQ(counted.violations, kept.violations) << name;
    EXPECT_EQ(counted.unknown, kept.unknown) << name;
    EXPECT_EQ(counted.outcomes, kept.outcomes) << name;
    EXPECT_EQ(counted.first_failing_seed, kept.first_failing_seed) << name;
    EXPECT_TRUE(counted.failing_runs().empty()) << name;
    ASSERT_EQ(counted.results.size(), kept.results.size()) << name;
    for (std::size_t i = 0; i < kept.results.size(); ++i) {
      EXPECT_EQ(counted.results[i].result, kept.results[i].result) << name << " history " << i;
    }
  }
}

// Histories too long for the quick check go to `linfault check`'s default: the queue monitor
// decides 2 x 100 queue histories at once, where the search could pass its timeout (here far
// shorter than any search of them) and leave the verdict unknown. A violation is still found.
TEST(DriverTest, LongQueueHistoriesAreDecidedByTheMonitor) {
  DriverOptions options = pct_options(10, 100);
  options.epoch_operations = 2;  // as `detect` redraws PCT's plan by default
  options.check_timeout_seconds = 1e-9;
  const DetectionReport correct = run_detection(targets::find("ms_queue"), options);
  EXPECT_EQ(correct.unknown, 0u);
  EXPECT_EQ(correct.violations, 0u);
  const DetectionReport buggy = run_detection(targets::find("optimistic_queue_buggy"), options);
  EXPECT_EQ(buggy.unknown, 0u);
  EXPECT_GT(buggy.violations, 0u);
}

TEST(DriverTest, PctFindsTheBugOfTheBuggyLockFreeList) {
  const DetectionReport report = run_detection(targets::find("lf_list_buggy"), pct_options(80, 8));
  EXPECT_GT(report.violations, 0u) << report.scheduler;
}

TEST(DriverTest, NeverReportsAViolationOnCorrectObjects) {
  for (const char* name : {"treiber_stack", "ms_queue_nocheck"}) {
    const DetectionReport report = run_detection(targets::find(name), pct_options(250, 5));
    EXPECT_EQ(report.violations, 0u) << name;
    EXPECT_EQ(report.unknown, 0u) << name;
    EXPECT_EQ(report.outcomes[static_cast<std::size_t>(dpct::RunOutcome::kOk)], 250u) << name;
    EXPECT_TRUE(report.failing_runs().empty()) << name;
    EXPECT_GT(report.avg_ms, 0.0);
  }
}

// History 0 of a campaign has the campaign's seed (`--seed S --histories 1` reruns the history
// whose seed is S); campaigns with different seeds share no history; history_index inverts it.
TEST(DriverTest, CampaignsWithDifferentSeedsShareNoHistory) {
  std::set<std::uint64_t> seen;
  constexpr std::uint64_t kCampaigns = 50, kHistories = 2000;
  for (std::uint64_t campaign = 1; campaign <= kCampaigns; ++campaign) {
    EXPECT_EQ(history_seed(campaign, 0), campaign);
    for (std::uint64_t i = 0; i < kHistories; ++i) {
      const std::uint64_t seed = history_seed(campaign, i);
      EXPECT_TRUE(seen.insert(seed).second) << "campaign " << campaign << " history " << i;
      ASSERT_EQ(history_index(campaign, seed), i);
    }
  }
  EXPECT_EQ(seen.size(), kCampaigns * kHistories);
  for (const std::uint64_t campaign : {0ull, 0xffffffffffffffffull, 0x8000000000000000ull}) {
    for (const std::uint64_t i : {0ull, 1ull, 12345ull, 0xfffffffffffull}) {
      EXPECT_EQ(history_index(campaign, history_seed(campaign, i)), i);
    }
  }
  // A seed of another campaign is at an index far beyond any campaign's histories.
  EXPECT_GT(history_index(1, history_seed(2, 5)), 1'000'000'000ull);
}

TEST(DriverTest, ResultsDependOnTheSeedOnlyNotOnTheNumberOfJobs) {
  DriverOptions options = pct_options(40, 6);
  options.scheduler = SchedulerKind::kRandom;
  options.jobs = 1;
  const DetectionReport one = run_detection(targets::find("treiber_stack_buggy"), options);
  options.jobs = 3;
  const DetectionReport three = run_detection(targets::find("treiber_stack_buggy"), options);
  ASSERT_EQ(one.results.size(), three.results.size());
  for (std::size_t i = 0; i < one.results.size(); ++i) {
    EXPECT_EQ(one.results[i].seed, history_seed(options.seed, i));
    EXPECT_EQ(one.results[i].result, three.results[i].result) << i;
    ASSERT_EQ(one.results[i].saved.has_value(), three.results[i].saved.has_value()) << i;
    if (one.results[i].saved) {
      EXPECT_TRUE(*one.results[i].saved == *three.results[i].saved) << i;
    }
  }
  EXPECT_EQ(one.violations, three.violations);
  EXPECT_EQ(one.first_failing_seed, three.first_failing_seed);
}

TEST(DriverTest, StopAtFirstEndsAtTheLowestIndexedViolationForEveryNumberOfJobs) {
  // A target whose first violation under this seed is not the first history, so that stopping
  // early is visible: the whole campaign says where the first one is.
  const targets::Target& target = targets::find("optimistic_queue_buggy");
  DriverOptions options = pct_options(400, 6);
  options.scheduler = SchedulerKind::kRandom;
  const DetectionReport whole = run_detection(target, options);
  ASSERT_TRUE(whole.first_failing_seed.has_value());
  const std::uint64_t expected_to_first =
      history_index(options.seed, *whole.first_failing_seed) + 1;
  ASSERT_GT(expected_to_first, 4u) << "pick a seed whose first violation comes later";
  ASSERT_LT(expected_to_first, 300u);
  EXPECT_EQ(whole.histories_to_first, expected_to_first);
  EXPECT_EQ(whole.done, 400u);

  options.stop_at_first = true;
  for (unsigned jobs : {1u, 2u, 3u}) {
    options.jobs = jobs;
    const DetectionReport stopped = run_detection(target, options);
    EXPECT_EQ(stopped.first_failing_seed, whole.first_failing_seed) << jobs;
    EXPECT_EQ(stopped.histories_to_first, expected_to_first) << jobs;
    // Every history up to the first violation ran; other workers may have finished a few
    // beyond it meanwhile, one worker none.
    EXPECT_GE(stopped.done, expected_to_first) << jobs;
    EXPECT_LT(stopped.done, whole.done) << jobs;
    if (jobs == 1) {
      EXPECT_EQ(stopped.done, expected_to_first);
    }
    EXPECT_GE(stopped.violations, 1u) << jobs;
    // The kept results are the whole campaign's, up to and including the first violation.
    ASSERT_EQ(stopped.results.size(), expected_to_first) << jobs;
    for (std::size_t i = 0; i < stopped.results.size(); ++i) {
      EXPECT_EQ(stopped.results[i].seed, whole.results[i].seed) << jobs << " " << i;
      EXPECT_EQ(stopped.results[i].result, whole.results[i].result) << jobs << " " << i;
    }
    EXPECT_EQ(stopped.results.back().result, Result::kViolation) << jobs;
  }

  // Without a violation nothing stops early.
  options.jobs = 2;
  options.histories = 50;
  const DetectionReport clean = run_detection(targets::find("optimistic_queue"), options);
  EXPECT_EQ(clean.done, 50u);
  EXPECT_EQ(clean.histories_to_first, 0u);
  EXPECT_FALSE(clean.first_failing_seed.has_value());
}

// The portfolio too: its workers wait for learning blocks that a time limit may never complete.
TEST(DriverTest, ATimeLimitEndsTheCampaignWithTheHistoriesThatRan) {
  for (const SchedulerKind kind : {SchedulerKind::kPct, SchedulerKind::kPortfolio}) {
    for (unsigned jobs : {1u, 2u}) {
      SCOPED_TRACE(std::string(scheduler_kind_name(kind)) + " jobs " + std::to_string(jobs));
      // 100,000 histories of 2 x 40 take several seconds per core (the results alone, kept
      // without on_result, take 58 MB); the limit stops them after a fraction of that. It counts
      // the campaign's set-up too (the plan's pilot runs, the results' allocation), which took
      // more than 0.3 s under AddressSanitizer on a loaded machine: no history had started.
      DriverOptions options = pct_options(100'000, 40);
      options.scheduler = kind;
      options.jobs = jobs;
      options.time_limit_seconds = 1.0;
      const DetectionReport report = run_detection(targets::find("treiber_stack"), options);
      EXPECT_TRUE(report.time_limited);
      EXPECT_GT(report.done, 0u);
      EXPECT_LT(report.done, options.histories);
      EXPECT_LT(report.wall_seconds, 5.0);
      // The kept results are histories 0, 1, ... that ran, each the one its index names.
      EXPECT_LE(report.results.size(), report.done);
      EXPECT_GT(report.results.size(), 0u);
      for (std::size_t j = 0; j < report.results.size(); ++j) {
        ASSERT_EQ(report.results[j].seed, history_seed(options.seed, j)) << j;
      }
    }
  }
  DriverOptions options = pct_options(20, 4);
  options.time_limit_seconds = 60;
  const DetectionReport quick = run_detection(targets::find("treiber_stack"), options);
  EXPECT_FALSE(quick.time_limited);
  EXPECT_EQ(quick.done, 20u);
  options.time_limit_seconds = -1;
  EXPECT_THROW(run_detection(targets::find("treiber_stack"), options), std::invalid_argument);
}

TEST(DriverTest, ShardsRunExactlyTheUnshardedHistoriesAndStreamThem) {
  DriverOptions options = pct_options(23, 6);
  const targets::Target& target = targets::find("treiber_stack_buggy");
  const DetectionReport whole = run_detection(target, options);
  ASSERT_GT(whole.violations, 0u);

  // Three shards, streamed: together they give every history once, with the same result.
  std::vector<HistoryResult> streamed;
  std::uint64_t violations = 0;
  std::optional<std::uint64_t> first_failing_seed;
  for (std::uint64_t index = 0; index < 3; ++index) {
    options.shard_index = index;
    options.shard_count = 3;
    options.on_result = [&](const DetectionReport& so_far, HistoryResult& result) {
      EXPECT_EQ(history_index(options.seed, result.seed) % 3, index);
      EXPECT_LE(so_far.done, so_far.histories);
      streamed.push_back(std::move(result));
    };
    const DetectionReport shard = run_detection(target, options);
    EXPECT_TRUE(shard.results.empty());  // nothing kept
    EXPECT_EQ(shard.histories, shard_size(23, index, 3));
    EXPECT_EQ(shard.done, shard.histories);
    EXPECT_EQ(shard.scheduler, whole.scheduler);  // same pilot runs, same k
    violations += shard.violations;
    if (shard.first_failing_seed &&
        (!first_failing_seed || history_index(options.seed, *shard.first_failing_seed) <
                                    history_index(options.seed, *first_failing_seed))) {
      first_failing_seed = shard.first_failing_seed;
    }
  }
  EXPECT_EQ(violations, whole.violations);
  EXPECT_EQ(first_failing_seed, whole.first_failing_seed);
  ASSERT_EQ(streamed.size(), whole.results.size());
  std::sort(streamed.begin(), streamed.end(), [&](const HistoryResult& a, const HistoryResult& b) {
    return history_index(options.seed, a.seed) < history_index(options.seed, b.seed);
  });
  for (std::size_t i = 0; i < streamed.size(); ++i) {
    EXPECT_EQ(streamed[i].seed, whole.results[i].seed);
    EXPECT_EQ(streamed[i].result, whole.results[i].result) << i;
    ASSERT_EQ(streamed[i].saved.has_value(), whole.results[i].saved.has_value()) << i;
    if (streamed[i].saved) {
      EXPECT_TRUE(*streamed[i].saved == *whole.results[i].saved) << i;
    }
  }
}

TEST(DriverTest, ShardSizesCoverEveryHistoryOnce) {
  EXPECT_EQ(shard_size(10, 0, 1), 10u);
  EXPECT_EQ(shard_size(10, 0, 3), 4u);  // 0 3 6 9
  EXPECT_EQ(shard_size(10, 1, 3), 3u);  // 1 4 7
  EXPECT_EQ(shard_size(10, 2, 3), 3u);  // 2 5 8
  EXPECT_EQ(shard_size(2, 5, 8), 0u);   // more shards than histories
  EXPECT_EQ(shard_size(UINT64_MAX, UINT64_MAX - 1, UINT64_MAX), 1u);
  DriverOptions options = pct_options(4, 3);
  options.shard_index = 2;
  options.shard_count = 2;
  EXPECT_THROW(run_detection(targets::find("treiber_stack"), options), std::invalid_argument);
}

TEST(DriverTest, DpctWithoutAnEstimatorSaysItFellBackToPct) {
  DriverOptions options = pct_options(5, 4);
  options.scheduler = SchedulerKind::kDpct;
  const DetectionReport report = run_detection(targets::find("treiber_stack"), options);
  EXPECT_EQ(report.scheduler.rfind("dpct-fallback: pct", 0), 0u) << report.scheduler;
}

TEST(DriverTest, DpctUsesTheEstimatorItIsGiven) {
  DriverOptions options = pct_options(30, 6);
  options.scheduler = SchedulerKind::kDpct;
  int made = 0;
  options.jobs = 1;
  options.step_estimator = [&made](const targets::Target&) {
    ++made;
    return std::make_unique<dpct::FixedSteps>(20);
  };
  const DetectionReport report = run_detection(targets::find("treiber_stack_buggy"), options);
  EXPECT_EQ(made, 1);  // one scheduler per worker, reseeded for each of its histories
  EXPECT_EQ(report.scheduler.rfind("dpct d=3 (k from structure trees", 0), 0u) << report.scheduler;
  EXPECT_GT(report.violations, 0u);
}

// The round of operation `index` of thread `thread` under RoundScheduler's allowances.
std::size_t round_of(std::size_t thread, std::size_t index, std::size_t threads,
                     std::size_t round_ops) {
  std::size_t allowed = thread == 0 ? 1 : round_ops;
  std::size_t round = 0;
  while (index >= allowed) {
    ++round;
    allowed += thread == round % threads ? 1 : round_ops;
  }
  return round;
}

TEST(RoundSchedulerTest, EveryRoundEndsBeforeTheNextBeginsAndOneThreadRunsASingleOperation) {
  const targets::Target& target = targets::find("ms_queue");
  constexpr std::size_t kThreads = 3;
  constexpr std::size_t kRoundOps = 2;
  dpct::Executor executor;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const dpct::Workload workload = targets::random_workload(
        target, {.setup = 0, .threads = kThreads, .ops_per_thread = 6, .reveal = 0}, seed);
    RoundScheduler scheduler(std::make_unique<dpct::RandomScheduler>(seed), kRoundOps);
    const dpct::Run run = executor.execute(target.factory, workload, scheduler);
    ASSERT_EQ(run.outcome, dpct::RunOutcome::kOk);
    EXPECT_EQ(*run.schedule.parameter("rounds"), "2");
    const history::History& h = run.history;
    // Operations of each process in invocation order are its calls in order.
    std::vector<std::size_t> next_index(kThreads, 0);
    std::vector<std::size_t> round(h.size());
    std::vector<std::vector<std::size_t>> per_round_thread_ops(64,
                                                               std::vector<std::size_t>(kThreads));
    for (std::size_t i = 0; i < h.size(); ++i) {
      const auto thread = static_cast<std::size_t>(h.op(static_cast<history::OpIndex>(i)).process);
      round[i] = round_of(thread, next_index[thread]++, kThreads, kRoundOps);
      ++per_round_thread_ops[round[i]][thread];
    }
    for (std::size_t a = 0; a < h.size(); ++a) {
      for (std::size_t b = 0; b < h.size(); ++b) {
        if (round[a] < round[b]) {
          EXPECT_LT(h.op(static_cast<history::OpIndex>(a)).return_event,
                    h.op(static_cast<history::OpIndex>(b)).call_event)
              << "seed " << seed << ": op " << a << " (round " << round[a] << ") overlaps op " << b
              << " (round " << round[b] << ")";
        }
      }
    }
    EXPECT_EQ(per_round_thread_ops[0][0], 1u);
    EXPECT_EQ(per_round_thread_ops[0][1], kRoundOps);
    EXPECT_EQ(per_round_thread_ops[1][1], 1u);
    EXPECT_EQ(per_round_thread_ops[1][0], kRoundOps);
  }
}

TEST(DriverTest, HeuristicRunsStillFindTheTreiberBug) {
  DriverOptions options = pct_options(60, 6);
  options.heuristic = true;
  options.round_ops = 2;
  const DetectionReport report = run_detection(targets::find("treiber_stack_buggy"), options);
  EXPECT_GT(report.violations, 0u);
  EXPECT_NE(report.scheduler.find("heuristic"), std::string::npos);
  for (const SavedRun* run : report.failing_runs()) {
    EXPECT_TRUE(run->scheduling.heuristic);
    EXPECT_EQ(*run->schedule.parameter("rounds"), "2");
  }
}

// A counter whose increment spins until a flag no thread ever sets: every controlled run of it
// livelocks, and it must be reported (and kept), not hang the driver.
class Spinner {
 public:
  void wait() {
    while (!flag_.load()) dpct::spin_hint();
  }
  int get() { return static_cast<int>(flag_.load()); }

 private:
  dpct::Atomic<bool> flag_{false};
};

TEST(DriverTest, LivelocksAreCountedAndKeptNotHung) {
  targets::Target target;
  target.name = "spinner";
  target.model = "counter";
  target.may_livelock = true;
  target.operations = {{"inc", targets::no_arguments(), "inc()"}};
  target.factory = targets::Binding<Spinner>().method("inc", &Spinner::wait).factory();
  DriverOptions options = pct_options(3, 2);
  options.max_steps = 2'000;
  const DetectionReport report = run_detection(target, options);
  EXPECT_EQ(report.outcomes[static_cast<std::size_t>(dpct::RunOutcome::kLivelock)], 3u);
  ASSERT_EQ(report.failing_runs().size(), 3u);
  EXPECT_EQ(report.failing_runs()[0]->outcome, dpct::RunOutcome::kLivelock);
  // A livelock is no stuck history (the cap may have starved a thread): pending increments may
  // take effect or not, and the runs are failures of their own kind.
  EXPECT_EQ(report.violations, 0u);

  options.scheduler = SchedulerKind::kNative;
  EXPECT_THROW(run_detection(target, options), std::invalid_argument);
}

// A counter on a plain std::atomic, as a user's class is before it is instrumented: its calls
// reach no scheduling point, so nothing is interleaved and its lost update never shows.
class PlainCounter {
 public:
  void inc() { value_.store(value_.load() + 1); }
  int get() { return value_.load(); }

 private:
  std::atomic<int> value_{0};
};

TEST(DriverTest, CountsHistoriesThatReachedNoSharedAccess) {
  targets::Target target;
  target.name = "plain_counter";
  target.model = "counter";
  target.operations = {{"inc", targets::no_arguments(), "inc()"},
                       {"get", targets::no_arguments(), "get() -> int"}};
  target.factory = targets::Binding<PlainCounter>()
                       .method("inc", &PlainCounter::inc)
                       .method("get", &PlainCounter::get)
                       .factory();
  const DetectionReport plain = run_detection(target, pct_options(20, 3));
  EXPECT_EQ(plain.done, 20u);
  EXPECT_EQ(plain.without_shared_access, 20u);
  EXPECT_EQ(plain.violations, 0u);  // what the warning of detect and run is for

  const DetectionReport instrumented =
      run_detection(targets::find("treiber_stack"), pct_options(20, 3));
  EXPECT_EQ(instrumented.without_shared_access, 0u);
}

// A single-producer single-consumer ring: correct with one enqueuing thread and one dequeuing
// thread, as its contract says; two enqueuers overwrite each other's slot.
class SpscRing {
 public:
  bool enq(std::int64_t v) {
    const std::uint64_t tail = tail_.load(std::memory_order_relaxed);
    if (tail - head_.load(std::memory_order_acquire) == kSlots) return false;
    slots_[tail % kSlots].store(v, std::memory_order_relaxed);
    tail_.store(tail + 1, std::memory_order_release);
    return true;
  }
  std::optional<std::int64_t> deq() {
    const std::uint64_t head = head_.load(std::memory_order_relaxed);
    if (head == tail_.load(std::memory_order_acquire)) return std::nullopt;
    const std::int64_t v = slots_[head % kSlots].load(std::memory_order_relaxed);
    head_.store(head + 1, std::memory_order_release);
    return v;
  }

 private:
  static constexpr std::uint64_t kSlots = 64;
  dpct::Atomic<std::uint64_t> head_{0};
  dpct::Atomic<std::uint64_t> tail_{0};
  std::array<dpct::Atomic<std::int64_t>, kSlots> slots_{};
};

targets::Target spsc_ring(bool with_roles) {
  targets::Target target;
  target.name = "spsc_ring";
  target.model = "queue";
  target.operations = {{"enq", targets::unique_value(), "enq(v)"},
                       {"deq", targets::no_arguments(), "deq() -> v"}};
  if (with_roles) target.roles = {{"producer", {"enq"}, 1}, {"consumer", {"deq"}, 1}};
  target.factory = targets::Binding<SpscRing>()
                       .method("enq", &SpscRing::enq)
                       .method("deq", &SpscRing::deq)
                       .factory();
  return target;
}

// Roles keep every drawn workload within the object's contract; without them the same object
// "fails" in workloads it never promised to handle.
TEST(DriverTest, RolesKeepWorkloadsWithinTheContract) {
  DriverOptions options = pct_options(300, 4);
  options.keep_failing_runs = true;
  const DetectionReport within = run_detection(spsc_ring(true), options);
  EXPECT_EQ(within.violations, 0u);
  const DetectionReport outside = run_detection(spsc_ring(false), options);
  EXPECT_GT(outside.violations, 0u);

  options.threads = 3;
  EXPECT_THROW(
      {
        try {
          run_detection(spsc_ring(true), options);
        } catch (const std::invalid_argument& e) {
          EXPECT_NE(std::string(e.what()).find("allow at most 2 threads, not 3"), std::string::npos)
              << e.what();
          throw;
        }
      },
      std::invalid_argument);
}

// A correct counter whose get() reads with acquire and whose inc() is a relaxed fetch_add.
class RelaxedCounter {
 public:
  void inc() { value_.fetch_add(1, std::memory_order_relaxed); }
  int get() { return value_.load(std::memory_order_acquire); }

 private:
  dpct::Atomic<int> value_{0};
};

// Controlled runs are sequentially consistent: a campaign lists the sites that asked for less,
// and the note that every verdict finding nothing then gives says what was not explored.
TEST(DriverTest, ListsTheSitesOfOrdersWeakerThanSeqCst) {
  targets::Target target;
  target.name = "relaxed_counter";
  target.model = "counter";
  target.operations = {{"inc", targets::no_arguments(), "inc()"},
                       {"get", targets::no_arguments(), "get() -> int"}};
  target.factory = targets::Binding<RelaxedCounter>()
                       .method("inc", &RelaxedCounter::inc)
                       .method("get", &RelaxedCounter::get)
                       .factory();
  const DetectionReport report = run_detection(target, pct_options(50, 3));
  EXPECT_EQ(report.violations, 0u);
  ASSERT_EQ(report.weak_order_sites.size(), 2u);
  for (const std::string& site : report.weak_order_sites) {
    EXPECT_EQ(site.rfind("driver_test.cc:", 0), 0u) << site;
  }
  const std::string note = weak_order_note(target, report.weak_order_sites);
  EXPECT_EQ(note.rfind("relaxed_counter uses memory orders weaker than seq_cst at 2 access "
                       "sites (driver_test.cc:",
                       0),
            0u)
      << note;
  EXPECT_NE(note.find("were not explored"), std::string::npos) << note;
  EXPECT_EQ(weak_order_note(target, {}), "");
  // A seq_cst object has none.
  EXPECT_TRUE(
      run_detection(targets::find("treiber_stack"), pct_options(20, 3)).weak_order_sites.empty());
}

// inc() announces itself, then waits on a plain std::atomic nothing sets: under a controlled
// scheduler the first inc() to start spins for good, without a scheduling point.
class UninstrumentedWaiter {
 public:
  void inc() {
    announced_.store(true);
    while (!released.load()) {
    }
  }
  static inline std::atomic<bool> released{false};

 private:
  dpct::Atomic<bool> announced_{false};
};

// The watchdog has the executor abandon the stalled thread: each such history ends as a livelock
// that names its call, and the campaign goes on to the next.
TEST(DriverTest, AStalledHistoryEndsAsALivelockAndTheCampaignGoesOn) {
  targets::Target target;
  target.name = "uninstrumented_waiter";
  target.model = "counter";
  target.operations = {{"inc", targets::no_arguments(), "inc()"}};
  target.factory =
      targets::Binding<UninstrumentedWaiter>().method("inc", &UninstrumentedWaiter::inc).factory();
  DriverOptions options = pct_options(2, 1);
  options.scheduler = SchedulerKind::kRandom;  // no pilot runs before the history
  options.seed = 41;
  options.keep_failing_runs = true;
  DetectionReport report;
  std::vector<std::string> reports;
  {
    std::atomic<bool> unused{false};
    const dpct::fixtures::StallCapture stalls(unused);
    report = run_detection(target, options);
    reports = stalls.reports();
  }
  EXPECT_TRUE(reports.empty());  // the process-ending path is for native runs only
  EXPECT_EQ(report.done, 2u);
  EXPECT_EQ(report.outcomes[static_cast<std::size_t>(dpct::RunOutcome::kLivelock)], 2u);
  const std::vector<const SavedRun*> failing = report.failing_runs();
  ASSERT_EQ(failing.size(), 2u);
  EXPECT_EQ(failing[0]->seed, 41u);
  EXPECT_NE(failing[0]->message.find(", call 0 inc() reached no scheduling point for 0.3 s"),
            std::string::npos)
      << failing[0]->message;
}

TEST(DriverTest, IsolatedHistoriesGiveTheResultsOfInProcessOnes) {
  const targets::Target& target = targets::find("treiber_stack_buggy");
  DriverOptions options = pct_options(300, 4);
  options.scheduler = SchedulerKind::kPortfolio;
  const DetectionReport in_process = run_detection(target, options);
  options.isolate = true;
  const DetectionReport isolated = run_detection(target, options);
  ASSERT_GT(in_process.violations, 0u);
  EXPECT_EQ(isolated.violations, in_process.violations);
  ASSERT_EQ(isolated.results.size(), in_process.results.size());
  for (std::size_t i = 0; i < isolated.results.size(); ++i) {
    const HistoryResult& a = in_process.results[i];
    const HistoryResult& b = isolated.results[i];
    EXPECT_EQ(a.seed, b.seed);
    EXPECT_EQ(a.scheduler, b.scheduler);
    EXPECT_EQ(a.outcome, b.outcome);
    EXPECT_EQ(a.result, b.result);
    ASSERT_EQ(a.saved.has_value(), b.saved.has_value()) << i;
    if (a.saved) {
      EXPECT_TRUE(*a.saved == *b.saved) << i;
    }
  }
  EXPECT_EQ(isolated.portfolio.size(), in_process.portfolio.size());
}

// A counter that is correct, but kills its own process when another increment lands between its
// read and its own: a fault no in-process recovery survives.
class SuicidalCounter {
 public:
  void inc() {
    const int before = value_.load();
    if (value_.fetch_add(1) != before) ::raise(SIGKILL);
  }
  int get() { return value_.load(); }

 private:
  dpct::Atomic<int> value_{0};
};

TEST(DriverTest, AnIsolatedHistoryWhoseProcessDiesIsACrashAndTheCampaignGoesOn) {
  targets::Target target;
  target.name = "suicidal_counter";
  target.model = "counter";
  target.operations = {{"inc", targets::no_arguments(), "inc()"},
                       {"get", targets::no_arguments(), "get() -> int"}};
  target.factory = targets::Binding<SuicidalCounter>()
                       .method("inc", &SuicidalCounter::inc)
                       .method("get", &SuicidalCounter::get)
                       .factory();
  DriverOptions options = pct_options(60, 3);
  options.scheduler = SchedulerKind::kRandom;
  options.isolate = true;
  const DetectionReport report = run_detection(target, options);
  EXPECT_EQ(report.done, 60u);
  const std::uint64_t crashes = report.outcomes[static_cast<std::size_t>(dpct::RunOutcome::kCrash)];
  EXPECT_GT(crashes, 0u);
  EXPECT_LT(crashes, 60u);
  EXPECT_EQ(report.outcomes[static_cast<std::size_t>(dpct::RunOutcome::kOk)], 60u - crashes);
  EXPECT_EQ(report.violations, 0u);
  EXPECT_EQ(report.unknown, crashes);  // their histories were lost with their processes
  const std::vector<const SavedRun*> failing = report.failing_runs();
  ASSERT_EQ(failing.size(), crashes);
  const SavedRun& lost = *failing[0];
  EXPECT_EQ(lost.outcome, dpct::RunOutcome::kCrash);
  EXPECT_EQ(lost.message.rfind("the process running this history died with SIGKILL (Killed)", 0),
            0u)
      << lost.message;
  const dpct::Workload drawn = detection_workload(target, options, lost.seed);
  EXPECT_EQ(lost.workload.threads, drawn.threads);
  EXPECT_TRUE(lost.history.empty());
  // The saved form round-trips, so `detect --out` can write it.
  const SavedRun again = saved_run_from_json(saved_run_to_json(lost), "lost");
  EXPECT_TRUE(again == lost) << saved_run_to_json(lost).dump() << "\n"
                             << saved_run_to_json(again).dump();
}

// A correct counter that counts the objects made in this process.
class CountedCounter {
 public:
  CountedCounter() { ++made; }
  void inc() { value_.fetch_add(1); }
  int get() { return value_.load(); }
  static inline int made = 0;

 private:
  dpct::Atomic<int> value_{0};
};

TEST(DriverTest, UnderIsolationNoObjectIsMadeInTheCallersProcess) {
  targets::Target target;
  target.name = "counted_counter";
  target.model = "counter";
  target.operations = {{"inc", targets::no_arguments(), "inc()"},
                       {"get", targets::no_arguments(), "get() -> int"}};
  target.factory = targets::Binding<CountedCounter>()
                       .method("inc", &CountedCounter::inc)
                       .method("get", &CountedCounter::get)
                       .factory();
  DriverOptions options = pct_options(20, 3);
  options.shapes = ShapeMix::kMixed;  // the probe of the methods that write
  options.steps = 0;                  // pct's k from pilot runs
  options.isolate = true;
  CountedCounter::made = 0;
  const DetectionReport isolated = run_detection(target, options);
  EXPECT_EQ(CountedCounter::made, 0);  // pilot runs, probe and histories all ran in children
  options.isolate = false;
  const DetectionReport in_process = run_detection(target, options);
  EXPECT_GT(CountedCounter::made, 20);
  EXPECT_EQ(isolated.scheduler, in_process.scheduler);  // the same pilot k
  EXPECT_EQ(isolated.violations, 0u);
  EXPECT_EQ(isolated.done, 20u);
}

TEST(DriverTest, RejectsOptionsThatCannotWork) {
  const targets::Target& target = targets::find("treiber_stack");
  DriverOptions options = pct_options(1, 1);
  options.threads = 0;
  EXPECT_THROW(run_detection(target, options), std::invalid_argument);
  options = pct_options(1, 1);
  options.scheduler = SchedulerKind::kNative;
  options.heuristic = true;
  EXPECT_THROW(run_detection(target, options), std::invalid_argument);
  EXPECT_EQ(parse_scheduler_kind("dpct"), SchedulerKind::kDpct);
  std::set<std::string> names;
  for (SchedulerKind kind : kSchedulerKinds) {
    EXPECT_EQ(parse_scheduler_kind(scheduler_kind_name(kind)), kind);
    names.insert(scheduler_kind_name(kind));
  }
  EXPECT_EQ(names.size(), kSchedulerKinds.size());  // every kind listed once, with its own name
  EXPECT_FALSE(parse_scheduler_kind("fast").has_value());
  EXPECT_EQ(controlled_scheduler_names(false), "random, pct, dpct, pos, surw or window");
  EXPECT_EQ(controlled_scheduler_names(true), "random, pct, dpct, pos, surw, window or portfolio");
  try {
    run_detection(target, options);  // still native with --heuristic
    ADD_FAILURE() << "native with --heuristic was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--scheduler random, pct, dpct, pos, surw or window"),
              std::string::npos)
        << e.what();
  }
  for (ShapeMix mix : {ShapeMix::kEven, ShapeMix::kSplit, ShapeMix::kUneven, ShapeMix::kMixed}) {
    EXPECT_EQ(parse_shape_mix(shape_mix_name(mix)), mix);
  }
  EXPECT_FALSE(parse_shape_mix("round").has_value());
}

TEST(ShapesTest, TheProbeFindsTheMethodsThatWrite) {
  const auto writers = [](const char* name) {
    const targets::Target& target = targets::find(name);
    const std::vector<bool> writes = methods_that_write(target, 7);
    std::vector<std::string> names;
    for (std::size_t k = 0; k < writes.size(); ++k) {
      if (writes[k]) names.push_back(target.operations[k].method);
    }
    return names;
  };
  EXPECT_EQ(writers("pair_snapshot"), std::vector<std::string>{"write"});
  EXPECT_EQ(writers("pair_snapshot_correct"), std::vector<std::string>{"write"});
  EXPECT_EQ(writers("lf_list"), (std::vector<std::string>{"add", "remove"}));
  EXPECT_EQ(writers("treiber_stack"), (std::vector<std::string>{"push", "pop"}));
  // Locking is not writing: contains locks the coarse-grained list, size reads it unlocked.
  EXPECT_EQ(writers("unsafe_size_list"), (std::vector<std::string>{"add", "remove"}));
}

TEST(ShapesTest, UnevenWorkloadsPitOneReaderAgainstBurstsOfWriters) {
  DriverOptions options;
  options.threads = 3;
  options.ops_per_thread = 8;
  options.shapes = ShapeMix::kUneven;
  std::vector<std::size_t> singles(3, 0);
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    const dpct::Workload w = detection_workload(targets::find("pair_snapshot"), options, seed);
    ASSERT_EQ(w.threads.size(), 3u);
    std::size_t single = 3;
    for (std::size_t t = 0; t < 3; ++t) {
      if (w.threads[t].size() == 1) {
        EXPECT_EQ(single, 3u) << "two single-operation threads, seed " << seed;
        single = t;
        EXPECT_EQ(w.threads[t][0].method, "readpair");
      } else {
        EXPECT_EQ(w.threads[t].size(), 8u);
        for (const history::Call& call : w.threads[t]) EXPECT_EQ(call.method, "write");
      }
    }
    ASSERT_LT(single, 3u) << "seed " << seed;
    ++singles[single];
  }
  for (std::size_t count : singles)
    EXPECT_GT(count, 40u);  // every thread gets to be the single one
  // Every method of a stack writes: uneven shapes draw uniformly (1 || 8).
  std::set<std::string> methods;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    for (const auto& thread :
         detection_workload(targets::find("treiber_stack"), options, seed).threads) {
      for (const history::Call& call : thread) methods.insert(call.method);
    }
  }
  EXPECT_EQ(methods, (std::set<std::string>{"pop", "push"}));
}

TEST(ShapesTest, SplitWorkloadsPitAThreadThatReadsAgainstThreadsOfWriters) {
  DriverOptions options;
  options.threads = 3;
  options.ops_per_thread = 8;
  options.shapes = ShapeMix::kSplit;
  std::vector<std::size_t> readers(3, 0);
  std::size_t reads = 0;
  std::size_t reader_calls = 0;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    const dpct::Workload w = detection_workload(targets::find("pair_snapshot"), options, seed);
    ASSERT_EQ(w.threads.size(), 3u);
    std::size_t reader = 3;  // the thread with readpairs: at most one
    for (std::size_t t = 0; t < 3; ++t) {
      ASSERT_EQ(w.threads[t].size(), 8u);
      for (const history::Call& call : w.threads[t]) {
        if (call.method != "readpair") continue;
        EXPECT_TRUE(reader == 3 || reader == t) << "two reading threads, seed " << seed;
        reader = t;
      }
    }
    if (reader == 3) continue;  // the reading thread drew writes only (1 in 256)
    ++readers[reader];
    for (const history::Call& call : w.threads[reader]) reads += call.method == "readpair";
    reader_calls += 8;
  }
  for (std::size_t count : readers) EXPECT_GT(count, 40u);  // every thread gets to read
  // The reading thread reads half the time (both methods weigh the same here).
  EXPECT_GT(reads, reader_calls * 2 / 5);
  EXPECT_LT(reads, reader_calls * 3 / 5);
  // Also with one reading method against two writing ones (lf_list: contains; add, remove): a
  // thread with contains reads half the time, the other never.
  options.threads = 2;
  std::size_t contains = 0;
  std::size_t calls = 0;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    const dpct::Workload w = detection_workload(targets::find("lf_list"), options, seed);
    std::size_t with_contains = 0;
    for (const auto& thread : w.threads) {
      const auto n = static_cast<std::size_t>(
          std::count_if(thread.begin(), thread.end(),
                        [](const history::Call& c) { return c.method == "contains"; }));
      if (n == 0) continue;
      ++with_contains;
      contains += n;
      calls += thread.size();
    }
    EXPECT_LE(with_contains, 1u) << "seed " << seed;
  }
  EXPECT_GT(contains, calls * 2 / 5);
  EXPECT_LT(contains, calls * 3 / 5);
  // Every method of a stack writes: its split workloads are its even ones.
  DriverOptions even = options;
  even.shapes = ShapeMix::kEven;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    EXPECT_EQ(detection_workload(targets::find("treiber_stack"), options, seed).threads,
              detection_workload(targets::find("treiber_stack"), even, seed).threads);
  }
}

TEST(ShapesTest, MixedShapesAreTheEvenAndSplitWorkloadsOfTheSameSeeds) {
  const targets::Target& target = targets::find("pair_snapshot");
  DriverOptions mixed;
  mixed.threads = 2;
  mixed.ops_per_thread = 6;
  DriverOptions even = mixed;
  even.shapes = ShapeMix::kEven;
  DriverOptions split = mixed;
  split.shapes = ShapeMix::kSplit;
  std::size_t splits = 0;
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    const dpct::Workload m = detection_workload(target, mixed, seed);
    const dpct::Workload s = detection_workload(target, split, seed);
    if (m.threads == s.threads) {
      ++splits;
    } else {
      EXPECT_EQ(m.threads, detection_workload(target, even, seed).threads) << "seed " << seed;
    }
  }
  EXPECT_GT(splits, 30u);
  EXPECT_LT(splits, 70u);
  // A target whose methods all write draws even workloads only.
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    EXPECT_EQ(detection_workload(targets::find("treiber_stack_buggy"), mixed, seed).threads,
              detection_workload(targets::find("treiber_stack_buggy"), even, seed).threads);
  }
}

TEST(PortfolioTest, RunsEveryMemberAndItsResultsDoNotDependOnJobs) {
  DriverOptions options = pct_options(300, 5);
  options.scheduler = SchedulerKind::kPortfolio;
  options.shapes = ShapeMix::kMixed;
  options.jobs = 1;
  const targets::Target& target = targets::find("treiber_stack_buggy");
  const DetectionReport one = run_detection(target, options);
  options.jobs = 2;
  const DetectionReport two = run_detection(target, options);
  EXPECT_EQ(one.scheduler.rfind(
                "portfolio (random only in the first 64 histories, then random 40%, pct k=", 0),
            0u)
      << one.scheduler;
  ASSERT_EQ(one.portfolio.size(), 4u);
  std::uint64_t histories = 0;
  std::uint64_t violations = 0;
  for (std::size_t m = 0; m < one.portfolio.size(); ++m) {
    EXPECT_GT(one.portfolio[m].histories, 10u) << scheduler_kind_name(one.portfolio[m].scheduler);
    EXPECT_EQ(one.portfolio[m].histories, two.portfolio[m].histories);
    EXPECT_EQ(one.portfolio[m].violations, two.portfolio[m].violations);
    histories += one.portfolio[m].histories;
    violations += one.portfolio[m].violations;
  }
  EXPECT_EQ(histories, 300u);
  EXPECT_EQ(violations, one.violations);
  EXPECT_GT(one.violations, 0u);
  ASSERT_EQ(one.results.size(), two.results.size());
  for (std::size_t i = 0; i < one.results.size(); ++i) {
    EXPECT_EQ(one.results[i].scheduler, two.results[i].scheduler) << i;
    EXPECT_EQ(one.results[i].result, two.results[i].result) << i;
    if (one.results[i].saved) {
      EXPECT_EQ(one.results[i].saved->scheduling.kind,
                scheduler_kind_name(one.results[i].scheduler));
      EXPECT_EQ(one.results[i].saved->schedule, two.results[i].saved->schedule) << i;
    }
  }
}

TEST(PortfolioTest, OpensWithRandomWalksCountedFromTheStartOfTheSearch) {
  DriverOptions options = pct_options(160, 5);
  options.scheduler = SchedulerKind::kPortfolio;
  options.portfolio_learning = false;
  const targets::Target& target = targets::find("treiber_stack");
  const DetectionReport whole = run_detection(target, options);
  ASSERT_EQ(whole.results.size(), 160u);
  std::size_t others = 0;
  for (std::size_t i = 0; i < whole.results.size(); ++i) {
    if (i < 64) {
      EXPECT_EQ(whole.results[i].scheduler, SchedulerKind::kRandom) << i;
    }
    if (whole.results[i].scheduler != SchedulerKind::kRandom) ++others;
  }
  EXPECT_GT(others, 40u);  // 96 histories after the opening, 60% of them drawn from the others
  // A learning campaign on a buggy target: the opening's violations teach nothing (they are not a
  // sample of the shares), so the block after it draws from the base shares, as without learning.
  const targets::Target& buggy = targets::find("treiber_stack_buggy");
  const DetectionReport fixed = run_detection(buggy, options);
  options.portfolio_learning = true;
  const DetectionReport learning = run_detection(buggy, options);
  std::uint64_t opening_violations = 0;
  for (std::size_t i = 0; i < 128; ++i) {
    if (i < 64) opening_violations += learning.results[i].result == Result::kViolation ? 1 : 0;
    EXPECT_EQ(learning.results[i].scheduler, fixed.results[i].scheduler) << i;
  }
  EXPECT_GT(opening_violations, 0u);
  options.portfolio_learning = false;
  // The same search continued as a second campaign from history 40 on (detect_first_failure's
  // batches, with the search's seed): every history is the one it was in the whole search, and
  // runs the member it ran there.
  options.histories = 120;
  options.histories_before = 40;
  const DetectionReport rest = run_detection(target, options);
  ASSERT_EQ(rest.results.size(), 120u);
  for (std::size_t j = 0; j < rest.results.size(); ++j) {
    EXPECT_EQ(rest.results[j].seed, whole.results[40 + j].seed) << j;
    EXPECT_EQ(rest.results[j].scheduler, whole.results[40 + j].scheduler) << j;
  }
}

TEST(PortfolioTest, SharesMoveHalfwayTowardsTheViolationRates) {
  std::vector<PortfolioMember> so_far = {{SchedulerKind::kRandom, 100, 0},
                                         {SchedulerKind::kDpct, 50, 0},
                                         {SchedulerKind::kPos, 50, 0},
                                         {SchedulerKind::kWindow, 50, 0}};
  std::vector<double> shares = portfolio_shares(so_far);
  ASSERT_EQ(shares.size(), 4u);
  EXPECT_DOUBLE_EQ(shares[0], 0.4);  // no violation yet: the base shares
  EXPECT_DOUBLE_EQ(shares[1], 0.2);
  EXPECT_DOUBLE_EQ(shares[2], 0.2);
  EXPECT_DOUBLE_EQ(shares[3], 0.2);
  so_far[2].violations = 5;  // only pos found anything
  shares = portfolio_shares(so_far);
  EXPECT_DOUBLE_EQ(shares[2], 0.5 * 0.2 + 0.5);
  EXPECT_DOUBLE_EQ(shares[0], 0.5 * 0.4);
  so_far[0].violations = 10;  // random at the same rate (10/100 = 5/50)
  shares = portfolio_shares(so_far);
  EXPECT_DOUBLE_EQ(shares[0], 0.5 * 0.4 + 0.25);
  EXPECT_DOUBLE_EQ(shares[2], 0.5 * 0.2 + 0.25);
  EXPECT_DOUBLE_EQ(shares[1], 0.5 * 0.2);
  EXPECT_THROW(portfolio_shares({}), std::invalid_argument);
}

}  // namespace
}  // namespace linfault::detect
