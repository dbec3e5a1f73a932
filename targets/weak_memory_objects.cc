#include "targets/weak_memory_objects.h"

#include <stdexcept>
#include <string>
#include <utility>

#include "dpct/executor.h"
#include "dpct/pct_scheduler.h"
#include "dpct/random_scheduler.h"
#include "dpct/weak_reads.h"
#include "targets/bind.h"

namespace linfault::targets {

namespace {

constexpr std::memory_order kRelaxed = std::memory_order_relaxed;
constexpr std::memory_order kAcquire = std::memory_order_acquire;
constexpr std::memory_order kRelease = std::memory_order_release;
constexpr std::memory_order kAcqRel = std::memory_order_acq_rel;
constexpr std::memory_order kSeqCst = std::memory_order_seq_cst;

// The two words a register value is kept in (see the header).
constexpr std::int64_t kLowBase = 4;

}  // namespace

// ---------------------------------------------------------------------------------------------
// Seqlock.

void WmSeqlock::write(std::int64_t value) {
  std::uint64_t sequence = sequence_.load(kRelaxed);
  while ((sequence & 1) != 0 ||
         !sequence_.compare_exchange_strong(sequence, sequence + 1, kAcquire, kRelaxed)) {
    dpct::spin_hint();
    sequence = sequence_.load(kRelaxed);
  }
  dpct::atomic_thread_fence(kRelease);
  high_.store(value / kLowBase, kRelaxed);
  low_.store(value % kLowBase, kRelaxed);
  sequence_.store(sequence + 2, kRelease);
}

std::int64_t WmSeqlock::read() {
  while (true) {
    const std::uint64_t before = sequence_.load(kAcquire);
    if ((before & 1) == 0) {
      const std::int64_t high = high_.load(kRelaxed);
      const std::int64_t low = low_.load(kRelaxed);
      if (variant_ != Variant::kBuggy) dpct::atomic_thread_fence(kAcquire);
      if (sequence_.load(kRelaxed) == before) return high * kLowBase + low;
    }
    dpct::spin_hint();
  }
}

// ---------------------------------------------------------------------------------------------
// Chase-Lev deque (Le et al., PPoPP'13, figure 1).

WmChaseLev::Array::Array(std::int64_t size)
    : size(size),
      slots(std::make_unique<dpct::Atomic<std::int64_t>[]>(static_cast<std::size_t>(size))) {}

WmChaseLev::WmChaseLev(Variant variant) : variant_(variant) {
  arrays_.push_back(new Array(2));
  array_.store(arrays_.back(), kRelaxed);
}

WmChaseLev::~WmChaseLev() {
  for (Array* array : arrays_) delete array;
}

WmChaseLev::Array* WmChaseLev::grow(Array* full, std::int64_t top, std::int64_t bottom) {
  auto* bigger = new Array(2 * full->size);
  arrays_.push_back(bigger);
  for (std::int64_t i = top; i < bottom; ++i) {
    bigger->slots[static_cast<std::size_t>(i & (bigger->size - 1))].store(
        full->slots[static_cast<std::size_t>(i & (full->size - 1))].load(kRelaxed), kRelaxed);
  }
  array_.store(bigger, variant_ == Variant::kPublishBuggy ? kRelaxed : kRelease);
  return bigger;
}

void WmChaseLev::push(std::int64_t value) {
  const std::int64_t bottom = bottom_.load(kRelaxed);
  const std::int64_t top = top_.load(kAcquire);
  Array* array = array_.load(kRelaxed);
  if (bottom - top > array->size - 1) array = grow(array, top, bottom);
  array->slots[static_cast<std::size_t>(bottom & (array->size - 1))].store(value, kRelaxed);
  dpct::atomic_thread_fence(kRelease);
  bottom_.store(bottom + 1, kRelaxed);
}

std::optional<std::int64_t> WmChaseLev::take() {
  const std::int64_t bottom = bottom_.load(kRelaxed) - 1;
  Array* array = array_.load(kRelaxed);
  bottom_.store(bottom, kRelaxed);
  dpct::atomic_thread_fence(variant_ == Variant::kFenceBuggy ? kAcqRel : kSeqCst);
  std::int64_t top = top_.load(kRelaxed);
  if (top > bottom) {  // empty
    bottom_.store(bottom + 1, kRelaxed);
    return std::nullopt;
  }
  std::optional<std::int64_t> value =
      array->slots[static_cast<std::size_t>(bottom & (array->size - 1))].load(kRelaxed);
  if (top == bottom) {  // the last element: race the thieves for it
    if (!top_.compare_exchange_strong(top, top + 1, kSeqCst, kRelaxed)) value = std::nullopt;
    bottom_.store(bottom + 1, kRelaxed);
  }
  return value;
}

std::optional<std::int64_t> WmChaseLev::steal() {
  while (true) {
    std::int64_t top = top_.load(kAcquire);
    dpct::atomic_thread_fence(kSeqCst);
    const std::int64_t bottom = bottom_.load(kAcquire);
    if (top >= bottom) return std::nullopt;
    // The paper's consume load; acquire here (consume is promoted to acquire anyway).
    Array* array = array_.load(variant_ == Variant::kPublishBuggy ? kRelaxed : kAcquire);
    const std::int64_t value =
        array->slots[static_cast<std::size_t>(top & (array->size - 1))].load(kRelaxed);
    if (top_.compare_exchange_strong(top, top + 1, kSeqCst, kRelaxed)) return value;
    dpct::spin_hint();  // lost the race for that element (the paper's ABORT): try again
  }
}

// ---------------------------------------------------------------------------------------------
// Bounded MPMC queue (Vyukov).

WmMpmcQueue::WmMpmcQueue(Variant variant) : variant_(variant) {
  for (std::uint64_t i = 0; i < kCapacity; ++i) cells_[i].sequence.store(i, kRelaxed);
}

void WmMpmcQueue::enq(std::int64_t value) {
  std::uint64_t position = enqueue_position_.load(kRelaxed);
  while (true) {
    Cell& cell = cells_[position & (kCapacity - 1)];
    const std::uint64_t sequence = cell.sequence.load(kAcquire);
    const auto difference = static_cast<std::int64_t>(sequence - position);
    if (difference == 0) {
      if (enqueue_position_.compare_exchange_weak(position, position + 1, kRelaxed, kRelaxed)) {
        cell.value.store(value, kRelaxed);
        cell.sequence.store(position + 1, variant_ == Variant::kBuggy ? kRelaxed : kRelease);
        return;
      }
    } else if (difference < 0) {
      throw std::length_error("wm_mpmc_queue: more than 256 elements");
    } else {
      position = enqueue_position_.load(kRelaxed);
    }
  }
}

std::optional<std::int64_t> WmMpmcQueue::deq() {
  std::uint64_t position = dequeue_position_.load(kAcquire);
  while (true) {
    Cell& cell = cells_[position & (kCapacity - 1)];
    const std::uint64_t sequence = cell.sequence.load(kAcquire);
    const auto difference = static_cast<std::int64_t>(sequence - (position + 1));
    if (difference == 0) {
      // acq_rel/acquire, as the loads of the position, where Vyukov's original is relaxed: a
      // dequeue that moves on to a later position must see what the dequeuers before it had
      // seen, or it may find that cell not yet written, the enqueue position stale, and report
      // an empty queue that never was (a violation linfault finds under c11 when relaxed).
      if (dequeue_position_.compare_exchange_weak(position, position + 1, kAcqRel, kAcquire)) {
        const std::int64_t value = cell.value.load(kRelaxed);
        cell.sequence.store(position + kCapacity, kRelease);
        return value;
      }
    } else if (difference < 0) {
      // Empty, unless an enqueue has claimed the cell and not yet written it: Vyukov's original
      // returns "empty" then too, which is not linearizable (the enqueue may have begun first).
      if (enqueue_position_.load(kRelaxed) == position) return std::nullopt;
      dpct::spin_hint();
      position = dequeue_position_.load(kAcquire);
    } else {
      position = dequeue_position_.load(kAcquire);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// SPSC queue with an eventcount (Vyukov; CDSChecker's spsc-bugfix).

WmSpscEventcount::WmSpscEventcount(Variant variant) : variant_(variant) {
  nodes_.push_back(new Node);
  head_ = tail_ = nodes_.back();
}

WmSpscEventcount::~WmSpscEventcount() {
  for (Node* node : nodes_) delete node;
}

void WmSpscEventcount::enq(std::int64_t value) {
  auto* node = new Node;
  nodes_.push_back(node);
  node->value = value;
  head_->next.store(node, kRelease);
  head_ = node;
  signal();
}

bool WmSpscEventcount::try_deq(std::int64_t& value) {
  Node* next = tail_->next.load(kAcquire);
  if (next == nullptr) return false;
  value = next->value;
  tail_ = next;
  return true;
}

std::int64_t WmSpscEventcount::deq() {
  std::int64_t value = 0;
  if (try_deq(value)) return value;
  while (true) {
    const std::uint32_t ticket = prepare_wait();
    if (try_deq(value)) return value;
    wait(ticket);
  }
}

std::uint32_t WmSpscEventcount::prepare_wait() {
  return count_.fetch_or(kWaiter, kSeqCst) & ~kWaiter;
}

void WmSpscEventcount::wait(std::uint32_t ticket) {
  if ((count_.load(kSeqCst) & ~kWaiter) != ticket) return;
  // Checked again under the lock, which signal() takes to move the count: no wake-up is lost
  // between this check and the wait.
  mutex_.lock();
  if ((count_.load(kSeqCst) & ~kWaiter) == ticket) wakeup_.wait(mutex_);
  mutex_.unlock();
}

void WmSpscEventcount::signal() {
  // The fixed signal is an RMW, which reads the newest count: a waiter bit set before it is
  // seen. The buggy one's load may read a count from before the consumer's fetch_or.
  std::uint32_t count =
      variant_ == Variant::kBuggy ? count_.load(kRelaxed) : count_.fetch_add(0, kSeqCst);
  if ((count & kWaiter) == 0) return;
  const dpct::LockGuard lock(mutex_);
  while (!count_.compare_exchange_weak(count, (count + 1) & ~kWaiter, kRelaxed)) {
  }
  wakeup_.notify_all();
}

// ---------------------------------------------------------------------------------------------
// Dekker's algorithm with fences (A. Williams, "C++ Concurrency in Action" companion code, as in
// CDSChecker's dekker-fences).

void WmDekker::lock(int self) {
  const int other = 1 - self;
  flag_[self].store(true, kRelaxed);
  if (variant_ != Variant::kBuggy || self != 0) dpct::atomic_thread_fence(kSeqCst);
  while (flag_[other].load(kRelaxed)) {
    if (turn_.load(kRelaxed) != self) {
      flag_[self].store(false, kRelaxed);
      while (turn_.load(kRelaxed) != self) dpct::spin_hint();
      flag_[self].store(true, kRelaxed);
      dpct::atomic_thread_fence(kSeqCst);
    } else {
      dpct::spin_hint();
    }
  }
  dpct::atomic_thread_fence(kAcquire);
}

void WmDekker::unlock(int self) {
  turn_.store(1 - self, kRelaxed);
  flag_[self].store(false, kRelease);
}

int WmDekker::take_side() {
  const std::lock_guard<std::mutex> guard(sides_mutex_);
  for (int side = 0; side < 2; ++side) {
    if (!busy_[side]) {
      busy_[side] = true;
      return side;
    }
  }
  throw std::logic_error("wm_dekker: more than two calls at once");
}

void WmDekker::leave_side(int side) {
  const std::lock_guard<std::mutex> guard(sides_mutex_);
  busy_[side] = false;
}

void WmDekker::inc() {
  const int self = take_side();
  lock(self);
  count_.store(count_.load(kRelaxed) + 1, kRelaxed);
  unlock(self);
  leave_side(self);
}

std::int64_t WmDekker::get() {
  const int self = take_side();
  lock(self);
  const std::int64_t value = count_.load(kRelaxed);
  unlock(self);
  leave_side(self);
  return value;
}

// ---------------------------------------------------------------------------------------------
// Linux-style reader-writer lock (CDSChecker's linuxrwlocks).

void WmRwLock::read_lock() {
  const std::memory_order order = variant_ == Variant::kBuggy ? kRelaxed : kAcquire;
  while (lock_.fetch_sub(1, order) <= 0) {
    lock_.fetch_add(1, kRelaxed);
    while (lock_.load(kRelaxed) <= 0) dpct::spin_hint();
  }
}

void WmRwLock::read_unlock() { lock_.fetch_add(1, kRelease); }

void WmRwLock::write_lock() {
  while (lock_.fetch_sub(kBias, kAcquire) != kBias) {
    lock_.fetch_add(kBias, kRelaxed);
    while (lock_.load(kRelaxed) != kBias) dpct::spin_hint();
  }
}

void WmRwLock::write_unlock() { lock_.fetch_add(kBias, kRelease); }

void WmRwLock::write(std::int64_t value) {
  write_lock();
  high_.store(value / kLowBase, kRelaxed);
  low_.store(value % kLowBase, kRelaxed);
  write_unlock();
}

std::int64_t WmRwLock::read() {
  read_lock();
  const std::int64_t value = high_.load(kRelaxed) * kLowBase + low_.load(kRelaxed);
  read_unlock();
  return value;
}

// ---------------------------------------------------------------------------------------------
// MCS lock (CDSChecker's mcs-lock, after Mellor-Crummey and Scott).

void WmMcsLock::lock(Node& me) {
  me.next.store(nullptr, kRelaxed);
  me.gate.store(1, kRelaxed);
  Node* predecessor = tail_.exchange(&me, kAcqRel);
  if (predecessor == nullptr) return;
  predecessor->next.store(&me, kRelease);
  const std::memory_order order = variant_ == Variant::kBuggy ? kRelaxed : kAcquire;
  while (me.gate.load(order) != 0) dpct::spin_hint();
}

void WmMcsLock::unlock(Node& me) {
  Node* next = me.next.load(kAcquire);
  if (next == nullptr) {
    Node* expected = &me;
    if (tail_.compare_exchange_strong(expected, nullptr, kAcqRel, kRelaxed)) return;
    while ((next = me.next.load(kAcquire)) == nullptr) dpct::spin_hint();
  }
  next->gate.store(0, kRelease);
}

void WmMcsLock::inc() {
  Node me;
  lock(me);
  count_.store(count_.load(kRelaxed) + 1, kRelaxed);
  unlock(me);
}

std::int64_t WmMcsLock::get() {
  Node me;
  lock(me);
  const std::int64_t value = count_.load(kRelaxed);
  unlock(me);
  return value;
}

// ---------------------------------------------------------------------------------------------
// Ticket lock (CDSChecker's ticket-lock).

void WmTicketLock::lock() {
  const std::uint64_t ticket = next_ticket_.fetch_add(1, kRelaxed);
  const std::memory_order order = variant_ == Variant::kBuggy ? kRelaxed : kAcquire;
  while (turn_.load(order) != ticket) dpct::spin_hint();
}

void WmTicketLock::unlock() { turn_.store(turn_.load(kRelaxed) + 1, kRelease); }

void WmTicketLock::inc() {
  lock();
  count_.store(count_.load(kRelaxed) + 1, kRelaxed);
  unlock();
}

std::int64_t WmTicketLock::get() {
  lock();
  const std::int64_t value = count_.load(kRelaxed);
  unlock();
  return value;
}

// ---------------------------------------------------------------------------------------------
// Read-copy-update (CDSChecker's read-copy-update).

WmRcu::WmRcu(Variant variant) : variant_(variant) {
  records_.push_back(new Record);
  current_.store(records_.back(), kRelaxed);
}

WmRcu::~WmRcu() {
  for (Record* record : records_) delete record;
}

void WmRcu::write(std::int64_t value) {
  auto* fresh = new Record;
  {
    const std::lock_guard<std::mutex> guard(records_mutex_);
    records_.push_back(fresh);
  }
  Record* old = current_.load(kAcquire);
  do {
    // A copy of the current record, then the update; a copy matters for records with fields the
    // update leaves (here both are rewritten, as in CDSChecker's test).
    fresh->high.store(old->high.load(kRelaxed), kRelaxed);
    fresh->low.store(old->low.load(kRelaxed), kRelaxed);
    fresh->high.store(value / kLowBase, kRelaxed);
    fresh->low.store(value % kLowBase, kRelaxed);
  } while (!current_.compare_exchange_strong(old, fresh, kRelease, kAcquire));
}

std::int64_t WmRcu::read() {
  readers_.fetch_add(1, kRelaxed);  // rcu_read_lock: a grace period waits for it (not modelled)
  Record* record = current_.load(variant_ == Variant::kBuggy ? kRelaxed : kAcquire);
  const std::int64_t value = record->high.load(kRelaxed) * kLowBase + record->low.load(kRelaxed);
  readers_.fetch_sub(1, kRelease);  // rcu_read_unlock
  return value;
}

}  // namespace linfault::targets

// ---------------------------------------------------------------------------------------------
// Targets.

namespace linfault::targets {

namespace {

using history::Call;

Call call(std::string method, std::vector<history::Value> args = {}) {
  return Call{std::move(method), std::move(args)};
}

template <class T>
Binding<T> binding(Variant variant) {
  return Binding<T>([variant] { return std::make_unique<T>(variant); });
}

// One target of the group: memory model c11, buggy when it has a scenario. Model "serial": its
// own serial runs (targets/serial_spec.h; all() resolves the name).
Target weak_target(std::string name, std::string model, std::string description,
                   std::vector<OperationSpec> operations, dpct::ObjectFactory factory,
                   std::vector<ThreadRole> roles = {},
                   std::optional<KnownScenario> scenario = std::nullopt) {
  Target t;
  t.name = std::move(name);
  t.model = std::move(model);
  t.description = std::move(description);
  t.bug_expected = scenario.has_value();
  t.memory_model = dpct::MemoryModel::kC11;
  t.operations = std::move(operations);
  t.roles = std::move(roles);
  t.factory = std::move(factory);
  if (scenario) t.known_scenarios.push_back(std::move(*scenario));
  return t;
}

// A target whose calls may wait forever on native threads (a deq of an empty blocking queue):
// native stress runs and `--scheduler native` keep away from it (Target::may_livelock).
Target may_wait_forever(Target target) {
  target.may_livelock = true;
  return target;
}

std::vector<OperationSpec> register_operations() {
  return {{"write", key_in(1, 9), "write(1..9)"}, {"read", no_arguments(), "read() -> v"}};
}
std::vector<OperationSpec> counter_operations() {
  return {{"inc", no_arguments(), "inc()"}, {"get", no_arguments(), "get() -> n"}};
}

template <class T>
dpct::ObjectFactory register_factory(Variant variant) {
  return binding<T>(variant).method("write", &T::write).method("read", &T::read).factory();
}
template <class T>
dpct::ObjectFactory counter_factory(Variant variant) {
  return binding<T>(variant).method("inc", &T::inc).method("get", &T::get).factory();
}

dpct::ObjectFactory chase_lev_factory(Variant variant) {
  return binding<WmChaseLev>(variant)
      .method("push_back", &WmChaseLev::push)
      .method("pop_back", &WmChaseLev::take)
      .method("pop_front", &WmChaseLev::steal)
      .factory();
}

}  // namespace

std::vector<Target> weak_memory_targets() {
  const std::vector<ThreadRole> chase_lev_roles = {{"owner", {"push_back", "pop_back"}, 1},
                                                   {"thief", {"pop_front"}, 0}};
  const std::vector<OperationSpec> chase_lev_operations = {
      {"push_back", unique_value(), "push_back(unique value)"},
      {"pop_back", no_arguments(), "pop_back() -> value | nil"},
      {"pop_front", no_arguments(), "pop_front() -> value | nil"}};
  const std::vector<OperationSpec> queue_operations = {
      {"enq", unique_value(), "enq(unique value)"},
      {"deq", no_arguments(), "deq() -> value | nil"}};
  const std::vector<ThreadRole> dekker_roles = {{"side", {"inc", "get"}, 2}};
  const KnownScenario torn_read{"write(5) || read(): read returns half of 5",
                                1,
                                {{}, {{call("write", {5})}, {call("read")}}, {}}};
  const KnownScenario lost_increment{"inc() || inc(); Pr = get(): get returns 1",
                                     2,
                                     {{}, {{call("inc")}, {call("inc")}}, {call("get")}}};
  const auto spsc = [](Variant variant) {
    return binding<WmSpscEventcount>(variant)
        .method("enq", &WmSpscEventcount::enq)
        .method("deq", &WmSpscEventcount::deq)
        .factory();
  };
  const std::vector<OperationSpec> blocking_queue_operations = {
      {"enq", unique_value(), "enq(unique value)"},
      {"deq", no_arguments(), "deq() -> value, waits while empty"}};
  const std::vector<ThreadRole> spsc_roles = {{"producer", {"enq"}, 1}, {"consumer", {"deq"}, 1}};
  const auto mpmc = [](Variant variant) {
    return binding<WmMpmcQueue>(variant)
        .method("enq", &WmMpmcQueue::enq)
        .method("deq", &WmMpmcQueue::deq)
        .factory();
  };

  return {
      weak_target("wm_seqlock_buggy", "register(init=0)",
                  "seqlock whose reader has no acquire fence before it re-reads the sequence: a "
                  "torn value",
                  register_operations(), register_factory<WmSeqlock>(Variant::kBuggy), {},
                  torn_read),
      weak_target("wm_seqlock", "register(init=0)", "seqlock with release/acquire fences (control)",
                  register_operations(), register_factory<WmSeqlock>(Variant::kFixed)),
      weak_target("wm_chase_lev_fence_buggy", "deque",
                  "Chase-Lev deque whose take has an acq_rel fence instead of seq_cst: take and a "
                  "steal return the same element",
                  chase_lev_operations, chase_lev_factory(Variant::kFenceBuggy), chase_lev_roles,
                  KnownScenario{"Ps = push_back(1); push_back(2); pop_back() || pop_front(); "
                                "pop_front(): 2 is returned twice",
                                1,
                                {{call("push_back", {1}), call("push_back", {2})},
                                 {{call("pop_back")}, {call("pop_front"), call("pop_front")}},
                                 {}}}),
      weak_target("wm_chase_lev_publish_buggy", "deque",
                  "Chase-Lev deque that publishes a grown array with a relaxed store: a thief "
                  "reads a slot before the copy",
                  chase_lev_operations, chase_lev_factory(Variant::kPublishBuggy), chase_lev_roles,
                  KnownScenario{"Ps = push_back(1); push_back(2); push_back(3) || pop_front(): "
                                "pop_front returns 0, never pushed",
                                1,
                                {{call("push_back", {1}), call("push_back", {2})},
                                 {{call("push_back", {3})}, {call("pop_front")}},
                                 {}}}),
      weak_target("wm_chase_lev", "deque",
                  "Chase-Lev deque with the C11 orders of Le et al. (control)",
                  chase_lev_operations, chase_lev_factory(Variant::kFixed), chase_lev_roles),
      weak_target(
          "wm_mpmc_queue_buggy", "queue",
          "bounded MPMC queue (Vyukov) whose enqueue publishes the cell with a relaxed "
          "store: a dequeue returns a value never enqueued",
          queue_operations, mpmc(Variant::kBuggy), {},
          KnownScenario{
              "enq(1) || deq(): deq returns 0", 1, {{}, {{call("enq", {1})}, {call("deq")}}, {}}}),
      weak_target("wm_mpmc_queue", "queue",
                  "bounded MPMC queue (Vyukov) with release/acquire cells (control)",
                  queue_operations, mpmc(Variant::kFixed)),
      may_wait_forever(weak_target(
          "wm_spsc_eventcount_buggy", "serial",
          "SPSC queue whose producer signals its eventcount with a relaxed load: the consumer "
          "sleeps with an element queued",
          blocking_queue_operations, spsc(Variant::kBuggy), spsc_roles,
          KnownScenario{"enq(1) || deq(): deq waits forever (a stuck history)",
                        3,
                        {{}, {{call("enq", {1})}, {call("deq")}}, {}}})),
      may_wait_forever(weak_target("wm_spsc_eventcount", "serial",
                                   "SPSC queue with a seq_cst eventcount signal (control)",
                                   blocking_queue_operations, spsc(Variant::kFixed), spsc_roles)),
      weak_target("wm_dekker_buggy", "counter",
                  "Dekker's lock without the seq_cst fence after thread 0 raises its flag: both "
                  "enter, an increment is lost",
                  counter_operations(), counter_factory<WmDekker>(Variant::kBuggy), dekker_roles,
                  lost_increment),
      weak_target("wm_dekker", "counter", "Dekker's lock with seq_cst fences (control)",
                  counter_operations(), counter_factory<WmDekker>(Variant::kFixed), dekker_roles),
      weak_target("wm_rwlock_buggy", "register(init=0)",
                  "Linux-style reader-writer lock whose read_lock is relaxed: a reader sees half "
                  "of a write",
                  register_operations(), register_factory<WmRwLock>(Variant::kBuggy), {},
                  torn_read),
      weak_target("wm_rwlock", "register(init=0)",
                  "Linux-style reader-writer lock, acquire/release (control)",
                  register_operations(), register_factory<WmRwLock>(Variant::kFixed)),
      weak_target("wm_mcs_lock_buggy", "counter",
                  "MCS lock whose waiter spins on its gate with relaxed loads: an increment is "
                  "lost",
                  counter_operations(), counter_factory<WmMcsLock>(Variant::kBuggy), {},
                  lost_increment),
      weak_target("wm_mcs_lock", "counter", "MCS lock, acquire/release hand-off (control)",
                  counter_operations(), counter_factory<WmMcsLock>(Variant::kFixed)),
      weak_target("wm_ticket_lock_buggy", "counter",
                  "ticket lock whose waiters spin with relaxed loads: an increment is lost",
                  counter_operations(), counter_factory<WmTicketLock>(Variant::kBuggy), {},
                  lost_increment),
      weak_target("wm_ticket_lock", "counter", "ticket lock, acquire/release (control)",
                  counter_operations(), counter_factory<WmTicketLock>(Variant::kFixed)),
      weak_target("wm_rcu_buggy", "register(init=0)",
                  "read-copy-update whose reader loads the record pointer relaxed: it reads the "
                  "new record's fields before they are visible",
                  register_operations(), register_factory<WmRcu>(Variant::kBuggy), {}, torn_read),
      weak_target("wm_rcu", "register(init=0)",
                  "read-copy-update, release CAS and acquire load (control)", register_operations(),
                  register_factory<WmRcu>(Variant::kFixed)),
  };
}

AxiomCheckedRuns run_axiom_checked(const Target& target, std::uint64_t runs) {
  dpct::Executor executor;
  dpct::ExecutionOptions options;
  options.check_memory_model = true;
  options.record_points = false;
  options.describe_schedule = false;
  options.max_steps = 20'000;
  AxiomCheckedRuns out;
  for (const bool pct : {false, true}) {
    std::unique_ptr<dpct::Scheduler> inner;
    if (pct) {
      inner = std::make_unique<dpct::PctScheduler>(dpct::PctOptions{.seed = 1, .depth = 2});
    } else {
      inner = std::make_unique<dpct::RandomScheduler>(1);
    }
    dpct::WeakReadScheduler scheduler(std::move(inner), dpct::ReadPolicy{}, 1);
    for (std::uint64_t seed = 1; seed <= runs / 2; ++seed) {
      // A workload whose Ps alone waits forever (a blocking queue's deq of an empty queue) would
      // end before Pc: drawn again, so that every run reaches its concurrent part.
      dpct::Workload workload;
      for (std::uint64_t draw = seed % 1000 + 1; draw < 100'000; draw += 1000) {
        workload = random_workload(
            target, {.setup = 2, .threads = 2, .ops_per_thread = 3, .reveal = 2}, draw);
        if (!setup_waits_forever(target, workload)) break;
      }
      scheduler.reseed(seed);
      const dpct::Run run = executor.execute(target.factory, workload, scheduler, options);
      ++out.runs;
      const bool waited_forever = target.may_livelock && dpct::ended_stuck(run.outcome);
      out.completed += run.outcome == dpct::RunOutcome::kOk || waited_forever ? 1 : 0;
      out.stale_reads += run.stale_reads;
      if (run.memory_model_violation.empty()) continue;
      if (out.violations++ == 0) {
        out.first_violation =
            "seed " + std::to_string(seed) + (pct ? " (pct): " : ": ") + run.memory_model_violation;
      }
    }
  }
  return out;
}

}  // namespace linfault::targets
