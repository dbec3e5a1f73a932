// QuickChecker: a fast, exact check for the small histories of detection campaigns (issue 17:
// thousands of 2 x 5 histories per second, each checked on its own) that may leave a history
// undecided.
//
//   QuickChecker quick("stack");
//   switch (quick.check(history)) {
//     case QuickChecker::Answer::kLinearizable: ...     // certainly
//     case QuickChecker::Answer::kNotLinearizable: ...  // certainly; no prefix or culprit
//     case QuickChecker::Answer::kUndecided: ...        // run detect::check_history
//   }
//
// Contract: check() answers kLinearizable only when it has found a linearization of the history
// (Wing & Gong's definition, as detect/checker.h states it: completed operations take effect
// between their call and return, pending ones after their call or never, operations the model
// compiles to NoEffect not at all), and kNotLinearizable only when its search has tried every
// way to linearize the history and none fits. It answers kUndecided when the history has more
// than 64 operations, when the model rejects an operation, or when the search passes its step
// budget. A caller that sends kNotLinearizable and kUndecided to the full checker gets exactly
// the full checker's verdict, only sooner; one that only counts violations may take
// kNotLinearizable as it is (the full checker adds the violation's exact prefix and culprit).
// linearizable() is check() == kLinearizable.
//
// How: a depth-first search that linearizes operations only when a return event forces it (every
// linearization can be found that way: an operation before the forced one in a linearization was
// called before the forced one returned). No memo; the budget bounds the work instead. With two
// threads at most two operations are ever candidates, so finding a linearization of a 2 x 5
// history takes at most a few hundred steps; refuting every order can take up to about 2^11,
// and histories from 2 x 6 up may pass the budget and go to the full checker. Everything the search
// needs (compiled operations, one model state per depth) lives in buffers kept between calls: after
// the first histories, a check allocates only what the model's own state copies need beyond their
// kept capacity. The model instance (with its table of interned values) is replaced by a fresh one
// every few thousand histories, so memory stays bounded in campaigns of any length.
//
// Thread-safety: one QuickChecker per thread (it keeps a model instance and buffers).
//
// Internal header: not part of linfault's public API (include/linfault/); it may change between
// versions.

#ifndef LINFAULT_DETECT_QUICK_CHECK_H_
#define LINFAULT_DETECT_QUICK_CHECK_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "history/history.h"

namespace linfault::detect {

class QuickChecker {
 public:
  // Search steps (model steps tried) before giving up on a history.
  static constexpr std::uint64_t kDefaultBudget = 4096;

  // `model_spec` as for check_history ("stack", "cas-register(init=0)"); throws what
  // spec::visit_model throws for an unknown or malformed one.
  explicit QuickChecker(std::string_view model_spec, std::uint64_t budget = kDefaultBudget);
  ~QuickChecker();
  QuickChecker(const QuickChecker&) = delete;
  QuickChecker& operator=(const QuickChecker&) = delete;

  enum class Answer { kLinearizable, kNotLinearizable, kUndecided };

  Answer check(const history::History& history);
  // True: `history` is linearizable (a linearization was found). False: not shown (see above).
  bool linearizable(const history::History& history) {
    return check(history) == Answer::kLinearizable;
  }

  // Histories the last call gave up on because of the budget (for tests and benches).
  bool last_over_budget() const { return over_budget_; }

  class Engine;  // the model-specific search (quick_check.cc)

 private:
  // Models intern the values they see (spec/model_support.h), so one kept for ever would grow
  // with every distinct argument of a long campaign: a fresh one now and then bounds the memory.
  static constexpr std::uint64_t kHistoriesPerModel = 4096;
  void make_engine();

  std::string model_spec_;
  std::unique_ptr<Engine> engine_;
  std::uint64_t histories_since_fresh_model_ = 0;
  std::uint64_t budget_;
  bool over_budget_ = false;
};

}  // namespace linfault::detect

#endif  // LINFAULT_DETECT_QUICK_CHECK_H_
