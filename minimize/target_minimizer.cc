#include "minimize/target_minimizer.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>

#include "detect/checker.h"
#include "dpct/exhaustive.h"
#include "dpct/pct_scheduler.h"
#include "dpct/random_scheduler.h"
#include "dpct/replay_scheduler.h"
#include "dpct/weak_reads.h"
#include "localize/localize.h"
#include "spec/registry.h"
#include "targets/registry.h"

namespace linfault::minimize {
namespace {

// Every search below is bounded by counts, never by the clock, so that the test case and the
// counts found do not depend on the machine's speed (the whole minimization's time limit aside).
// Besides executions, a search is bounded by its work: the scheduling points of its runs plus
// kWorkPerOperation per recorded operation (running the sequential parts, checking the history).
// That bounds the searches on objects whose runs are long, as caps in seconds used to; a unit is
// about a quarter of a microsecond on the 2-core machine these were calibrated on (2026-11).
constexpr std::uint64_t kWorkPerOperation = 8;
constexpr std::uint64_t kWorkPerSecond = 4'000'000;
// The search for the simplest failing schedule: preemption bounds tried, and its work budget.
constexpr unsigned kSimplestScheduleMaxBound = 4;
constexpr std::uint64_t kSimplestScheduleWork = 5 * kWorkPerSecond;
// Shrinking from the starting points after the first: a budget of executions, at least this
// many and twice the first shrinking's, and of work, likewise.
constexpr std::uint64_t kOtherStartsMinExecutions = 25'000;
constexpr std::uint64_t kOtherStartsMinWork = 5 * kWorkPerSecond;

using Clock = std::chrono::steady_clock;
using history::Call;
using history::History;
using history::OpIndex;
using history::Value;

// ---------------------------------------------------------------------------------------------
// Model helpers (static dispatch over the built-in models).

// Applies the ops `order` of `history` with their recorded results; nullopt when the model
// rejects one (or has no build()). Returns the shortest calls that build the state reached.
std::optional<std::vector<Call>> build_state_of(const std::string& model, const History& history,
                                                const std::vector<OpIndex>& order) {
  return spec::visit_model(model, [&](const auto& m) -> std::optional<std::vector<Call>> {
    using M = std::decay_t<decltype(m)>;
    if constexpr (spec::BuildableModel<M>) {
      if constexpr (std::is_same_v<M, spec::ErasedModel>) {
        if (!m.can_build()) return std::nullopt;
      }
      auto state = m.initial();
      for (OpIndex i : order) {
        auto compiled = m.compile(history.op(i));
        if (std::holds_alternative<spec::ModelError>(compiled)) return std::nullopt;
        if (const auto* op = std::get_if<typename M::Op>(&compiled)) {
          if (!m.step(state, *op)) return std::nullopt;
        }
      }
      return m.build(state);
    } else {
      return std::nullopt;
    }
  });
}

// The partition key of `op` for models checked one key at a time (set, kv), else nullopt.
std::optional<Value> partition_key_of(const std::string& model, const history::Operation& op) {
  return spec::visit_model(model, [&](const auto& m) -> std::optional<Value> {
    using M = std::decay_t<decltype(m)>;
    if constexpr (spec::PartitionableModel<M>) {
      return m.partition_key(op);
    } else {
      return std::nullopt;
    }
  });
}

// Applies `calls` in order as operations whose results are not known (the model takes each
// one's effect), then asks the model for the calls that reveal the state reached.
std::vector<Call> reveal_after(const std::string& model, const std::vector<Call>& calls) {
  return spec::visit_model(model, [&](const auto& m) -> std::vector<Call> {
    using M = std::decay_t<decltype(m)>;
    if constexpr (spec::RevealableModel<M>) {
      if constexpr (std::is_same_v<M, spec::ErasedModel>) {
        if (!m.can_reveal()) return {};
      }
      auto state = m.initial();
      for (const Call& call : calls) {
        history::Operation op;
        op.call = call;
        op.outcome = history::Outcome::kPending;
        auto compiled = m.compile(op);
        if (const auto* o = std::get_if<typename M::Op>(&compiled)) {
          auto next = state;
          if (m.step(next, *o)) state = std::move(next);
        }
      }
      return m.reveal(state);
    } else {
      return {};
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Candidates.

struct Candidate {
  std::vector<Call> ps;
  std::vector<std::vector<Call>> pc;
  std::vector<Call> pr;
  // The process of the failing history (or the thread of the reference run) each Pc thread came
  // from, so a recorded schedule can be projected onto the threads that remain.
  std::vector<std::uint32_t> origin;

  std::size_t pc_ops() const {
    std::size_t n = 0;
    for (const auto& t : pc) n += t.size();
    return n;
  }
  std::size_t size() const { return ps.size() + pc_ops() + pr.size(); }
  dpct::Workload workload() const { return dpct::Workload{ps, pc, pr}; }
  void drop_empty_threads() {
    for (std::size_t t = pc.size(); t-- > 0;) {
      if (pc[t].empty()) {
        pc.erase(pc.begin() + static_cast<std::ptrdiff_t>(t));
        origin.erase(origin.begin() + static_cast<std::ptrdiff_t>(t));
      }
    }
  }
  std::string shape() const {
    std::string s;
    for (std::size_t t = 0; t < pc.size(); ++t) s += (t ? "|" : "") + std::to_string(pc[t].size());
    return std::to_string(ps.size()) + "/" + (s.empty() ? "0" : s) + "/" +
           std::to_string(pr.size());
  }
};

// Address of one Pc operation.
struct PcPosition {
  std::size_t thread;
  std::size_t index;
};

Candidate without(const Candidate& c, const std::vector<PcPosition>& removed) {
  Candidate out = c;
  std::vector<std::vector<bool>> drop(c.pc.size());
  for (std::size_t t = 0; t < c.pc.size(); ++t) drop[t].assign(c.pc[t].size(), false);
  for (const PcPosition& p : removed) drop[p.thread][p.index] = true;
  for (std::size_t t = 0; t < c.pc.size(); ++t) {
    out.pc[t].clear();
    for (std::size_t i = 0; i < c.pc[t].size(); ++i) {
      if (!drop[t][i]) out.pc[t].push_back(c.pc[t][i]);
    }
  }
  out.drop_empty_threads();
  return out;
}

std::vector<PcPosition> pc_positions(const Candidate& c) {
  std::vector<PcPosition> out;
  for (std::size_t t = 0; t < c.pc.size(); ++t) {
    for (std::size_t i = 0; i < c.pc[t].size(); ++i) out.push_back({t, i});
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// CHECK.

// How hard CHECK tries before calling a candidate correct.
struct CheckEffort {
  std::uint64_t sampled = 0;
  std::uint64_t exhaustive_executions = 0;
  std::uint64_t sampling_work = 0;     // cap on the sampling phase's work
  std::uint64_t enumeration_work = 0;  // cap on each enumeration's work (then: not exhausted)
};

// The work of one run (see kWorkPerOperation).
std::uint64_t work_of(const dpct::Run& run) {
  return run.steps + kWorkPerOperation * run.history.size();
}

struct CheckResult {
  std::optional<dpct::Run> failing;
  // No schedule fails and the enumeration was complete (within `bound`, if any).
  bool exhausted = false;
  std::optional<unsigned> bound;
  std::string found_by;  // "replay", "sampling", "enumeration"
};

// A store no read decision names: a lenient replay reads the newest store for it.
constexpr dpct::StoreId kNoStore{dpct::StoreId::kInitialWriter - 1,
                                 std::numeric_limits<std::uint32_t>::max(),
                                 std::numeric_limits<std::uint32_t>::max()};

class Minimizer {
 public:
  // Stops at `deadline`, by default options.timeout_seconds from now.
  Minimizer(const targets::Target& target, const TargetMinimizerOptions& options,
            dpct::RunOutcome failing_outcome, dpct::MemoryModel memory_model,
            std::optional<Clock::time_point> deadline = std::nullopt)
      : target_(target),
        options_(options),
        failing_outcome_(failing_outcome),
        memory_model_(memory_model),
        tells_blocking_(detect::model_tells_blocking(target.model)),
        start_(Clock::now()),
        deadline_(deadline.value_or(start_ +
                                    std::chrono::duration_cast<Clock::duration>(
                                        std::chrono::duration<double>(options.timeout_seconds)))) {
    execution_.record_history = true;
    execution_.record_points = true;
    execution_.max_steps = options.max_steps;
    execution_.origin = "minimize";
    for (const targets::OperationSpec& op : target.operations) methods_.insert(op.method);
  }

  dpct::MemoryModel memory_model() const { return memory_model_; }

  // The fewest stale reads `run` fails with (weak memory): each read decision that read an older
  // store is replaced, in turn, by reading the newest, kept when the run still fails with fewer
  // stale reads and the same thread decisions. Returns the run it ends with.
  dpct::Run fewest_stale_reads(const Candidate& c, dpct::Run run) {
    if (memory_model_ != dpct::MemoryModel::kC11) return run;
    const dpct::Workload workload = c.workload();
    execution_.max_steps = step_cap(c);
    bool shrunk = true;
    while (shrunk && run.stale_reads > 0 && !out_of_time()) {
      shrunk = false;
      for (std::size_t i = 0; i < run.schedule.reads.size() && !out_of_time(); ++i) {
        dpct::Schedule trial = run.schedule;
        trial.reads[i] = kNoStore;  // matches no candidate: the lenient replay reads the newest
        dpct::ReplayScheduler replay(trial, dpct::ReplayMode::kLenient);
        dpct::Run candidate = execute(workload, replay);
        // Only with the same thread decisions: the proof's preemption and switch counts describe
        // them.
        if (candidate.stale_reads < run.stale_reads &&
            candidate.schedule.decisions == run.schedule.decisions && fails(candidate)) {
          run = std::move(candidate);
          shrunk = true;
          break;
        }
      }
    }
    return run;
  }

  // Past the deadline, or past the current stage's budget.
  bool out_of_time() const { return Clock::now() >= deadline_ || stage_over(); }
  Clock::time_point deadline() const { return deadline_; }
  // The current stage's budget: after `executions` more executions or `work` more work,
  // whichever comes first, work stops as at the deadline.
  void set_stage_budget(std::uint64_t executions, std::uint64_t work) {
    stage_executions_ = executions_ + executions;
    stage_work_ = work_ + work;
  }
  void clear_stage_budget() {
    stage_executions_ = std::numeric_limits<std::uint64_t>::max();
    stage_work_ = std::numeric_limits<std::uint64_t>::max();
  }
  bool stage_over() const { return executions_ >= stage_executions_ || work_ >= stage_work_; }
  double elapsed_ms() const {
    return std::chrono::duration<double, std::milli>(Clock::now() - start_).count();
  }
  std::uint64_t executions() const { return executions_; }
  std::uint64_t work() const { return work_; }
  // Searches a clock cut short (TargetMinimization::cut_by_time).
  std::uint64_t cut_by_time() const { return cut_by_time_; }
  void count_cut_by_time() { ++cut_by_time_; }
  std::size_t candidates() const { return candidates_; }
  const std::set<std::string>& methods() const { return methods_; }
  // `calls` the model made up (build, reveal) with each method spelled as the target names it:
  // a queue bound as enqueue/dequeue gets enqueue(3), not the model's enq(3).
  std::vector<Call> in_target_names(std::vector<Call> calls) const {
    for (Call& call : calls) {
      if (methods_.count(call.method)) continue;
      for (const std::string& alias : spec::method_aliases(target_.model, call.method)) {
        if (methods_.count(alias)) {
          call.method = alias;
          break;
        }
      }
    }
    return calls;
  }

  bool fails(const dpct::Run& run) {
    // A stuck failure (the run to minimize deadlocked) under a model that knows blocking is
    // judged by Line-Up's rule, so that a candidate that blocks where the object may block (a
    // serial specification's own blocking) is no failure. Failures of other kinds keep to their
    // kind: a candidate that merely deadlocks does not reproduce a wrong result.
    if (tells_blocking_ && dpct::ended_stuck(failing_outcome_)) {
      if (!dpct::ended_stuck(run.outcome)) return false;
      detect::CheckOptions check = options_.check;
      check.stuck = true;
      const detect::Verdict verdict = detect::check_history(target_.model, run.history, check);
      return verdict.result == detect::Result::kViolation && verdict.stuck;
    }
    if (failing_outcome_ != dpct::RunOutcome::kOk) return run.outcome == failing_outcome_;
    if (run.outcome == dpct::RunOutcome::kCrash) return false;
    return detect::check_history(target_.model, run.history, options_.check).result ==
           detect::Result::kViolation;
  }

  // The failing schedule of `c` with the fewest preemptions, then the fewest context switches:
  // all schedules with at most 0, 1, ... `max_bound` preemptions are enumerated (no reduction:
  // equivalent schedules differ in how simple they read) until one fails; among the failing
  // ones with that bound, the one with the fewest switches. `proven` when that enumeration was
  // complete.
  struct Simplest {
    dpct::Run run;
    unsigned preemptions = 0;
    std::size_t switches = 0;
    bool proven = false;
  };
  std::optional<Simplest> simplest_failing(const Candidate& c, unsigned max_bound,
                                           std::uint64_t work_budget) {
    const dpct::Workload workload = c.workload();
    execution_.max_steps = step_cap(c);
    const std::uint64_t work_end = end_of_work(work_budget);
    for (unsigned bound = 0; bound <= max_bound; ++bound) {
      dpct::ExhaustiveOptions ex;
      ex.max_preemptions = bound;
      ex.memory_model = memory_model_;
      ex.max_executions = options_.exhaustive_executions;
      ex.execution = execution_;
      ex.deadline = deadline_;
      std::optional<Simplest> best;
      Stop stopped = Stop::kNo;
      const dpct::ExhaustiveResult r = dpct::explore_exhaustively(
          executor_, target_.factory, workload, ex, [&](const dpct::Run& run) {
            if ((stopped = count_run(run, work_end)) != Stop::kNo) return true;
            if (!fails(run)) return false;
            const std::size_t switches = context_switches(run.schedule);
            if (!best || switches < best->switches ||
                (switches == best->switches && run.stale_reads < best->run.stale_reads)) {
              best = Simplest{run, bound, switches, false};
            }
            return false;
          });
      if (stopped == Stop::kClock || r.timed_out) ++cut_by_time_;
      if (best) {
        best->proven = r.exhausted && stopped == Stop::kNo;
        return best;
      }
      if (stopped != Stop::kNo || !r.exhausted) return std::nullopt;
    }
    return std::nullopt;
  }

  // One enumeration of a candidate's interleavings (partial-order reduced unless bounded).
  struct Enumeration {
    std::optional<dpct::Run> failing;
    bool exhausted = false;
    bool stopped = false;  // by its work budget or the deadline: neither answer
    // Whether it answers the check: a failure found, or none in the whole space.
    bool settles(CheckResult& result, std::optional<unsigned> bound) const {
      if (failing) {
        result.failing = failing;
        result.found_by = "enumeration";
        return true;
      }
      if (exhausted) {
        result.exhausted = true;
        result.bound = bound;
        return true;
      }
      return false;
    }
  };
  Enumeration enumerate(const dpct::Workload& workload, std::optional<unsigned> bound,
                        std::uint64_t budget, std::uint64_t work_budget) {
    dpct::ExhaustiveOptions ex;
    ex.max_preemptions = bound;
    ex.memory_model = memory_model_;
    ex.max_executions = budget;
    ex.execution = execution_;
    ex.deadline = deadline_;
    const std::uint64_t work_end = end_of_work(work_budget);
    Enumeration out;
    Stop stopped = Stop::kNo;
    dpct::ExhaustiveResult found = dpct::explore_exhaustively(
        executor_, target_.factory, workload, ex, [&](const dpct::Run& run) {
          if ((stopped = count_run(run, work_end)) != Stop::kNo) return true;
          return fails(run);
        });
    // The deadline, seen by the callback or by the enumeration itself (after every run), is
    // the only stop that depends on the clock.
    if (stopped == Stop::kClock || found.timed_out) ++cut_by_time_;
    if (stopped != Stop::kNo) {
      out.stopped = true;
      return out;
    }
    out.failing = std::move(found.found);
    out.exhausted = found.exhausted;
    return out;
  }

  // Decisions that ran another thread than the one at an access point: not the first pick, nor a
  // switch after a thread finished or blocked.
  static std::size_t context_switches(const dpct::Schedule& schedule) {
    std::size_t switches = 0;
    for (std::size_t i = 0; i < schedule.points.size() && i < schedule.decisions.size(); ++i) {
      const dpct::PointTag& at = schedule.points[i];
      if (at.kind == dpct::PointKind::kAccess && at.thread != schedule.decisions[i]) ++switches;
    }
    return switches;
  }

  dpct::Run execute(const dpct::Workload& workload, dpct::Scheduler& scheduler) {
    dpct::Run run = executor_.execute(target_.factory, workload, scheduler, execution_);
    tally(run);
    return run;
  }
  // Every run, whoever executed it, counts once in the executions and the work.
  void tally(const dpct::Run& run) {
    ++executions_;
    work_ += work_of(run);
  }

  // Why a search stops early: its budget of work (the same on every machine) or the deadline.
  enum class Stop { kNo, kWork, kClock };
  // The work counter's value at which a search given `budget` stops: its own budget, or the
  // current stage's, whichever ends first.
  std::uint64_t end_of_work(std::uint64_t budget) const {
    return std::min(stage_work_, work_ + budget);
  }
  // Counts a run of a search that stops at `work_end` or at the deadline (looked at every 64
  // runs: the clock costs more than a small run's bookkeeping).
  Stop count_run(const dpct::Run& run, std::uint64_t work_end) {
    tally(run);
    if (work_ >= work_end) return Stop::kWork;
    if ((executions_ & 63) == 0 && Clock::now() >= deadline_) return Stop::kClock;
    return Stop::kNo;
  }

  void set_reference(const dpct::Schedule& schedule, std::vector<std::uint32_t> origin) {
    reference_ = schedule;
    reference_origin_ = std::move(origin);
  }

  // A small candidate finishes in a few hundred scheduling points; a run far beyond that is
  // spinning (a livelock), and letting it reach the detection cap would make each such
  // schedule cost milliseconds. A livelock failure keeps the cap it was found with.
  std::uint64_t step_cap(const Candidate& c) const {
    if (failing_outcome_ == dpct::RunOutcome::kLivelock) return options_.max_steps;
    return std::min<std::uint64_t>(options_.max_steps, 2000 + 200 * c.size());
  }

  CheckResult check(const Candidate& c, const CheckEffort& effort) {
    ++candidates_;
    CheckResult result;
    const dpct::Workload workload = c.workload();
    // A workload the object's contract excludes (two producers of a single-producer queue)
    // shows no bug of the object, whatever it does.
    if (targets::roles_problem(target_, workload)) return result;
    execution_.max_steps = step_cap(c);
    if (c.pc.empty()) {  // sequential: one schedule
      dpct::RandomScheduler scheduler(options_.seed);
      dpct::Run run = execute(workload, scheduler);
      if (fails(run)) {
        result.failing = std::move(run);
        result.found_by = "enumeration";
      } else {
        result.exhausted = true;
      }
      return result;
    }
    // 1. The reference schedule projected onto the remaining threads.
    if (reference_) {
      dpct::ReplayScheduler replay(project(*reference_, c.origin), dpct::ReplayMode::kLenient);
      dpct::Run run = execute(workload, replay);
      if (fails(run)) {
        result.failing = std::move(run);
        result.found_by = "replay";
        return result;
      }
    }
    // 2. A short enumeration first: with partial-order reduction a small candidate's
    // interleavings are often fewer than the samples below, and then its answer is exact.
    if (effort.exhaustive_executions != 0) {
      const std::uint64_t budget =
          std::min(effort.exhaustive_executions, std::max<std::uint64_t>(2 * effort.sampled, 64));
      const Enumeration e = enumerate(workload, std::nullopt, budget, effort.enumeration_work);
      if (e.settles(result, std::nullopt)) return result;
    }
    // 3. Fresh schedules: PCT / D-PCT of depth 1..3, every fourth a random walk.
    const std::uint64_t sampling_work_end = end_of_work(effort.sampling_work);
    std::uint64_t k = 0;
    for (std::uint64_t i = 0; i < effort.sampled && work_ < sampling_work_end; ++i) {
      if ((i & 15) == 15 && Clock::now() >= deadline_) {
        ++cut_by_time_;
        break;
      }
      const std::uint64_t seed = options_.seed * 0x9E3779B97F4A7C15ull + sample_counter_++;
      std::unique_ptr<dpct::Scheduler> scheduler;
      if (i % 4 == 3) {
        scheduler = std::make_unique<dpct::RandomScheduler>(seed);
      } else {
        dpct::PctOptions pct{.seed = seed,
                             .depth = static_cast<unsigned>(i % 4) + 1,
                             .steps = std::max<std::uint64_t>(k, 1)};
        if (options_.step_estimator) {
          scheduler = std::make_unique<dpct::PctScheduler>(pct, options_.step_estimator(target_));
        } else {
          scheduler = std::make_unique<dpct::PctScheduler>(pct);
        }
      }
      scheduler = sampling(std::move(scheduler), seed);
      dpct::Run run = execute(workload, *scheduler);
      k = std::max<std::uint64_t>(k, run.schedule.decisions.size());
      if (fails(run)) {
        result.failing = std::move(run);
        result.found_by = "sampling";
        return result;
      }
    }
    // 4. Enumeration: all interleavings, then within the preemption bound.
    if (effort.exhaustive_executions == 0) return result;
    for (std::optional<unsigned> bound :
         {std::optional<unsigned>(), std::optional<unsigned>(options_.preemption_bound)}) {
      const Enumeration e =
          enumerate(workload, bound, effort.exhaustive_executions, effort.enumeration_work);
      if (e.stopped) return result;
      if (e.settles(result, bound)) return result;
    }
    return result;
  }

  // Checks `c`; on failure makes its failing schedule the new reference and returns true.
  bool accept_if_buggy(const Candidate& c, const CheckEffort& effort, dpct::Run* failing) {
    CheckResult r = check(c, effort);
    if (!r.failing) return false;
    set_reference(r.failing->schedule, c.origin);
    *failing = std::move(*r.failing);
    return true;
  }

 private:
  // The reference decisions, renamed to the candidate's thread numbers; decisions of threads
  // that are gone are dropped (a lenient replay fills the gaps).
  dpct::Schedule project(const dpct::Schedule& reference,
                         const std::vector<std::uint32_t>& origin) const {
    dpct::Schedule out;
    out.scheduler = reference.scheduler;
    out.parameters = reference.parameters;
    std::map<std::uint32_t, dpct::ThreadId> thread_of_origin;
    for (std::size_t t = 0; t < origin.size(); ++t) {
      thread_of_origin[origin[t]] = static_cast<dpct::ThreadId>(t);
    }
    for (dpct::ThreadId d : reference.decisions) {
      if (d >= reference_origin_.size()) continue;
      auto it = thread_of_origin.find(reference_origin_[d]);
      if (it != thread_of_origin.end()) out.decisions.push_back(it->second);
    }
    // Read decisions name their stores' writers: renamed likewise. A store of a thread that is
    // gone, or counted differently now, matches no candidate, and the lenient replay reads the
    // newest store there.
    out.memory_model = reference.memory_model;
    for (dpct::StoreId id : reference.reads) {
      if (!id.initial() && id.thread < reference_origin_.size()) {
        auto it = thread_of_origin.find(reference_origin_[id.thread]);
        if (it != thread_of_origin.end()) id.thread = it->second;
      }
      out.reads.push_back(id);
    }
    return out;
  }

  // A sampling scheduler as the memory model wants it: drawing read decisions under c11.
  std::unique_ptr<dpct::Scheduler> sampling(std::unique_ptr<dpct::Scheduler> scheduler,
                                            std::uint64_t seed) const {
    if (memory_model_ != dpct::MemoryModel::kC11) return scheduler;
    return std::make_unique<dpct::WeakReadScheduler>(std::move(scheduler), dpct::ReadPolicy{},
                                                     seed);
  }

  const targets::Target& target_;
  const TargetMinimizerOptions& options_;
  dpct::RunOutcome failing_outcome_;
  dpct::MemoryModel memory_model_;
  bool tells_blocking_;
  Clock::time_point start_;
  Clock::time_point deadline_;
  std::uint64_t stage_executions_ = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t stage_work_ = std::numeric_limits<std::uint64_t>::max();
  dpct::Executor executor_;
  dpct::ExecutionOptions execution_;
  std::set<std::string> methods_;
  std::optional<dpct::Schedule> reference_;
  std::vector<std::uint32_t> reference_origin_;
  std::uint64_t executions_ = 0;
  std::uint64_t work_ = 0;  // of every run so far (work_of)
  std::uint64_t cut_by_time_ = 0;
  std::uint64_t sample_counter_ = 0;
  std::size_t candidates_ = 0;
};

// ---------------------------------------------------------------------------------------------
// The failing history, split by process.

// Operations of `history` invoked within its first `events` events, by process, in program order.
std::map<history::ProcessId, std::vector<OpIndex>> ops_by_process(const History& history,
                                                                  std::size_t events) {
  std::map<history::ProcessId, std::vector<OpIndex>> out;
  const std::vector<history::Event>& ev = history.events();
  for (std::size_t e = 0; e < events && e < ev.size(); ++e) {
    if (ev[e].kind == history::Event::Kind::kCall) {
      out[history.op(ev[e].op).process].push_back(ev[e].op);
    }
  }
  return out;
}

// What the minimizer starts from.
struct Input {
  History history;
  dpct::Workload workload;  // the calls as they were run (Pc thread = process)
  std::vector<std::uint32_t> origin;
  std::optional<dpct::Schedule> schedule;
  dpct::RunOutcome outcome = dpct::RunOutcome::kOk;
};

std::string calls_text(const std::vector<Call>& calls) {
  std::string out;
  for (std::size_t i = 0; i < calls.size(); ++i) out += (i ? "; " : "") + calls[i].to_string();
  return out.empty() ? "(none)" : out;
}

std::string candidate_text(const Candidate& c) {
  std::string pc;
  for (std::size_t t = 0; t < c.pc.size(); ++t) pc += (t ? " || " : "") + calls_text(c.pc[t]);
  return "Ps: " + calls_text(c.ps) + "  Pc: " + (pc.empty() ? "(none)" : pc) +
         "  Pr: " + calls_text(c.pr);
}

// The memory model of every run: the failing run's (its schedule says), else the options', else
// the target's.
dpct::MemoryModel memory_model_of(const targets::Target& target,
                                  const TargetMinimizerOptions& options, const Input& input) {
  if (input.schedule) return input.schedule->memory_model;
  return options.memory_model.value_or(target.memory_model);
}

class Pipeline {
 public:
  Pipeline(const targets::Target& target, const TargetMinimizerOptions& options, Input input)
      : target_(target),
        options_(options),
        input_(std::move(input)),
        minimizer_(target, options, input_.outcome, memory_model_of(target, options, input_)) {}

  TargetMinimization run() {
    TargetMinimization result;
    result.original_operations = input_.history.size();
    localize_stage(result);
    choose_ps_stage();
    // Greedy shrinking reaches a 1-minimal test case, not always the smallest: shrink from the
    // other starting points too while time allows, and keep the smallest Pc.
    // The other starting points rarely give a smaller Pc: they share a budget of twice the
    // first shrinking's executions and work (kOtherStartsMinExecutions, kOtherStartsMinWork at
    // least).
    std::vector<Start> starts = std::move(starts_);
    Candidate smallest;
    dpct::Run smallest_run;
    const std::uint64_t shrinking_began_executions = minimizer_.executions();
    const std::uint64_t shrinking_began_work = minimizer_.work();
    for (std::size_t i = 0; i < starts.size(); ++i) {
      if (i > 0 && (smallest.pc_ops() <= 2 || minimizer_.stage_over())) break;
      if (i > 0 && minimizer_.elapsed_ms() > options_.timeout_seconds * 1000 / 3) {
        minimizer_.count_cut_by_time();
        break;
      }
      if (i == 1) {
        const std::uint64_t first_executions = minimizer_.executions() - shrinking_began_executions;
        const std::uint64_t first_work = minimizer_.work() - shrinking_began_work;
        minimizer_.set_stage_budget(std::max(kOtherStartsMinExecutions, 2 * first_executions),
                                    std::max(kOtherStartsMinWork, 2 * first_work));
      }
      best_ = std::move(starts[i].candidate);
      best_run_ = std::move(starts[i].run);
      minimizer_.set_reference(best_run_.schedule, best_.origin);
      if (i > 0) progress("another starting point: " + best_.shape() + " (Ps/Pc/Pr sizes)");
      shrink_stage();
      if (i == 0 || smaller(best_, smallest)) {
        smallest = best_;
        smallest_run = best_run_;
      }
    }
    if (minimizer_.stage_over()) progress("other starting points: their budget is used up");
    minimizer_.clear_stage_budget();
    best_ = std::move(smallest);
    best_run_ = std::move(smallest_run);
    minimizer_.set_reference(best_run_.schedule, best_.origin);
    verify_stage(result);
    finish(result);
    return result;
  }

 private:
  void progress(const std::string& text) {
    char at[32];
    std::snprintf(at, sizeof at, "[%.1f s] ", minimizer_.elapsed_ms() / 1000);
    const std::string line = at + text;
    log_.push_back(line);
    if (options_.progress) options_.progress(line);
  }

  CheckEffort shrinking_effort(const Candidate& c) const {
    CheckEffort e;
    e.sampled = options_.sampled_schedules;
    e.sampling_work = (c.size() > 40 ? 3 : 20) * kWorkPerSecond / 10;
    e.exhaustive_executions = c.pc_ops() <= 6 ? options_.exhaustive_executions / 4 : 0;
    e.enumeration_work = kWorkPerSecond / 2;
    return e;
  }
  CheckEffort final_effort() const {
    return CheckEffort{options_.sampled_schedules, options_.exhaustive_executions,
                       5 * kWorkPerSecond, 20 * kWorkPerSecond};
  }

  bool try_candidate(const Candidate& c) {
    if (minimizer_.out_of_time()) return false;
    dpct::Run failing;
    if (!minimizer_.accept_if_buggy(c, shrinking_effort(c), &failing)) return false;
    best_ = c;
    best_run_ = std::move(failing);
    return true;
  }

  // a. Localize: H_p(b), its culprit and the witnesses of its prefixes.
  void localize_stage(TargetMinimization& result) {
    const auto t0 = Clock::now();
    if (input_.outcome == dpct::RunOutcome::kOk) {
      loc_ = localize::localize(target_.model, input_.history, options_.check);
      if (loc_.verdict.result != detect::Result::kViolation) {
        throw std::invalid_argument(
            "the history is " + std::string(detect::result_name(loc_.verdict.result)) +
            ": nothing to minimize" +
            (loc_.verdict.reason.empty() ? "" : " (" + loc_.verdict.reason + ")"));
      }
      result.prefix_events = loc_.prefix_events;
    } else {
      result.prefix_events = input_.history.events().size();
    }
    result.localize_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    progress("localized: " + std::to_string(input_.history.size()) + " operations, shortest " +
             "failing prefix " + std::to_string(result.prefix_events) + " events, " +
             std::to_string(loc_.op_order.size()) + " witnesses (" +
             std::to_string(static_cast<long>(result.localize_ms)) + " ms)");
  }

  // b. Choose Ps from the witnesses, largest first; fall back to the run as it was.
  void choose_ps_stage() {
    if (input_.schedule) minimizer_.set_reference(*input_.schedule, input_.origin);
    if (input_.outcome == dpct::RunOutcome::kOk) {
      const auto by_process = ops_by_process(input_.history, loc_.prefix_events);
      std::size_t tried = 0;
      for (const localize::Witness& w : loc_.op_order) {
        if (tried++ == 6 || minimizer_.out_of_time()) break;
        if (input_.schedule) minimizer_.set_reference(*input_.schedule, input_.origin);
        std::optional<std::vector<Call>> ps =
            build_state_of(target_.model, input_.history, w.order);
        if (ps) ps = minimizer_.in_target_names(std::move(*ps));
        if (!ps) {
          ps.emplace();
          for (OpIndex i : w.order) ps->push_back(input_.history.op(i).call);
        }
        const std::set<OpIndex> in_witness(w.order.begin(), w.order.end());
        // A history checked one key at a time failed on one key, and w covers that key's
        // operations only: try a Pc of that key's operations first, then all of them.
        for (bool only_failing_key : {true, false}) {
          if (only_failing_key && !loc_.verdict.partition_key) continue;
          Candidate c;
          c.ps = *ps;
          for (const auto& [process, ops] : by_process) {
            std::vector<Call> thread;
            for (OpIndex i : ops) {
              if (in_witness.count(i)) continue;
              if (only_failing_key && partition_key_of(target_.model, input_.history.op(i)) !=
                                          loc_.verdict.partition_key) {
                continue;
              }
              thread.push_back(input_.history.op(i).call);
            }
            c.pc.push_back(std::move(thread));
            c.origin.push_back(static_cast<std::uint32_t>(process));
          }
          c.drop_empty_threads();
          if (try_witness_candidate(c, w, only_failing_key)) break;
        }
        if (starts_.size() == kMaxStarts) return;
      }
      if (!starts_.empty()) return;
    }
    // The operations of the failing prefix as they ran, then the whole run.
    Candidate prefix;
    prefix.ps = input_.workload.setup;
    prefix.pc = input_.workload.threads;
    prefix.origin = input_.origin;
    if (input_.outcome == dpct::RunOutcome::kOk) {
      const auto by_process = ops_by_process(input_.history, loc_.prefix_events);
      for (std::size_t t = 0; t < prefix.pc.size(); ++t) {
        auto it = by_process.find(prefix.origin[t]);
        std::size_t keep = it == by_process.end() ? 0 : it->second.size();
        if (t == 0) keep -= std::min(keep, input_.workload.setup.size());
        prefix.pc[t].resize(std::min(prefix.pc[t].size(), keep));
      }
      prefix.drop_empty_threads();
      if (try_candidate(prefix)) {
        progress("no witness gave a failing Ps; the failing prefix as it ran: " + prefix.shape());
        add_start();
        return;
      }
    }
    Candidate whole;
    whole.ps = input_.workload.setup;
    whole.pc = input_.workload.threads;
    whole.pr = input_.workload.reveal;
    whole.origin = input_.origin;
    whole.drop_empty_threads();
    // Checked even past the deadline: the recorded schedule replays the run as it was, so a
    // time limit still yields a (large) failing test case rather than none.
    dpct::Run failing;
    if (minimizer_.accept_if_buggy(whole, shrinking_effort(whole), &failing)) {
      best_ = whole;
      best_run_ = std::move(failing);
      add_start();
      progress("the whole run: " + whole.shape());
      return;
    }
    throw FailureNotReproduced(
        "the failure did not reproduce when re-executed (replay, " +
        std::to_string(options_.sampled_schedules) +
        " sampled schedules and a bounded enumeration all passed); the object may not be "
        "deterministic under a replayed schedule (a shared access linfault does not see, a "
        "clock, thread-local state)");
  }

  // A candidate made from witness `w` (its Pc with no Pr, then with the model's reveal).
  bool try_witness_candidate(const Candidate& c, const localize::Witness& w, bool one_key) {
    const std::string what = "Ps from a witness of " + std::to_string(w.order.size()) +
                             " operations" + (one_key ? ", Pc of the failing key" : "");
    if (try_candidate(c)) {
      progress(what + ": " + c.shape() + " (Ps/Pc/Pr sizes)");
      add_start();
      return true;
    }
    Candidate revealed = c;
    revealed.pr = reveal_calls(c);
    if (!revealed.pr.empty() && try_candidate(revealed)) {
      progress(what + ", Pr from the model: " + revealed.shape() + " (Ps/Pc/Pr sizes)");
      add_start();
      return true;
    }
    return false;
  }

  // The candidate just accepted is a starting point of the shrinking.
  void add_start() { starts_.push_back(Start{best_, best_run_}); }

  static bool smaller(const Candidate& a, const Candidate& b) {
    if (a.pc_ops() != b.pc_ops()) return a.pc_ops() < b.pc_ops();
    return a.size() < b.size();
  }

  std::vector<Call> reveal_calls(const Candidate& c) const {
    std::vector<Call> applied = c.ps;
    for (const auto& t : c.pc) applied.insert(applied.end(), t.begin(), t.end());
    std::vector<Call> out;
    for (Call& call : minimizer_.in_target_names(reveal_after(target_.model, applied))) {
      if (minimizer_.methods().count(call.method)) out.push_back(std::move(call));
    }
    // contains(k) for every key the test touched and the state no longer holds.
    if (minimizer_.methods().count("contains")) {
      std::set<std::string> probed;
      for (const Call& call : out) {
        if (call.method == "contains" && !call.args.empty())
          probed.insert(call.args[0].to_string());
      }
      for (const Call& call : applied) {
        if (call.args.size() != 1 || !probed.insert(call.args[0].to_string()).second) continue;
        out.push_back(Call{"contains", {call.args[0]}});
      }
    }
    return out;
  }

  // c + d. Shrink Pc (ddmin, single removals with the 1-op-thread shapes first, Lincheck's
  // moves), then Ps and Pr, to a fix point.
  void shrink_stage() {
    progress("shrinking from " + candidate_text(best_));
    bool changed = true;
    while (changed && !minimizer_.out_of_time()) {
      changed = false;
      changed |= ddmin_pc();
      changed |= single_removals_pc();
      changed |= lincheck_moves();
      changed |= shrink_ps();
      changed |= shrink_pr();
    }
    progress("shrunk to " + candidate_text(best_) + " after " +
             std::to_string(minimizer_.candidates()) + " candidates");
  }

  bool ddmin_pc() {
    bool any = false;
    std::size_t chunks = 2;
    while (best_.pc_ops() >= 2 && !minimizer_.out_of_time()) {
      std::vector<PcPosition> all = pc_positions(best_);
      if (chunks > all.size()) break;
      bool reduced = false;
      const std::size_t size = (all.size() + chunks - 1) / chunks;
      for (std::size_t start = 0; start < all.size() && !reduced; start += size) {
        std::vector<PcPosition> removed(
            all.begin() + static_cast<std::ptrdiff_t>(start),
            all.begin() + static_cast<std::ptrdiff_t>(std::min(all.size(), start + size)));
        if (removed.size() == all.size()) continue;
        if (try_candidate(without(best_, removed))) reduced = true;
      }
      if (reduced) {
        any = true;
        chunks = std::max<std::size_t>(chunks - 1, 2);
      } else if (size == 1) {
        break;
      } else {
        chunks = std::min(all.size(), chunks * 2);
      }
    }
    return any;
  }

  // Removes single Pc operations; removals that leave some thread with exactly one operation
  // (the shape of heuristic H) are tried first.
  bool single_removals_pc() {
    bool any = false;
    bool changed = true;
    while (changed && !minimizer_.out_of_time()) {
      changed = false;
      std::vector<PcPosition> all = pc_positions(best_);
      std::stable_sort(all.begin(), all.end(), [&](const PcPosition& a, const PcPosition& b) {
        return leaves_single(a) > leaves_single(b);
      });
      for (const PcPosition& p : all) {
        if (try_candidate(without(best_, {p}))) {
          changed = any = true;
          break;
        }
      }
    }
    return any;
  }

  bool leaves_single(const PcPosition& p) const {
    for (std::size_t t = 0; t < best_.pc.size(); ++t) {
      const std::size_t n = best_.pc[t].size() - (t == p.thread ? 1 : 0);
      if (n == 1) return true;
    }
    return false;
  }

  // Lincheck's moves: the first operation of a thread to the end of Ps, the last to the start
  // of Pr.
  bool lincheck_moves() {
    bool any = false;
    bool changed = true;
    while (changed && !minimizer_.out_of_time()) {
      changed = false;
      for (std::size_t t = 0; t < best_.pc.size() && !changed; ++t) {
        if (best_.pc.size() < 2 && best_.pc[t].size() < 2) break;
        Candidate first = best_;
        first.ps.push_back(first.pc[t].front());
        first.pc[t].erase(first.pc[t].begin());
        first.drop_empty_threads();
        if (try_candidate(first)) {
          changed = any = true;
          break;
        }
        Candidate last = best_;
        last.pr.insert(last.pr.begin(), last.pc[t].back());
        last.pc[t].pop_back();
        last.drop_empty_threads();
        if (try_candidate(last)) changed = any = true;
      }
    }
    return any;
  }

  bool shrink_ps() {
    bool any = false;
    // Rebuild Ps as the shortest sequence reaching the state it leaves.
    if (best_.ps.size() > 1) {
      const std::size_t n = best_.ps.size();
      const History& h = best_run_.history;
      std::vector<OpIndex> ps_ops;
      for (std::size_t i = 0; i < n && i < h.size(); ++i) ps_ops.push_back(static_cast<OpIndex>(i));
      if (std::optional<std::vector<Call>> built = build_state_of(target_.model, h, ps_ops);
          built && built->size() < n) {
        Candidate c = best_;
        c.ps = minimizer_.in_target_names(std::move(*built));
        if (try_candidate(c)) any = true;
      }
    }
    for (std::size_t i = best_.ps.size(); i-- > 0 && !minimizer_.out_of_time();) {
      if (i >= best_.ps.size()) continue;
      Candidate c = best_;
      c.ps.erase(c.ps.begin() + static_cast<std::ptrdiff_t>(i));
      if (try_candidate(c)) any = true;
    }
    return any;
  }

  bool shrink_pr() {
    bool any = false;
    for (std::size_t i = best_.pr.size(); i-- > 0 && !minimizer_.out_of_time();) {
      if (i >= best_.pr.size()) continue;
      Candidate c = best_;
      c.pr.erase(c.pr.begin() + static_cast<std::ptrdiff_t>(i));
      if (try_candidate(c)) any = true;
    }
    return any;
  }

  // e. Verify: a failing schedule of the final test case, and every one-op removal from Pc
  // enumerated. A removal that still fails means the shrinking missed it: continue from there.
  void verify_stage(TargetMinimization& result) {
    progress("verifying minimality by enumerating the interleavings of each smaller Pc");
    const std::uint64_t before = minimizer_.executions();
    for (int round = 0; round < 8; ++round) {
      MinimalityProof proof;
      bool restarted = false;
      bool all_exhausted = true;
      std::optional<unsigned> bound;
      for (const PcPosition& p : pc_positions(best_)) {
        if (minimizer_.out_of_time()) {
          all_exhausted = false;
          break;
        }
        const Candidate smaller = without(best_, {p});
        CheckResult r = minimizer_.check(smaller, final_effort());
        if (r.failing) {
          best_ = smaller;
          best_run_ = std::move(*r.failing);
          minimizer_.set_reference(best_run_.schedule, best_.origin);
          progress("a smaller Pc still fails (" + r.found_by + "): " + candidate_text(best_));
          shrink_stage();
          restarted = true;
          break;
        }
        if (!r.exhausted) {
          all_exhausted = false;
          ++proof.removals_sampled_only;
        } else if (r.bound) {
          bound = r.bound;
        }
      }
      if (restarted) continue;
      proof.minimal_exhaustive = all_exhausted;
      proof.preemption_bound = bound;
      result.proof = proof;
      break;
    }
    // The simplest failing schedule of the final test case (fewest preemptions, then fewest
    // context switches), else any found by enumeration.
    if (!minimizer_.out_of_time()) {
      Minimizer fresh(target_, options_, input_.outcome, minimizer_.memory_model(),
                      minimizer_.deadline());
      if (auto simplest =
              fresh.simplest_failing(best_, kSimplestScheduleMaxBound, kSimplestScheduleWork)) {
        best_run_ = std::move(simplest->run);
        result.proof.failing_schedule_exhaustive = true;
        result.proof.simplest_schedule = simplest->proven;
        result.proof.schedule_preemptions = simplest->preemptions;
        result.proof.schedule_context_switches = simplest->switches;
      } else {
        CheckEffort enumeration_only{0, options_.exhaustive_executions, 0, 20 * kWorkPerSecond};
        CheckResult r = fresh.check(best_, enumeration_only);
        if (r.failing) {
          best_run_ = std::move(*r.failing);
          result.proof.failing_schedule_exhaustive = true;
        }
      }
      // Weak memory: then the fewest stale reads it still fails with.
      const std::size_t stale = best_run_.stale_reads;
      best_run_ = fresh.fewest_stale_reads(best_, std::move(best_run_));
      if (best_run_.stale_reads < stale) {
        progress("the failing schedule needs " + std::to_string(best_run_.stale_reads) +
                 " stale reads (" + std::to_string(stale) + " before)");
      }
      result.proof.executions += fresh.executions();
      result.cut_by_time += fresh.cut_by_time();
    }
    result.proof.executions += minimizer_.executions() - before;
  }

  void finish(TargetMinimization& result) {
    result.workload = best_.workload();
    // Re-run the failing schedule strictly, with the access trace, as the user will replay it.
    dpct::ReplayScheduler replay(best_run_.schedule, dpct::ReplayMode::kStrict);
    dpct::ExecutionOptions execution;
    execution.record_trace = true;
    execution.max_steps = minimizer_.step_cap(best_);
    execution.origin = "test case";
    dpct::Executor executor;
    result.failing_run = executor.execute(target_.factory, result.workload, replay, execution);
    result.failing_run.schedule = best_run_.schedule;
    detect::CheckOptions check = options_.check;
    check.stuck = dpct::ended_stuck(result.failing_run.outcome);
    result.verdict = detect::check_history(target_.model, result.failing_run.history, check);
    result.candidates = minimizer_.candidates();
    result.executions = minimizer_.executions() + result.proof.executions;
    result.timed_out = minimizer_.out_of_time();
    result.cut_by_time += minimizer_.cut_by_time();
    result.test_case =
        test_case_from_run(target_.name, target_.model, result.workload, result.failing_run,
                           result.verdict, minimizer_.step_cap(best_), "");
    result.elapsed_ms = minimizer_.elapsed_ms();
    result.log = log_;
    result.test_case.guarantee = describe_guarantee(result);
  }

  struct Start {
    Candidate candidate;
    dpct::Run run;
  };
  static constexpr std::size_t kMaxStarts = 3;

  const targets::Target& target_;
  const TargetMinimizerOptions& options_;
  Input input_;
  Minimizer minimizer_;
  std::vector<Start> starts_;
  localize::Localization loc_;
  Candidate best_;
  dpct::Run best_run_;
  std::vector<std::string> log_;
};

void check_calls_belong(const targets::Target& target, const History& history) {
  std::set<std::string> methods;
  for (const targets::OperationSpec& op : target.operations) methods.insert(op.method);
  for (const history::Operation& op : history.operations()) {
    if (!methods.count(op.call.method)) {
      throw std::invalid_argument("operation " + op.to_string() + " is not a method of target " +
                                  target.name);
    }
  }
}

}  // namespace

TargetMinimization minimize_saved_run(const targets::Target& target, const detect::SavedRun& run,
                                      const TargetMinimizerOptions& options) {
  if (run.target != target.name) {
    throw std::invalid_argument("the run was saved from target " + run.target + ", not " +
                                target.name);
  }
  Input input;
  input.history = run.history;
  input.workload = run.workload;
  for (std::size_t t = 0; t < run.workload.threads.size(); ++t) {
    input.origin.push_back(static_cast<std::uint32_t>(t));
  }
  // A run lost with its process (detect --isolate) left no schedule: one is searched for.
  if (run.schedule.scheduler != detect::kLostSchedule &&
      (!run.schedule.decisions.empty() || !run.schedule.scheduler.empty())) {
    input.schedule = run.schedule;
  }
  if (run.verdict.result != detect::Result::kViolation) {
    input.outcome = run.outcome;
  } else if (dpct::ended_stuck(run.outcome) &&
             detect::check_history(target.model, run.history, options.check).result !=
                 detect::Result::kViolation) {
    // A violation of the stuck-history rule alone: what to minimize is the stuck run, not a
    // wrong result.
    input.outcome = run.outcome;
  }
  TargetMinimizerOptions with_run_cap = options;
  if (run.scheduling.max_steps != 0) with_run_cap.max_steps = run.scheduling.max_steps;
  return Pipeline(target, with_run_cap, std::move(input)).run();
}

TargetMinimization minimize_history_on_target(const targets::Target& target, const History& history,
                                              const std::optional<dpct::Schedule>& schedule,
                                              const TargetMinimizerOptions& options) {
  check_calls_belong(target, history);
  Input input;
  input.history = history;
  input.schedule = schedule;
  for (const auto& [process, ops] : ops_by_process(history, history.events().size())) {
    std::vector<Call> calls;
    for (OpIndex i : ops) calls.push_back(history.op(i).call);
    input.workload.threads.push_back(std::move(calls));
    input.origin.push_back(static_cast<std::uint32_t>(process));
  }
  return Pipeline(target, options, std::move(input)).run();
}

std::string describe_guarantee(const TargetMinimization& m) {
  const MinimalityProof& p = m.proof;
  std::size_t pc_ops = 0;
  for (const auto& t : m.workload.threads) pc_ops += t.size();
  std::string out = "buggy: the recorded schedule reproduces the failure (strict replay)";
  if (p.failing_schedule_exhaustive) out += ", found by enumerating Pc's interleavings";
  if (p.simplest_schedule && p.schedule_preemptions) {
    out += "; the simplest failing schedule: " + std::to_string(*p.schedule_preemptions) +
           " preemption(s), then the fewest context switches (" +
           std::to_string(p.schedule_context_switches) + ")";
  }
  out += "; minimal (Def. 2): ";
  const std::string scope =
      p.preemption_bound ? "with at most " + std::to_string(*p.preemption_bound) + " preemptions"
                         : "all interleavings";
  if (pc_ops == 0) {
    out += "Pc is empty (the failure is sequential)";
  } else if (p.minimal_exhaustive) {
    out += "exhaustive - each of the " + std::to_string(pc_ops) +
           " one-operation removals from Pc was enumerated (" + scope + ") without a failure";
  } else {
    out += "sampled - " + std::to_string(p.removals_sampled_only) + " of the " +
           std::to_string(pc_ops) +
           " one-operation removals from Pc could not be enumerated completely and passed "
           "replay, sampled schedules and a bounded enumeration only";
  }
  out += "; Ps and Pr: no single call can be dropped (sampled)";
  if (m.timed_out) out += "; TIME LIMIT HIT: not proven minimal";
  return out;
}

}  // namespace linfault::minimize
