// ScriptedScheduler: runs a hand-written interleaving, given as segments "thread t runs its next
// n scheduling points" — the form in which papers and bug reports describe a race ("T0 reads
// top; T1 pops; T0's CAS fails").
//
// A segment {t, n} returns t at n consecutive scheduling points; {t, kUntilDone} returns t until
// it finishes (or blocks on a lock another thread holds, which ends the segment too). Past the last
// segment the remaining threads run in thread order. Counting is in scheduling points, so a
// thread's count includes its kStart pick and its lock acquisitions (dpct/scheduler.h lists the
// points). A bounded segment whose thread is not enabled (finished or blocked on a lock) is a
// mistake in the script: choose() throws std::invalid_argument naming the segment, which aborts the
// execution (dpct/scheduler.h).
//
// Schedule parameters: "scripted script=0x2,1x*,0x*" (* for kUntilDone). The recorded decisions
// replay the run exactly with dpct::ReplayScheduler.
//
// Thread-safety: see dpct/scheduler.h (one execution at a time).
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_DPCT_SCRIPTED_SCHEDULER_H_
#define LINFAULT_DPCT_SCRIPTED_SCHEDULER_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "dpct/scheduler.h"

namespace linfault::dpct {

class ScriptedScheduler final : public Scheduler {
 public:
  static constexpr std::uint32_t kUntilDone = std::numeric_limits<std::uint32_t>::max();

  struct Segment {
    ThreadId thread;
    std::uint32_t points;  // scheduling points to run, or kUntilDone
  };

  explicit ScriptedScheduler(std::vector<Segment> script) : script_(std::move(script)) {}

  void begin(const RunInfo& info) override;
  ThreadId choose(const SchedulingPoint& point, std::span<const ThreadId> enabled) override;
  void end(Schedule& schedule) override;

  // "0x2,1x*,0x*".
  std::string script_text() const;

 private:
  std::vector<Segment> script_;
  std::size_t segment_ = 0;
  std::uint32_t used_ = 0;
};

}  // namespace linfault::dpct

#endif  // LINFAULT_DPCT_SCRIPTED_SCHEDULER_H_
