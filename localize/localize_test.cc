#include "localize/localize.h"

#include <gtest/gtest.h>

#include <random>

#include "detect/checker.h"
#include "detect/witness.h"
#include "spec/register.h"
#include "spec/stack.h"

namespace linfault::localize {
namespace {

using history::Call;
using history::HistoryBuilder;
using history::Outcome;
using history::Value;

// Ps = push(1), push(2); then pop || pop both return 2; then a late pop returns 1.
history::History pop_pop_history() {
  HistoryBuilder b("pop_pop");
  b.call(0, Call{"push", {Value(1)}}, Value());  // events 0, 1
  b.call(0, Call{"push", {Value(2)}}, Value());  // events 2, 3
  b.invoke(0, Call{"pop", {}});                  // event 4
  b.invoke(1, Call{"pop", {}});                  // event 5
  b.respond(1, Outcome::kOk, Value(2));          // event 6
  b.respond(0, Outcome::kOk, Value(2));          // event 7: cannot be explained
  b.call(1, Call{"pop", {}}, Value(1));          // events 8, 9
  return std::move(b).build();
}

TEST(LocalizeTest, ShortestPrefixEndsAtTheSecondPopOfTwo) {
  const history::History h = pop_pop_history();
  const Localization loc = localize("stack", h, detect::CheckOptions{});
  ASSERT_EQ(loc.verdict.result, detect::Result::kViolation);
  EXPECT_EQ(loc.prefix_events, 8u);
  EXPECT_EQ(loc.culprit, 2);  // op 2 is the first pop, answered last
}

TEST(LocalizeTest, OpOrderIsLargestFirstAndEachWitnessExplainsItsPrefix) {
  const history::History h = pop_pop_history();
  const Localization loc = localize("stack", h, detect::CheckOptions{});
  ASSERT_EQ(loc.op_order.size(), 4u);
  // Witnesses: {push1, push2, pop->2} for 7 events, {push1, push2} for 4, {push1} for 2, {}.
  EXPECT_EQ(loc.op_order[0].order, (std::vector<history::OpIndex>{0, 1, 3}));
  EXPECT_EQ(loc.op_order[0].prefix_events, 7u);
  EXPECT_EQ(loc.op_order[1].order, (std::vector<history::OpIndex>{0, 1}));
  EXPECT_EQ(loc.op_order[2].order, (std::vector<history::OpIndex>{0}));
  EXPECT_TRUE(loc.op_order[3].order.empty());
  for (const Witness& w : loc.op_order) {
    EXPECT_EQ(detect::validate_witness(spec::StackModel{}, h, w.order, w.prefix_events),
              std::nullopt)
        << "witness of " << w.prefix_events << " events";
  }
}

TEST(LocalizeTest, LinearizableHistoryHasNoLocalization) {
  HistoryBuilder b;
  b.call(0, Call{"push", {Value(1)}}, Value());
  b.call(1, Call{"pop", {}}, Value(1));
  const Localization loc = localize("stack", std::move(b).build(), detect::CheckOptions{});
  EXPECT_EQ(loc.verdict.result, detect::Result::kLinearizable);
  EXPECT_TRUE(loc.op_order.empty());
}

// Random register histories: every witness in OpOrder explains its prefix, witnesses and their
// prefixes shrink strictly, and the reported prefix is the shortest non-linearizable one.
TEST(LocalizeTest, RandomRegisterHistoriesGiveValidWitnesses) {
  std::mt19937 rng(7);
  int violations = 0;
  for (int round = 0; round < 300; ++round) {
    HistoryBuilder b;
    for (int step = 0; step < 14; ++step) {
      const int p = static_cast<int>(rng() % 3);
      if (!b.has_open_call(p)) {
        if (rng() % 2) {
          b.invoke(p, Call{"write", {Value(static_cast<int>(rng() % 3))}});
        } else {
          b.invoke(p, Call{"read", {}});
        }
      } else {
        b.respond(p, Outcome::kOk, Value(static_cast<int>(rng() % 3)));
      }
    }
    const history::History h = std::move(b).build();
    // Writes return nil: rebuild results so that only reads carry values.
    HistoryBuilder fixed;
    for (const history::Event& e : h.events()) {
      const history::Operation& op = h.op(e.op);
      if (e.kind == history::Event::Kind::kCall) {
        fixed.invoke(op.process, op.call);
      } else {
        fixed.respond(op.process, Outcome::kOk, op.call.method == "read" ? op.result : Value());
      }
    }
    const history::History clean = std::move(fixed).build();
    const Localization loc = localize("register", clean, detect::CheckOptions{});
    if (loc.verdict.result != detect::Result::kViolation) continue;
    ++violations;
    EXPECT_EQ(detect::check_history("register", clean.prefix(loc.prefix_events), {}).result,
              detect::Result::kViolation);
    EXPECT_EQ(detect::check_history("register", clean.prefix(loc.prefix_events - 1), {}).result,
              detect::Result::kLinearizable);
    ASSERT_FALSE(loc.op_order.empty());
    EXPECT_TRUE(loc.op_order.back().order.empty());
    for (std::size_t i = 0; i < loc.op_order.size(); ++i) {
      const Witness& w = loc.op_order[i];
      EXPECT_LT(w.prefix_events, loc.prefix_events);
      EXPECT_EQ(detect::validate_witness(spec::RegisterModel{}, clean, w.order, w.prefix_events),
                std::nullopt);
      if (i > 0) {
        EXPECT_LT(w.order.size(), loc.op_order[i - 1].order.size());
        EXPECT_LT(w.prefix_events, loc.op_order[i - 1].prefix_events);
      }
    }
  }
  EXPECT_GT(violations, 20);  // the generator must exercise the violation path
}

}  // namespace
}  // namespace linfault::localize
