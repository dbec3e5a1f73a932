// Localization: where a failing history stops being linearizable, and what its linearizable
// prefixes looked like (Algorithm 1, step 1, of docs/algorithms.md).
//
// Given a non-linearizable history H, localize() returns
//   - the shortest non-linearizable prefix H_p(b) (Theorem 1: unique; its last event is the
//     culprit's response, which no linearization of what came before can explain), and
//   - OpOrder: witnesses of the linearizable prefixes of H_p(b), largest first. Each witness is a
//     legal sequential order of operations, starting from the model's initial state, that
//     explains every response of one prefix. The minimizer tries them as the sequential set-up
//     Ps of a test case, the largest first.
//
// All witnesses come from the checker's single search (the longest partial linearization w of
// H_p(b-1)); no second search runs. Why a prefix of w is a witness of a shorter prefix H_p(r):
// take the shortest prefix w' of w that holds every operation completed within H_p(r). An op x
// in w' either completed within H_p(r) or precedes such an op o in w; since w respects real-time
// order, x was invoked before o's response, hence within H_p(r), where it is pending (any result
// is allowed). So w' is legal and explains H_p(r). For a history checked one key at a time (kv,
// set), w and so every witness covers the failing key's operations only: the other keys are
// independent of the violation.
//
// Thread-safety: a pure function of its arguments.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_LOCALIZE_LOCALIZE_H_
#define LINFAULT_LOCALIZE_LOCALIZE_H_

#include <cstddef>
#include <string_view>
#include <vector>

#include "detect/verdict.h"
#include "history/history.h"

namespace linfault::localize {

// A witness of the prefix H_p(prefix_events): operations of the full history in linearization
// order.
struct Witness {
  std::size_t prefix_events = 0;
  std::vector<history::OpIndex> order;
};

struct Localization {
  detect::Verdict verdict;  // of the whole history
  // Meaningful when verdict.result == kViolation:
  std::size_t prefix_events = 0;  // |H_p(b)| in events
  history::OpIndex culprit = -1;  // the op whose response ends H_p(b)
  std::vector<Witness> op_order;  // distinct witnesses, largest first
};

// Derives OpOrder from a violation verdict of `history` (uses verdict.longest_partial).
std::vector<Witness> witnesses_of_prefixes(const history::History& history,
                                           const detect::Verdict& verdict);

// Checks `history` against the built-in model `model` and localizes the violation, if any.
// Throws what detect::check_history throws for an unknown model or a mismatching history.
Localization localize(std::string_view model, const history::History& history,
                      const detect::CheckOptions& options);

}  // namespace linfault::localize

#endif  // LINFAULT_LOCALIZE_LOCALIZE_H_
