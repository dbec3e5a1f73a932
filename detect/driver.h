// The detection driver: the first stage of detect -> localize -> minimize (issue 6, CGVT's
// detection phase, Table II). It draws S random workloads of N threads x M operations from a
// target's generators, runs each under a scheduler, checks each history against the target's
// model and keeps the failing runs (with their schedules) for replay and minimization, unless
// DriverOptions::keep_failing_runs is off.
//
// Schedulers (the three versions of the CGVT paper are B = native, D = dpct, H = dpct + heuristic):
//   native  real OS threads (dpct/native.h): no schedule, cannot be replayed, and cannot stop a
//           livelock, so targets marked may_livelock are refused. With native_noise (the
//           default) each history runs under the ConTest-style noise plan drawn from its seed
//           (dpct/noise.h: yields, spins and short sleeps at a random few accesses): the plan is
//           reproducible, the interleaving of real threads is not;
//   random  a random walk over interleavings (dpct/random_scheduler.h);
//   pct     PCT with depth d and a fixed k: DriverOptions::steps, or (0) the largest number of
//           decisions seen in a few pilot runs under the random scheduler;
//   dpct    PCT whose k comes from a StepEstimator made by DriverOptions::step_estimator (the
//           structure-tree estimator), once per worker and reused run after run. Without one the
//           driver does not pretend: it runs pct with the pilot k and says so in
//           DetectionReport::scheduler ("dpct-fallback ...").
//   pos     partial order sampling (dpct/pos_scheduler.h);
//   surw    selectively uniform random walk (dpct/surw_scheduler.h), each thread weighted by its
//           remaining events from DriverOptions::step_estimator when set, else a constant per
//           operation; revised during the run either way;
//   window  pauses threads inside their read-then-act windows until others complete updates
//           (dpct/window_scheduler.h);
//   portfolio each history runs one member — random, dpct (pct with the pilot k without
//           structure trees), pos, window. The first 64 histories of a search run random walks
//           (the opening: cheap bugs are found as fast as by a random walk alone); after them,
//           each history's member is drawn from its seed by shares (random 2/5, the others
//           1/5 each). Every 64 histories the shares move halfway towards the members' violation
//           rates so far (Coyote's and Fray's portfolios rotate; ours also learns). The shares of
//           a block depend only on earlier, complete blocks, so results do not depend on `jobs`;
//           under --shard (and without portfolio_learning) they stay fixed, so a sharded
//           portfolio campaign is not the unsharded one, which learns (docs/scale-out.md).
//           DetectionReport::portfolio counts per member.
// Workloads: random ones are drawn in the shapes of DriverOptions::shapes (ShapeMix below).
// Heuristic (H, Sec. III-C of the paper: a minimal test case has a thread running a single
// operation in Pc): the concurrent part is cut into rounds separated by barriers. In round r,
// thread r mod N runs exactly one operation while every other thread runs its next `round_ops`
// operations; no operation of round r+1 starts before every operation of round r has returned,
// so every round is a small Pc whose completed predecessors act as its Ps. The scheduler (random,
// pct or dpct) picks interleavings inside a round; RoundScheduler enforces the barriers.
//
// Seeds: history i (0-based) has seed history_seed(seed, i) (below: `seed` itself for i = 0, and
// no seed of another campaign's); its workload and scheduler derive from that seed alone (a
// portfolio's member also from the shares of its block and from its index in the search: the
// opening), so results are the same for every `jobs` and every shard split (but for a learning
// portfolio, see above), and `--seed X --histories 1` reruns history X (under a portfolio, replay
// its saved run instead: the saved run names its member). Pilot runs and the probe of
// methods_that_write use seeds derived from `seed` only.
//
// Checking: a small history (at most 64 operations) is decided by the worker's quick check
// (detect/quick_check.h); the others, and the small ones it cannot decide, as `linfault check`
// decides by default: the model's polynomial monitor when it has one and the history meets its
// preconditions, else the search (detect/monitors/monitor.h: check_auto). A run that ended stuck
// goes to the search, which applies the stuck-history rule.
// Outcomes: a controlled run that deadlocks, livelocks (passes max_steps points) or crashes is
// counted as such and kept as a failing run (with keep_failing_runs); its (partial) history is
// still checked. A check
// that hits check_timeout_seconds is counted as unknown, never as linearizable.
//
// Thread-safety: run_detection may be called concurrently; it runs `jobs` worker threads of its
// own, each with its own Executor and schedulers. The progress callback is called under a lock.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_DETECT_DRIVER_H_
#define LINFAULT_DETECT_DRIVER_H_

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "detect/saved_run.h"
#include "dpct/scheduler.h"
#include "dpct/step_estimator.h"
#include "dpct/weak_reads.h"
#include "dpct/window_scheduler.h"
#include "targets/registry.h"

namespace linfault::detect {

enum class SchedulerKind : std::uint8_t {
  kNative,
  kRandom,
  kPct,
  kDpct,
  kPos,
  kSurw,
  kPortfolio,
  kWindow
};
// Every kind, in the order the command line lists them.
inline constexpr std::array<SchedulerKind, 8> kSchedulerKinds = {
    SchedulerKind::kNative, SchedulerKind::kRandom,   SchedulerKind::kPct,
    SchedulerKind::kDpct,   SchedulerKind::kPos,      SchedulerKind::kSurw,
    SchedulerKind::kWindow, SchedulerKind::kPortfolio};
// "native", "random", "pct", "dpct", "pos", "surw", "window", "portfolio"
const char* scheduler_kind_name(SchedulerKind kind);
std::optional<SchedulerKind> parse_scheduler_kind(std::string_view name);
// The names of kSchedulerKinds but native, and but the portfolio too unless `with_portfolio`,
// as "random, pct, ... or window" for messages that list the choices.
std::string controlled_scheduler_names(bool with_portfolio);

// The shapes of random workloads (DriverOptions::shapes). Which methods write is learnt from
// sequential probe runs of the target (methods_that_write).
//   even    every thread runs M operations drawn uniformly (the CGVT paper's histories);
//   split   when the target has methods that write and methods that only read: N-1 threads of
//           M operations that write against one thread of M operations that read half the time
//           and write the other half (reads against bursts of updates, the shape of ABA and
//           torn-read bugs: pair_snapshot's readpair || 4 writes, size || add; remove; and
//           writes against writes); otherwise the even shape;
//   uneven  one thread runs a single operation that only reads against N-1 threads of M that
//           write (1 || M: the shape of a minimal test case; measured weaker than split for
//           finding bugs, kept for such runs); otherwise one thread of one uniformly drawn
//           operation against N-1 of M;
//   mixed   each history draws even or split with probability 1/2 from its seed; the even
//           histories are exactly those `even` draws for the same seed, and for a target whose
//           methods all write (or none do) every history is.
// Mixed drew even or uneven until 2026-11-27, and took about 1.8 times the histories to the first
// violation (geometric mean over bench/schedulers' targets at 2 x 6 and 2 x 10); its split
// histories' reading thread writes half the time because a thread of reads only cannot meet a bug
// between two writers, which left mixed behind `even` there. Measured: bench/schedulers/README.md.
enum class ShapeMix : std::uint8_t { kEven, kSplit, kUneven, kMixed };
const char* shape_mix_name(ShapeMix mix);  // "even", "split", "uneven", "mixed"
std::optional<ShapeMix> parse_shape_mix(std::string_view name);

// Per operation of `target` (indexed like target.operations), whether it wrote shared memory
// (a store, a successful compare-exchange, an exchange or a fetch-op; locks do not count) in a
// sequential probe run: every method called a few times in a seeded random order on one object
// under the controlled executor. A method whose writes depend on state the probe did not reach
// may be missed; the result only weights workload mixes, never a verdict.
std::vector<bool> methods_that_write(const targets::Target& target, std::uint64_t seed);

// Makes a D-PCT (or SURW) step estimator for the runs of `target`. detect calls it once per
// worker and scheduler kind and reuses the estimator for every run of that worker, so the
// estimator must reset its per-run state in estimate() (dpct/step_estimator.h).
using StepEstimatorFactory =
    std::function<std::unique_ptr<dpct::StepEstimator>(const targets::Target& target)>;

// The default of DriverOptions::write_bias and of `--write-bias` (bench/table2/README.md has the
// detection rates it was chosen by).
inline constexpr double kDefaultWriteBias = 0.5;
// The largest histories and PCT depth run_detection accepts (validate() rejects more).
inline constexpr std::size_t kMaxThreads = 4096;
inline constexpr std::size_t kMaxCallsPerHistory = 10'000'000;
inline constexpr unsigned kMaxDepth = 1000;

// The result of one history.
struct HistoryResult {
  std::uint64_t seed = 0;
  // A controlled run whose calls reached no scheduling point at a shared access (native runs:
  // false): its threads could not be interleaved.
  bool no_shared_access = false;
  SchedulerKind scheduler = SchedulerKind::kPct;  // for a portfolio: the member that ran it
  dpct::RunOutcome outcome = dpct::RunOutcome::kOk;
  Result result = Result::kUnknown;
  double ms = 0;  // execution + check
  // Set for failing runs (a violation, an unknown verdict or a non-ok outcome) when
  // DriverOptions::keep_failing_runs.
  std::optional<SavedRun> saved;
};

struct DetectionReport;

// Streaming: receives each history's result as it completes, with the report so far (its counts
// include this result). Called under the driver's lock, in completion order, from the worker
// threads; the result may be moved from.
using ResultCallback = std::function<void(const DetectionReport& so_far, HistoryResult& result)>;

struct DriverOptions {
  std::size_t threads = 2;          // N
  std::size_t ops_per_thread = 10;  // M
  std::uint64_t histories = 100;    // S
  ShapeMix shapes = ShapeMix::kMixed;
  SchedulerKind scheduler = SchedulerKind::kPct;
  bool heuristic = false;
  std::size_t round_ops = 3;  // heuristic: operations of the other threads per round
  unsigned depth = 3;         // PCT's d
  // pct/dpct: redraw the PCT plan every this many completed operations (PctOptions); 0: one
  // plan per history.
  std::uint64_t epoch_operations = 0;
  // pct/dpct: probability that a change point falling on a load is deferred to the thread's next
  // write-like access (PctOptions::defer_to_write); 0: plain PCT.
  double write_bias = kDefaultWriteBias;
  // window (and the portfolio's window member): where operations may pause.
  dpct::WindowPauses window_pauses = dpct::WindowPauses::kInside;
  std::uint64_t steps = 0;  // PCT's k; 0: learnt from pilot runs
  std::uint64_t pilot_runs = 8;
  std::uint64_t seed = 1;
  unsigned jobs = 1;
  double check_timeout_seconds = 10;    // per history; 0: none
  std::uint64_t max_steps = 200'000;    // executor's cap before a run counts as a livelock
  bool native_noise = true;             // native: delays from dpct::draw_noise_plan(seed)
  StepEstimatorFactory step_estimator;  // kDpct (empty: pct, reported) and kSurw
  // The memory model of the controlled runs (dpct/memory_model.h); nullopt: the target's
  // (targets::Target::memory_model). Under c11 every controlled scheduler, the portfolio's
  // members and the pilot runs too, draws the loads' read decisions by `read_policy`
  // (dpct/weak_reads.h). Native runs are real threads: the hardware's memory model.
  std::optional<dpct::MemoryModel> memory_model;
  dpct::ReadPolicy read_policy;
  // A fixed workload (a user's scenario) run by every history under a fresh schedule, instead of
  // random workloads drawn from the target's generators; `threads` and `ops_per_thread` are then
  // ignored. Its calls must be methods of the target.
  std::optional<dpct::Workload> workload;
  // A shard of the campaign (`--shard i/N`): only the histories whose index i (seed
  // history_seed(seed, i), 0 <= i < histories) has i mod shard_count == shard_index run. Every
  // history's seed, workload and schedule stay those of the whole campaign (pilot runs included),
  // so the shards together run exactly the histories of the unsharded campaign.
  std::uint64_t shard_index = 0;
  std::uint64_t shard_count = 1;
  // Portfolio: learn the members' shares from violations (unsharded campaigns only). Off, every
  // history's member depends on its seed and its index in the search alone, as with `--shard`
  // (minimize::detect_first_failure, which stops at the first violation, runs it off).
  bool portfolio_learning = true;
  // This campaign continues a search whose first `histories_before` histories ran as earlier
  // campaigns (minimize::detect_first_failure's batches) with the same seed: its history i is the
  // search's history histories_before + i, seed and all, and the portfolio's opening of random
  // walks counts from the start of the search, so that every history's member is the same
  // whatever the batch size.
  std::uint64_t histories_before = 0;
  // Keep each failing run: HistoryResult::saved, with its workload, schedule, history and the
  // full checker's verdict. Off (`detect` without --out), failing runs are only counted, and a
  // violation the quick check proves (detect/quick_check.h) skips the full checker, except under
  // a serial specification. The verdict is the same; only the violation's prefix and culprit,
  // which nobody would read, are not computed. (A full check that would have passed
  // check_timeout_seconds and said unknown is, here, the violation the quick check proved.)
  bool keep_failing_runs = true;
  // When set, each result goes here as it completes and DetectionReport::results stays empty:
  // memory no longer grows with the number of histories.
  ResultCallback on_result;
  // Stop the campaign at its first violation (`--stop-at-first`, "histories to the first
  // violation"): no history with a higher index than the lowest-indexed failing one starts
  // afterwards, while those with lower indices still run, so first_failing_seed is the one the
  // whole campaign would report, for every `jobs`. The counts (done, violations, ...) include the
  // histories that were already running with higher indices, so with jobs > 1 they may exceed
  // the index of the first violation + 1.
  bool stop_at_first = false;
  // Run each worker's histories in a child process (`--isolate`, dpct/fork_server.h), for objects
  // whose faults in-process recovery cannot make sound: a double free that makes glibc abort
  // inside malloc, a wild write. The plan's pilot runs run in a child too. A child is replaced
  // after any run that did not end normally, and one that dies or hangs before answering makes
  // its history a crash (a livelock when it hung without a fault) with an unknown verdict, saved
  // with its workload but without a schedule or a history, so it cannot be replayed. The results
  // are those in process while no child is lost (after one, a learning portfolio's later choices
  // may differ). Costs a round trip per history and a fork per replaced child (bench/isolation/).
  bool isolate = false;
  // Stop starting histories once this many seconds have passed since run_detection began
  // (`--time-limit`); 0: no limit. The histories already running finish and are counted in the
  // report's `done`; its `results` stop before the first history that did not run, and
  // `time_limited` says the limit ended the campaign.
  double time_limit_seconds = 0;
};

// How many of `histories` indices the shard `index` of `count` selects.
std::uint64_t shard_size(std::uint64_t histories, std::uint64_t index, std::uint64_t count);

// The seed of history `index` of the campaign with seed `campaign_seed`: the campaign's seed for
// history 0, so `--seed S --histories 1` reruns the history whose seed is S, then steps of an odd
// stride drawn from the campaign's seed. Campaigns with different seeds thus share no history (a
// collision needs i * stride(X) - j * stride(Y) = Y - X for indices i, j of the two campaigns:
// about histories^2 / 2^64 to happen): ten seeds are ten distinct trials.
std::uint64_t history_seed(std::uint64_t campaign_seed, std::uint64_t index);
// The inverse: the index in the campaign `campaign_seed` of the history whose seed is `seed` (a
// seed from another campaign gives some index, almost surely not below its history count).
std::uint64_t history_index(std::uint64_t campaign_seed, std::uint64_t seed);

struct Progress {
  std::uint64_t done = 0;
  std::uint64_t total = 0;
  std::uint64_t violations = 0;
  double elapsed_seconds = 0;
};
using ProgressCallback = std::function<void(const Progress&)>;

// One member of a portfolio campaign: the histories it ran and the violations it found.
struct PortfolioMember {
  SchedulerKind scheduler = SchedulerKind::kRandom;
  std::uint64_t histories = 0;
  std::uint64_t violations = 0;
};

// The portfolio's member shares (summing to 1, in the order of `so_far`, one entry per member
// with its histories and violations in the complete blocks so far): the base shares until a
// violation is found, then half the base shares plus half the members' violation rates
// normalized. Throws std::invalid_argument unless `so_far` lists the portfolio's members in
// order.
std::vector<double> portfolio_shares(const std::vector<PortfolioMember>& so_far);

struct DetectionReport {
  std::string target;
  std::string scheduler;  // what actually ran: "pct d=3 k=40 (k from 8 pilot runs)", ...
  std::vector<PortfolioMember> portfolio;  // --scheduler portfolio: per member; else empty
  std::uint64_t histories = 0;             // run by this shard (all of them when unsharded)
  // Completed so far (== histories at the end, unless stop_at_first or the time limit ended the
  // campaign early).
  std::uint64_t done = 0;
  std::uint64_t violations = 0;
  std::uint64_t unknown = 0;
  std::array<std::uint64_t, 4> outcomes{};  // runs per dpct::RunOutcome
  double total_ms = 0;                      // execution + check, summed over histories
  double avg_ms = 0;                        // per history, execution + check
  double wall_seconds = 0;
  // The seed of the lowest-indexed history with a violation.
  std::optional<std::uint64_t> first_failing_seed;
  // Histories of this shard up to and including the lowest-indexed violation (its index within
  // the shard + 1): "histories to the first violation". 0 when none was found.
  std::uint64_t histories_to_first = 0;
  // DriverOptions::time_limit_seconds passed before every history had started.
  bool time_limited = false;
  // Histories whose calls reached no scheduling point at a shared access (HistoryResult): when
  // it is `done`, nothing was ever interleaved, and no bug could be found.
  std::uint64_t without_shared_access = 0;
  // Access sites ("file.cc:12", sorted) that used a memory order weaker than seq_cst in some
  // controlled history (dpct::Executor::weak_order_sites).
  std::vector<std::string> weak_order_sites;
  // By index; `saved` set for failing runs (with keep_failing_runs). Empty when
  // DriverOptions::on_result is set; with stop_at_first, cut after the first violation.
  std::vector<HistoryResult> results;
  // The runs worth saving (violations, unknown verdicts and non-ok outcomes), by index; empty
  // without DriverOptions::keep_failing_runs.
  std::vector<const SavedRun*> failing_runs() const;
};

// A warning when every one of `histories` (> 0) controlled histories ran its calls without a
// scheduling point at a shared access (`without_shared_access` of them): nothing was interleaved,
// so no bug could show, which is what an object whose shared state is plain std::atomic or
// std::mutex, not instrumented, gives. Empty otherwise. detect, run and the GoogleTest check say
// it.
std::string no_interleaving_warning(const targets::Target& target, std::uint64_t histories,
                                    std::uint64_t without_shared_access);

// A note for a verdict that found nothing when the object used memory orders weaker than
// seq_cst at `sites` (DetectionReport::weak_order_sites): controlled runs are sequentially
// consistent, so what those orders allow (a stale read, a missing release/acquire or fence) was
// not explored. Empty when `sites` is. detect, run, verify and the GoogleTest check say it.
std::string weak_order_note(const targets::Target& target, const std::vector<std::string>& sites);

// The workload that history `seed` of a campaign with `options` runs: the fixed workload, or a
// random one in the campaign's shapes. (Runs the probe of methods_that_write on every call; the
// driver runs it once per campaign.)
dpct::Workload detection_workload(const targets::Target& target, const DriverOptions& options,
                                  std::uint64_t seed);

// Throws std::invalid_argument for options that cannot work (0 threads, native with a
// may_livelock target, heuristic with native, ...), with a one-line message.
DetectionReport run_detection(const targets::Target& target, const DriverOptions& options,
                              const ProgressCallback& progress = nullptr);

// A strict replay of a saved controlled run (dpct/replay_scheduler.h) on a fresh instance of
// `target`, and the check of the history it produces.
struct ReplayResult {
  dpct::Run run;  // with the access trace when asked
  Verdict verdict;
  bool same_history = false;  // the replayed history is the saved one, event for event
};
// Throws dpct::ScheduleDivergence when the run departs from the recorded schedule, and
// std::invalid_argument for a native run (it has no schedule to replay).
ReplayResult replay_saved_run(const SavedRun& saved, const targets::Target& target,
                              bool record_trace, double check_timeout_seconds = 0);

// The heuristic's round barriers (see above) around another scheduler. It follows each thread
// from the points it reports: a thread waiting at the first access of an operation beyond its
// allowance for the current round is held back while any other thread can run; when every
// runnable thread is held, the next round begins. An operation without shared accesses is atomic
// and cannot be held, so it may run ahead of its round. The recorded Schedule is the inner
// scheduler's plus "rounds=<round_ops>".
class RoundScheduler final : public dpct::Scheduler {
 public:
  RoundScheduler(std::unique_ptr<dpct::Scheduler> inner, std::size_t round_ops);

  void begin(const dpct::RunInfo& info) override;
  dpct::ThreadId choose(const dpct::SchedulingPoint& point,
                        std::span<const dpct::ThreadId> enabled) override;
  void end(dpct::Schedule& schedule) override;
  void reseed(std::uint64_t seed) override { inner_->reseed(seed); }
  dpct::MemoryModel memory_model() const override { return inner_->memory_model(); }
  std::size_t choose_read(const dpct::ReadPoint& point,
                          std::span<const dpct::StoreId> candidates) override {
    return inner_->choose_read(point, candidates);
  }

  std::size_t rounds_started() const { return round_ + 1; }

 private:
  bool held(dpct::ThreadId thread) const;
  void next_round();

  std::unique_ptr<dpct::Scheduler> inner_;
  std::size_t round_ops_;
  std::size_t round_ = 0;
  std::vector<std::size_t> allowance_;   // operations each thread may have started
  std::vector<std::size_t> waiting_op_;  // operation whose first access the thread waits at
  std::vector<bool> at_op_start_;
  std::vector<dpct::ThreadId> allowed_;
};

}  // namespace linfault::detect

#endif  // LINFAULT_DETECT_DRIVER_H_
