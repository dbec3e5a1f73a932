// The two classes as linfault targets. This file is the only one that knows linfault; the
// classes themselves are plain std::atomic code, instrumented by the build (INSTRUMENT).

#include <linfault/target.h>

#include "lockfree_stack.h"
#include "ms_queue.h"

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
