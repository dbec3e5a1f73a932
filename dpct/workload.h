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
#include <vector>

#include "history/history.h"

namespace linfault::dpct {

class ObjectUnderTest {
 public:
  virtual ~ObjectUnderTest() = default;
  // Runs one call and returns its result (nil for void methods and "empty" results). Throws
  // std::invalid_argument for a method the object does not have.
  virtual history::Value invoke(const history::Call& call) = 0;
};

using ObjectFactory = std::function<std::unique_ptr<ObjectUnderTest>()>;

struct Workload {
  std::vector<history::Call> setup;                 // Ps
  std::vector<std::vector<history::Call>> threads;  // Pc, one list per logical thread
  std::vector<history::Call> reveal;                // Pr
};

}  // namespace linfault::dpct

#endif  // LINFAULT_DPCT_WORKLOAD_H_
