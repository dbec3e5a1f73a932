// History-level minimization: the smallest failing sub-history of a history recorded elsewhere
// (Jepsen, a CI log), when there is no object to re-execute.
//
// minimize_history() starts from the shortest non-linearizable prefix H_p(b) (localize/) and its
// culprit c, then delta-debugs (Zeller's ddmin, then single-op removal to a fix point) over the
// other operations. A candidate sub-history S (always containing c) is kept when it is
//   1. non-linearizable with c as its culprit: c's response is what cannot be explained, as in
//      the original (a different, unrelated violation does not count); and
//   2. admissible: every completed operation whose recorded result could be produced by the model
//      from the operations of the shortest prefix (in some order, ignoring real time) can still
//      be produced from the operations of S. Results with no possible source in the first place
//      (a value nobody wrote: the violation itself) are not constrained.
// Rule 2 keeps the *reason* of the violation. Without it, removing the write of 3 turns
// "read -> 3 after a later write of 4 completed" (a stale read) into "read -> 3 from an empty
// register" (a value nobody wrote): non-linearizable still, 1-minimal with one operation, and
// useless. Reachability is over-approximated (operations may be reused; at most |S| steps); when
// the reachable states exceed a cap, a syntactic test replaces it (the result value appears among
// the arguments of another operation).
//
// The result is 1-minimal w.r.t. these rules: removing any one operation other than c makes the
// sub-history linearizable, or changes its culprit, or leaves a result with no possible source.
// `strictly_one_minimal` says whether removing any one operation (c included) makes it plainly
// linearizable, the literal Def. 2 condition on the sub-history.
//
// Thread-safety: a pure function of its arguments.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_MINIMIZE_HISTORY_MINIMIZER_H_
#define LINFAULT_MINIMIZE_HISTORY_MINIMIZER_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "detect/verdict.h"
#include "history/history.h"

namespace linfault::minimize {

struct HistoryMinimizerOptions {
  detect::CheckOptions check;   // limits for each check (the whole run is bounded by deadline)
  double timeout_seconds = 60;  // for the whole minimization; past it the best so far is returned
  std::size_t reachable_state_cap = 4096;  // for the admissibility over-approximation
};

struct HistoryMinimization {
  detect::Verdict original;            // the verdict on the input history
  std::vector<history::OpIndex> kept;  // indices into the input history, by call order
  history::History minimal;            // input.subhistory(kept); empty if linearizable
  history::OpIndex culprit = -1;       // index into `minimal`
  bool one_minimal = false;            // the fix point was reached within the deadline
  bool strictly_one_minimal = false;   // see the header comment
  std::size_t checks = 0;              // linearizability checks run
  double elapsed_ms = 0;
  std::string note;  // why it is not (strictly) 1-minimal, if it is not
};

// Throws what detect::check_history throws for an unknown model or a mismatching history.
HistoryMinimization minimize_history(std::string_view model, const history::History& history,
                                     const HistoryMinimizerOptions& options);

}  // namespace linfault::minimize

#endif  // LINFAULT_MINIMIZE_HISTORY_MINIMIZER_H_
