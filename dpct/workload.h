// Workload: what the executor runs — an object under test and the calls each thread makes.
//
// A workload has the test-case shape (Ps, Pc, Pr) of docs/algorithms.md: `setup` calls run
// sequentially on thread 0 before the concurrent part, `threads[i]` runs concurrently on logical
// thread i, and `reveal` calls run sequentially on thread 0 after every concurrent thread has
// finished. A detection run is the special case with empty setup and reveal.
//
// ObjectUnderTest adapts a concrete object (targets/) to named calls with history::Value
// arguments and results, so the executor can record a history::History without knowing the
// object's C++ type.
//
// Thread-safety: ObjectFactory is called once per execution; an ObjectUnderTest is used by the
// threads of one execution only. Workload is plain data.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_DPCT_WORKLOAD_H_
#define LINFAULT_DPCT_WORKLOAD_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "history/history.h"

namespace linfault::dpct {

class ObjectUnderTest {
 public:
  virtual ~ObjectUnderTest() = default;
  // Runs one call and returns its result (nil for void methods and "empty" results). Throws
  // std::invalid_argument for a method the object does not have.
  virtual history::Value invoke(const history::Call& call) = 0;
  // Why `call` cannot be made on this object, found without making it: a method the object does
  // not have, a wrong argument count, an argument of the wrong kind or out of range. nullopt when
  // it can be made, or when the object cannot tell (the default). Registration asks it of every
  // operation, so that a binding mistake is reported there rather than as a crash of the object.
  virtual std::optional<std::string> call_problem(const history::Call& call) const {
    static_cast<void>(call);
    return std::nullopt;
  }
  // The object's abstract state, when its binding names one (targets::Binding::state): two
  // objects whose states are equal must answer every later sequence of calls alike. The serial
  // specification merges call sequences that reach equal states (targets/serial_spec.h).
  // nullopt when the object names no state (the default). Called between calls only, never
  // concurrently with one.
  virtual std::optional<history::Value> state() { return std::nullopt; }
  // Whether the object tells its callers' threads apart (thread_local state, thread ids, a
  // per-thread producer): its logical threads then each run on an OS thread of their own, not
  // as fibers of one (dpct/executor.h). Ps and Pr, recorded as thread 0's calls, run on thread
  // 0's OS thread (on the caller's when the workload has no concurrent thread); the constructor
  // and the destructor on the caller's. targets::Target::
  // thread_identity sets it.
  virtual bool needs_thread_identity() const { return false; }
};

using ObjectFactory = std::function<std::unique_ptr<ObjectUnderTest>()>;

// While a CallCheckScope lives on a thread, an ObjectFactory that can (targets::Binding's)
// returns a stand-in that answers call_problem() only, without constructing the user's object:
// registration checks the operations that way, and a constructor run for it would be a side
// effect (it may count its instances, allocate a pool, print). Other factories construct as
// usual. Not reentrant across threads: the flag is per thread.
class CallCheckScope {
 public:
  CallCheckScope() : previous_(active_) { active_ = true; }
  ~CallCheckScope() { active_ = previous_; }
  CallCheckScope(const CallCheckScope&) = delete;
  CallCheckScope& operator=(const CallCheckScope&) = delete;
  static bool active() { return active_; }

 private:
  static inline thread_local bool active_ = false;
  bool previous_;
};

struct Workload {
  std::vector<history::Call> setup;                 // Ps
  std::vector<std::vector<history::Call>> threads;  // Pc, one list per logical thread
  std::vector<history::Call> reveal;                // Pr
};

}  // namespace linfault::dpct

#endif  // LINFAULT_DPCT_WORKLOAD_H_
