// WeakMemory: the C++20 memory model of one controlled execution, in the fragment where
// modification order is execution order (phase 1 of docs/weak-memory.md).
//
// Controlled execution runs one logical thread at a time, so every store lands in memory in a
// total order. WeakMemory keeps, per atomic location, every store in that order, with the
// writer's happens-before clock, and tells a load which of them it may read: not only the
// newest, but any older store that no happens-before or coherence fact hides from it. A load
// that reads an older store is how a missing acquire, release or fence shows up without
// reordering any code: the executor picks one candidate (a schedule decision) and the load
// returns that store's bytes.
//
// The rules (docs/weak-memory.md §5.4; the store-buffer model of tsan11 as corrected by Miri):
//   - A load walks the stores from the newest back and stops after the first that
//     happens-before it (CoWR), that a load happening-before it has read (CoRR), that an SC fence
//     hides from it (C++17 [atomics.order] p4, p5), or, for an SC load, that an SC load has read
//     (C++20 coherence-ordered-before) or that is an SC store. A failed compare-exchange cannot
//     read a stale store holding `expected`.
//   - A read-modify-write reads the newest store. C++20 release sequences: an RMW's store carries
//     the synchronisation of the store it read.
//   - An acquire load takes the read store's synchronisation clock; a relaxed one keeps it for
//     the thread's next acquire fence. A release store publishes the thread's clock; a relaxed
//     store the clock of the thread's last release fence.
//   - An SC fence acts as an acq_rel RMW of one global location (Miri's approximation: it
//     forbids some outcomes C++20 allows, never the reverse). What a fence teaches a thread about
//     the SC stores before it travels with happens-before, as C++20's [F^sc]; hb rules ask.
//   - An SC load reads no store older than the newest SC store (or store that happens-before
//     one) it may read. C++20 allows some such reads; telling which needs the SC order of
//     phase 2.
//   - Progress: at a spin hint (yield, pause) a thread's floor at each location it read rises
//     past the store it last read there, so a spin loop cannot re-read a value forever once a
//     newer one exists.
// Out of scope, by design: load buffering and out-of-thin-air values (no load reads a store
// that has not executed), modification orders that disagree with execution order (2+2W, S with
// relaxed stores), IRIW with acquire-then-SC reads, and the SC loads above. These forbid
// outcomes C++20 allows; none is an outcome C++20 forbids (dpct/litmus.h checks this against the
// axioms on litmus programs).
//
// Locations are keyed by address. A location is first seen at its first access (the first after
// forget, which a new object's construction calls), and its bytes then are its initial store,
// visible to every thread. When an access finds bytes that differ from the newest store the model
// holds (memory freed and reused, written outside the model), the location starts afresh from those
// bytes, as does an access of another size; reading that initial store synchronises with everything
// every thread did so far, since the model cannot tell who wrote it.
//
// A store's identity (StoreId: its writer and how many stores that writer made to the location
// before it) does not depend on addresses, so a read choice recorded as a StoreId replays in
// another process.
//
// Thread-safety: none; one execution at a time, as the executor runs it. Copyable (exhaustive
// search may fork states), also between load_candidates and commit_load.
//
// Internal header: not part of linfault's public API (include/linfault/); it may change between
// versions.

#ifndef LINFAULT_DPCT_WEAK_MEMORY_H_
#define LINFAULT_DPCT_WEAK_MEMORY_H_

#include <atomic>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "dpct/execution_graph.h"
#include "dpct/memory_model.h"

namespace linfault::dpct {

class WeakMemory {
 public:
  using Thread = std::uint32_t;

  // A model of `threads` logical threads (0 .. threads - 1), no location seen yet.
  explicit WeakMemory(std::size_t threads);

  std::size_t threads() const { return threads_; }

  // Forgets every location and clock, for a new execution with `threads` threads.
  void reset(std::size_t threads);

  // Everything every thread did so far happens-before everything any thread does next (the
  // start of the concurrent part after the sequential prefix, its end before the suffix).
  void synchronize_all();

  // `thread` releases into `object`'s clock (unlock, notify, thread exit) or acquires from it
  // (lock, a woken wait, join). The clock is the join of all releases so far.
  void release_to(Thread thread, const void* object);
  void acquire_from(Thread thread, const void* object);

  // A new object lives at `address`: its next access starts a location as if the address had
  // never been seen (so what the model does does not depend on whether the allocator reused it).
  void forget(const void* address);

  // What a load may read, newest first, as indices for commit_load (0: the newest store).
  // `current` is the location's bytes in memory now (the newest store's, unless the memory was
  // rewritten outside the model). `unreadable_stale`, when not null, is a compare-exchange's
  // `expected`: stale stores holding those bytes are left out (reading one would make the
  // exchange succeed on a value that is not the newest). The span is valid until the next call.
  std::span<const StoreId> load_candidates(Thread thread, const void* address, std::size_t size,
                                           std::memory_order order, const void* current,
                                           const void* unreadable_stale = nullptr);
  // Performs the load prepared by the last load_candidates, reading candidate `choice`, and
  // returns the bytes read (valid until the next store to the location). Throws
  // std::logic_error without a prepared load, or if the location changed since.
  const std::byte* commit_load(std::size_t choice);

  // A store of `bytes` (the location held `current` before it).
  void store(Thread thread, const void* address, std::size_t size, std::memory_order order,
             const void* current, const void* bytes);
  // A read-modify-write that reads the newest store (whose bytes are `current`) and writes
  // `bytes`; a successful compare-exchange is one.
  void read_modify_write(Thread thread, const void* address, std::size_t size,
                         std::memory_order order, const void* current, const void* bytes);

  // std::atomic_thread_fence(order); relaxed does nothing.
  void fence(Thread thread, std::memory_order order);

  // A spin hint (yield, pause, a failed try_lock in a loop): see the progress rule above.
  void spin_hint(Thread thread);

  // `thread`'s happens-before clock: entry u counts u's events that happen-before its next one.
  std::span<const std::uint32_t> clock(Thread thread) const;

  // With `on`, every event from here on is also written to graph() (a location's start, loads,
  // stores, RMWs, fences, releases, acquires, synchronize_all), for find_axiom_violation. reset()
  // empties the graph and keeps the setting. Copies carry their own graph.
  void record(bool on) { recording_ = on; }
  const ExecutionGraph& graph() const { return graph_; }

  // Stores the location at `address` holds now (0 when unknown), and the newest one's id, for
  // tests and reports.
  std::size_t stores_at(const void* address) const;
  std::optional<StoreId> newest_store(const void* address) const;

 private:
  // A clock is 2 * threads_ entries: happens-before (entry u: u's events so far), then, for the
  // SC-fence rule, the time of the last SC store of each thread u that an SC fence hb-before
  // here has seen. Both halves travel together through every release and acquire.
  using ClockRef = std::uint32_t;  // offset of a clock in clocks_
  static constexpr ClockRef kNoClock = std::numeric_limits<ClockRef>::max();

  struct Store {
    StoreId id;
    std::uint32_t time = 0;          // the writer's clock entry at the store
    ClockRef sync = kNoClock;        // what an acquire read of it obtains (none: nothing)
    ClockRef first_read = kNoClock;  // per thread, its clock entry at its first read (0: none)
    std::uint32_t bytes = 0;         // offset in Location::bytes
    bool sc = false;                 // an SC store, or happens-before one (Miri's is_seqcst)
    bool sc_read = false;            // read by an SC load or RMW
    std::int64_t event = -1;         // its event in graph_, when recording
  };
  struct Location {
    std::uint32_t size = 0;
    std::uint32_t incarnation = 0;
    std::uint64_t serial = 0;              // names it in graph_ (addresses are reused)
    std::vector<Store> stores;             // modification order = execution order
    std::vector<std::byte> bytes;          // the stores' values, `size` each
    std::vector<std::uint32_t> stores_by;  // per thread: stores made so far (StoreId::seq)
  };
  struct ThreadState {
    ClockRef clock = kNoClock;            // happens-before, and SC stores seen through fences
    ClockRef release_fence = kNoClock;    // the clock at the last release fence
    ClockRef acquire_pending = kNoClock;  // sync clocks read by relaxed loads since
    ClockRef sc_fences = kNoClock;        // the global SC-fence clock seen by SC loads
    // Per location read since the last spin hint: the index of the store last read there.
    std::unordered_map<const void*, std::uint32_t> read_since_hint;
    // Per location: stores below this index are no longer readable (the progress rule).
    std::unordered_map<const void*, std::uint32_t> floor;
  };

  ClockRef new_clock();
  // Pointers into clocks_: valid until the next new_clock().
  std::uint32_t* at(ClockRef clock) { return clocks_.data() + clock; }
  const std::uint32_t* at(ClockRef clock) const { return clocks_.data() + clock; }
  void join(ClockRef into, ClockRef from);
  bool happens_before(const Store& store, Thread thread) const;
  std::uint32_t tick(Thread thread);

  // The location at `address`, made or started afresh from `current` when needed.
  Location& locate(const void* address, std::size_t size, const void* current);
  void append(Thread thread, Location& location, const void* bytes, ClockRef sync, bool seq_cst,
              std::int64_t event);
  void read(Thread thread, const void* address, Location& location, std::uint32_t index,
            std::memory_order order);

  std::size_t threads_ = 0;
  std::size_t width_ = 0;               // entries per clock: 2 * threads_
  std::vector<std::uint32_t> clocks_;   // every clock, width_ entries each
  ClockRef sc_fence_clock_ = kNoClock;  // the global SC fence location's clock
  ClockRef sc_write_times_ = kNoClock;  // per thread, the time of its last SC store
  std::vector<ThreadState> thread_states_;
  std::unordered_map<const void*, Location> locations_;
  std::unordered_map<const void*, std::uint32_t> incarnations_;  // starts so far, per address
  std::unordered_map<const void*, ClockRef> objects_;            // release_to / acquire_from
  bool recording_ = false;
  ExecutionGraph graph_;
  std::uint64_t serials_ = 0;  // locations started so far
  // Appends an event to graph_ when recording, and returns its index (-1 otherwise).
  std::int64_t note(GraphEvent::Kind kind, std::uint32_t thread, std::uint64_t location,
                    std::memory_order order, std::int64_t reads_from = -1);

  // The load prepared by load_candidates (by address: a copy of the model may commit it).
  struct PendingLoad {
    bool ready = false;
    Thread thread = 0;
    const void* address = nullptr;
    std::size_t stores = 0;  // the location's stores when prepared
    std::uint32_t incarnation = 0;
    std::memory_order order = std::memory_order_seq_cst;
    std::vector<std::uint32_t> indices;  // newest first
    std::vector<StoreId> ids;
  } pending_;
};

}  // namespace linfault::dpct

#endif  // LINFAULT_DPCT_WEAK_MEMORY_H_
