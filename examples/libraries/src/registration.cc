// The Boost.Lockfree wrappers as linfault targets. This file is the only one that knows
// linfault. The queue and the stack are Boost's own, used as documented (correct); the stack
// comes a second time with the wrapper's own peek(), which is not atomic (boost_stack_buggy).

#include <cstdint>

#include <linfault/target.h>

#include "boost_queue.h"
#include "boost_stack.h"

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
