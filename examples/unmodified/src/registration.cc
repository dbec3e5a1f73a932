// The classes as linfault targets. This file is the only one that knows linfault; the classes
// themselves are plain std::atomic code, instrumented by the build (INSTRUMENT). Each class after
// the first two comes twice: correct, and with the one-line bug its constructor switches on
// (target NAME_buggy).

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <linfault/target.h>

#include "futex_queue.h"
#include "lockfree_stack.h"
#include "ms_queue.h"
#include "reentrant_counter.h"
#include "seqlock_register.h"
#include "spsc_ring.h"
#include "treiber_stack.h"
#include "ttas_counter.h"
#include "vyukov_queue.h"

LINFAULT_REGISTER_TARGET([] {
  linfault::Target t;
  t.name = "lockfree_stack";
  t.model = "stack";
  t.description = "Treiber stack whose push retries without refreshing next (buggy)";
  t.bug_expected = true;
  t.operations = {{"push", linfault::unique_value(), "push(unique value)"},
                  {"pop", linfault::no_arguments(), "pop() -> value | nil"}};
  t.factory = linfault::Binding<unmodified::LockFreeStack>()
                  .method("push", &unmodified::LockFreeStack::push)
                  .method("pop", &unmodified::LockFreeStack::pop)
                  .factory();
  return t;
});

LINFAULT_REGISTER_TARGET([] {
  linfault::Target t;
  t.name = "msq_std";
  t.model = "queue";
  t.description = "Michael and Scott's lock-free queue (correct)";
  t.operations = {{"enq", linfault::unique_value(), "enq(unique value)"},
                  {"deq", linfault::no_arguments(), "deq() -> value | nil"}};
  t.factory = linfault::Binding<unmodified::MsQueue>()
                  .method("enq", &unmodified::MsQueue::enq)
                  .method("deq", &unmodified::MsQueue::deq)
                  .factory();
  return t;
});

namespace {

using unmodified::SpscRing;

// Makes T with its bug switched on or off.
template <class T>
linfault::Binding<T> binding(bool buggy) {
  return linfault::Binding<T>([buggy] { return std::make_unique<T>(buggy); });
}

linfault::Target target(std::string name, std::string model, bool buggy, std::string description) {
  linfault::Target t;
  t.name = buggy ? name + "_buggy" : std::move(name);
  t.model = std::move(model);
  t.description = std::move(description);
  t.bug_expected = buggy;
  return t;
}

// Register values whose two 32-bit words both change from one write to the next (1:1, 2:2, ...,
// unique within a run), so that a read torn between two writes returns a value nobody wrote.
std::vector<linfault::Value> both_words_value(linfault::ArgumentSource& source) {
  constexpr std::int64_t kBothWords = (std::int64_t{1} << 32) + 1;
  return {source.unique() * kBothWords};
}

linfault::Target seqlock(bool buggy) {
  using unmodified::SeqlockRegister;
  linfault::Target t =
      target("seqlock_std", "register", buggy,
             buggy ? "seqlock register whose reader does not re-read the sequence (buggy)"
                   : "seqlock register of two 32-bit words, readers spin with yield (correct)");
  t.operations = {{"write", both_words_value, "write(n:n, unique)"},
                  {"read", linfault::no_arguments(), "read() -> value | nil"}};
  t.factory = binding<SeqlockRegister>(buggy)
                  .method("write", &SeqlockRegister::write)
                  .method("read", &SeqlockRegister::read)
                  .factory();
  return t;
}

template <class Queue>
linfault::Target queue(std::string name, bool buggy, std::string description) {
  linfault::Target t = target(std::move(name), "queue", buggy, std::move(description));
  t.operations = {{"enq", linfault::unique_value(), "enq(unique value)"},
                  {"deq", linfault::no_arguments(), "deq() -> value | nil"}};
  t.factory = binding<Queue>(buggy).method("enq", &Queue::enq).method("deq", &Queue::deq).factory();
  return t;
}

linfault::Target vyukov(bool buggy) {
  return queue<unmodified::VyukovQueue>(
      "vyukov_queue", buggy,
      buggy ? "Vyukov's bounded queue whose enq claims its position with a store (buggy)"
            : "Vyukov's bounded MPMC queue of 32 cells, spinning with _mm_pause (correct)");
}

linfault::Target futex(bool buggy) {
  return queue<unmodified::FutexQueue>(
      "futex_queue", buggy,
      buggy ? "queue under a futex-style lock whose unlock forgets notify_one (buggy)"
            : "queue under a futex-style lock on atomic wait/notify_one (correct)");
}

linfault::Target ttas(bool buggy) {
  using unmodified::TtasCounter;
  linfault::Target t =
      target("ttas_counter", "counter", buggy,
             buggy ? "counter under a spin lock that tests, then sets in a second step (buggy)"
                   : "counter under a noexcept test-and-test-and-set spin lock (correct)");
  t.operations = {{"inc", linfault::no_arguments(), "inc()"},
                  {"dec", linfault::no_arguments(), "dec()"},
                  {"get", linfault::no_arguments(), "get() -> n"}};
  t.factory = binding<TtasCounter>(buggy)
                  .method("inc", &TtasCounter::inc)
                  .method("dec", &TtasCounter::dec)
                  .method("get", &TtasCounter::get)
                  .factory();
  return t;
}

linfault::Target treiber(bool buggy) {
  using unmodified::TreiberStack;
  linfault::Target t =
      target("treiber_std", "stack", buggy,
             buggy ? "Treiber stack whose pop reads through a null top after a failed CAS "
                     "(buggy: SIGSEGV)"
                   : "Treiber stack that re-checks for empty after a failed CAS (correct)");
  t.operations = {{"push", linfault::unique_value(), "push(unique value)"},
                  {"pop", linfault::no_arguments(), "pop() -> value | nil"}};
  t.factory = binding<TreiberStack>(buggy)
                  .method("push", &TreiberStack::push)
                  .method("pop", &TreiberStack::pop)
                  .factory();
  return t;
}

// Its lock tells threads apart by std::this_thread::get_id() and thread_local state: each
// logical thread must be a thread of its own.
linfault::Target reentrant() {
  using unmodified::ReentrantCounter;
  linfault::Target t;
  t.name = "reentrant_counter";
  t.model = "counter";
  t.description = "counter under a reentrant spin lock that knows its owner by thread id (correct)";
  t.thread_identity = true;
  t.operations = {{"inc", linfault::no_arguments(), "inc()"},
                  {"get", linfault::no_arguments(), "get() -> n"}};
  t.factory = linfault::Binding<ReentrantCounter>()
                  .method("inc", &ReentrantCounter::inc)
                  .method("get", &ReentrantCounter::get)
                  .factory();
  return t;
}

// A single-producer single-consumer ring: its roles keep every workload to one enqueuing thread
// and one dequeuing thread, as its contract says.
linfault::Target spsc(SpscRing::Variant variant) {
  const bool buggy = variant != SpscRing::Variant::kCorrect;
  linfault::Target t = target(
      "spsc_ring", "queue", buggy,
      buggy ? "single-producer single-consumer ring whose enq publishes before it writes (buggy)"
            : "single-producer single-consumer ring, with roles producer and consumer (correct)");
  if (variant == SpscRing::Variant::kRelaxedPublish) {
    t.name = "spsc_ring_relaxed";
    t.description =
        "single-producer single-consumer ring whose enq publishes the tail relaxed: a memory-order "
        "bug (checked under the C++20 memory model)";
    t.memory_model = linfault::MemoryModel::kC11;
  }
  t.roles = {{"producer", {"enq"}, 1}, {"consumer", {"deq"}, 1}};
  t.operations = {{"enq", linfault::unique_value(), "enq(unique value)"},
                  {"deq", linfault::no_arguments(), "deq() -> value | nil"}};
  t.factory = linfault::Binding<SpscRing>([variant] { return std::make_unique<SpscRing>(variant); })
                  .method("enq", &SpscRing::enq)
                  .method("deq", &SpscRing::deq)
                  .factory();
  return t;
}

}  // namespace

LINFAULT_REGISTER_TARGET([] { return reentrant(); });
LINFAULT_REGISTER_TARGET([] { return spsc(SpscRing::Variant::kCorrect); });
LINFAULT_REGISTER_TARGET([] { return spsc(SpscRing::Variant::kPublishFirst); });
LINFAULT_REGISTER_TARGET([] { return spsc(SpscRing::Variant::kRelaxedPublish); });
LINFAULT_REGISTER_TARGET([] { return seqlock(false); });
LINFAULT_REGISTER_TARGET([] { return seqlock(true); });
LINFAULT_REGISTER_TARGET([] { return vyukov(false); });
LINFAULT_REGISTER_TARGET([] { return vyukov(true); });
LINFAULT_REGISTER_TARGET([] { return futex(false); });
LINFAULT_REGISTER_TARGET([] { return futex(true); });
LINFAULT_REGISTER_TARGET([] { return ttas(false); });
LINFAULT_REGISTER_TARGET([] { return ttas(true); });
LINFAULT_REGISTER_TARGET([] { return treiber(false); });
LINFAULT_REGISTER_TARGET([] { return treiber(true); });
