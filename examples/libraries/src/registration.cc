// The library wrappers as linfault targets. This file is the only one that knows linfault. The
// containers are the libraries' own, used as documented (correct); Boost's stack comes a second
// time with the wrapper's own peek(), which is not atomic (boost_stack_buggy).

#include <cstdint>

#include <linfault/target.h>

#include "boost_queue.h"
#include "boost_stack.h"
#include "moodycamel_queue.h"
#include "spsc_queues.h"

LINFAULT_REGISTER_TARGET([] {
  using libraries::BoostQueue;
  linfault::Target t;
  t.name = "boost_queue";
  t.model = "queue";
  t.description = "boost::lockfree::queue<int64_t> as installed (correct)";
  t.operations = {{"enq", linfault::unique_value(), "enq(unique value)"},
                  {"deq", linfault::no_arguments(), "deq() -> value | nil"}};
  t.factory = linfault::Binding<BoostQueue>()
                  .method("enq", &BoostQueue::enq)
                  .method("deq", &BoostQueue::deq)
                  .factory();
  return t;
});

LINFAULT_REGISTER_TARGET([] {
  using libraries::BoostStack;
  linfault::Target t;
  t.name = "boost_stack";
  t.model = "stack";
  t.description = "boost::lockfree::stack<int64_t> as installed (correct)";
  t.operations = {{"push", linfault::unique_value(), "push(unique value)"},
                  {"pop", linfault::no_arguments(), "pop() -> value | nil"}};
  t.factory = linfault::Binding<BoostStack>()
                  .method("push", &BoostStack::push)
                  .method("pop", &BoostStack::pop)
                  .factory();
  return t;
});

LINFAULT_REGISTER_TARGET([] {
  using libraries::BoostStack;
  linfault::Target t;
  t.name = "boost_stack_buggy";
  t.model = "stack";
  t.description =
      "boost::lockfree::stack<int64_t> with the wrapper's peek(): pop, then push "
      "back (buggy wrapper)";
  t.bug_expected = true;
  t.operations = {{"push", linfault::unique_value(), "push(unique value)"},
                  {"pop", linfault::no_arguments(), "pop() -> value | nil"},
                  {"peek", linfault::no_arguments(), "peek() -> value | nil"}};
  t.factory = linfault::Binding<BoostStack>()
                  .method("push", &BoostStack::push)
                  .method("pop", &BoostStack::pop)
                  .method("peek", &BoostStack::peek)
                  .factory();
  return t;
});

// One thread enqueues, one other dequeues: the contract of both SPSC queues.
LINFAULT_REGISTER_TARGET([] {
  using libraries::BoostSpscQueue;
  linfault::Target t;
  t.name = "boost_spsc_queue";
  t.model = "queue";
  t.description = "boost::lockfree::spsc_queue<int64_t> as installed, roles producer and consumer";
  t.roles = {{"producer", {"enq"}, 1}, {"consumer", {"deq"}, 1}};
  t.operations = {{"enq", linfault::unique_value(), "enq(unique value)"},
                  {"deq", linfault::no_arguments(), "deq() -> value | nil"}};
  t.factory = linfault::Binding<BoostSpscQueue>()
                  .method("enq", &BoostSpscQueue::enq)
                  .method("deq", &BoostSpscQueue::deq)
                  .factory();
  return t;
});

LINFAULT_REGISTER_TARGET([] {
  using libraries::ReaderWriterQueue;
  linfault::Target t;
  t.name = "reader_writer_queue";
  t.model = "queue";
  t.description =
      "moodycamel::ReaderWriterQueue<int64_t> as installed, roles producer and consumer";
  t.roles = {{"producer", {"enq"}, 1}, {"consumer", {"deq"}, 1}};
  t.operations = {{"enq", linfault::unique_value(), "enq(unique value)"},
                  {"deq", linfault::no_arguments(), "deq() -> value | nil"}};
  t.factory = linfault::Binding<ReaderWriterQueue>()
                  .method("enq", &ReaderWriterQueue::enq)
                  .method("deq", &ReaderWriterQueue::deq)
                  .factory();
  return t;
});

// Implicit producers, one per calling thread: each logical thread is an OS thread of its own,
// and the contract is FIFO per producer, with a try_dequeue() that may miss elements in flight.
LINFAULT_REGISTER_TARGET([] {
  using libraries::MoodycamelQueue;
  linfault::Target t;
  t.name = "moodycamel_queue";
  t.model = "queue(fifo=per-producer)";
  t.description = "moodycamel::ConcurrentQueue<int64_t> as installed, implicit producers";
  t.thread_identity = true;
  t.operations = {{"enqueue", linfault::unique_value(), "enqueue(unique value)"},
                  {"try_dequeue", linfault::no_arguments(), "try_dequeue() -> value | nil"}};
  t.factory = linfault::Binding<MoodycamelQueue>()
                  .method("enqueue", &MoodycamelQueue::enqueue)
                  .method("try_dequeue", &MoodycamelQueue::try_dequeue)
                  .factory();
  return t;
});
