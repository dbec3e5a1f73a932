// Native mode: runs a workload on real OS threads at full speed and records its history.
//
// The same object source as in controlled mode (dpct/shared.h): no ExecutionContext is installed,
// so Atomic/Var/Mutex are plain std::atomic / std::mutex. Ps runs on the calling thread, then one
// std::thread per Pc thread starts behind a barrier (so they really overlap), then Pr runs on the
// calling thread. Every invocation and response is stamped from one sequence counter (a
// sequentially consistent fetch_add, shared by the threads of this run only): an invocation is
// stamped before the call starts and a response after it returns, so the stamps order events
// consistently with real time and no two events tie. Process ids are as in controlled mode
// (Pc thread i = process i, Ps and Pr on process 0).
//
// Outcomes: kOk, or kCrash when an operation throws (that thread stops, its operation stays
// pending, the others finish, Pr is skipped). Native mode cannot stop a deadlock or a livelock:
// use controlled mode to find those. Run::schedule reads "native" with no decisions.
//
// Thread-safety: run_native may be called from several threads at once (no shared state).
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_DPCT_NATIVE_H_
#define LINFAULT_DPCT_NATIVE_H_

#include <string>

#include "dpct/executor.h"
#include "dpct/workload.h"

namespace linfault::dpct {

struct NativeOptions {
  bool record_history = true;
  std::string origin = "native";
};

Run run_native(const ObjectFactory& factory, const Workload& workload,
               const NativeOptions& options = {});

}  // namespace linfault::dpct

#endif  // LINFAULT_DPCT_NATIVE_H_
