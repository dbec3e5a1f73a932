// <linfault/check.h>: find, minimize and report a target's linearizability bug from your own
// code. Public API (the GoogleTest check of <linfault/gtest.h> is built on it).
//
//   linfault::CheckOptions options;
//   options.histories = 2000;          // and/or options.seconds
//   options.output_dir = "failures";   // testcase.json, the failing run, a GoogleTest repro
//   linfault::CheckResult r = linfault::check("my_queue", options);
//   if (r.violation) std::cerr << r.report;   // the minimized test case, step by step
//
// The campaign runs `histories` random histories of `threads` x `ops` operations under the
// scheduler (D-PCT by default, with the structure trees linked into the program), each history
// with a seed of its own drawn from `seed` (history 0: `seed` itself), so a given seed always
// explores the same histories and different seeds share none. On the first failing
// history it localizes and minimizes it into a test case (Ps, Pc, Pr) verified by re-execution.
//
// check_history() checks a history you recorded yourself (<linfault/recorder.h>).
//
// Thread-safety: check() may run concurrently with itself (use distinct output directories).

#ifndef LINFAULT_PUBLIC_CHECK_H_
#define LINFAULT_PUBLIC_CHECK_H_

#include <string_view>

#include "detect/checker.h"
#include "detect/verdict.h"
#include "history/history.h"
#include "minimize/pipeline.h"
#include "targets/registry.h"

namespace linfault {

using minimize::CheckOptions;
using minimize::CheckResult;

using detect::Result;
using detect::Verdict;

// Checks a history (e.g. a linfault::Recorder's) against the sequential model `model`, as
// `linfault check` does: result, and for a violation the culprit and the shortest failing prefix.
// Throws spec::UnknownModel (std::invalid_argument) for an unknown model.
inline Verdict check_history(const history::History& history, std::string_view model,
                             double timeout_seconds = 0) {
  detect::CheckOptions options;
  options.timeout_seconds = timeout_seconds;
  return detect::check_history(model, history, options);
}

// The target registered (or built in) under `target`; throws std::invalid_argument (listing the
// known targets) for an unknown name, and for options that cannot work.
inline CheckResult check(std::string_view target, const CheckOptions& options = {}) {
  return minimize::check_target(targets::find(target), options);
}
inline CheckResult check(const targets::Target& target, const CheckOptions& options = {}) {
  return minimize::check_target(target, options);
}

}  // namespace linfault

#endif  // LINFAULT_PUBLIC_CHECK_H_
