// The exact shortest-prefix refinement of the container monitors on violating histories with many
// threads (many removals pending at every cut): its certificates checked one by one against the
// search at every cut, and the monitor's shortest prefix against the search's.

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "detect/checker.h"
#include "detect/monitors/container_monitor.h"
#include "detect/monitors/monitor.h"
#include "spec/generator.h"

namespace linfault::detect {
namespace {

using internal::ContainerKind;
using internal::Decision;

struct Case {
  std::string model;
  ContainerKind kind;
};

// A violating history with many threads (for its size), small enough for the search, or nullopt
// when the generator cannot falsify one.
std::optional<history::History> violating_history(const std::string& model, std::mt19937_64& rng) {
  spec::GeneratorOptions options;
  options.model = model;
  options.operations = 12 + rng() % 20;
  options.threads = 4 + rng() % 6;
  options.seed = rng();
  options.violation = true;
  options.pending_fraction = rng() % 2 == 0 ? 0.3 : 0;
  try {
    return spec::generate_history(options).history;
  } catch (const spec::GeneratorError&) {
    return std::nullopt;
  }
}

std::string dump(const history::History& h) {
  std::string out;
  for (const history::Operation& op : h.operations()) {
    out += op.to_string() + " [" + std::to_string(op.call_event) + "," +
           std::to_string(op.return_event) + "]\n";
  }
  return out;
}

Verdict search(const std::string& model, const history::History& h) {
  CheckOptions options;
  options.want_witness = false;
  options.threads = 1;
  options.timeout_seconds = 1;
  options.memory_limit_bytes = std::size_t{1} << 29;
  return check_history(model, h, options);
}

class PrefixRefinement : public ::testing::TestWithParam<Case> {};

// Every certificate agrees with the search's shortest prefix p at every cut c (prefix(c) is not
// linearizable exactly when c >= p), and each kind of certificate is used.
TEST_P(PrefixRefinement, CertificatesAgreeWithTheSearchAtEveryCut) {
  const Case& param = GetParam();
  std::mt19937_64 rng(2026);
  int counted = 0, restricted_violations = 0, completions = 0, histories = 0;
  for (int n = 0; n < 150; ++n) {
    const std::optional<history::History> h = violating_history(param.model, rng);
    if (!h) continue;
    const Verdict expected = search(param.model, *h);
    // The search hit a limit, in deciding or in finding the exact shortest prefix.
    if (expected.result == Result::kUnknown || !expected.prefix_exact) continue;
    ASSERT_EQ(expected.result, Result::kViolation);
    auto compiled = internal::compile_container_ops(param.kind, *h);
    if (!std::holds_alternative<internal::ContainerOps>(compiled)) continue;
    const auto& ops = std::get<internal::ContainerOps>(compiled);
    const internal::ContainerValueIndex index = internal::index_container_values(ops);
    internal::ScratchMemory scratch;
    ++histories;
    const auto shortest = static_cast<std::int32_t>(expected.prefix_events);
    const auto events = static_cast<std::int32_t>(h->events().size());
    SCOPED_TRACE(param.model + " history #" + std::to_string(n) + ", shortest prefix " +
                 std::to_string(shortest));
    for (std::int32_t cut = 1; cut <= events; ++cut) {
      const bool violating = cut >= shortest;
      if (internal::empties_outnumbered(ops, cut).decision == Decision::kViolation) {
        EXPECT_TRUE(violating) << "counting certificate at cut " << cut;
        ++counted;
      }
      const auto op = static_cast<std::int32_t>(h->events()[static_cast<std::size_t>(cut - 1)].op);
      for (std::size_t size = 1; size <= internal::kMaxRestrictedValues; size += 2) {
        const std::vector<std::int32_t> values = internal::values_near(ops, index, op, size);
        if (values.empty()) continue;
        const internal::RestrictedDecision r =
            internal::decide_restricted_prefix(ops, index, values, {op}, cut, scratch);
        if (r.decision == Decision::kViolation) {
          EXPECT_TRUE(violating) << "restriction to " << values.size() << " values at cut " << cut;
          ++restricted_violations;
        } else if (r.decision == Decision::kLinearizable &&
                   internal::decide_completion(ops, cut, r.forced, scratch).decision ==
                       Decision::kLinearizable) {
          EXPECT_FALSE(violating) << "completion of the restriction at cut " << cut;
          ++completions;
        }
      }
    }
  }
  EXPECT_GT(histories, 100);
  EXPECT_GT(restricted_violations, 100);
  EXPECT_GT(completions, 100);
  // Returning empty is one of the generator's injections for every container.
  EXPECT_GT(counted, 10);
}

// The monitor's shortest prefix is exact and equals the search's on violating histories with
// many threads.
TEST_P(PrefixRefinement, ShortestPrefixEqualsTheSearchs) {
  const Case& param = GetParam();
  std::mt19937_64 rng(77);
  int compared = 0;
  for (int n = 0; n < 150; ++n) {
    const std::optional<history::History> h = violating_history(param.model, rng);
    if (!h) continue;
    const Verdict expected = search(param.model, *h);
    if (expected.result == Result::kUnknown || !expected.prefix_exact) continue;
    CheckOptions options;
    options.want_witness = false;
    const MonitorResult monitor = run_monitor(param.model, *h, options);
    if (!monitor.verdict) continue;
    SCOPED_TRACE(param.model + " history #" + std::to_string(n));
    ASSERT_EQ(monitor.verdict->result, Result::kViolation);
    EXPECT_TRUE(monitor.verdict->prefix_exact) << monitor.verdict->reason;
    EXPECT_EQ(monitor.verdict->prefix_events, expected.prefix_events) << dump(*h);
    EXPECT_EQ(monitor.verdict->culprit, expected.culprit);
    ++compared;
  }
  EXPECT_GT(compared, 100);
}

INSTANTIATE_TEST_SUITE_P(Containers, PrefixRefinement,
                         ::testing::Values(Case{"stack", ContainerKind::kStack},
                                           Case{"queue", ContainerKind::kQueue},
                                           Case{"priorityqueue", ContainerKind::kPriorityQueue}),
                         [](const auto& info) { return info.param.model; });

}  // namespace
}  // namespace linfault::detect
