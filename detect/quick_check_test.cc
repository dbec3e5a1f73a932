// Differential test of the fast path (detect/quick_check.h) against the full checker: on every
// history, "quick says linearizable" must mean "the full check says linearizable", "quick says
// not linearizable" must mean "the full check finds a violation", and every history within the
// budget must be decided.
#include "detect/quick_check.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "detect/checker.h"
#include "dpct/executor.h"
#include "dpct/pct_scheduler.h"
#include "dpct/random_scheduler.h"
#include "spec/generator.h"
#include "targets/registry.h"

namespace linfault::detect {
namespace {

struct Tally {
  int linearizable = 0;
  int violations = 0;
  int over_budget = 0;           // linearizable histories the budget left undecided
  int violations_undecided = 0;  // violations the budget left undecided
};

// Compares the two checkers on one history.
void compare(QuickChecker& quick, const std::string& model, const history::History& history,
             Tally& tally, const std::string& what) {
  CheckOptions options;
  options.threads = 1;
  options.want_witness = false;
  const Verdict full = check_history(model, history, options);
  ASSERT_NE(full.result, Result::kUnknown) << what;
  const QuickChecker::Answer answer = quick.check(history);
  if (quick.last_over_budget()) {
    ASSERT_EQ(answer, QuickChecker::Answer::kUndecided) << what;
  }
  if (full.result == Result::kLinearizable) {
    ++tally.linearizable;
    tally.over_budget += quick.last_over_budget() ? 1 : 0;
    ASSERT_NE(answer, QuickChecker::Answer::kNotLinearizable)
        << what << ": the fast path calls a linearizable history a violation";
    if (!quick.last_over_budget()) {
      ASSERT_EQ(answer, QuickChecker::Answer::kLinearizable)
          << what << ": linearizable, but the fast path did not find it";
    }
  } else {
    ++tally.violations;
    tally.violations_undecided += quick.last_over_budget() ? 1 : 0;
    ASSERT_NE(answer, QuickChecker::Answer::kLinearizable)
        << what << ": the fast path calls a violation linearizable";
    if (!quick.last_over_budget() && history.size() <= 64) {
      ASSERT_EQ(answer, QuickChecker::Answer::kNotLinearizable)
          << what << ": a violation within the budget, but the fast path left it undecided";
    }
  }
}

TEST(QuickCheck, AgreesWithTheFullCheckOnGeneratedHistories) {
  for (std::string_view model : spec::generator_models()) {
    QuickChecker quick(model);
    Tally tally;
    for (std::uint64_t seed = 1; seed <= 2000; ++seed) {
      spec::GeneratorOptions options;
      options.model = std::string(model);
      options.operations = 4 + seed % 20;
      options.threads = 2 + seed % 4;
      options.violation = seed % 2 == 0;
      options.pending_fraction = seed % 3 == 0 ? 0.3 : 0;
      options.seed = seed;
      history::History history;
      try {
        history = spec::generate_history(options).history;
      } catch (const spec::GeneratorError&) {
        continue;  // too few operations of the kind a violation is injected into
      }
      compare(quick, options.model, history, tally,
              std::string(model) + " seed " + std::to_string(seed));
    }
    EXPECT_GT(tally.linearizable, 50) << model;
    EXPECT_GT(tally.violations, 50) << model;
    EXPECT_LE(tally.violations_undecided, tally.violations / 10) << model;
    EXPECT_LT(tally.over_budget, tally.linearizable / 10) << model;
  }
}

// The histories detection campaigns check: random workloads of correct and buggy stacks, queues
// and sets, run under PCT and the random walk.
TEST(QuickCheck, AgreesWithTheFullCheckOnExecutedHistories) {
  struct Case {
    const char* target;
    bool expect_violations;
  };
  for (const Case& c :
       {Case{"treiber_stack", false}, Case{"treiber_stack_buggy", true},
        Case{"k_stack_buggy", true}, Case{"ms_queue", false}, Case{"optimistic_queue_buggy", true},
        Case{"lf_list", false}, Case{"lf_list_buggy", true}, Case{"bu_list2", true}}) {
    const targets::Target& target = targets::find(c.target);
    QuickChecker quick(target.model);
    dpct::Executor executor;
    Tally tally;
    for (std::uint64_t seed = 1; seed <= 1500; ++seed) {
      const targets::WorkloadShape shape{.threads = 2 + seed % 2,
                                         .ops_per_thread = seed % 2 ? 5u : 4u};
      const dpct::Workload workload = targets::random_workload(target, shape, seed);
      dpct::Run run;
      if (seed % 3 == 0) {
        dpct::RandomScheduler scheduler(seed);
        run = executor.execute(target.factory, workload, scheduler);
      } else {
        dpct::PctScheduler scheduler(
            dpct::PctOptions{.seed = seed, .depth = 3, .steps = 40, .epoch_operations = 2});
        run = executor.execute(target.factory, workload, scheduler);
      }
      compare(quick, target.model, run.history, tally,
              std::string(c.target) + " seed " + std::to_string(seed));
    }
    EXPECT_GT(tally.linearizable, 100) << c.target;
    if (c.expect_violations) {
      EXPECT_GT(tally.violations, 0) << c.target;
    } else {
      EXPECT_EQ(tally.violations, 0) << c.target;
    }
    EXPECT_EQ(tally.over_budget, 0) << c.target;
    // Refuting every order takes more steps than finding one: bu_list2's 3 x 5 set histories
    // leave 18 of 607 violations to the full checker.
    EXPECT_LE(tally.violations_undecided, tally.violations / 10) << c.target;
  }
}

// One checker for a long campaign: its model is replaced every few thousand histories (to bound
// the interned values), and the answers stay those of the full check across the replacements.
TEST(QuickCheck, StaysExactAcrossModelReplacements) {
  QuickChecker quick("queue");
  Tally tally;
  for (std::uint64_t seed = 1; seed <= 9000; ++seed) {
    spec::GeneratorOptions options;
    options.model = "queue";
    options.operations = 6;
    options.threads = 2;
    options.violation = seed % 4 == 0;
    options.seed = seed;
    history::History history;
    try {
      history = spec::generate_history(options).history;
    } catch (const spec::GeneratorError&) {
      continue;
    }
    compare(quick, options.model, history, tally, "queue seed " + std::to_string(seed));
  }
  EXPECT_GT(tally.linearizable, 5000);
  EXPECT_GT(tally.violations, 1000);
  EXPECT_EQ(tally.over_budget, 0);
}

// The budget is what bounds the search: a budget of one step cannot show a history of several
// concurrent operations linearizable, and says so rather than calling it a violation.
TEST(QuickCheck, ReportsAnExhaustedBudget) {
  spec::GeneratorOptions options;
  options.model = "queue";
  options.operations = 30;
  options.threads = 4;
  options.seed = 7;
  const history::History history = spec::generate_history(options).history;
  QuickChecker tight("queue", 1);
  EXPECT_EQ(tight.check(history), QuickChecker::Answer::kUndecided);
  EXPECT_TRUE(tight.last_over_budget());
  QuickChecker roomy("queue");
  EXPECT_TRUE(roomy.linearizable(history));
  EXPECT_FALSE(roomy.last_over_budget());
}

TEST(QuickCheck, DefersWhatItCannotDecide) {
  history::HistoryBuilder builder;
  builder.call(0, history::Call{"enq", {1}}, history::Value());
  builder.call(0, history::Call{"frobnicate", {}}, history::Value());
  const history::History unknown_method = std::move(builder).build();
  QuickChecker quick("queue");
  // Undecided, not a violation: the full checker reports the error.
  EXPECT_EQ(quick.check(unknown_method), QuickChecker::Answer::kUndecided);
  EXPECT_THROW(QuickChecker("no-such-model"), std::invalid_argument);

  spec::GeneratorOptions options;  // more operations than the fast path takes
  options.model = "stack";
  options.operations = 65;
  options.threads = 2;
  options.violation = true;
  options.seed = 3;
  const history::History long_violation = spec::generate_history(options).history;
  ASSERT_EQ(long_violation.size(), 65u);
  QuickChecker stack("stack");
  EXPECT_EQ(stack.check(long_violation), QuickChecker::Answer::kUndecided);
}

}  // namespace
}  // namespace linfault::detect
