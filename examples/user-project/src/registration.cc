// The project's objects as linfault targets: each bound to a sequential model, with generators
// for the arguments of its operations.

#include <linfault/target.h>

#include "cas_counter.h"
#include "ring_queue.h"

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
