// oneTBB's concurrent_queue as a linfault target: the only file of tbb_objects that knows
// linfault (a target of its own, so that the mutant tools need not instrument TBB's headers).

#include <linfault/target.h>

#include "tbb_queue.h"

LINFAULT_REGISTER_TARGET([] {
  using libraries::TbbQueue;
  linfault::Target t;
  t.name = "tbb_queue";
  t.model = "queue";
  t.description = "tbb::concurrent_queue<int64_t> as installed (correct)";
  t.operations = {{"enq", linfault::unique_value(), "enq(unique value)"},
                  {"deq", linfault::no_arguments(), "deq() -> value | nil"}};
  t.factory = linfault::Binding<TbbQueue>()
                  .method("enq", &TbbQueue::enq)
                  .method("deq", &TbbQueue::deq)
                  .factory();
  return t;
});
