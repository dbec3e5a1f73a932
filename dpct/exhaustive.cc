#include "dpct/exhaustive.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace linfault::dpct {

namespace {

using Mask = std::uint64_t;
constexpr std::size_t kMaxThreads = 64;

Mask bit(ThreadId t) { return Mask{1} << t; }

bool writes(AccessKind kind) { return kind != AccessKind::kLoad && kind != AccessKind::kYield; }

// Waits and notifies touch a wait queue and (condition variables) a mutex we do not see: they
// conflict with everything.
bool conflicts_with_all(AccessKind kind) {
  return kind == AccessKind::kWait || kind == AccessKind::kNotifyOne ||
         kind == AccessKind::kNotifyAll;
}

// Whether two accesses of different threads may not be swapped.
bool accesses_conflict(const Access& a, const Access& b) {
  if (conflicts_with_all(a.kind) || conflicts_with_all(b.kind)) return true;
  // A spin hint holds its thread back until another thread writes (fair spinning).
  if (a.kind == AccessKind::kYield) return writes(b.kind);
  if (b.kind == AccessKind::kYield) return writes(a.kind);
  return a.address == b.address && (writes(a.kind) || writes(b.kind));
}

// The run was cut short: every continuation is equivalent to a run already explored.
struct SleepSetBlocked {};

// Follows a stack of decision frames: the prefix left by the previous run, then first choices.
class ExhaustiveScheduler final : public Scheduler {
 public:
  ExhaustiveScheduler(std::optional<unsigned> bound, bool reduce, MemoryModel model)
      : bound_(bound),
        reduce_(reduce && !bound && model == MemoryModel::kSequential),
        model_(model) {}

  MemoryModel memory_model() const override { return model_; }

  // A read decision is a frame of its own, whose alternatives are the candidates' indices
  // (newest first: the first run reads the newest everywhere). Never a preemption.
  std::size_t choose_read(const ReadPoint&, std::span<const StoreId> candidates) override {
    complete_open_event();
    const auto count = static_cast<Mask>(candidates.size());
    if (depth_ == frames_.size()) {
      Frame frame;
      frame.read = true;
      frame.allowed = count;
      for (std::size_t i = 0; i < candidates.size(); ++i) {
        frame.alternatives.push_back(static_cast<ThreadId>(i));
      }
      frame.preemptions_before = preemptions_;
      frames_.push_back(std::move(frame));
    } else if (!frames_[depth_].read || frames_[depth_].allowed != count) {
      throw std::runtime_error(
          "exhaustive exploration: the workload is not deterministic (decision " +
          std::to_string(depth_) + " is another read or thread decision than before)");
    }
    const Frame& frame = frames_[depth_++];
    return frame.alternatives[frame.chosen];
  }

  bool reduces() const { return reduce_; }

  void begin(const RunInfo& info) override {
    if (info.threads > kMaxThreads) {
      throw std::invalid_argument("exhaustive exploration: at most " + std::to_string(kMaxThreads) +
                                  " threads");
    }
    view_ = info.view;
    threads_ = info.threads;
    depth_ = 0;
    preemptions_ = 0;
    sleep_ = 0;
    sleep_effects_ = {};
    spinning_ = 0;
    overtaken_ = 0;
    iteration_.assign(threads_, {});
    watched_.assign(threads_, {});
    last_hint_.assign(threads_, std::nullopt);
    events_.clear();
    clocks_.clear();
    thread_clocks_.assign(threads_ * threads_, 0);
    latest_.assign(threads_, {});
    latest_at_.clear();
    open_ = false;
  }

  ThreadId choose(const SchedulingPoint& point, std::span<const ThreadId> enabled) override {
    complete_open_event();
    Mask enabled_mask = 0;
    for (ThreadId t : enabled) enabled_mask |= bit(t);
    // Everyone spins: release them all. A thread that read a value, then saw it overwritten
    // before it reached its spin hint, waits for a write that already happened; if nobody can
    // make progress they spin on until max_steps says livelock.
    if ((enabled_mask & ~spinning_) == 0) spinning_ &= ~enabled_mask;
    const Mask allowed = enabled_mask & ~spinning_;

    if (enabled.size() < 2) {
      const ThreadId only = enabled[0];
      if (reduce_ && (sleep_ & bit(only)) != 0) block();
      start_event(only, -1);
      return only;
    }

    if (depth_ == frames_.size()) {
      Frame frame;
      frame.allowed = allowed;
      frame.preemptible =
          !point.is_yield() && point.thread != kNoThread && (allowed & bit(point.thread)) != 0;
      if (frame.preemptible) frame.alternatives.push_back(point.thread);
      for (ThreadId t : enabled) {
        if ((allowed & bit(t)) != 0 && (!frame.preemptible || t != point.thread)) {
          frame.alternatives.push_back(t);
        }
      }
      frame.preemptions_before = preemptions_;
      if (reduce_) {
        frame.sleep = sleep_;
        frame.sleep_effects = sleep_effects_;
        const auto awake = std::find_if(frame.alternatives.begin(), frame.alternatives.end(),
                                        [&](ThreadId t) { return (sleep_ & bit(t)) == 0; });
        if (awake == frame.alternatives.end()) block();
        frame.chosen = static_cast<std::size_t>(awake - frame.alternatives.begin());
        frame.backtrack = bit(*awake);
      }
      frames_.push_back(std::move(frame));
    } else {
      const Frame& frame = frames_[depth_];
      if (frame.read || frame.allowed != allowed || frame.preemptions_before != preemptions_) {
        throw std::runtime_error(
            "exhaustive exploration: the workload is not deterministic (decision " +
            std::to_string(depth_) + " sees other enabled threads than before)");
      }
      sleep_ = frame.sleep | frame.done;
      sleep_effects_.starts = frame.sleep_effects.starts | (frame.step_effects.starts & frame.done);
      sleep_effects_.ends = frame.sleep_effects.ends | (frame.step_effects.ends & frame.done);
    }
    const std::size_t index = depth_++;
    const Frame& frame = frames_[index];
    preemptions_ += cost(frame, frame.chosen);
    const ThreadId next = frame.alternatives[frame.chosen];
    start_event(next, static_cast<int>(index));
    return next;
  }

  void end(Schedule& schedule) override {
    complete_open_event();
    check_pending_steps();
    if (depth_ != frames_.size()) {
      throw std::runtime_error(
          "exhaustive exploration: the workload is not deterministic (run ended after " +
          std::to_string(depth_) + " of " + std::to_string(frames_.size()) +
          " replayed decisions)");
    }
    schedule.scheduler = "exhaustive";
    schedule.set_parameter("run", std::to_string(runs_++));
    schedule.set_parameter("preemptions", std::to_string(preemptions_));
    schedule.set_parameter("bound", bound_ ? std::to_string(*bound_) : "none");
  }

  // Drops the frames a run cut short by SleepSetBlocked did not reach.
  void abandon_run() { frames_.resize(std::min(frames_.size(), depth_)); }

  // Moves to the next schedule in depth-first order; false when none is left.
  bool advance() {
    while (!frames_.empty()) {
      Frame& frame = frames_.back();
      if (reduce_) {
        frame.done |= bit(frame.alternatives[frame.chosen]);
        for (std::size_t next = 0; next < frame.alternatives.size(); ++next) {
          const Mask t = bit(frame.alternatives[next]);
          if ((frame.backtrack & t) != 0 && ((frame.done | frame.sleep) & t) == 0) {
            frame.chosen = next;
            return true;
          }
        }
      } else {
        for (std::size_t next = frame.chosen + 1; next < frame.alternatives.size(); ++next) {
          if (!bound_ || frame.preemptions_before + cost(frame, next) <= *bound_) {
            frame.chosen = next;
            return true;
          }
        }
      }
      frames_.pop_back();
    }
    return false;
  }

 private:
  // Threads whose step records an invocation (starts) or a response (ends).
  struct HistoryEffects {
    Mask starts = 0;
    Mask ends = 0;
  };
  struct Frame {
    bool read = false;  // a read decision: alternatives are candidate indices (choose_read)
    std::vector<ThreadId> alternatives;  // the running thread first when it may continue
    Mask allowed = 0;  // the threads among `alternatives` (a read frame: how many there are)
    std::size_t chosen = 0;
    unsigned preemptions_before = 0;
    bool preemptible = false;  // switching away from alternatives[0] is a preemption
    Mask sleep = 0;            // threads whose next step was explored from an earlier state
    Mask done = 0;             // threads explored from this state
    Mask backtrack = 0;        // threads to explore from this state
    // What the sleeping threads' next steps record in the history, learned when they ran.
    HistoryEffects sleep_effects;
    HistoryEffects step_effects;  // what each thread's step from this state recorded, once run
  };
  // One executed step of a thread: the access it started with and what it did to the history.
  struct Event {
    ThreadId thread = 0;
    Access access{AccessKind::kLoad, nullptr, SourceLocation()};
    int frame = -1;            // the decision frame of the state before it, if that was one
    std::size_t op_index = 0;  // the thread's operation when it started
    bool starts_op = false;    // records an invocation
    bool ends_op = false;      // records a response
  };

  static void learn(HistoryEffects& effects, const Event& event) {
    if (event.starts_op) effects.starts |= bit(event.thread);
    if (event.ends_op) effects.ends |= bit(event.thread);
  }

  static unsigned cost(const Frame& frame, std::size_t alternative) {
    return frame.preemptible && alternative != 0 ? 1 : 0;
  }

  void start_event(ThreadId thread, int frame) {
    const PendingStep step = view_->pending(thread);
    Event event;
    event.thread = thread;
    if (step.access != nullptr) event.access = *step.access;
    event.frame = frame;
    event.op_index = step.op_index;
    event.starts_op = step.op_step == 0;
    events_.push_back(event);
    open_ = true;
  }

  // The step started last has run up to its thread's next point: what it did is known now.
  void complete_open_event() {
    if (!open_) return;
    open_ = false;
    Event& event = events_.back();
    const PendingStep now = view_->pending(event.thread);
    const bool finished = now.access == nullptr;
    event.ends_op = finished || now.op_index != event.op_index;
    // Operations without shared accesses run whole inside the step: invoked and answered.
    if (now.op_index > event.op_index + 1) event.starts_op = true;
    if (reduce_) {
      if (event.frame >= 0)
        learn(frames_[static_cast<std::size_t>(event.frame)].step_effects, event);
      add_races_of(events_.size() - 1);
      index_event(events_.size() - 1);
      Mask still_asleep = 0;
      for (ThreadId t = 0; t < threads_; ++t) {
        if ((sleep_ & bit(t)) != 0 && !may_conflict_with_pending(t, event)) still_asleep |= bit(t);
      }
      sleep_ = still_asleep;
      sleep_effects_.starts &= still_asleep;
      sleep_effects_.ends &= still_asleep;
    }
    update_spinning(event);
  }

  // Fair spinning. A thread's spin iteration is its accesses since its previous spin hint. At a
  // spin hint it is held back only when the iteration is a whole turn of one loop (the previous
  // hint was at the same place in the same operation), read something, wrote nothing, and nobody
  // wrote what it read since it read it: the next turn would read the same values and spin again.
  // A write by another thread to one of those locations (or a wait or notify) releases it.
  void update_spinning(const Event& event) {
    const ThreadId r = event.thread;
    spinning_ &= ~bit(r);
    const Access& access = event.access;
    if (access.kind == AccessKind::kYield) {
      const HintPlace here{access.where.file_name(), access.where.line(), event.op_index};
      const bool same_loop = last_hint_[r] && *last_hint_[r] == here;
      if (same_loop && !iteration_[r].empty() && (overtaken_ & bit(r)) == 0) {
        spinning_ |= bit(r);
        watched_[r].swap(iteration_[r]);
      }
      last_hint_[r] = here;
      iteration_[r].clear();
      overtaken_ &= ~bit(r);
      return;
    }
    if (access.address != nullptr && std::find(iteration_[r].begin(), iteration_[r].end(),
                                               access.address) == iteration_[r].end()) {
      iteration_[r].push_back(access.address);
    }
    if (!writes(access.kind)) return;
    overtaken_ |= bit(r);  // its own write changes what its next turn reads
    const bool everything = conflicts_with_all(access.kind);
    for (ThreadId t = 0; t < threads_; ++t) {
      if (t == r) continue;
      const auto touches = [&](const std::vector<const void*>& where) {
        return everything || std::find(where.begin(), where.end(), access.address) != where.end();
      };
      if (touches(iteration_[t])) overtaken_ |= bit(t);
      if ((spinning_ & bit(t)) != 0 && touches(watched_[t])) {
        spinning_ &= ~bit(t);
        // Its next step comes after the write that released it.
        for (std::size_t u = 0; reduce_ && u < threads_; ++u) {
          std::uint32_t& mine = thread_clocks_[t * threads_ + u];
          mine = std::max(mine, clock_of(events_.size() - 1, static_cast<ThreadId>(u)));
        }
      }
    }
  }

  // Whether the next step of a sleeping thread conflicts with an executed event. That step ran
  // when the thread was explored from an earlier state, so what it records is known.
  bool may_conflict_with_pending(ThreadId thread, const Event& event) const {
    const PendingStep step = view_->pending(thread);
    if (step.access == nullptr) return false;
    const bool starts = (sleep_effects_.starts & bit(thread)) != 0;
    const bool ends = (sleep_effects_.ends & bit(thread)) != 0;
    return accesses_conflict(*step.access, event.access) || (event.ends_op && starts) ||
           (event.starts_op && ends);
  }

  std::uint32_t clock_of(std::size_t event, ThreadId thread) const {
    return clocks_[event * threads_ + thread];
  }
  // Whether event a happens before event b (both executed, a < b).
  bool happens_before(std::size_t a, std::size_t b) const {
    const ThreadId owner = events_[a].thread;
    return clock_of(a, owner) <= clock_of(b, owner);
  }

  // The race j < i (j conflicts with i, and happens before it only directly) can be reversed from
  // the state before j by a thread that starts v = the events after j that do not happen after
  // it, then i (source sets, Abdulla et al.). Unless the backtrack set there holds one of v's
  // initials already, add one: i's thread if it is, or the lowest. An initial the fair scheduler
  // holds back there (it spins) cannot be tried first: every allowed thread is added instead.
  void add_backtrack(std::size_t j, std::size_t i) {
    const int index = events_[j].frame;
    if (index < 0) return;  // one thread could run there: nothing else to try
    Frame& frame = frames_[static_cast<std::size_t>(index)];
    const ThreadId p = events_[i].thread;
    Mask seen = 0;
    Mask initials = 0;
    std::vector<std::size_t> v;
    for (std::size_t k = j + 1; k < i; ++k) {
      if (happens_before(j, k)) continue;
      const ThreadId t = events_[k].thread;
      if ((seen & bit(t)) == 0) {
        seen |= bit(t);
        const bool preceded = std::any_of(
            v.begin(), v.end(), [&](std::size_t earlier) { return happens_before(earlier, k); });
        if (!preceded) initials |= bit(t);
      }
      v.push_back(k);
    }
    if ((seen & bit(p)) == 0) {
      const bool preceded = std::any_of(
          v.begin(), v.end(), [&](std::size_t earlier) { return happens_before(earlier, i); });
      if (!preceded) initials |= bit(p);
    }
    if ((initials & frame.backtrack) != 0 || initials == 0) return;
    const Mask chosen = (initials & bit(p)) != 0 ? bit(p) : (initials & (~initials + 1));
    frame.backtrack |= (frame.allowed & chosen) != 0 ? chosen : frame.allowed;
  }

  // Gives event i its vector clock, then adds a backtrack point for each of its races: each
  // conflicting event of another thread that happens before i only directly.
  //
  // Only the latest conflicting event of each other thread q can matter: q's earlier events
  // have smaller clocks (clocks grow along a thread), so they add nothing to i's clock, and the
  // latest one, looked at first, makes them known, so none of them is a direct race. Nor does
  // it matter when i's thread already knows it (its own entry at most before[q]). So the
  // candidates are read from the index of each thread's latest events (index_event) instead of
  // scanning the run back: a long run's enumeration was quadratic in its length.
  void add_races_of(std::size_t i) {
    const ThreadId p = events_[i].thread;
    const auto own = thread_clocks_.begin() + static_cast<std::ptrdiff_t>(p * threads_);
    std::vector<std::uint32_t> before(own, own + static_cast<std::ptrdiff_t>(threads_));
    std::vector<std::uint32_t> clock = before;
    std::vector<std::size_t> conflicting;
    for (ThreadId q = 0; q < threads_; ++q) {
      if (q == p) continue;
      const std::ptrdiff_t j = latest_conflicting(q, events_[i]);
      if (j < 0 || clock_of(static_cast<std::size_t>(j), q) <= before[q]) continue;
      conflicting.push_back(static_cast<std::size_t>(j));
      for (std::size_t t = 0; t < threads_; ++t) {
        clock[t] = std::max(clock[t], clock_of(static_cast<std::size_t>(j), t));
      }
    }
    std::sort(conflicting.begin(), conflicting.end(), std::greater<>());
    ++clock[p];
    std::copy(clock.begin(), clock.end(), own);
    clocks_.insert(clocks_.end(), clock.begin(), clock.end());

    // Latest first: j is a direct race unless a later conflicting event or i's own thread
    // already knew it.
    std::vector<std::uint32_t> known = before;
    for (std::size_t j : conflicting) {
      const ThreadId owner = events_[j].thread;
      if (clock_of(j, owner) > known[owner]) add_backtrack(j, i);
      for (std::size_t t = 0; t < threads_; ++t) known[t] = std::max(known[t], clock_of(j, t));
    }
  }

  // At the end of a run (complete, blocked or cut short), the steps threads were left waiting at
  // race with the run too: a thread that never ran past a point still needs its turn before the
  // latest conflicting event.
  void check_pending_steps() {
    if (!reduce_) return;
    for (ThreadId p = 0; p < threads_; ++p) {
      const PendingStep step = view_->pending(p);
      if (step.access == nullptr) continue;
      Event pending;
      pending.thread = p;
      pending.access = *step.access;
      pending.starts_op = pending.ends_op = true;  // it may record anything
      const auto own = thread_clocks_.begin() + static_cast<std::ptrdiff_t>(p * threads_);
      const std::vector<std::uint32_t> saved(own, own + static_cast<std::ptrdiff_t>(threads_));
      events_.push_back(pending);
      add_races_of(events_.size() - 1);
      events_.pop_back();
      clocks_.resize(events_.size() * threads_);
      std::copy(saved.begin(), saved.end(), own);
    }
  }

  // The latest event of `q` that conflicts with `e`, or -1. Two events conflict when their
  // accesses do (accesses_conflict) or when one ends an operation and the other starts one.
  std::ptrdiff_t latest_conflicting(ThreadId q, const Event& e) const {
    const Latest& of_q = latest_[q];
    const AccessKind kind = e.access.kind;
    if (conflicts_with_all(kind)) return of_q.any;
    std::ptrdiff_t j = of_q.with_all;
    if (e.ends_op) j = std::max(j, of_q.starts);
    if (e.starts_op) j = std::max(j, of_q.ends);
    if (kind == AccessKind::kYield) return std::max(j, of_q.write);
    if (writes(kind)) j = std::max(j, of_q.yield);
    const auto at = latest_at_.find(e.access.address);
    if (at != latest_at_.end()) {
      const LatestAt& there = at->second[q];
      j = std::max(j, writes(kind) ? there.access : there.write);
    }
    return j;
  }

  // Records event i, completed, in its thread's latest events.
  void index_event(std::size_t i) {
    const Event& e = events_[i];
    const auto at = static_cast<std::ptrdiff_t>(i);
    Latest& mine = latest_[e.thread];
    const AccessKind kind = e.access.kind;
    mine.any = at;
    if (conflicts_with_all(kind)) mine.with_all = at;
    if (kind == AccessKind::kYield) mine.yield = at;
    if (writes(kind)) mine.write = at;
    if (e.starts_op) mine.starts = at;
    if (e.ends_op) mine.ends = at;
    if (kind == AccessKind::kYield) return;  // it conflicts by kind, whatever its address
    std::vector<LatestAt>& there = latest_at_[e.access.address];
    if (there.empty()) there.resize(threads_);
    there[e.thread].access = at;
    if (writes(kind)) there[e.thread].write = at;
  }

  [[noreturn]] void block() {
    check_pending_steps();
    throw SleepSetBlocked{};
  }

  std::optional<unsigned> bound_;
  bool reduce_;
  MemoryModel model_;
  std::vector<Frame> frames_;
  std::uint64_t runs_ = 0;

  // Per run.
  const RunView* view_ = nullptr;
  std::size_t threads_ = 0;
  std::size_t depth_ = 0;
  unsigned preemptions_ = 0;
  Mask sleep_ = 0;  // threads whose next step need not run before a conflicting one does
  HistoryEffects sleep_effects_;
  Mask spinning_ = 0;   // threads held back at a spin hint (fair spinning)
  Mask overtaken_ = 0;  // threads whose current spin iteration read something written since
  std::vector<std::vector<const void*>> iteration_;  // per thread: locations since its spin hint
  std::vector<std::vector<const void*>> watched_;    // per held thread: what releases it
  struct HintPlace {
    const char* file = nullptr;
    std::uint32_t line = 0;
    std::size_t op_index = 0;
    bool operator==(const HintPlace&) const = default;
  };
  std::vector<std::optional<HintPlace>> last_hint_;  // per thread: where it spun last
  std::vector<Event> events_;
  bool open_ = false;                         // events_.back() has not been completed
  std::vector<std::uint32_t> clocks_;         // events_.size() x threads_ vector clocks
  std::vector<std::uint32_t> thread_clocks_;  // threads_ x threads_
  // Per thread, its latest events (indices into events_, -1: none) of each kind that
  // conflicts with some other event; per address, per thread, its latest access and write.
  struct Latest {
    std::ptrdiff_t any = -1;
    std::ptrdiff_t with_all = -1;  // a wait or notify
    std::ptrdiff_t write = -1;     // to any address
    std::ptrdiff_t yield = -1;     // a spin hint
    std::ptrdiff_t starts = -1;    // records an invocation
    std::ptrdiff_t ends = -1;      // records a response
  };
  struct LatestAt {
    std::ptrdiff_t access = -1;
    std::ptrdiff_t write = -1;
  };
  std::vector<Latest> latest_;
  std::unordered_map<const void*, std::vector<LatestAt>> latest_at_;
};

}  // namespace

ExhaustiveResult explore_exhaustively(Executor& executor, const ObjectFactory& factory,
                                      const Workload& workload, const ExhaustiveOptions& options,
                                      const std::function<bool(const Run&)>& stop) {
  ExhaustiveResult result;
  ExhaustiveScheduler scheduler(options.max_preemptions, options.reduce, options.memory_model);
  result.reduced = scheduler.reduces();
  while (true) {
    try {
      Run run = executor.execute(factory, workload, scheduler, options.execution);
      ++result.executions;
      ++result.outcomes[static_cast<std::size_t>(run.outcome)];
      if (stop && stop(run)) {
        result.found = std::move(run);
        result.exhausted = false;
        return result;
      }
    } catch (const SleepSetBlocked&) {
      ++result.redundant;
      scheduler.abandon_run();
    }
    const bool more = scheduler.advance();
    if (!more) {
      result.exhausted = true;
      return result;
    }
    if (options.max_executions != 0 &&
        result.executions + result.redundant >= options.max_executions) {
      return result;
    }
    if (options.deadline && std::chrono::steady_clock::now() >= *options.deadline) {
      result.timed_out = true;
      return result;
    }
  }
}

}  // namespace linfault::dpct
