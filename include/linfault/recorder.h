// <linfault/recorder.h>: record the history of your own multi-threaded stress test, so that
// `linfault check`, `minimize` and `triage` (or your linfault_add_tool tool) can read it. Public
// API.
//
//   linfault::Recorder recorder("queue");                 // the model (docs/adding-a-target.md)
//   auto op = recorder.invoke(thread, "enq", {linfault::Value(3)});
//   queue.enq(3);
//   op.ok();                                              // no ok()/fail(): stays pending
//   auto v = recorder.call(thread, "deq", {}, [&] { return queue.deq(); });
//   ...join the threads...
//   recorder.write_json("stress-history.json");
//
// The contract, thread-safety and cost are those of history/recorder.h: invocations and
// responses are stamped from one sequence counter (exact real-time order), about 16-25 ns per
// operation, no lock on the hot path. linfault::check_history (<linfault/check.h>) checks a
// recorded history in the test itself.

#ifndef LINFAULT_PUBLIC_RECORDER_H_
#define LINFAULT_PUBLIC_RECORDER_H_

#include "history/recorder.h"
#include "history/value.h"

namespace linfault {

using history::Recorder;
using history::Value;
using history::WriteJsonOnFailure;

}  // namespace linfault

#endif  // LINFAULT_PUBLIC_RECORDER_H_
