#include "detect/driver.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <iterator>
#include <limits>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <utility>

#include "detect/checker.h"
#include "detect/monitors/monitor.h"
#include "detect/quick_check.h"
#include "dpct/executor.h"
#include "dpct/fork_server.h"
#include "dpct/native.h"
#include "dpct/pct_scheduler.h"
#include "dpct/pos_scheduler.h"
#include "dpct/random_scheduler.h"
#include "dpct/replay_scheduler.h"
#include "dpct/rng.h"
#include "dpct/surw_scheduler.h"
#include "dpct/watchdog.h"
#include "dpct/window_scheduler.h"
#include "targets/serial_spec.h"

namespace linfault::detect {
namespace {

using Clock = std::chrono::steady_clock;

// Independent streams from one seed: the workload uses the seed itself, the scheduler and the
// pilot runs use these.
constexpr std::uint64_t kSchedulerSalt = 0x5c4ed01e;
constexpr std::uint64_t kPilotSalt = 0x9110f00d;
constexpr std::uint64_t kShapeSalt = 0x54a9e5;
constexpr std::uint64_t kPortfolioSalt = 0x90f7f011;
// The probe of methods_that_write has a fixed seed: a history's workload must depend on its own
// seed only, not on the campaign's first seed.
constexpr std::uint64_t kProbeSeed = 0x9e0be;

// The portfolio's members with their base shares. Random walk gets the largest share: on short
// histories most bugs need one preemption, where it is hard to beat (bench/schedulers/). SURW is
// not a member: it needed the most histories per violation of all controlled schedulers there
// (geometric mean over the targets), and the window scheduler took its place.
struct PortfolioShare {
  SchedulerKind kind;
  double share;
};
constexpr std::array<PortfolioShare, 4> kPortfolio = {{{SchedulerKind::kRandom, 2},
                                                       {SchedulerKind::kDpct, 1},
                                                       {SchedulerKind::kPos, 1},
                                                       {SchedulerKind::kWindow, 1}}};
static_assert(kPortfolio[0].kind == SchedulerKind::kRandom, "the opening runs member 0");
// The portfolio learns from whole blocks of this many histories (see PortfolioLearner).
constexpr std::uint64_t kPortfolioBlock = 64;
// The portfolio opens with this many random walks: the histories of a search whose index is
// below it run the random member. A random walk finds most bugs of short histories in a few
// dozen of them (bench/schedulers/), where a mix that gives it a share s needs up to 1/s as many;
// a bug it does not find by then is one the other members are more likely to be needed for.
constexpr std::uint64_t kPortfolioOpening = 64;

std::uint64_t derive(std::uint64_t seed, std::uint64_t salt) {
  dpct::SplitMix64 rng(seed ^ (salt * 0x9e3779b97f4a7c15ULL));
  return rng.next();
}

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The scheduling and workload drawing every history of one detection uses, resolved once.
struct Plan {
  SchedulerKind kind = SchedulerKind::kPct;
  bool tree_estimator = false;  // kDpct or kSurw (or a portfolio's dpct member) with an estimator
  std::uint64_t k = 0;          // fixed k of pct (and of the dpct fallback)
  std::string description;
  // Split and uneven shapes: the operation weights of the writing threads (the methods that
  // write), of the split shape's other thread (reading and writing methods half the time each),
  // and of the uneven shape's single operation (the methods that do not write); all empty when
  // every method writes or none does (then every thread draws uniformly).
  std::vector<unsigned> burst_weights;
  std::vector<unsigned> split_weights;
  std::vector<unsigned> observer_weights;
};

// The scheduler of one history: `kind` is plan.kind, or for a portfolio the member drawn.
std::unique_ptr<dpct::Scheduler> make_scheduler(SchedulerKind kind, const Plan& plan,
                                                const DriverOptions& options,
                                                const targets::Target& target, std::uint64_t seed) {
  std::unique_ptr<dpct::Scheduler> scheduler;
  const dpct::PctOptions pct{.seed = seed,
                             .depth = options.depth,
                             .steps = plan.k,
                             .epoch_operations = options.epoch_operations,
                             .defer_to_write = options.write_bias};
  switch (kind) {
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
    case SchedulerKind::kWindow:
      scheduler = std::make_unique<dpct::WindowScheduler>(seed, options.window_pauses);
      break;
    case SchedulerKind::kNative:
      throw std::logic_error("native runs have no scheduler");
    case SchedulerKind::kPortfolio:
      throw std::logic_error("a portfolio history runs one of its members");
  }
  if (options.memory_model.value_or(target.memory_model) == dpct::MemoryModel::kC11) {
    scheduler =
        std::make_unique<dpct::WeakReadScheduler>(std::move(scheduler), options.read_policy, seed);
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

// The shape of the history with `seed`: kEven, kSplit or kUneven.
ShapeMix history_shape(const DriverOptions& options, std::uint64_t seed) {
  if (options.threads < 2 || options.ops_per_thread < 2) return ShapeMix::kEven;  // nothing else
  if (options.shapes != ShapeMix::kMixed) return options.shapes;
  return (derive(seed, kShapeSalt) & 1) != 0 ? ShapeMix::kSplit : ShapeMix::kEven;
}

// The workload of the history with `seed`: the given one, or one drawn into `buffer`.
const dpct::Workload& workload_for(const targets::Target& target, const DriverOptions& options,
                                   const Plan& plan, std::uint64_t seed, dpct::Workload& buffer) {
  if (options.workload) return *options.workload;
  targets::WorkloadShape shape = shape_of(options);
  const ShapeMix drawn = history_shape(options, seed);
  const bool roles = !plan.burst_weights.empty();  // the target has readers and writers
  if (drawn == ShapeMix::kUneven || (drawn == ShapeMix::kSplit && roles)) {
    const std::size_t observer = (derive(seed, kShapeSalt) >> 1) % options.threads;
    shape.thread_ops.assign(options.threads, options.ops_per_thread);
    if (drawn == ShapeMix::kUneven) shape.thread_ops[observer] = 1;
    if (roles) {
      shape.thread_weights.assign(options.threads, plan.burst_weights);
      shape.thread_weights[observer] =
          drawn == ShapeMix::kUneven ? plan.observer_weights : plan.split_weights;
    }
  }
  targets::random_workload_into(target, shape, seed, buffer);
  return buffer;
}

bool writes(const dpct::TraceStep& step) {
  switch (step.kind) {
    case dpct::AccessKind::kStore:
    case dpct::AccessKind::kExchange:
    case dpct::AccessKind::kFetchAdd:
    case dpct::AccessKind::kFetchSub:
    case dpct::AccessKind::kFetchAnd:
    case dpct::AccessKind::kFetchOr:
    case dpct::AccessKind::kFetchXor:
      return true;
    case dpct::AccessKind::kCompareExchange:
      return step.success;
    default:
      return false;
  }
}

// The split and uneven shapes' mixes of `plan`: bursts of writers against a thread that reads.
void set_role_mixes(Plan& plan, const targets::Target& target, const DriverOptions& options) {
  if (options.workload || options.shapes == ShapeMix::kEven) return;
  const std::vector<bool> writers = methods_that_write(target, kProbeSeed);
  const auto writing = static_cast<unsigned>(std::count(writers.begin(), writers.end(), true));
  const auto reading = static_cast<unsigned>(writers.size()) - writing;
  if (writing == 0 || reading == 0) return;
  for (bool w : writers) {
    plan.burst_weights.push_back(w ? 1 : 0);
    // Each reading method weighs the number of writing ones and the other way round: reads and
    // writes half the time each.
    plan.split_weights.push_back(w ? reading : writing);
    plan.observer_weights.push_back(w ? 0 : 1);
  }
}

// The portfolio's choice of member for each history after the opening (the opening's histories
// run the random member and only complete their blocks: they are not a sample of the shares, and
// counting them would leave the other members with no histories, a rate of 0). Blocks of
// kPortfolioBlock histories (in the order of the campaign) draw their members from weights fixed
// when every earlier block is complete: until a violation is found, the base shares; after, half
// the mass by the base shares (exploration) and half in proportion to each member's violation
// rate (exploitation).
// Because weights depend only on whole earlier blocks, results do not depend on --jobs; a
// worker that reaches a block early waits for the earlier ones. Under --shard the shards cannot
// see each other's results, so the weights stay the base shares (documented in the scheduler
// string), keeping sharded and unsharded campaigns identical.
class PortfolioLearner {
 public:
  PortfolioLearner(bool learn, std::uint64_t histories)
      : learn_(learn),
        histories_(histories),
        blocks_(histories / kPortfolioBlock + (histories % kPortfolioBlock != 0 ? 1 : 0)),
        so_far_(make_members()),
        shares_(portfolio_shares(so_far_)) {}

  // The member of history `j` (0-based within this campaign) with seed `seed`, or nullopt when
  // `abandoned()` turns true first. Called with `lock` held on the driver's mutex; waits until
  // the earlier blocks are complete. Whoever makes `abandoned()` true calls wake_all().
  template <typename Abandoned>
  std::optional<std::size_t> member(std::uint64_t j, std::uint64_t seed,
                                    std::unique_lock<std::mutex>& lock,
                                    const Abandoned& abandoned) {
    const std::uint64_t block = j / kPortfolioBlock;
    if (learn_) complete_.wait(lock, [&] { return complete_blocks_ >= block || abandoned(); });
    if (abandoned()) return std::nullopt;
    // 53 random bits as a double in [0, 1); the shares sum to 1.
    double u = static_cast<double>(derive(seed, kPortfolioSalt) >> 11) * 0x1.0p-53;
    for (std::size_t m = 0; m + 1 < shares_.size(); ++m) {
      if (u < shares_[m]) return m;
      u -= shares_[m];
    }
    return shares_.size() - 1;
  }

  // Records the result of history `j`; called under the driver's mutex. A history of the opening
  // (`drawn` false) only completes its block.
  void record(std::uint64_t j, std::size_t member, bool drawn, bool violation) {
    if (!learn_) return;
    // Only the blocks from the first incomplete one on are kept: as many as histories in flight.
    const std::uint64_t offset = j / kPortfolioBlock - complete_blocks_;
    while (pending_.size() <= offset) pending_.push_back({0, make_members()});
    Block& block = pending_[offset];
    ++block.done;
    if (drawn) {
      ++block.members[member].histories;
      block.members[member].violations += violation ? 1 : 0;
    }
    bool advanced = false;
    while (!pending_.empty() && pending_.front().done == block_size(complete_blocks_)) {
      for (std::size_t m = 0; m < so_far_.size(); ++m) {
        so_far_[m].histories += pending_.front().members[m].histories;
        so_far_[m].violations += pending_.front().members[m].violations;
      }
      pending_.pop_front();
      ++complete_blocks_;
      advanced = true;
    }
    if (advanced) {
      shares_ = portfolio_shares(so_far_);
      complete_.notify_all();
    }
  }

  void wake_all() { complete_.notify_all(); }

 private:
  struct Block {
    std::uint64_t done = 0;
    std::vector<PortfolioMember> members;
  };

  static std::vector<PortfolioMember> make_members() {
    std::vector<PortfolioMember> members;
    for (const PortfolioShare& share : kPortfolio) members.push_back({share.kind});
    return members;
  }

  std::uint64_t block_size(std::uint64_t block) const {
    return block + 1 < blocks_ ? kPortfolioBlock : histories_ - block * kPortfolioBlock;
  }

  bool learn_;
  std::uint64_t histories_;
  std::uint64_t blocks_;
  std::vector<PortfolioMember> so_far_;  // over the complete blocks
  std::deque<Block> pending_;            // from block complete_blocks_ on
  std::uint64_t complete_blocks_ = 0;
  std::vector<double> shares_;  // for the block after the complete ones
  std::condition_variable complete_;
};

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
  dpct::Workload drawn;
  for (std::uint64_t i = 0; i < options.pilot_runs; ++i) {
    const std::uint64_t seed = derive(options.seed + i, kPilotSalt);
    const dpct::Workload& workload = workload_for(target, options, random, seed, drawn);
    auto scheduler = make_scheduler(SchedulerKind::kRandom, random, options, target, seed);
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
      plan.description = options.native_noise
                             ? "native (real threads, noise: a per-history plan of yields, "
                               "spins and sleeps at a random few accesses)"
                             : "native (real threads, stress, no noise)";
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
    case SchedulerKind::kWindow:
      plan.description = std::string("window (pauses in read-then-act windows") +
                         (options.window_pauses == dpct::WindowPauses::kInside ? ""
                          : options.window_pauses == dpct::WindowPauses::kAct
                              ? ", only right before acts"
                              : ", before acts or inside, drawn per operation") +
                         ")" + heuristic;
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
    case SchedulerKind::kPortfolio: {
      plan.tree_estimator = static_cast<bool>(options.step_estimator);
      std::string dpct_member = "dpct";
      if (!plan.tree_estimator) {
        plan.k = fixed_k(source);
        dpct_member = "pct k=" + std::to_string(plan.k) + " (k " + source + ")";
      }
      double total = 0;
      for (const PortfolioShare& member : kPortfolio) total += member.share;
      std::ostringstream members;
      for (const PortfolioShare& member : kPortfolio) {
        members << (member.kind == SchedulerKind::kRandom ? "" : ", ")
                << (member.kind == SchedulerKind::kDpct ? dpct_member
                                                        : scheduler_kind_name(member.kind))
                << " " << static_cast<int>(100 * member.share / total + 0.5) << "%";
      }
      plan.description =
          "portfolio (random only in the first " + std::to_string(kPortfolioOpening) +
          " histories, then " + members.str() +
          (options.shard_count > 1       ? "; fixed shares under --shard"
           : !options.portfolio_learning ? "; fixed shares"
                                         : "; shares learnt from violations every " +
                                               std::to_string(kPortfolioBlock) + " histories") +
          ")" + heuristic;
      break;
    }
  }
  const bool pct_like = options.scheduler == SchedulerKind::kPct ||
                        options.scheduler == SchedulerKind::kDpct ||
                        options.scheduler == SchedulerKind::kPortfolio;
  if (options.epoch_operations > 0 && pct_like) {
    plan.description +=
        ", plan redrawn every " + std::to_string(options.epoch_operations) + " operations";
  }
  if (options.write_bias > 0 && pct_like) {
    std::ostringstream bias;
    bias << options.write_bias;
    plan.description += ", write bias " + bias.str();
  }
  if (options.window_pauses != dpct::WindowPauses::kInside &&
      options.scheduler == SchedulerKind::kPortfolio) {
    plan.description +=
        std::string(", window member pauses: ") + dpct::window_pauses_name(options.window_pauses);
  }
  if (options.scheduler != SchedulerKind::kNative &&
      options.memory_model.value_or(target.memory_model) == dpct::MemoryModel::kC11) {
    plan.description +=
        ", memory model c11 (reads " + dpct::read_policy_text(options.read_policy) + ")";
  }
  set_role_mixes(plan, target, options);
  if (!options.workload && options.shapes != ShapeMix::kEven && options.threads >= 2 &&
      options.ops_per_thread >= 2) {
    const std::string m = std::to_string(options.ops_per_thread);
    const bool roles = !plan.burst_weights.empty();
    // Mixed draws even or split histories; split is even for a target without both roles.
    const std::string split = roles ? m + " || " + m + " operations: half reads against writes only"
                                    : "even: every method writes, or none";
    std::string shapes;
    switch (options.shapes) {
      case ShapeMix::kMixed:
        shapes = roles ? "even, and " + split : split;
        break;
      case ShapeMix::kSplit:
        shapes = split;
        break;
      default:
        shapes = "1 || " + m + " operations" + (roles ? ": a reader against writers" : "");
        break;
    }
    plan.description +=
        std::string("; ") + shape_mix_name(options.shapes) + " shapes (" + shapes + ")";
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
  if (!(options.time_limit_seconds >= 0)) reject("--time-limit must not be negative");
  // Bounds well beyond any useful history, so that a mistyped size is a usage error and not an
  // allocation of gigabytes that ends in std::bad_alloc.
  if (options.threads > kMaxThreads) {
    reject("--threads: at most " + std::to_string(kMaxThreads) + ", not " +
           std::to_string(options.threads));
  }
  if (options.ops_per_thread > kMaxCallsPerHistory ||
      options.threads * options.ops_per_thread > kMaxCallsPerHistory) {
    reject("--threads x --ops: at most " + std::to_string(kMaxCallsPerHistory) +
           " operations per history, not " + std::to_string(options.threads) + " x " +
           std::to_string(options.ops_per_thread));
  }
  if (options.depth > kMaxDepth) {
    reject("--depth: at most " + std::to_string(kMaxDepth) + ", not " +
           std::to_string(options.depth));
  }
  if (options.heuristic && options.round_ops == 0) reject("--round-ops must be at least 1");
  if (options.workload) {
    if (std::optional<std::string> problem = targets::workload_problem(target, *options.workload)) {
      reject(*problem);
    }
  } else {
    (void)targets::thread_roles(target, options.threads);  // throws past the roles' threads
  }
  if (options.scheduler == SchedulerKind::kNative) {
    if (options.heuristic) {
      reject("--heuristic shapes controlled runs; use it with --scheduler " +
             controlled_scheduler_names(false));
    }
    if (target.may_livelock) {
      reject("target " + target.name +
             " may livelock, which native threads cannot stop; use a controlled scheduler (" +
             controlled_scheduler_names(false) + ")");
    }
  }
}

// What one worker thread keeps between its histories.
struct Worker {
  explicit Worker(const targets::Target& target)
      : quick(target.model), quick_violations(!targets::is_serial_spec(target.model)) {}

  // The scheduler of `kind` made once and reseeded per history (Scheduler::reseed makes a run a
  // function of its seed alone), instead of one built, with its buffers, per history.
  dpct::Scheduler& scheduler(SchedulerKind kind, const Plan& plan, const DriverOptions& options,
                             const targets::Target& target, std::uint64_t seed) {
    std::unique_ptr<dpct::Scheduler>& slot = schedulers[static_cast<std::size_t>(kind)];
    if (!slot) slot = make_scheduler(kind, plan, options, target, seed);
    slot->reseed(seed);
    return *slot;
  }

  dpct::Executor executor;
  dpct::Workload workload;  // the history's drawn workload, redrawn into its buffers
  // Small histories are decided here without the full checker (detect/quick_check.h): shown
  // linearizable, or, when failing runs are not kept, shown not linearizable. The full checker
  // decides every other one, so the verdict is always the one it would give.
  QuickChecker quick;
  // Whether a violation the quick check proves may stand without the full checker. Not under a
  // serial specification: the full checker's further serial runs are also what finds an object
  // that is not deterministic (targets/serial_spec.h), whose violations would mean nothing.
  bool quick_violations;
  std::array<std::unique_ptr<dpct::Scheduler>, kSchedulerKinds.size()> schedulers;
};
// Worker::schedulers is indexed by the kind's value.
static_assert([] {
  for (SchedulerKind kind : kSchedulerKinds) {
    if (static_cast<std::size_t>(kind) >= kSchedulerKinds.size()) return false;
  }
  return true;
}());

// A failing run's target, seed and scheduling; `kind` is plan.kind, or the portfolio member that
// ran the history.
SavedRun saved_run_header(const targets::Target& target, const DriverOptions& options,
                          const Plan& plan, SchedulerKind kind, std::uint64_t seed) {
  SavedRun saved;
  saved.target = target.name;
  saved.model = target.model;
  saved.seed = seed;
  saved.scheduling.kind = scheduler_kind_name(kind);
  saved.scheduling.heuristic = options.heuristic;
  saved.scheduling.round_ops = options.heuristic ? options.round_ops : 0;
  saved.scheduling.depth =
      kind == SchedulerKind::kPct || kind == SchedulerKind::kDpct ? options.depth : 0;
  saved.scheduling.k = plan.k;
  saved.scheduling.max_steps = kind == SchedulerKind::kNative ? 0 : options.max_steps;
  saved.scheduling.description =
      plan.kind == SchedulerKind::kPortfolio
          ? plan.description + "; this history: " + scheduler_kind_name(kind)
          : plan.description;
  return saved;
}

// `kind`: plan.kind, or the portfolio member that runs this history.
HistoryResult run_history(Worker& worker, const targets::Target& target,
                          const DriverOptions& options, const Plan& plan, SchedulerKind kind,
                          std::uint64_t seed) {
  dpct::Executor& executor = worker.executor;
  const dpct::Workload& workload = workload_for(target, options, plan, seed, worker.workload);
  // Named only when someone reads the name (a failing run, a message of the full checker): most
  // histories are linearizable, and the name would be built and copied for nothing.
  auto origin = [&] { return target.name + "-" + std::to_string(seed); };
  dpct::Run run;
  dpct::Scheduler* scheduler = nullptr;  // none for a native run
  if (kind == SchedulerKind::kNative) {
    dpct::NativeOptions native;
    native.origin = origin();
    native.history_seed = seed;
    if (options.native_noise) native.noise = dpct::draw_noise_plan(seed);
    run = dpct::run_native(target.factory, workload, native);
  } else {
    scheduler = &worker.scheduler(kind, plan, options, target, derive(seed, kSchedulerSalt));
    dpct::ExecutionOptions execution;
    execution.max_steps = options.max_steps;
    execution.describe_schedule = false;  // described below for the runs that are kept
    execution.history_seed = seed;
    run = executor.execute(target.factory, workload, *scheduler, execution);
  }
  Verdict verdict;
  // A stuck run's pending operations never finish: the full checker applies the stuck-history
  // rule to them when the model can tell blocking (the quick check cannot).
  const bool stuck = dpct::ended_stuck(run.outcome);
  const QuickChecker::Answer quick =
      stuck ? QuickChecker::Answer::kUndecided : worker.quick.check(run.history);
  if (quick == QuickChecker::Answer::kLinearizable) {
    verdict.result = Result::kLinearizable;
  } else if (quick == QuickChecker::Answer::kNotLinearizable && !options.keep_failing_runs &&
             worker.quick_violations) {
    verdict.result = Result::kViolation;
  } else {
    run.history.set_origin(origin());
    CheckOptions check;
    check.timeout_seconds = options.check_timeout_seconds;
    check.threads = 1;  // histories are already checked in parallel
    check.want_witness = false;
    check.stuck = stuck;
    // What `linfault check` does by default: a polynomial monitor where the model has one and the
    // history meets its preconditions, else the search. A long history of a queue or a stack (2 x
    // 200) could take the search past its timeout (an unknown verdict) where the monitor decides
    // it in microseconds. The monitors know nothing of the stuck-history rule.
    verdict = stuck ? check_history(target.model, run.history, check)
                    : check_auto(target.model, run.history, check, Algo::kAuto);
  }
  // The quick check knows nothing of the synchronisation requirement (a C++20-model run's).
  if (quick == QuickChecker::Answer::kLinearizable) {
    check_synchronization(target.model, run.history, CheckOptions{}, verdict);
  }

  HistoryResult result;
  result.seed = seed;
  result.no_shared_access = scheduler != nullptr && run.access_points == 0;
  result.scheduler = kind;
  result.outcome = run.outcome;
  result.result = verdict.result;
  if (options.keep_failing_runs &&
      (verdict.result != Result::kLinearizable || run.outcome != dpct::RunOutcome::kOk)) {
    SavedRun saved = saved_run_header(target, options, plan, kind, seed);
    saved.workload = workload;
    if (scheduler != nullptr) scheduler->end(run.schedule);
    saved.schedule = std::move(run.schedule);
    saved.outcome = run.outcome;
    saved.message = run.message;
    saved.verdict = summarize(verdict);
    saved.history = std::move(run.history);
    saved.history.set_origin(origin());
    result.saved = std::move(saved);
  } else if (scheduler != nullptr) {
    executor.recycle(std::move(run));  // the next history records into its buffers
  }
  return result;
}

// A child's reply under DriverOptions::isolate: kAnswered and what was asked, or a tag and the
// message of the exception it threw, which the parent throws again as the type the tool tells
// apart (exit codes 64, 65, 70).
constexpr char kAnswered = 0;
constexpr char kNotDeterministic = 1;
constexpr char kInvalidArgument = 2;
constexpr char kBadAlloc = 3;
constexpr char kOtherError = 4;

// In the child, inside a catch block.
std::string tagged_exception() {
  try {
    throw;
  } catch (const targets::NotDeterministic& e) {
    return kNotDeterministic + std::string(e.what());
  } catch (const std::invalid_argument& e) {
    return kInvalidArgument + std::string(e.what());
  } catch (const std::bad_alloc&) {
    return std::string(1, kBadAlloc);
  } catch (const std::exception& e) {
    return kOtherError + std::string(e.what());
  } catch (...) {
    return kOtherError + std::string("an unknown exception in the child process");
  }
}

// In the parent.
[[noreturn]] void rethrow(const std::string& reply) {
  const std::string message = reply.empty() ? std::string("an empty reply") : reply.substr(1);
  switch (reply.empty() ? kOtherError : reply[0]) {
    case kNotDeterministic:
      throw targets::NotDeterministic(message);
    case kInvalidArgument:
      throw std::invalid_argument(message);
    case kBadAlloc:
      throw std::bad_alloc();
    default:
      throw std::runtime_error(message);
  }
}

// DriverOptions::isolate: a worker whose histories run in a child process (dpct/fork_server.h).
// The parent only sends each history's kind and seed and reads its result back; the child runs
// run_history on a Worker of its own. A child retires after any run that did not end normally
// (stacks abandoned by siglongjmp, an object leaked, a fault recovered), so that no later history
// runs in memory a faulting object may have corrupted.
class IsolatedWorker {
 public:
  IsolatedWorker(const targets::Target& target, const DriverOptions& options, const Plan& plan,
                 dpct::ForkServer::Limits limits)
      : target_(target),
        options_(options),
        plan_(plan),
        server_([this](std::string_view request, bool& retire) { return serve(request, retire); },
                limits) {}

  HistoryResult run(SchedulerKind kind, std::uint64_t seed) {
    std::string request(1 + sizeof seed, '\0');
    request[0] = static_cast<char>(kind);
    std::memcpy(request.data() + 1, &seed, sizeof seed);
    const dpct::ForkServer::Reply reply = server_.call(request);
    if (!reply.answered) return lost(kind, seed, reply);
    if (reply.data.empty() || reply.data[0] != kAnswered) rethrow(reply.data);
    return decode(reply.data);
  }

  // The union of what the children reported (dpct::Executor::weak_order_sites).
  const std::vector<std::string>& weak_order_sites() const { return sites_; }

  // How long a child may take over one history before it is taken for hung (as in a deadlock on
  // the allocator's lock after a fault inside it): a run stalls into a livelock after the stall
  // limit, and a check gives up after its timeout (none without a check timeout). After the
  // child said it recovers from a fault or a stall, what is left of the run (unwinding the other
  // threads, at most a stall) and its check must still fit. Called before workers start: it may
  // make the watchdog.
  static dpct::ForkServer::Limits limits(const DriverOptions& options) {
    using std::chrono::milliseconds;
    const milliseconds stall = dpct::stall_limit();
    const milliseconds check(static_cast<std::int64_t>(options.check_timeout_seconds * 1000));
    dpct::ForkServer::Limits limits;
    if (options.check_timeout_seconds > 0) limits.reply = milliseconds(60'000) + 2 * stall + check;
    limits.after_fault = stall + (options.check_timeout_seconds > 0 ? check + milliseconds(10'000)
                                                                    : milliseconds(60'000));
    return limits;
  }

 private:
  // A reply: kAnswered and the result, or an error tag and the exception's message.
  // The result: its fixed part, then the saved run as CBOR (which keeps any bytes a corrupted
  // object returned) or nothing, then the executor's weak order sites when their count changed
  // since the last reply (or a count of ~0u).
  static constexpr std::uint32_t kSitesUnchanged = ~0u;

  // In the child.
  std::string serve(std::string_view request, bool& retire) {
    if (request.size() != 1 + sizeof(std::uint64_t)) throw std::logic_error("bad history request");
    const auto kind = static_cast<SchedulerKind>(request[0]);
    std::uint64_t seed = 0;
    std::memcpy(&seed, request.data() + 1, sizeof seed);
    HistoryResult result;
    try {
      if (!child_) child_.emplace(target_);
      result = run_history(*child_, target_, options_, plan_, kind, seed);
    } catch (...) {
      retire = true;
      return tagged_exception();
    }
    // Any run that did not end normally may have left abandoned stacks, a leaked object or a
    // fault recovered on the way: its child is not trusted with another history.
    retire = result.outcome != dpct::RunOutcome::kOk;

    std::string out(1, kAnswered);
    auto put = [&out](const void* data, std::size_t size) {
      out.append(static_cast<const char*>(data), size);
    };
    const std::uint8_t fixed[] = {static_cast<std::uint8_t>(result.no_shared_access),
                                  static_cast<std::uint8_t>(result.scheduler),
                                  static_cast<std::uint8_t>(result.outcome),
                                  static_cast<std::uint8_t>(result.result)};
    put(&result.seed, sizeof result.seed);
    put(fixed, sizeof fixed);
    std::string saved;
    if (result.saved) {
      const std::vector<std::uint8_t> cbor =
          nlohmann::json::to_cbor(saved_run_to_json(*result.saved));
      saved.assign(cbor.begin(), cbor.end());
    }
    const auto saved_size = static_cast<std::uint32_t>(saved.size());
    put(&saved_size, sizeof saved_size);
    out += saved;
    const std::vector<std::string> sites = child_->executor.weak_order_sites();
    std::uint32_t count = kSitesUnchanged;
    if (sites.size() != sites_sent_) count = static_cast<std::uint32_t>(sites.size());
    put(&count, sizeof count);
    if (count != kSitesUnchanged) {
      sites_sent_ = sites.size();
      for (const std::string& site : sites) {
        const auto size = static_cast<std::uint32_t>(site.size());
        put(&size, sizeof size);
        out += site;
      }
    }
    return out;
  }

  // In the parent.
  HistoryResult decode(const std::string& in) {
    std::size_t at = 1;  // past kAnswered
    auto take = [&](void* data, std::size_t size) {
      if (in.size() - at < size)
        throw std::runtime_error("a truncated result from a child process");
      std::memcpy(data, in.data() + at, size);
      at += size;
    };
    HistoryResult result;
    std::uint8_t fixed[4];
    take(&result.seed, sizeof result.seed);
    take(fixed, sizeof fixed);
    result.no_shared_access = fixed[0] != 0;
    result.scheduler = static_cast<SchedulerKind>(fixed[1]);
    result.outcome = static_cast<dpct::RunOutcome>(fixed[2]);
    result.result = static_cast<Result>(fixed[3]);
    std::uint32_t saved_size = 0;
    take(&saved_size, sizeof saved_size);
    if (saved_size > 0) {
      std::string text(saved_size, '\0');
      take(text.data(), saved_size);
      const std::string origin = target_.name + "-" + std::to_string(result.seed);
      result.saved = saved_run_from_json(nlohmann::json::from_cbor(text), origin);
      result.saved->history.set_origin(origin);
    }
    std::uint32_t count = 0;
    take(&count, sizeof count);
    if (count != kSitesUnchanged) {
      std::vector<std::string> sites(count);
      for (std::string& site : sites) {
        std::uint32_t size = 0;
        take(&size, sizeof size);
        site.resize(size);
        take(site.data(), size);
      }
      std::vector<std::string> merged;
      std::set_union(sites_.begin(), sites_.end(), sites.begin(), sites.end(),
                     std::back_inserter(merged));
      sites_ = std::move(merged);
    }
    return result;
  }

  // A history whose child died or hung before replying: a crash (a livelock when it hung without
  // a fault) with no history to check, saved with its workload but without a schedule.
  HistoryResult lost(SchedulerKind kind, std::uint64_t seed, const dpct::ForkServer::Reply& reply) {
    HistoryResult result;
    result.seed = seed;
    result.scheduler = kind;
    // A hang without a fault, or a native run the watchdog ended (it printed why), is a stall.
    const bool stalled = (reply.timed_out && reply.fault_signal == 0) ||
                         reply.fault_signal == dpct::stall_signal() ||
                         reply.exit_status == dpct::kStallExitCode;
    result.outcome = stalled ? dpct::RunOutcome::kLivelock : dpct::RunOutcome::kCrash;
    result.result = Result::kUnknown;
    if (!options_.keep_failing_runs) return result;
    SavedRun saved = saved_run_header(target_, options_, plan_, kind, seed);
    saved.workload = workload_for(target_, options_, plan_, seed, workload_);
    saved.outcome = result.outcome;
    saved.message =
        "the process running this history " + reply.failure +
        " before the run ended, so its schedule and history were lost; rerun it "
        "alone with --isolate --seed " +
        std::to_string(seed) + " --histories 1" +
        (plan_.kind == SchedulerKind::kPortfolio ? std::string(" (the portfolio ran it with its ") +
                                                       scheduler_kind_name(kind) + " member)"
                                                 : std::string());
    saved.schedule.scheduler = kLostSchedule;
    saved.verdict.result = Result::kUnknown;
    saved.verdict.reason = "the history was lost with the process that ran it";
    saved.history.set_origin(target_.name + "-" + std::to_string(seed));
    result.saved = std::move(saved);
    return result;
  }

  const targets::Target& target_;
  const DriverOptions& options_;
  const Plan& plan_;
  dpct::Workload workload_;         // parent: the workload of a lost history
  std::vector<std::string> sites_;  // parent
  std::optional<Worker> child_;     // child: made at its first history
  std::size_t sites_sent_ = 0;      // child
  dpct::ForkServer server_;         // last: its destructor ends the child first
};

// DriverOptions::isolate: the plan's pilot runs and the probe of methods_that_write run the
// object too, so make_plan runs in a child of its own.
Plan make_plan_in_child(const targets::Target& target, const DriverOptions& options) {
  using nlohmann::json;
  dpct::ForkServer server(
      [&](std::string_view, bool& retire) {
        retire = true;
        try {
          const Plan plan = make_plan(target, options);
          const json made = {{"kind", static_cast<int>(plan.kind)},
                             {"tree", plan.tree_estimator},
                             {"k", plan.k},
                             {"description", plan.description},
                             {"burst", plan.burst_weights},
                             {"split", plan.split_weights},
                             {"observer", plan.observer_weights}};
          const std::vector<std::uint8_t> cbor = json::to_cbor(made);
          return kAnswered + std::string(cbor.begin(), cbor.end());
        } catch (...) {
          return tagged_exception();
        }
      },
      IsolatedWorker::limits(options));
  const dpct::ForkServer::Reply reply = server.call("plan");
  if (!reply.answered) {
    throw std::runtime_error("the process making the campaign's pilot runs " + reply.failure);
  }
  if (reply.data.empty() || reply.data[0] != kAnswered) rethrow(reply.data);
  const json made = json::from_cbor(reply.data.substr(1));
  Plan plan;
  plan.kind = static_cast<SchedulerKind>(made.at("kind").get<int>());
  plan.tree_estimator = made.at("tree").get<bool>();
  plan.k = made.at("k").get<std::uint64_t>();
  plan.description = made.at("description").get<std::string>();
  plan.burst_weights = made.at("burst").get<std::vector<unsigned>>();
  plan.split_weights = made.at("split").get<std::vector<unsigned>>();
  plan.observer_weights = made.at("observer").get<std::vector<unsigned>>();
  return plan;
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
    case SchedulerKind::kPortfolio:
      return "portfolio";
    case SchedulerKind::kWindow:
      return "window";
  }
  return "?";
}

std::optional<SchedulerKind> parse_scheduler_kind(std::string_view name) {
  for (SchedulerKind kind : kSchedulerKinds) {
    if (name == scheduler_kind_name(kind)) return kind;
  }
  return std::nullopt;
}

std::string no_interleaving_warning(const targets::Target& target, std::uint64_t histories,
                                    std::uint64_t without_shared_access) {
  if (histories == 0 || without_shared_access < histories) return "";
  return "no history of " + target.name +
         " reached a shared access that linfault controls, so nothing was interleaved and no bug "
         "could show: are its atomics and mutexes linfault's (linfault::Atomic, linfault::Mutex) "
         "or rewritten by linfault_add_target(... INSTRUMENT)? (docs/adding-a-target.md)";
}

std::string weak_order_note(const targets::Target& target, const std::vector<std::string>& sites) {
  if (sites.empty()) return "";
  std::string listed;
  for (std::size_t i = 0; i < sites.size() && i < 3; ++i) listed += (i ? ", " : "") + sites[i];
  if (sites.size() > 3) listed += ", ...";
  return target.name + " uses memory orders weaker than seq_cst at " +
         std::to_string(sites.size()) + (sites.size() == 1 ? " access site" : " access sites") +
         " (" + listed +
         "); these runs were sequentially consistent, so bugs that need a weaker order (a "
         "stale read, a missing release/acquire or fence) were not explored: --memory-model c11 "
         "explores them";
}

std::string controlled_scheduler_names(bool with_portfolio) {
  std::vector<std::string_view> names;
  for (SchedulerKind kind : kSchedulerKinds) {
    if (kind == SchedulerKind::kNative || (kind == SchedulerKind::kPortfolio && !with_portfolio)) {
      continue;
    }
    names.emplace_back(scheduler_kind_name(kind));
  }
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) text += i + 1 == names.size() ? " or " : ", ";
    text += names[i];
  }
  return text;
}

const char* shape_mix_name(ShapeMix mix) {
  switch (mix) {
    case ShapeMix::kEven:
      return "even";
    case ShapeMix::kSplit:
      return "split";
    case ShapeMix::kUneven:
      return "uneven";
    case ShapeMix::kMixed:
      return "mixed";
  }
  return "?";
}

std::optional<ShapeMix> parse_shape_mix(std::string_view name) {
  for (ShapeMix mix : {ShapeMix::kEven, ShapeMix::kSplit, ShapeMix::kUneven, ShapeMix::kMixed}) {
    if (name == shape_mix_name(mix)) return mix;
  }
  return std::nullopt;
}

std::vector<bool> methods_that_write(const targets::Target& target, std::uint64_t seed) {
  // Several probes of every method called several times in random orders: a method that writes
  // only in some states (remove of a present key) gets to run in them.
  constexpr std::size_t kProbes = 4;
  constexpr std::size_t kRounds = 8;
  targets::ArgumentSource source(seed);
  std::vector<bool> writers(target.operations.size(), false);
  dpct::Executor executor;
  for (std::size_t probe_index = 0; probe_index < kProbes; ++probe_index) {
    dpct::Workload probe;
    std::vector<std::size_t> method_of_call;
    std::vector<std::size_t> order(target.operations.size());
    for (std::size_t round = 0; round < kRounds; ++round) {
      for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
      for (std::size_t k = order.size(); k > 1; --k) {
        const auto other = source.uniform(0, static_cast<std::int64_t>(k) - 1);
        std::swap(order[k - 1], order[static_cast<std::size_t>(other)]);
      }
      for (std::size_t k : order) {
        const targets::OperationSpec& op = target.operations[k];
        probe.setup.push_back({op.method, op.arguments(source)});
        method_of_call.push_back(k);
      }
    }
    dpct::RandomScheduler scheduler(seed + probe_index);
    dpct::ExecutionOptions execution;
    execution.record_history = false;
    execution.record_points = false;
    execution.record_trace = true;
    execution.max_steps = 100'000;
    // A probe that crashes or spins still tells which methods wrote before it stopped.
    const dpct::Run run = executor.execute(target.factory, probe, scheduler, execution);
    for (const dpct::TraceStep& step : run.trace) {
      if (step.phase == dpct::Phase::kSetup && step.op_index < method_of_call.size() &&
          writes(step)) {
        writers[method_of_call[step.op_index]] = true;
      }
    }
  }
  return writers;
}

std::vector<const SavedRun*> DetectionReport::failing_runs() const {
  std::vector<const SavedRun*> runs;
  for (const HistoryResult& result : results) {
    if (result.saved) runs.push_back(&*result.saved);
  }
  return runs;
}

std::vector<double> portfolio_shares(const std::vector<PortfolioMember>& so_far) {
  if (so_far.size() != kPortfolio.size()) {
    throw std::invalid_argument("portfolio_shares: expected one entry per portfolio member");
  }
  double base_total = 0;
  for (const PortfolioShare& s : kPortfolio) base_total += s.share;
  std::vector<double> rates(kPortfolio.size(), 0);
  double rate_total = 0;
  for (std::size_t m = 0; m < kPortfolio.size(); ++m) {
    if (so_far[m].scheduler != kPortfolio[m].kind) {
      throw std::invalid_argument("portfolio_shares: members out of order");
    }
    if (so_far[m].histories > 0) {
      rates[m] =
          static_cast<double>(so_far[m].violations) / static_cast<double>(so_far[m].histories);
    }
    rate_total += rates[m];
  }
  std::vector<double> shares;
  for (std::size_t m = 0; m < kPortfolio.size(); ++m) {
    const double base = kPortfolio[m].share / base_total;
    shares.push_back(rate_total > 0 ? 0.5 * base + 0.5 * rates[m] / rate_total : base);
  }
  return shares;
}

dpct::Workload detection_workload(const targets::Target& target, const DriverOptions& options,
                                  std::uint64_t seed) {
  Plan plan;
  set_role_mixes(plan, target, options);
  dpct::Workload drawn;
  return workload_for(target, options, plan, seed, drawn);
}

namespace {

constexpr std::uint64_t kStrideSalt = 0x5eed;

std::uint64_t stride(std::uint64_t campaign_seed) { return derive(campaign_seed, kStrideSalt) | 1; }

}  // namespace

std::uint64_t history_seed(std::uint64_t campaign_seed, std::uint64_t index) {
  return campaign_seed + index * stride(campaign_seed);  // modulo 2^64
}

std::uint64_t history_index(std::uint64_t campaign_seed, std::uint64_t seed) {
  // The inverse of the odd stride modulo 2^64, by Newton's iteration: a is its own inverse to 3
  // bits, and each step doubles the bits that are right (3, 6, 12, 24, 48, 96).
  const std::uint64_t a = stride(campaign_seed);
  std::uint64_t inverse = a;
  for (int i = 0; i < 5; ++i) inverse *= 2 - a * inverse;
  return (seed - campaign_seed) * inverse;
}

std::uint64_t shard_size(std::uint64_t histories, std::uint64_t index, std::uint64_t count) {
  if (count == 0 || index >= histories) return 0;
  return (histories - 1 - index) / count + 1;
}

DetectionReport run_detection(const targets::Target& target, const DriverOptions& options,
                              const ProgressCallback& progress) {
  validate(target, options);
  const Clock::time_point start = Clock::now();
  const Plan plan =
      options.isolate ? make_plan_in_child(target, options) : make_plan(target, options);
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
  // stop_at_first: the lowest index within the shard of a violation so far. Indices are claimed
  // in increasing order, so a worker that claims a higher one can stop: every lower one has
  // already been claimed and will finish.
  constexpr std::uint64_t kNoViolation = std::numeric_limits<std::uint64_t>::max();
  std::atomic<std::uint64_t> first_failing_j{kNoViolation};
  Progress counters{.total = histories};
  const bool portfolio = plan.kind == SchedulerKind::kPortfolio;
  PortfolioLearner learner(portfolio && options.portfolio_learning && options.shard_count == 1,
                           histories);
  if (portfolio) {
    for (const PortfolioShare& member : kPortfolio) report.portfolio.push_back({member.kind});
  }
  auto fail = [&] {  // with `mutex` held
    if (!error) error = std::current_exception();
    failed = true;
    learner.wake_all();
  };
  // The time limit: no history starts once it has passed. A worker waiting for a portfolio block
  // that will not complete is woken, and abandons its history.
  std::atomic<bool> out_of_time{false};
  auto time_is_up = [&] {
    if (out_of_time.load()) return true;
    if (options.time_limit_seconds <= 0 || ms_since(start) < options.time_limit_seconds * 1000) {
      return false;
    }
    std::lock_guard lock(mutex);
    out_of_time = true;
    learner.wake_all();
    return true;
  };
  // Which histories completed, to cut the results at the first that did not when the time limit
  // ended the campaign (a history may have been claimed and then abandoned).
  std::vector<std::uint8_t> completed(
      options.time_limit_seconds > 0 && !options.on_result ? histories : 0, 0);

  const unsigned jobs = static_cast<unsigned>(std::min<std::uint64_t>(options.jobs, histories));
  // Each worker's fork server is made here, before any worker thread starts, so that its children
  // are copies of a process no other thread holds a lock in (dpct/fork_server.h).
  std::vector<std::unique_ptr<IsolatedWorker>> isolated_workers;
  if (options.isolate) {
    const dpct::ForkServer::Limits limits = IsolatedWorker::limits(options);
    for (unsigned j = 0; j < std::max(jobs, 1u); ++j) {
      isolated_workers.push_back(std::make_unique<IsolatedWorker>(target, options, plan, limits));
    }
  }
  auto worker = [&](unsigned slot) {
    std::optional<Worker> state;  // in process
    IsolatedWorker* const isolated = options.isolate ? isolated_workers[slot].get() : nullptr;
    try {
      if (!isolated) state.emplace(target);
    } catch (...) {
      std::lock_guard lock(mutex);
      fail();
      return;
    }
    // However the worker stops, the orders its executor (or its children's) saw join the report's.
    struct MergeOrders {
      std::optional<Worker>& state;
      IsolatedWorker* isolated;
      std::mutex& mutex;
      std::vector<std::string>& into;
      ~MergeOrders() {
        std::vector<std::string> mine =
            isolated ? isolated->weak_order_sites() : state->executor.weak_order_sites();
        if (mine.empty()) return;
        std::lock_guard lock(mutex);
        std::vector<std::string> merged;
        std::set_union(into.begin(), into.end(), mine.begin(), mine.end(),
                       std::back_inserter(merged));
        into = std::move(merged);
      }
    } merge_orders{state, isolated, mutex, report.weak_order_sites};
    for (std::uint64_t j; !failed.load() && !time_is_up() && (j = next.fetch_add(1)) < histories;) {
      // A history past the first violation is abandoned under stop_at_first; it never completes
      // its portfolio block, so the workers waiting for that block must be woken.
      const auto abandoned = [&] {
        return failed.load() || out_of_time.load() ||
               (options.stop_at_first && j > first_failing_j.load());
      };
      if (abandoned()) {
        std::lock_guard lock(mutex);
        learner.wake_all();
        return;
      }
      const std::uint64_t index = options.shard_index + j * options.shard_count;
      const std::uint64_t seed = history_seed(options.seed, options.histories_before + index);
      std::size_t member = 0;  // the random member in the opening
      const bool drawn = portfolio && options.histories_before + index >= kPortfolioOpening;
      if (drawn) {
        std::unique_lock lock(mutex);
        const std::optional<std::size_t> chosen = learner.member(j, seed, lock, abandoned);
        if (!chosen) return;
        member = *chosen;
      }
      HistoryResult result;
      // One clock read per history ends it and gives the campaign's elapsed time.
      const Clock::time_point began = Clock::now();
      Clock::time_point ended;
      try {
        const SchedulerKind kind = portfolio ? kPortfolio[member].kind : plan.kind;
        result = isolated ? isolated->run(kind, seed)
                          : run_history(*state, target, options, plan, kind, seed);
        ended = Clock::now();
        result.ms = std::chrono::duration<double, std::milli>(ended - began).count();
      } catch (...) {
        std::lock_guard lock(mutex);
        fail();
        return;
      }
      std::lock_guard lock(mutex);
      if (portfolio) {
        const bool violation = result.result == Result::kViolation;
        learner.record(j, member, drawn, violation);
        ++report.portfolio[member].histories;
        report.portfolio[member].violations += violation ? 1 : 0;
      }
      ++report.done;
      report.without_shared_access += result.no_shared_access ? 1 : 0;
      report.total_ms += result.ms;
      ++report.outcomes[static_cast<std::size_t>(result.outcome)];
      if (result.result == Result::kViolation) {
        ++report.violations;
        if (!first_failing_index || index < *first_failing_index) {
          first_failing_index = index;
          report.first_failing_seed = result.seed;
          report.histories_to_first = j + 1;
          first_failing_j = j;
          learner.wake_all();
        }
      } else if (result.result == Result::kUnknown) {
        ++report.unknown;
      }
      try {
        if (options.on_result) {
          options.on_result(report, result);
        } else {
          report.results[j] = std::move(result);
          if (!completed.empty()) completed[j] = 1;
        }
      } catch (...) {
        fail();
        return;
      }
      counters.done = report.done;
      counters.violations = report.violations;
      // Workers publish in lock order, not in the order their clocks were read.
      counters.elapsed_seconds =
          std::max(counters.elapsed_seconds, std::chrono::duration<double>(ended - start).count());
      if (progress) progress(counters);
    }
  };
  if (jobs <= 1) {
    worker(0);
  } else {
    std::vector<std::thread> pool;
    for (unsigned j = 0; j < jobs; ++j) pool.emplace_back(worker, j);
    for (std::thread& thread : pool) thread.join();
  }
  if (error) std::rethrow_exception(error);

  report.time_limited = out_of_time.load() && report.done < histories;
  if (report.time_limited && !options.on_result) {
    const auto first_missing = std::find(completed.begin(), completed.end(), 0);
    report.results.resize(static_cast<std::size_t>(first_missing - completed.begin()));
  }
  if (options.stop_at_first && report.histories_to_first > 0 && !options.on_result) {
    report.results.resize(std::min<std::size_t>(report.results.size(), report.histories_to_first));
  }
  report.avg_ms = report.done > 0 ? report.total_ms / static_cast<double>(report.done) : 0;
  report.wall_seconds = ms_since(start) / 1000;
  return report;
}

ReplayResult replay_saved_run(const SavedRun& saved, const targets::Target& target,
                              bool record_trace, double check_timeout_seconds) {
  if (saved.scheduling.kind == scheduler_kind_name(SchedulerKind::kNative)) {
    throw std::invalid_argument(
        "a native run has no schedule to replay; check its recorded history instead");
  }
  if (saved.schedule.scheduler == kLostSchedule) {
    throw std::invalid_argument(
        "the process that ran this history died before its schedule "
        "was recorded (" +
        saved.message + ")");
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
  check.stuck = dpct::ended_stuck(result.run.outcome);
  result.verdict = check.stuck ? check_history(target.model, result.run.history, check)
                               : check_auto(target.model, result.run.history, check, Algo::kAuto);
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
