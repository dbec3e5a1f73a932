#include "detect/driver.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <utility>

#include "detect/checker.h"
#include "detect/quick_check.h"
#include "dpct/executor.h"
#include "dpct/native.h"
#include "dpct/pct_scheduler.h"
#include "dpct/pos_scheduler.h"
#include "dpct/random_scheduler.h"
#include "dpct/replay_scheduler.h"
#include "dpct/rng.h"
#include "dpct/surw_scheduler.h"

namespace linfault::detect {
namespace {

using Clock = std::chrono::steady_clock;

// Independent streams from one seed: the workload uses the seed itself, the scheduler and the
// pilot runs use these.
constexpr std::uint64_t kSchedulerSalt = 0x5c4ed01e;
constexpr std::uint64_t kPilotSalt = 0x9110f00d;

std::uint64_t derive(std::uint64_t seed, std::uint64_t salt) {
  dpct::SplitMix64 rng(seed ^ (salt * 0x9e3779b97f4a7c15ULL));
  return rng.next();
}

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The scheduling every history of one detection uses, resolved once.
struct Plan {
  SchedulerKind kind = SchedulerKind::kPct;
  bool tree_estimator = false;  // kDpct or kSurw with a step estimator
  std::uint64_t k = 0;          // fixed k of pct (and of the dpct fallback)
  std::string description;
};

std::unique_ptr<dpct::Scheduler> make_scheduler(const Plan& plan, const DriverOptions& options,
                                                const targets::Target& target, std::uint64_t seed) {
  std::unique_ptr<dpct::Scheduler> scheduler;
  const dpct::PctOptions pct{.seed = seed,
                             .depth = options.depth,
                             .steps = plan.k,
                             .epoch_operations = options.epoch_operations,
                             .defer_to_write = options.write_bias};
  switch (plan.kind) {
    case SchedulerKind::kRandom:
      scheduler = std::make_unique<dpct::RandomScheduler>(seed);
      break;
    case SchedulerKind::kPct:
      scheduler = std::make_unique<dpct::PctScheduler>(pct);
      break;
    case SchedulerKind::kDpct:
      scheduler = plan.tree_estimator
                      ? std::make_unique<dpct::PctScheduler>(pct, options.step_estimator(target))
                      : std::make_unique<dpct::PctScheduler>(pct);
      break;
    case SchedulerKind::kPos:
      scheduler = std::make_unique<dpct::PosScheduler>(seed);
      break;
    case SchedulerKind::kSurw:
      scheduler = plan.tree_estimator
                      ? std::make_unique<dpct::SurwScheduler>(dpct::SurwOptions{.seed = seed},
                                                              options.step_estimator(target))
                      : std::make_unique<dpct::SurwScheduler>(dpct::SurwOptions{.seed = seed});
      break;
    case SchedulerKind::kNative:
      throw std::logic_error("native runs have no scheduler");
  }
  if (options.heuristic) {
    scheduler = std::make_unique<RoundScheduler>(std::move(scheduler), options.round_ops);
  }
  return scheduler;
}

targets::WorkloadShape shape_of(const DriverOptions& options) {
  return {.setup = 0,
          .threads = options.threads,
          .ops_per_thread = options.ops_per_thread,
          .reveal = 0};
}

dpct::Workload workload_for(const targets::Target& target, const DriverOptions& options,
                            std::uint64_t seed) {
  if (options.workload) return *options.workload;
  return targets::random_workload(target, shape_of(options), seed);
}

// k for plain PCT: the most decisions any of a few random-walk pilot runs needed.
std::uint64_t pilot_k(const targets::Target& target, const DriverOptions& options) {
  dpct::Executor executor;
  dpct::ExecutionOptions execution;
  execution.record_history = false;
  execution.record_points = false;
  execution.max_steps = options.max_steps;
  Plan random;
  random.kind = SchedulerKind::kRandom;
  std::uint64_t k = 1;
  for (std::uint64_t i = 0; i < options.pilot_runs; ++i) {
    const std::uint64_t seed = derive(options.seed + i, kPilotSalt);
    const dpct::Workload workload = workload_for(target, options, seed);
    auto scheduler = make_scheduler(random, options, target, seed);
    const dpct::Run run = executor.execute(target.factory, workload, *scheduler, execution);
    k = std::max<std::uint64_t>(k, run.schedule.decisions.size());
  }
  return k;
}

Plan make_plan(const targets::Target& target, const DriverOptions& options) {
  Plan plan;
  plan.kind = options.scheduler;
  const std::string heuristic =
      options.heuristic
          ? ", heuristic rounds of 1 and " + std::to_string(options.round_ops) + " operations"
          : "";
  const std::string depth = " d=" + std::to_string(options.depth);
  auto fixed_k = [&](std::string& source) {
    if (options.steps > 0) {
      source = "given";
      return options.steps;
    }
    source = "from " + std::to_string(options.pilot_runs) + " pilot runs";
    return pilot_k(target, options);
  };
  std::string source;
  switch (options.scheduler) {
    case SchedulerKind::kNative:
      plan.description = "native (real threads, stress)";
      break;
    case SchedulerKind::kRandom:
      plan.description = "random" + heuristic;
      break;
    case SchedulerKind::kPct:
      plan.k = fixed_k(source);
      plan.description = "pct" + depth + " k=" + std::to_string(plan.k) + " (k " + source + ")";
      plan.description += heuristic;
      break;
    case SchedulerKind::kDpct:
      if (options.step_estimator) {
        plan.tree_estimator = true;
        plan.description = "dpct" + depth + " (k from structure trees, revised during runs)";
      } else {
        plan.k = fixed_k(source);
        plan.description = "dpct-fallback: pct" + depth + " k=" + std::to_string(plan.k) + " (k " +
                           source + "; no structure trees in this build)";
      }
      plan.description += heuristic;
      break;
    case SchedulerKind::kPos:
      plan.description = "pos (partial order sampling)" + heuristic;
      break;
    case SchedulerKind::kSurw:
      plan.tree_estimator = static_cast<bool>(options.step_estimator);
      plan.description =
          std::string("surw (remaining events ") +
          (plan.tree_estimator
               ? "from structure trees"
               : "assumed " + std::to_string(dpct::SurwOptions{}.events_per_operation) +
                     " per operation") +
          ", revised during runs)" + heuristic;
      break;
  }
  if (options.epoch_operations > 0 &&
      (options.scheduler == SchedulerKind::kPct || options.scheduler == SchedulerKind::kDpct)) {
    plan.description +=
        ", plan redrawn every " + std::to_string(options.epoch_operations) + " operations";
  }
  if (options.write_bias > 0 &&
      (options.scheduler == SchedulerKind::kPct || options.scheduler == SchedulerKind::kDpct)) {
    std::ostringstream bias;
    bias << options.write_bias;
    plan.description += ", write bias " + bias.str();
  }
  return plan;
}

void validate(const targets::Target& target, const DriverOptions& options) {
  auto reject = [](const std::string& problem) { throw std::invalid_argument(problem); };
  if (options.threads == 0) reject("--threads must be at least 1");
  if (options.ops_per_thread == 0) reject("--ops must be at least 1");
  if (options.histories == 0) reject("--histories must be at least 1");
  if (options.jobs == 0) reject("--jobs must be at least 1");
  if (options.shard_count == 0 || options.shard_index >= options.shard_count) {
    reject("--shard: the index must be below the count (0 <= i < N)");
  }
  if (options.depth == 0) reject("--depth must be at least 1");
  if (options.heuristic && options.round_ops == 0) reject("--round-ops must be at least 1");
  if (options.workload) {
    std::set<std::string> methods;
    for (const targets::OperationSpec& op : target.operations) methods.insert(op.method);
    auto check = [&](const std::vector<history::Call>& calls) {
      for (const history::Call& call : calls) {
        if (!methods.count(call.method)) {
          reject("the workload calls " + call.to_string() + ", which is not a method of target " +
                 target.name);
        }
      }
    };
    check(options.workload->setup);
    for (const auto& thread : options.workload->threads) check(thread);
    check(options.workload->reveal);
    if (options.workload->threads.empty()) reject("the workload has no concurrent threads");
  }
  if (options.scheduler == SchedulerKind::kNative) {
    if (options.heuristic) {
      reject(
          "--heuristic shapes controlled runs; use it with --scheduler random, pct, dpct, pos or "
          "surw");
    }
    if (target.may_livelock) {
      reject("target " + target.name +
             " may livelock, which native threads cannot stop; use a controlled scheduler "
             "(random, pct, dpct, pos or surw)");
    }
  }
}

// What one worker thread keeps between its histories.
struct Worker {
  explicit Worker(const targets::Target& target) : quick(target.model) {}
  dpct::Executor executor;
  // Small histories are shown linearizable here without the full checker, which still decides
  // every other one (so the verdict is always the full checker's: detect/quick_check.h).
  QuickChecker quick;
};

HistoryResult run_history(Worker& worker, const targets::Target& target,
                          const DriverOptions& options, const Plan& plan, std::uint64_t seed) {
  dpct::Executor& executor = worker.executor;
  const Clock::time_point start = Clock::now();
  const dpct::Workload workload = workload_for(target, options, seed);
  // Named only when someone reads the name (a failing run, a message of the full checker): most
  // histories are linearizable, and the name would be built and copied for nothing.
  auto origin = [&] { return target.name + "-" + std::to_string(seed); };
  dpct::Run run;
  if (plan.kind == SchedulerKind::kNative) {
    run = dpct::run_native(target.factory, workload, {.record_history = true, .origin = origin()});
  } else {
    auto scheduler = make_scheduler(plan, options, target, derive(seed, kSchedulerSalt));
    dpct::ExecutionOptions execution;
    execution.max_steps = options.max_steps;
    run = executor.execute(target.factory, workload, *scheduler, execution);
  }
  Verdict verdict;
  if (worker.quick.linearizable(run.history)) {
    verdict.result = Result::kLinearizable;
  } else {
    run.history.set_origin(origin());
    CheckOptions check;
    check.timeout_seconds = options.check_timeout_seconds;
    check.threads = 1;  // histories are already checked in parallel
    check.want_witness = false;
    verdict = check_history(target.model, run.history, check);
  }

  HistoryResult result;
  result.seed = seed;
  result.outcome = run.outcome;
  result.result = verdict.result;
  result.ms = ms_since(start);
  if (verdict.result != Result::kLinearizable || run.outcome != dpct::RunOutcome::kOk) {
    SavedRun saved;
    saved.target = target.name;
    saved.model = target.model;
    saved.seed = seed;
    saved.scheduling.kind = scheduler_kind_name(plan.kind);
    saved.scheduling.heuristic = options.heuristic;
    saved.scheduling.round_ops = options.heuristic ? options.round_ops : 0;
    saved.scheduling.depth =
        plan.kind == SchedulerKind::kPct || plan.kind == SchedulerKind::kDpct ? options.depth : 0;
    saved.scheduling.k = plan.k;
    saved.scheduling.max_steps = plan.kind == SchedulerKind::kNative ? 0 : options.max_steps;
    saved.scheduling.description = plan.description;
    saved.workload = workload;
    saved.schedule = std::move(run.schedule);
    saved.outcome = run.outcome;
    saved.message = run.message;
    saved.verdict = summarize(verdict);
    saved.history = std::move(run.history);
    saved.history.set_origin(origin());
    result.saved = std::move(saved);
  }
  return result;
}

}  // namespace

const char* scheduler_kind_name(SchedulerKind kind) {
  switch (kind) {
    case SchedulerKind::kNative:
      return "native";
    case SchedulerKind::kRandom:
      return "random";
    case SchedulerKind::kPct:
      return "pct";
    case SchedulerKind::kDpct:
      return "dpct";
    case SchedulerKind::kPos:
      return "pos";
    case SchedulerKind::kSurw:
      return "surw";
  }
  return "?";
}

std::optional<SchedulerKind> parse_scheduler_kind(std::string_view name) {
  for (SchedulerKind kind : {SchedulerKind::kNative, SchedulerKind::kRandom, SchedulerKind::kPct,
                             SchedulerKind::kDpct, SchedulerKind::kPos, SchedulerKind::kSurw}) {
    if (name == scheduler_kind_name(kind)) return kind;
  }
  return std::nullopt;
}

std::vector<const SavedRun*> DetectionReport::failing_runs() const {
  std::vector<const SavedRun*> runs;
  for (const HistoryResult& result : results) {
    if (result.saved) runs.push_back(&*result.saved);
  }
  return runs;
}

std::uint64_t shard_size(std::uint64_t histories, std::uint64_t index, std::uint64_t count) {
  if (count == 0 || index >= histories) return 0;
  return (histories - 1 - index) / count + 1;
}

DetectionReport run_detection(const targets::Target& target, const DriverOptions& options,
                              const ProgressCallback& progress) {
  validate(target, options);
  const Clock::time_point start = Clock::now();
  const Plan plan = make_plan(target, options);
  const std::uint64_t histories =
      shard_size(options.histories, options.shard_index, options.shard_count);

  DetectionReport report;
  report.target = target.name;
  report.scheduler = plan.description;
  report.histories = histories;
  if (!options.on_result) report.results.resize(histories);

  std::atomic<std::uint64_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex mutex;  // guards `error`, the report's counts and the callbacks
  std::exception_ptr error;
  std::optional<std::uint64_t> first_failing_index;  // global index
  Progress counters{.total = histories};

  auto worker = [&] {
    std::optional<Worker> state;
    try {
      state.emplace(target);
    } catch (...) {
      std::lock_guard lock(mutex);
      if (!error) error = std::current_exception();
      failed = true;
      return;
    }
    for (std::uint64_t j; !failed.load() && (j = next.fetch_add(1)) < histories;) {
      const std::uint64_t index = options.shard_index + j * options.shard_count;
      HistoryResult result;
      try {
        result = run_history(*state, target, options, plan, options.seed + index);
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!error) error = std::current_exception();
        failed = true;
        return;
      }
      std::lock_guard lock(mutex);
      ++report.done;
      report.total_ms += result.ms;
      ++report.outcomes[static_cast<std::size_t>(result.outcome)];
      if (result.result == Result::kViolation) {
        ++report.violations;
        if (!first_failing_index || index < *first_failing_index) {
          first_failing_index = index;
          report.first_failing_seed = result.seed;
        }
      } else if (result.result == Result::kUnknown) {
        ++report.unknown;
      }
      try {
        if (options.on_result) {
          options.on_result(report, result);
        } else {
          report.results[j] = std::move(result);
        }
      } catch (...) {
        if (!error) error = std::current_exception();
        failed = true;
        return;
      }
      counters.done = report.done;
      counters.violations = report.violations;
      counters.elapsed_seconds = ms_since(start) / 1000;
      if (progress) progress(counters);
    }
  };
  const unsigned jobs = static_cast<unsigned>(std::min<std::uint64_t>(options.jobs, histories));
  if (jobs <= 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    for (unsigned j = 0; j < jobs; ++j) pool.emplace_back(worker);
    for (std::thread& thread : pool) thread.join();
  }
  if (error) std::rethrow_exception(error);

  report.avg_ms = histories > 0 ? report.total_ms / static_cast<double>(histories) : 0;
  report.wall_seconds = ms_since(start) / 1000;
  return report;
}

ReplayResult replay_saved_run(const SavedRun& saved, const targets::Target& target,
                              bool record_trace, double check_timeout_seconds) {
  if (saved.scheduling.kind == scheduler_kind_name(SchedulerKind::kNative)) {
    throw std::invalid_argument(
        "a native run has no schedule to replay; check its recorded history instead");
  }
  dpct::ReplayScheduler scheduler(saved.schedule, dpct::ReplayMode::kStrict);
  dpct::ExecutionOptions execution;
  execution.record_trace = record_trace;
  // A livelocked run stopped at its cap: the replay must stop at the same point.
  if (saved.scheduling.max_steps > 0) execution.max_steps = saved.scheduling.max_steps;
  execution.origin = saved.history.origin();
  ReplayResult result;
  result.run = dpct::execute(target.factory, saved.workload, scheduler, execution);
  CheckOptions check;
  check.timeout_seconds = check_timeout_seconds;
  check.want_witness = false;
  result.verdict = check_history(target.model, result.run.history, check);
  result.same_history = result.run.history == saved.history;
  return result;
}

RoundScheduler::RoundScheduler(std::unique_ptr<dpct::Scheduler> inner, std::size_t round_ops)
    : inner_(std::move(inner)), round_ops_(round_ops) {
  if (!inner_) throw std::invalid_argument("RoundScheduler needs a scheduler to wrap");
  if (round_ops_ == 0) throw std::invalid_argument("RoundScheduler: round_ops must be positive");
}

void RoundScheduler::begin(const dpct::RunInfo& info) {
  const std::size_t n = info.threads;
  round_ = 0;
  allowance_.assign(n, round_ops_);
  if (n > 0) allowance_[0] = 1;
  waiting_op_.assign(n, 0);
  at_op_start_.assign(n, true);  // at kStart every thread waits at its first operation
  inner_->begin(info);
}

bool RoundScheduler::held(dpct::ThreadId thread) const {
  return at_op_start_[thread] && waiting_op_[thread] >= allowance_[thread];
}

void RoundScheduler::next_round() {
  ++round_;
  const std::size_t single = round_ % allowance_.size();
  for (std::size_t t = 0; t < allowance_.size(); ++t) {
    allowance_[t] += t == single ? 1 : round_ops_;
  }
}

dpct::ThreadId RoundScheduler::choose(const dpct::SchedulingPoint& point,
                                      std::span<const dpct::ThreadId> enabled) {
  if (point.thread < waiting_op_.size()) {
    if (point.kind == dpct::PointKind::kAccess) {
      waiting_op_[point.thread] = point.op_index;
      at_op_start_[point.thread] = point.op_step == 0;
    } else if (point.kind == dpct::PointKind::kBlocked) {
      at_op_start_[point.thread] = false;
    }
  }
  for (;;) {
    allowed_.clear();
    for (dpct::ThreadId t : enabled) {
      if (!held(t)) allowed_.push_back(t);
    }
    if (!allowed_.empty()) break;
    next_round();  // every runnable thread has finished its share of this round
  }
  return inner_->choose(point, allowed_);
}

void RoundScheduler::end(dpct::Schedule& schedule) {
  inner_->end(schedule);
  schedule.set_parameter("rounds", std::to_string(round_ops_));
}

}  // namespace linfault::detect
