// WindowScheduler: a random walk whose threads pause inside their operations' windows until
// the other threads have completed updates (`--scheduler window`).
//
// Most atomicity violations of concurrent objects are windows: a thread reads shared state,
// another thread completes an update, and the first acts (writes, or reads on) on the strength
// of a stale read. A random walk preempts at every step but almost never keeps a thread away
// for a whole operation of another (about 2^-n for an operation of n accesses); PCT keeps it
// away, but spends its few preemptions at uniformly drawn steps, mostly in traversals. Here:
//   - every operation may be paused at most twice: right before its first act (store,
//     read-modify-write, compare-exchange, lock) after its first access, the end of a
//     check-then-act window, with probability p_act; and, with probability p_inside, at one
//     access after its first, each with probability 1 / (accesses per operation so far - 1)
//     until one is taken (so about two operations in three of those drawn pause inside, early
//     accesses more often than late ones): a window between two reads or after a partial update;
//   - a paused thread waits until the others have completed G *updating* operations (that
//     stored, exchanged, compare-exchanged or fetch-modified shared memory; a failed
//     compare-exchange counts too, the kind of an access cannot tell; locking alone does not), G =
//     1, 2, 3, 4 with probability 1/2, 1/4, 1/8, 1/8, and at most 4 decisions per awaited operation
//     and average access, so that a thread waiting for it in a loop without a spin hint cannot turn
//     the pause into a livelock;
//   - the other threads run as a random walk; a thread at a spin/yield hint lets the others go;
//   - when everyone who can run is paused (the others wait for the paused one, block on its lock
//     or spin), one of them, drawn at random, resumes: resuming the first paused gives read A,
//     read B, act A, act B (lost updates), resuming the last keeps the first window open.
// By default (kInside, below) p_act = 0 and p_inside = 1. With mixed pauses (kMixed), each
// operation draws its (p_act, p_inside) among (1, 0), (3/4, 1/4), (1/2, 1/2), (1/4, 3/4) and (0, 1)
// when it starts, so a run covers check-then-act windows and windows between reads without a
// parameter to tune per object. The draw was once made per run: a long history then spent all its
// operations on one choice, while a bug needs the right choice only in the few operations that meet
// it. Drawing per operation found more on the long histories of the CGVT paper's Table II
// (optimistic_queue_buggy at 2 x 500: 299 of 300 histories against 237, lf_list_buggy 299 against
// 289) and changed nothing beyond the noise on 2 x 6 and 2 x 10 histories
// (bench/schedulers/README.md). Nothing here knows a target: windows come from the kinds of the
// accesses.
//
// Measured (bench/schedulers/README.md): far ahead of a random walk where a thread must stay
// away for a whole operation (snark_deque, optimistic_queue_buggy, reserve_queue, a 1 || 4
// versioned register), behind it on bugs that need fine interleaving of two traversals
// (lf_list_buggy, bu_list1); hence a member of the portfolio, not a replacement.
//
// Where operations pause is a choice too (`--window-pauses`, WindowPauses): only at one access
// drawn inside (kInside, the default), only right before their first act (kAct: every
// operation's check-then-act window, none inside), or the per-operation mix above (kMixed, the
// default until 2026-11-28). kAct is a specialist: on the CGVT paper's CGList add;contains at
// 2 x 50 (a lock-based list whose add links its node without re-checking what it read) it finds
// the bug in 999 of 1,000 histories where the mix finds 913, but it never finds five of the 36
// rows of bench/schedulers/ (optimistic_queue_buggy, snark_deque, ...), whose windows lie between
// reads. kInside was worse than the mix beyond the noise on none of those rows at 2 x 10 and
// better on 8, and better on the sixth held-out set, written before the choice; on the long
// histories of Table II it lost only CGList (243 of 300 against 266) (bench/schedulers/
// README.md, "2026-11-28, later" and "2026-11-28, the default").
//
// Schedule parameters: "window seed=S n=N pauses=X", and "windows=act" or "windows=inside" when
// not mixed (a schedule without it, as written before the option, paused mixed). The run is a
// pure function of the seed and the workload.
//
// Thread-safety: see dpct/scheduler.h (one execution at a time).
//
// Internal header: not part of linfault's public API (include/linfault/); it may change between
// versions.

#ifndef LINFAULT_DPCT_WINDOW_SCHEDULER_H_
#define LINFAULT_DPCT_WINDOW_SCHEDULER_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "dpct/rng.h"
#include "dpct/scheduler.h"

namespace linfault::dpct {

// Where a window run's operations may pause: see above.
enum class WindowPauses : std::uint8_t { kMixed, kAct, kInside };
const char* window_pauses_name(WindowPauses pauses);  // "mixed", "act", "inside"
std::optional<WindowPauses> parse_window_pauses(std::string_view name);

class WindowScheduler final : public Scheduler {
 public:
  explicit WindowScheduler(std::uint64_t seed, WindowPauses pauses = WindowPauses::kInside)
      : seed_(seed), where_(pauses) {}

  void begin(const RunInfo& info) override;
  ThreadId choose(const SchedulingPoint& point, std::span<const ThreadId> enabled) override;
  void end(Schedule& schedule) override;
  void reseed(std::uint64_t seed) override { seed_ = seed; }

  // Pauses in this run, for tests and reports.
  std::uint64_t pauses() const { return pauses_; }

 private:
  struct ThreadState {
    std::size_t op_index = 0;
    // Where the current operation may still be paused: right before its first act after its
    // first access, and at one access drawn among those after its first.
    bool act_window = false;
    bool inside_window = false;
    bool op_updated = false;     // the current operation stored or read-modify-wrote
    std::uint32_t accesses = 0;  // accesses the current operation performed
    // Updating operations of the others still to complete before it resumes; 0: not paused.
    std::uint32_t waiting = 0;
    std::uint64_t resume_at = 0;  // the decision at which a pause ends at the latest
    bool blocked = false;         // its pending access is a lock or wait it blocked on
  };

  // Where the operation `state`'s thread starts may pause: (p_act, p_inside) drawn for it.
  void draw_windows(ThreadState& state);
  // Accesses per completed operation in this run so far (an assumed 4 before the first).
  double accesses_per_operation() const;
  // Bookkeeping when `thread`'s operation in progress has completed.
  void operation_completed(ThreadId thread);
  // Whether to pause `thread` right before `access`.
  bool pause_before(ThreadId thread, const Access& access);
  // Accounts the access `thread` performs now that it was chosen.
  void performed(ThreadId thread, const SchedulingPoint& point);

  std::uint64_t seed_;
  WindowPauses where_;
  SplitMix64 rng_;
  const RunView* view_ = nullptr;
  std::vector<ThreadState> threads_;
  // Accesses per completed operation in this run, for the per-access pause probability.
  std::uint64_t completed_ops_ = 0;
  std::uint64_t completed_accesses_ = 0;
  std::uint64_t decisions_ = 0;
  std::uint64_t pauses_ = 0;
  std::vector<ThreadId> candidates_;  // choose()'s scratch space, kept to avoid allocations
  std::vector<ThreadId> paused_;
};

}  // namespace linfault::dpct

#endif  // LINFAULT_DPCT_WINDOW_SCHEDULER_H_
