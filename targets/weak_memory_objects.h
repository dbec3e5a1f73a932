// Objects whose only bugs are memory orders: the wm_ targets (docs/weak-memory.md, "Known-bug
// objects"). Each is written from its published algorithm and takes a Variant: kFixed follows the
// algorithm's orders, and each other variant weakens the one order (or drops the one fence) that
// its published bug weakens. Under sequential consistency every variant is correct: their bugs
// show only when a load may read an older store (memory model c11, dpct/memory_model.h), which
// is the memory model their targets register.
//
//   WmSeqlock (register): a writer makes the sequence odd with a CAS, releases with a fence,
//     stores the value's two halves and makes the sequence even with a release store; a reader
//     loads the sequence (acquire), both halves, then an acquire fence and the sequence again, and
//     retries when it was odd or changed. kBuggy drops the reader's acquire fence: the second
//     load of the sequence may miss the writer's, and a torn value is returned (Boehm, MSPC'12;
//     CDSSpec seqlock injection #1).
//   WmChaseLev (deque: push_back and pop_back by the owner, pop_front by thieves): Lê, Pop, Cohen
//     and Zappa Nardelli's C11 Chase-Lev deque (PPoPP'13) with a growable array.
//     kFenceBuggy weakens take's seq_cst fence to acq_rel: take and a steal each read the other's
//     index stale and return the same element (CDSSpec chase-lev injection #1).
//     kPublishBuggy publishes a grown array with a relaxed store and steals load it relaxed: a
//     thief reads a slot of the new array before the copy is visible (CDSChecker's known bug).
//   WmMpmcQueue (queue): Vyukov's bounded MPMC queue, one sequence number per cell (a dequeue
//     that finds a cell claimed but not yet written waits for it, where the original returns a
//     non-linearizable "empty", and reads and claims the dequeue position with acquire and
//     acq_rel where the original is relaxed, which lets a dequeue report an empty queue that
//     never was). kBuggy makes
//     enqueue's publishing store of the cell's sequence relaxed: a dequeuer owns the cell without
//     seeing the value (CDSSpec mpmc injection, C11Tester's mpmc variant).
//   WmSpscEventcount (serial specification; one producer calls enq, one consumer calls deq):
//     Vyukov's unbounded single-producer single-consumer queue (a linked list with a dummy node,
//     linked by a release store and read by an acquire load) whose deq blocks until an element
//     is there, sleeping on an eventcount: the consumer announces itself with a seq_cst
//     fetch_or of a waiter bit, checks the queue again, and waits on a condition variable until
//     the count moves; the producer signals after each enq with a seq_cst fetch_add(0), which
//     reads the waiter bit and wakes it. kBuggy signals with a relaxed load of the count instead
//     (Vyukov's signal_relaxed()): a load, unlike the RMW, may read the count from before the
//     consumer set its waiter bit (a store buffer: the producer's link and the consumer's
//     fetch_or are each followed by a read of the other's location), so no wake-up comes while
//     the consumer, whose re-check found the queue empty, sleeps with an element in the queue
//     (CDSChecker's spsc-bugfix, C11Tester's spsc-queue). The fix is the RMW, not its order: a
//     seq_cst load would lose the wake-up too. Its blocking deq has no built-in model, so its
//     own serial runs are its specification, and the lost wake-up is a stuck history.
//   WmDekker (counter; one thread per role p0 and p1): Dekker's mutual exclusion with seq_cst
//     fences (A. Williams), guarding a counter kept in relaxed atomics. kBuggy drops p0's fence
//     after it raises its flag: both threads read the other's flag stale and enter together
//     (C11Tester's dekker-fences).
//   WmRwLock (register): a Linux-style reader-writer lock (a counter biased by RW_LOCK_BIAS)
//     guarding a value kept in two relaxed halves. kBuggy takes the read lock with a relaxed
//     fetch_sub: a reader may see half of a write it follows (CDSSpec linuxrwlocks #1).
//   WmMcsLock (counter): the MCS queue lock, nodes on each caller's stack, guarding a relaxed
//     counter. kBuggy spins on its gate with relaxed loads: the lock passes without the holder's
//     writes (C11Tester's mcs-lock).
//   WmTicketLock (counter): a ticket lock guarding a relaxed counter. kBuggy spins on the turn
//     with relaxed loads (CDSSpec ticket-lock #1).
//   WmRcu (register): read-copy-update of a two-field record: a writer copies the current record,
//     stores the new value's halves into the copy and publishes it with a release CAS; readers
//     enter a read-side critical section (a reader count) and load the pointer with acquire.
//     kBuggy loads it relaxed: a reader sees the new record but not its fields (CDSSpec
//     read-copy-update #1).
//
// The register objects keep a value v of 0..15 as v / 4 and v % 4 in two words, so a torn read
// is a value never written; values written are drawn from 1..9 and the register starts at 0.
//
// Memory: records, arrays and nodes are kept until the object is destroyed (no reclamation in
// the run), so no address is reused while it runs.
//
// Thread-safety: as each algorithm: any number of threads, except WmChaseLev (one owner thread
// calls push_back and pop_back) and WmDekker (one thread per role).
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_TARGETS_WEAK_MEMORY_OBJECTS_H_
#define LINFAULT_TARGETS_WEAK_MEMORY_OBJECTS_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "dpct/shared.h"
#include "targets/registry.h"

namespace linfault::targets {

enum class Variant : std::uint8_t { kFixed, kBuggy, kFenceBuggy, kPublishBuggy };

class WmSeqlock {
 public:
  explicit WmSeqlock(Variant variant) : variant_(variant) {}
  void write(std::int64_t value);
  std::int64_t read();

 private:
  Variant variant_;
  dpct::Atomic<std::uint64_t> sequence_{0};
  dpct::Atomic<std::int64_t> high_{0};
  dpct::Atomic<std::int64_t> low_{0};
};

class WmChaseLev {
 public:
  explicit WmChaseLev(Variant variant);
  ~WmChaseLev();
  WmChaseLev(const WmChaseLev&) = delete;
  WmChaseLev& operator=(const WmChaseLev&) = delete;

  void push(std::int64_t value);        // owner: push_back
  std::optional<std::int64_t> take();   // owner: pop_back
  std::optional<std::int64_t> steal();  // thieves: pop_front

 private:
  struct Array {
    explicit Array(std::int64_t size);
    std::int64_t size;  // a power of two, set before the array is shared
    std::unique_ptr<dpct::Atomic<std::int64_t>[]> slots;
  };
  Array* grow(Array* full, std::int64_t top, std::int64_t bottom);

  Variant variant_;
  dpct::Atomic<std::int64_t> top_{0};
  dpct::Atomic<std::int64_t> bottom_{0};
  dpct::Atomic<Array*> array_{nullptr};
  std::vector<Array*> arrays_;  // every array made, freed by the destructor (owner only)
};

class WmMpmcQueue {
 public:
  explicit WmMpmcQueue(Variant variant);
  // Throws std::length_error when full: a history of more enqueues than kCapacity is out of
  // the target's range (detection workloads are far shorter).
  void enq(std::int64_t value);
  std::optional<std::int64_t> deq();

 private:
  static constexpr std::uint64_t kCapacity = 256;  // a power of two
  struct Cell {
    dpct::Atomic<std::uint64_t> sequence{0};
    dpct::Atomic<std::int64_t> value{0};
  };
  Variant variant_;
  Cell cells_[kCapacity];
  dpct::Atomic<std::uint64_t> enqueue_position_{0};
  dpct::Atomic<std::uint64_t> dequeue_position_{0};
};

class WmSpscEventcount {
 public:
  explicit WmSpscEventcount(Variant variant);
  ~WmSpscEventcount();
  WmSpscEventcount(const WmSpscEventcount&) = delete;
  WmSpscEventcount& operator=(const WmSpscEventcount&) = delete;

  void enq(std::int64_t value);  // the producer
  std::int64_t deq();            // the consumer: waits until an element is there

 private:
  struct Node {
    dpct::Atomic<Node*> next{nullptr};
    std::int64_t value = 0;  // written before the node is linked
  };
  static constexpr std::uint32_t kWaiter = 0x80000000U;  // the count's waiter bit

  bool try_deq(std::int64_t& value);
  std::uint32_t prepare_wait();     // eventcount get(): announces a waiter
  void wait(std::uint32_t ticket);  // sleeps unless the count moved since prepare_wait
  void signal();                    // wakes a waiter announced before

  Variant variant_;
  Node* head_;                // the newest node: the producer's only
  Node* tail_;                // the dummy node before the oldest element: the consumer's only
  std::vector<Node*> nodes_;  // every node made (the producer's), freed by the destructor
  dpct::Atomic<std::uint32_t> count_{0};
  dpct::Mutex mutex_;
  dpct::ConditionVariable wakeup_;
};

class WmDekker {
 public:
  explicit WmDekker(Variant variant) : variant_(variant) {}
  // Each call takes a side (0 or 1) no other call in progress holds, for its duration; a third
  // concurrent call throws std::logic_error (the target's roles allow two threads).
  void inc();
  std::int64_t get();

 private:
  int take_side();
  void leave_side(int side);
  void lock(int self);
  void unlock(int self);

  Variant variant_;
  std::mutex sides_mutex_;  // guards busy_ only: not part of the algorithm, not seen
  bool busy_[2] = {false, false};
  dpct::Atomic<bool> flag_[2] = {false, false};
  dpct::Atomic<int> turn_{0};
  dpct::Atomic<std::int64_t> count_{0};
};

class WmRwLock {
 public:
  explicit WmRwLock(Variant variant) : variant_(variant) {}
  void write(std::int64_t value);
  std::int64_t read();

 private:
  static constexpr std::int64_t kBias = 0x100000;
  void read_lock();
  void read_unlock();
  void write_lock();
  void write_unlock();

  Variant variant_;
  dpct::Atomic<std::int64_t> lock_{kBias};
  dpct::Atomic<std::int64_t> high_{0};
  dpct::Atomic<std::int64_t> low_{0};
};

class WmMcsLock {
 public:
  explicit WmMcsLock(Variant variant) : variant_(variant) {}
  void inc();
  std::int64_t get();

 private:
  struct Node {
    dpct::Atomic<Node*> next{nullptr};
    dpct::Atomic<int> gate{0};
  };
  void lock(Node& me);
  void unlock(Node& me);

  Variant variant_;
  dpct::Atomic<Node*> tail_{nullptr};
  dpct::Atomic<std::int64_t> count_{0};
};

class WmTicketLock {
 public:
  explicit WmTicketLock(Variant variant) : variant_(variant) {}
  void inc();
  std::int64_t get();

 private:
  void lock();
  void unlock();

  Variant variant_;
  dpct::Atomic<std::uint64_t> next_ticket_{0};
  dpct::Atomic<std::uint64_t> turn_{0};
  dpct::Atomic<std::int64_t> count_{0};
};

class WmRcu {
 public:
  explicit WmRcu(Variant variant);
  ~WmRcu();
  WmRcu(const WmRcu&) = delete;
  WmRcu& operator=(const WmRcu&) = delete;
  void write(std::int64_t value);
  std::int64_t read();

 private:
  struct Record {
    dpct::Atomic<std::int64_t> high{0};
    dpct::Atomic<std::int64_t> low{0};
  };
  Variant variant_;
  dpct::Atomic<Record*> current_{nullptr};
  dpct::Atomic<std::int64_t> readers_{0};  // readers inside a read-side critical section
  std::mutex records_mutex_;      // guards records_ only: not part of the algorithm, not seen
  std::vector<Record*> records_;  // every record made, freed by the destructor
};

// The wm_ targets of these objects, in their own group: registered with memory model c11, a
// buggy variant and a fixed twin each, with the bug's smallest scenario (all() lists them last).
std::vector<Target> weak_memory_targets();

// Weak executions of a target, for checking linfault's model itself (bench/weak_memory,
// targets_weak_memory_axioms_test): `runs` random 2 x 3 workloads with a 2-call Ps and Pr, half
// under a random scheduler and half under PCT, reads drawn by the mixed policy, every run's
// memory events checked against the C++20 axioms (dpct::ExecutionOptions::check_memory_model).
struct AxiomCheckedRuns {
  std::uint64_t runs = 0;
  // Ran to their end: normally (RunOutcome::kOk), or, for an object whose calls may wait forever
  // (Target::may_livelock: a deq of an empty blocking queue), in a deadlock after Ps (workloads
  // whose Ps alone waits forever are drawn again).
  std::uint64_t completed = 0;
  std::uint64_t stale_reads = 0;
  std::uint64_t violations = 0;
  std::string first_violation;  // with its seed and scheduler
};
AxiomCheckedRuns run_axiom_checked(const Target& target, std::uint64_t runs);

}  // namespace linfault::targets

#endif  // LINFAULT_TARGETS_WEAK_MEMORY_OBJECTS_H_
