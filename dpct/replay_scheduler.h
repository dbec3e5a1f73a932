// ReplayScheduler: re-runs a recorded Schedule decision by decision.
//
// Strict mode (the default) fails loudly on divergence by throwing ScheduleDivergence, which
// aborts the execution and propagates out of Executor::execute. Divergence is:
//   - a decision whose recorded thread is not enabled now;
//   - a decision taken at a different point than recorded (other thread, kind, file or line),
//     when the schedule has points;
//   - the run needing more decisions than recorded, or ending before using them all;
//   - for a weak-memory schedule (memory model c11, which the replay follows), a read decision
//     whose recorded store is not among the load's candidates, or read decisions left over or
//     missing, as for thread decisions.
// The message names the decision number, the expected and actual thread and both locations.
//
// Lenient mode never throws: on a divergence it takes the recorded thread if it is enabled,
// otherwise lets the thread at the point continue (or the lowest enabled thread), and counts the
// divergence; a read whose recorded store cannot be read, or past the recorded reads, reads the
// newest store (so dropping recorded reads from the end shrinks a run towards fewer stale reads).
// The minimizer uses it to replay a detection schedule on a test case from which operations were
// removed. The recorded schedule of a lenient replay is what actually ran; its parameters are the
// original's plus "diverged=N" when N > 0.
//
// A strict replay records the same schedule it replays (scheduler name and parameters copied).
//
// Thread-safety: see dpct/scheduler.h (one execution at a time).
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_DPCT_REPLAY_SCHEDULER_H_
#define LINFAULT_DPCT_REPLAY_SCHEDULER_H_

#include <cstdint>
#include <stdexcept>

#include "dpct/schedule.h"
#include "dpct/scheduler.h"

namespace linfault::dpct {

class ScheduleDivergence : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class ReplayMode : std::uint8_t { kStrict, kLenient };

class ReplayScheduler final : public Scheduler {
 public:
  explicit ReplayScheduler(Schedule schedule, ReplayMode mode = ReplayMode::kStrict);

  void begin(const RunInfo& info) override;
  ThreadId choose(const SchedulingPoint& point, std::span<const ThreadId> enabled) override;
  void end(Schedule& schedule) override;
  MemoryModel memory_model() const override { return schedule_.memory_model; }
  std::size_t choose_read(const ReadPoint& point, std::span<const StoreId> candidates) override;

  // Divergences of the last run (lenient mode).
  std::uint64_t divergences() const { return divergences_; }
  const Schedule& schedule() const { return schedule_; }

 private:
  ThreadId diverge(const std::string& message, const SchedulingPoint& point,
                   std::span<const ThreadId> enabled, ThreadId recorded);

  Schedule schedule_;
  ReplayMode mode_;
  std::size_t next_ = 0;
  std::size_t next_read_ = 0;
  std::uint64_t divergences_ = 0;
};

}  // namespace linfault::dpct

#endif  // LINFAULT_DPCT_REPLAY_SCHEDULER_H_
