// The project's objects as linfault targets: each bound to a sequential model, with generators
// for the arguments of its operations.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <linfault/target.h>

#include "append_log.h"
#include "bank.h"
#include "bounded_queue.h"
#include "cached_register.h"
#include "capped_set.h"
#include "cas_counter.h"
#include "counted_stack.h"
#include "double_buffer.h"
#include "flagged_register.h"
#include "lazy_value.h"
#include "lossy_counter.h"
#include "mailbox.h"
#include "max_register.h"
#include "min_max.h"
#include "permits.h"
#include "reserve_queue.h"
#include "ring_queue.h"
#include "rw_spinlock.h"
#include "seqlock_pair.h"
#include "sharded_counter.h"
#include "slot_stack.h"
#include "sorted_set.h"
#include "stats_counter.h"
#include "striped_set.h"
#include "ticket_counter.h"
#include "torn_register.h"
#include "versioned_register.h"

namespace {

// Register values whose two 32-bit halves both change from one write to the next (1:1, 2:2,
// ...), so that a value torn between two writes is one nobody wrote. Unique within a run.
std::vector<linfault::Value> two_word_value(linfault::ArgumentSource& source) {
  constexpr std::int64_t kBothHalves = (std::int64_t{1} << 32) + 1;
  return {source.unique() * kBothHalves};
}

// A target with no written model: its own serial runs are the specification (linfault's
// docs/serial-spec.md). The caller adds the operations and the factory.
linfault::Target serial_target(std::string name, bool bug_expected, std::string description) {
  linfault::Target t;
  t.name = std::move(name);
  t.model = "serial";
  t.description = std::move(description);
  t.bug_expected = bug_expected;
  return t;
}

const linfault::OperationSpec kRegisterWrite{"write", two_word_value, "write(n:n, unique)"};
const linfault::OperationSpec kRegisterRead{"read", linfault::no_arguments(), "read() -> value"};

// The seqlock register with a version of `bits` bits (versioned_register.h).
linfault::Target versioned_register(std::string name, unsigned bits, bool bug_expected,
                                    std::string description) {
  linfault::Target t;
  t.name = std::move(name);
  t.model = "register(init=0)";
  t.description = std::move(description);
  t.bug_expected = bug_expected;
  t.operations = {kRegisterWrite, kRegisterRead};
  t.factory = linfault::Binding<user::VersionedRegister>(
                  [bits] { return std::make_unique<user::VersionedRegister>(bits); })
                  .method("write", &user::VersionedRegister::write)
                  .method("read", &user::VersionedRegister::read)
                  .factory();
  return t;
}

// The striped set, with or without the check repeated under the lock (striped_set.h).
linfault::Target striped_set(std::string name, bool recheck, std::string description) {
  linfault::Target t;
  t.name = std::move(name);
  t.model = "set";
  t.description = std::move(description);
  t.bug_expected = !recheck;
  t.operations = {{"add", linfault::key_in(0, 4), "add(0..4) -> bool"},
                  {"remove", linfault::key_in(0, 4), "remove(0..4) -> bool"},
                  {"contains", linfault::key_in(0, 4), "contains(0..4) -> bool"}};
  t.factory = linfault::Binding<user::StripedSet>(
                  [recheck] { return std::make_unique<user::StripedSet>(recheck); })
                  .method("add", &user::StripedSet::add)
                  .method("remove", &user::StripedSet::remove)
                  .method("contains", &user::StripedSet::contains)
                  .factory();
  return t;
}

}  // namespace

LINFAULT_REGISTER_TARGET([] {
  linfault::Target t;
  t.name = "ring_queue";
  t.model = "queue";
  t.description = "bounded ring queue with an unlocked empty check in deq (buggy)";
  t.bug_expected = true;
  t.operations = {{"enq", linfault::unique_value(), "enq(unique value)"},
                  {"deq", linfault::no_arguments(), "deq() -> value | nil"}};
  t.factory = linfault::Binding<user::RingQueue>()
                  .method("enq", &user::RingQueue::enq)
                  .method("deq", &user::RingQueue::deq)
                  .factory();
  return t;
});

LINFAULT_REGISTER_TARGET([] {
  linfault::Target t;
  t.name = "cas_counter";
  t.model = "counter";
  t.description = "lock-free counter, compare-and-swap loops (correct)";
  t.operations = {{"increment", linfault::no_arguments(), "increment()"},
                  {"add", linfault::key_in(1, 3), "add(1..3)"},
                  {"get", linfault::no_arguments(), "get() -> value"}};
  t.factory = linfault::Binding<user::CasCounter>()
                  .method("increment", &user::CasCounter::increment)
                  .method("add", &user::CasCounter::add)
                  .method("get", &user::CasCounter::get)
                  .factory();
  return t;
});

LINFAULT_REGISTER_TARGET([] {
  linfault::Target t;
  t.name = "torn_register";
  t.model = "register(init=0)";
  t.description = "64-bit register in two 32-bit atomic words, no lock (buggy: torn reads)";
  t.bug_expected = true;
  t.operations = {kRegisterWrite, kRegisterRead};
  t.factory = linfault::Binding<user::TornRegister>()
                  .method("write", &user::TornRegister::write)
                  .method("read", &user::TornRegister::read)
                  .factory();
  return t;
});

LINFAULT_REGISTER_TARGET([] {
  linfault::Target t;
  t.name = "flagged_register";
  t.model = "register(init=0)";
  t.description =
      "two-word register with a write-in-progress flag readers check only before reading "
      "(buggy: torn reads, two preemptions)";
  t.bug_expected = true;
  t.operations = {kRegisterWrite, kRegisterRead};
  t.factory = linfault::Binding<user::FlaggedRegister>()
                  .method("write", &user::FlaggedRegister::write)
                  .method("read", &user::FlaggedRegister::read)
                  .factory();
  return t;
});

LINFAULT_REGISTER_TARGET([] {
  return versioned_register("versioned_register", 3, true,
                            "seqlock register with a 3-bit version that wraps after 4 writes "
                            "(buggy: a torn read inside 4 writes, 1 || 4)");
});

LINFAULT_REGISTER_TARGET([] {
  return versioned_register("versioned_register_wide", 32, false,
                            "seqlock register with a 32-bit version (correct)");
});

LINFAULT_REGISTER_TARGET([] {
  linfault::Target t;
  t.name = "lossy_counter";
  t.model = "counter";
  t.description = "counter whose add is a load and a store (buggy: lost updates)";
  t.bug_expected = true;
  t.operations = {{"increment", linfault::no_arguments(), "increment()"},
                  {"add", linfault::key_in(1, 3), "add(1..3)"},
                  {"get", linfault::no_arguments(), "get() -> value"}};
  t.factory = linfault::Binding<user::LossyCounter>()
                  .method("increment", &user::LossyCounter::increment)
                  .method("add", &user::LossyCounter::add)
                  .method("get", &user::LossyCounter::get)
                  .factory();
  return t;
});

LINFAULT_REGISTER_TARGET([] {
  return striped_set("striped_set", /*recheck=*/false,
                     "lock-striped set whose add checks membership before the lock only "
                     "(buggy: check-then-act)");
});

LINFAULT_REGISTER_TARGET([] {
  return striped_set("striped_set_rechecked", /*recheck=*/true,
                     "lock-striped set whose add checks again under the lock (correct)");
});

LINFAULT_REGISTER_TARGET([] {
  linfault::Target t;
  t.name = "reserve_queue";
  t.model = "queue";
  t.description =
      "array queue, slots reserved by fetch_add and filled after (buggy: a dequeuer reads a "
      "reserved slot before it is filled)";
  t.bug_expected = true;
  t.operations = {{"enq", linfault::unique_value(), "enq(unique value)"},
                  {"deq", linfault::no_arguments(), "deq() -> value | nil"}};
  t.factory = linfault::Binding<user::ReserveQueue>()
                  .method("enq", &user::ReserveQueue::enq)
                  .method("deq", &user::ReserveQueue::deq)
                  .factory();
  return t;
});

LINFAULT_REGISTER_TARGET([] {
  linfault::Target t;
  t.name = "cached_register";
  t.model = "register(init=0)";
  t.description = "register with a read cache that a racing read refills stale (buggy)";
  t.bug_expected = true;
  t.operations = {{"write", linfault::unique_value(), "write(unique value)"}, kRegisterRead};
  t.factory = linfault::Binding<user::CachedRegister>()
                  .method("write", &user::CachedRegister::write)
                  .method("read", &user::CachedRegister::read)
                  .factory();
  return t;
});

// The bounded queues, checked against the project's own model "bounded-queue"
// (bounded_queue_model.cc registers it with LINFAULT_REGISTER_MODEL).
namespace {

template <class Queue>
linfault::Target bounded_queue(std::string name, bool bug_expected, std::string description) {
  linfault::Target t;
  t.name = std::move(name);
  t.model = "bounded-queue";
  t.description = std::move(description);
  t.bug_expected = bug_expected;
  t.operations = {{"try_push", linfault::unique_value(), "try_push(unique value) -> bool"},
                  {"try_pop", linfault::no_arguments(), "try_pop() -> value | nil"}};
  t.factory = linfault::Binding<Queue>()
                  .method("try_push", &Queue::try_push)
                  .method("try_pop", &Queue::try_pop)
                  .factory();
  return t;
}

}  // namespace

LINFAULT_REGISTER_TARGET([] {
  return bounded_queue<user::BoundedQueue>("bounded_queue", false,
                                           "bounded queue of 2, a ring under one lock (correct)");
});

LINFAULT_REGISTER_TARGET([] {
  return bounded_queue<user::RingBufferQueue>(
      "bounded_queue_buggy", true,
      "bounded queue of 2, a lock-free ring for one producer used by several (buggy: two "
      "try_push write one slot)");
});

// The ticket counters have no written model at all: t.model = "serial" makes each one's own
// serial runs (every call on one thread, a fresh counter per run) the specification. Their state
// is their total (Binding::state): counters with equal totals answer alike, so the checks treat
// every order of calls that reaches a total as one state.
namespace {

template <class Counter>
linfault::Target ticket_counter(std::string name, bool bug_expected, std::string description) {
  linfault::Target t = serial_target(std::move(name), bug_expected, std::move(description));
  t.operations = {{"add_and_get", linfault::key_in(1, 3), "add_and_get(1..3) -> total"},
                  {"get", linfault::no_arguments(), "get() -> total"}};
  t.factory = linfault::Binding<Counter>()
                  .method("add_and_get", &Counter::add_and_get)
                  .method("get", &Counter::get)
                  .state(&Counter::get)
                  .factory();
  return t;
}

}  // namespace

LINFAULT_REGISTER_TARGET([] {
  return ticket_counter<user::TicketCounter>(
      "ticket_counter", false, "counter whose add_and_get is one fetch_add (correct; no model)");
});

LINFAULT_REGISTER_TARGET([] {
  return ticket_counter<user::RacyTicketCounter>(
      "ticket_counter_buggy", true,
      "counter whose add_and_get loads the total again after its fetch_add (buggy: two calls "
      "return the same total; no model)");
});

// The second held-out set (bench/schedulers/README.md): written after the window scheduler and
// the portfolio's current members were designed, and measured without changing either. None has
// a written model: t.model = "serial" makes each one's own serial runs its specification.
namespace {

template <class Register>
linfault::Target max_register(std::string name, bool bug_expected, std::string description) {
  linfault::Target t = serial_target(std::move(name), bug_expected, std::move(description));
  t.operations = {{"write_max", linfault::key_in(1, 5), "write_max(1..5)"},
                  {"read", linfault::no_arguments(), "read() -> max"}};
  t.factory = linfault::Binding<Register>()
                  .method("write_max", &Register::write_max)
                  .method("read", &Register::read)
                  .state(&Register::read)  // the maximum is all it remembers
                  .factory();
  return t;
}

template <class Bank>
linfault::Target bank(std::string name, bool bug_expected, std::string description) {
  linfault::Target t = serial_target(std::move(name), bug_expected, std::move(description));
  t.operations = {{"transfer", linfault::key_in(1, 3), "transfer(1..3)"},
                  {"total", linfault::no_arguments(), "total() -> sum"}};
  t.factory = linfault::Binding<Bank>()
                  .method("transfer", &Bank::transfer)
                  .method("total", &Bank::total)
                  .factory();
  return t;
}

}  // namespace

LINFAULT_REGISTER_TARGET([] {
  return max_register<user::MaxRegister>("max_register", false,
                                         "max register with a compare-exchange loop (correct)");
});

LINFAULT_REGISTER_TARGET([] {
  return max_register<user::RacyMaxRegister>(
      "max_register_buggy", true,
      "max register whose write_max loads, compares and stores (buggy: a smaller value "
      "overwrites a larger one)");
});

LINFAULT_REGISTER_TARGET([] {
  return bank<user::LockedBank>("bank", false,
                                "two accounts, transfer and total both under the lock (correct)");
});

LINFAULT_REGISTER_TARGET([] {
  return bank<user::RacyBank>(
      "bank_buggy", true,
      "two accounts, total reads them without the lock (buggy: a transfer in flight is missing)");
});

LINFAULT_REGISTER_TARGET([] {
  linfault::Target t = serial_target(
      "counted_stack_buggy", true,
      "Treiber stack with a size counter updated after the link (buggy: size() can be -1)");
  t.operations = {{"push", linfault::key_in(1, 5), "push(1..5)"},
                  {"pop", linfault::no_arguments(), "pop() -> value | nil"},
                  {"size", linfault::no_arguments(), "size() -> count"}};
  t.factory = linfault::Binding<user::CountedStack>()
                  .method("push", &user::CountedStack::push)
                  .method("pop", &user::CountedStack::pop)
                  .method("size", &user::CountedStack::size)
                  .factory();
  return t;
});

// The third held-out set (bench/schedulers/README.md): written before the portfolio's opening of
// random walks was chosen, and kept out of that choice. No written models.
namespace {

template <class Permits>
linfault::Target permits(std::string name, bool bug_expected, std::string description) {
  linfault::Target t = serial_target(std::move(name), bug_expected, std::move(description));
  t.operations = {{"try_acquire", linfault::no_arguments(), "try_acquire() -> bool"},
                  {"release", linfault::no_arguments(), "release()"},
                  {"available", linfault::no_arguments(), "available() -> count"}};
  t.factory = linfault::Binding<Permits>()
                  .method("try_acquire", &Permits::try_acquire)
                  .method("release", &Permits::release)
                  .method("available", &Permits::available)
                  .state(&Permits::available)
                  .factory();
  return t;
}

}  // namespace

LINFAULT_REGISTER_TARGET([] {
  return permits<user::CasPermits>("permits", false,
                                   "semaphore starting with one permit, try_acquire by "
                                   "compare-exchange (correct)");
});

LINFAULT_REGISTER_TARGET([] {
  return permits<user::RacyPermits>(
      "permits_buggy", true,
      "semaphore starting with one permit whose try_acquire checks, then takes (buggy: two "
      "acquire one permit)");
});

LINFAULT_REGISTER_TARGET([] {
  linfault::Target t = serial_target(
      "slot_stack_buggy", true,
      "array stack whose push claims a slot, then fills it (buggy: a pop takes an empty slot)");
  t.operations = {{"push", linfault::key_in(1, 5), "push(1..5)"},
                  {"pop", linfault::no_arguments(), "pop() -> value | nil"}};
  t.factory = linfault::Binding<user::SlotStack>()
                  .method("push", &user::SlotStack::push)
                  .method("pop", &user::SlotStack::pop)
                  .factory();
  return t;
});

LINFAULT_REGISTER_TARGET([] {
  linfault::Target t =
      serial_target("sharded_counter_buggy", true,
                    "counter over two shards whose reset zeroes them one by one (buggy: a read "
                    "sees half a reset)");
  t.operations = {{"increment", linfault::key_in(0, 1), "increment(shard 0..1)"},
                  {"read", linfault::no_arguments(), "read() -> sum"},
                  {"reset", linfault::no_arguments(), "reset()"}};
  t.factory = linfault::Binding<user::ShardedCounter>()
                  .method("increment", &user::ShardedCounter::increment)
                  .method("read", &user::ShardedCounter::read)
                  .method("reset", &user::ShardedCounter::reset)
                  .factory();
  return t;
});

// The fourth held-out set (bench/schedulers/README.md): written before linfault's mixed shapes
// pitted whole threads of readers against threads of writers. No written models.

namespace {

template <class Log>
linfault::Target append_log(std::string name, bool bug_expected, std::string description) {
  linfault::Target t = serial_target(std::move(name), bug_expected, std::move(description));
  t.operations = {{"append", linfault::unique_value(), "append(v, unique)"},
                  {"read_last", linfault::no_arguments(), "read_last() -> value | nil"},
                  {"size", linfault::no_arguments(), "size() -> count"}};
  t.factory = linfault::Binding<Log>()
                  .method("append", &Log::append)
                  .method("read_last", &Log::read_last)
                  .method("size", &Log::size)
                  .factory();
  return t;
}

template <class Counter>
linfault::Target stats_counter(std::string name, bool bug_expected, std::string description) {
  linfault::Target t = serial_target(std::move(name), bug_expected, std::move(description));
  t.operations = {{"record", linfault::key_in(0, 1), "record(hit 0..1)"},
                  {"misses", linfault::no_arguments(), "misses() -> count"}};
  t.factory = linfault::Binding<Counter>()
                  .method("record", &Counter::record)
                  .method("misses", &Counter::misses)
                  .factory();
  return t;
}

template <class Lazy>
linfault::Target lazy_value(std::string name, bool bug_expected, std::string description) {
  linfault::Target t = serial_target(std::move(name), bug_expected, std::move(description));
  t.operations = {{"get", linfault::unique_value(), "get(v, unique) -> value"},
                  {"peek", linfault::no_arguments(), "peek() -> value or 0"}};
  t.factory =
      linfault::Binding<Lazy>().method("get", &Lazy::get).method("peek", &Lazy::peek).factory();
  return t;
}

template <class Box>
linfault::Target mailbox(std::string name, bool bug_expected, std::string description) {
  linfault::Target t = serial_target(std::move(name), bug_expected, std::move(description));
  t.operations = {{"put", linfault::unique_value(), "put(v, unique) -> bool"},
                  {"take", linfault::no_arguments(), "take() -> message or 0"},
                  {"full", linfault::no_arguments(), "full() -> bool"}};
  t.factory = linfault::Binding<Box>()
                  .method("put", &Box::put)
                  .method("take", &Box::take)
                  .method("full", &Box::full)
                  .factory();
  return t;
}

template <class Bounds>
linfault::Target min_max(std::string name, bool bug_expected, std::string description) {
  linfault::Target t = serial_target(std::move(name), bug_expected, std::move(description));
  t.operations = {{"record", linfault::key_in(1, 99), "record(v 1..99)"},
                  {"bounds", linfault::no_arguments(), "bounds() -> min * 1000 + max"}};
  t.factory = linfault::Binding<Bounds>()
                  .method("record", &Bounds::record)
                  .method("bounds", &Bounds::bounds)
                  .state(&Bounds::bounds)  // the minimum and the maximum
                  .factory();
  return t;
}

template <class Pair>
linfault::Target rw_spinlock_pair(std::string name, bool bug_expected, std::string description) {
  linfault::Target t = serial_target(std::move(name), bug_expected, std::move(description));
  t.operations = {{"update", linfault::unique_value(), "update(v, unique)"},
                  {"read", linfault::no_arguments(), "read() -> hi:lo"}};
  t.factory = linfault::Binding<Pair>()
                  .method("update", &Pair::update)
                  .method("read", &Pair::read)
                  .factory();
  return t;
}

template <class Set>
linfault::Target capped_set(std::string name, bool bug_expected, std::string description) {
  linfault::Target t = serial_target(std::move(name), bug_expected, std::move(description));
  t.operations = {{"add", linfault::key_in(0, Set::kKeys - 1), "add(key 0..3) -> bool"},
                  {"remove", linfault::key_in(0, Set::kKeys - 1), "remove(key 0..3) -> bool"},
                  {"size", linfault::no_arguments(), "size() -> count"}};
  t.factory = linfault::Binding<Set>()
                  .method("add", &Set::add)
                  .method("remove", &Set::remove)
                  .method("size", &Set::size)
                  .factory();
  return t;
}

template <class Set>
linfault::Target sorted_set(std::string name, bool bug_expected, std::string description) {
  linfault::Target t;
  t.name = std::move(name);
  t.model = "set";
  t.description = std::move(description);
  t.bug_expected = bug_expected;
  t.operations = {{"add", linfault::key_in(0, Set::kKeys - 1), "add(key 0..4) -> bool"},
                  {"remove", linfault::key_in(0, Set::kKeys - 1), "remove(key 0..4) -> bool"},
                  {"contains", linfault::key_in(0, Set::kKeys - 1), "contains(key 0..4) -> bool"}};
  t.factory = linfault::Binding<Set>()
                  .method("add", &Set::add)
                  .method("remove", &Set::remove)
                  .method("contains", &Set::contains)
                  .factory();
  return t;
}

template <class Pair>
linfault::Target seqlock_pair(std::string name, bool bug_expected, std::string description) {
  linfault::Target t = serial_target(std::move(name), bug_expected, std::move(description));
  t.operations = {kRegisterWrite, kRegisterRead};
  t.factory =
      linfault::Binding<Pair>().method("write", &Pair::write).method("read", &Pair::read).factory();
  return t;
}

}  // namespace

LINFAULT_REGISTER_TARGET([] {
  return append_log<user::AppendLog>("append_log", false,
                                     "append-only log publishing its slots in order (correct)");
});

LINFAULT_REGISTER_TARGET([] {
  return append_log<user::RacyAppendLog>(
      "append_log_buggy", true,
      "append-only log whose readers trust the slot reservations (buggy: reads an unwritten "
      "slot)");
});

LINFAULT_REGISTER_TARGET([] {
  linfault::Target t = serial_target(
      "double_buffer_buggy", true,
      "two-word value in two buffers with a flipped index (buggy: a read against two writes is "
      "torn)");
  t.operations = {{"write", linfault::unique_value(), "write(v, unique)"},
                  {"read", linfault::no_arguments(), "read() -> hi:lo"}};
  t.factory = linfault::Binding<user::DoubleBuffer>()
                  .method("write", &user::DoubleBuffer::write)
                  .method("read", &user::DoubleBuffer::read)
                  .factory();
  return t;
});

LINFAULT_REGISTER_TARGET([] {
  return stats_counter<user::StatsCounter>("stats_counter", false,
                                           "event and hit counts in one word (correct)");
});

LINFAULT_REGISTER_TARGET([] {
  return stats_counter<user::SplitStatsCounter>(
      "stats_counter_buggy", true,
      "event and hit counts in two counters read one after the other (buggy: misses below zero)");
});

LINFAULT_REGISTER_TARGET([] {
  return rw_spinlock_pair<user::RwSpinlockPair>(
      "rw_spinlock", false, "two words under a reader-writer spinlock (correct)");
});

LINFAULT_REGISTER_TARGET([] {
  return rw_spinlock_pair<user::RacyRwSpinlockPair>(
      "rw_spinlock_buggy", true,
      "two words under a reader-writer spinlock whose readers do not check for a writer again "
      "(buggy: a torn read)");
});

LINFAULT_REGISTER_TARGET([] {
  return lazy_value<user::CasLazyValue>("lazy_value", false,
                                        "a value set once by the first get, by compare-exchange "
                                        "(correct)");
});

LINFAULT_REGISTER_TARGET([] {
  return lazy_value<user::RacyLazyValue>(
      "lazy_value_buggy", true,
      "a value set once by the first get, checked then stored (buggy: two gets both set it)");
});

LINFAULT_REGISTER_TARGET([] {
  return mailbox<user::CasMailbox>("mailbox", false,
                                   "a one-message box filled by compare-exchange, emptied by "
                                   "exchange (correct)");
});

LINFAULT_REGISTER_TARGET([] {
  return mailbox<user::RacyMailbox>(
      "mailbox_buggy", true,
      "a one-message box whose put and take load, then store (buggy: a lost or doubled message)");
});

LINFAULT_REGISTER_TARGET([] {
  return min_max<user::PackedMinMax>("min_max", false,
                                     "least and greatest value in one word (correct)");
});

LINFAULT_REGISTER_TARGET([] {
  return min_max<user::SplitMinMax>(
      "min_max_buggy", true,
      "least and greatest value in two words read one after the other (buggy: a torn pair)");
});

LINFAULT_REGISTER_TARGET([] {
  return capped_set<user::LockedCappedSet>(
      "capped_set", false,
      "set of at most two keys, a lock per key, the place reserved by compare-exchange (correct)");
});

LINFAULT_REGISTER_TARGET([] {
  return capped_set<user::RacyCappedSet>(
      "capped_set_buggy", true,
      "set of at most two keys whose add checks the room before taking the key's lock (buggy: "
      "three keys fit)");
});

LINFAULT_REGISTER_TARGET([] {
  return sorted_set<user::LockedSortedSet>(
      "sorted_set", false, "sorted array of keys, shifted and scanned under one lock (correct)");
});

LINFAULT_REGISTER_TARGET([] {
  return sorted_set<user::ScanningSortedSet>(
      "sorted_set_buggy", true,
      "sorted array of keys shifted under a lock, scanned without it (buggy: contains misses a "
      "key that moves)");
});

LINFAULT_REGISTER_TARGET([] {
  return seqlock_pair<user::CheckedSeqlockPair>(
      "seqlock_pair", false, "two words under a sequence lock whose readers retry (correct)");
});

LINFAULT_REGISTER_TARGET([] {
  return seqlock_pair<user::UncheckedSeqlockPair>(
      "seqlock_pair_buggy", true,
      "two words under a sequence lock whose readers accept an odd sequence (buggy: a torn read)");
});
