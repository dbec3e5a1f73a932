#include "minimize/bounded_verify.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "detect/checker.h"
#include "targets/registry.h"

namespace linfault::minimize {
namespace {

using history::Call;

std::vector<std::string> texts(const std::vector<Call>& calls) {
  std::vector<std::string> out;
  for (const Call& c : calls) out.push_back(c.to_string());
  return out;
}

TEST(CallDomain, KeysFromZeroUniqueValuesFromOneMethodsWithoutArgumentsOnce) {
  EXPECT_EQ(texts(call_domain(targets::find("lf_list"), 2)),
            (std::vector<std::string>{"add(0)", "add(1)", "remove(0)", "remove(1)", "contains(0)",
                                      "contains(1)"}));
  EXPECT_EQ(texts(call_domain(targets::find("treiber_stack"), 3)),
            (std::vector<std::string>{"push(1)", "push(2)", "push(3)", "pop()"}));
}

TEST(CallDomain, TuplesTheGeneratorNeverDrawsAreLeftOut) {
  // readpair(i, j) takes two distinct cells: (0, 0) and (1, 1) are not calls of the target.
  const std::vector<std::string> calls = texts(call_domain(targets::find("pair_snapshot"), 2));
  EXPECT_EQ(calls, (std::vector<std::string>{"write(0, 0)", "write(0, 1)", "write(1, 0)",
                                             "write(1, 1)", "readpair(0, 1)", "readpair(1, 0)"}));
  EXPECT_THROW(call_domain(targets::find("pair_snapshot"), 0), std::invalid_argument);
}

TEST(CountWorkloads, MultisetsOfThreadSequences) {
  // 3 calls, 2 per thread: 9 sequences; unordered pairs with repetition: 9 * 10 / 2.
  EXPECT_EQ(count_workloads(3, 2, 2), 45u);
  // 3 calls, 1 per thread, 3 threads: C(5, 3).
  EXPECT_EQ(count_workloads(3, 3, 1), 10u);
  EXPECT_EQ(count_workloads(6, 1, 3), 216u);
  EXPECT_EQ(count_workloads(1000, 3, 4), std::nullopt);  // (10^12)^3 / 6 > 2^64
}

// Every ordered workload (threads' sequences in any order) is enumerated exactly once up to a
// permutation of its threads, and nothing else is.
TEST(WorkloadEnumerator, EachWorkloadOnceUpToThreadPermutation) {
  const std::vector<Call> domain = {Call{"a", {}}, Call{"b", {}}, Call{"c", {}}};
  for (const auto& [threads, ops] :
       std::vector<std::pair<std::size_t, std::size_t>>{{2, 2}, {3, 1}, {3, 2}, {1, 3}}) {
    WorkloadEnumerator enumerator(domain, threads, ops);
    std::set<std::vector<std::string>> seen;
    std::vector<std::vector<Call>> workload;
    std::uint64_t produced = 0;
    while (enumerator.next(workload)) {
      ++produced;
      ASSERT_EQ(workload.size(), threads);
      std::vector<std::string> sequences;
      for (const std::vector<Call>& thread : workload) {
        ASSERT_EQ(thread.size(), ops);
        std::string sequence;
        for (const Call& c : thread) sequence += c.method;
        sequences.push_back(sequence);
      }
      EXPECT_TRUE(std::is_sorted(sequences.begin(), sequences.end())) << sequences[0];
      EXPECT_TRUE(seen.insert(sequences).second) << "produced twice";
    }
    EXPECT_EQ(produced, count_workloads(domain.size(), threads, ops));
    // Every ordered assignment, sorted, is among those produced.
    std::uint64_t sequences_count = 1;
    for (std::size_t i = 0; i < ops; ++i) sequences_count *= domain.size();
    std::uint64_t ordered = 1;
    for (std::size_t t = 0; t < threads; ++t) ordered *= sequences_count;
    for (std::uint64_t code = 0; code < ordered; ++code) {
      std::vector<std::string> sequences;
      std::uint64_t rest = code;
      for (std::size_t t = 0; t < threads; ++t) {
        std::string sequence;
        for (std::size_t i = 0; i < ops; ++i) {
          sequence += domain[rest % domain.size()].method;
          rest /= domain.size();
        }
        sequences.push_back(sequence);
      }
      std::sort(sequences.begin(), sequences.end());
      EXPECT_TRUE(seen.contains(sequences));
    }
  }
  EXPECT_THROW(WorkloadEnumerator({}, 2, 2), std::invalid_argument);
  EXPECT_THROW(WorkloadEnumerator(domain, 0, 2), std::invalid_argument);
}

TEST(VerifyBounded, ControlIsLinearizableInEveryWorkload) {
  BoundedVerifyOptions options;
  options.threads = 2;
  options.ops_per_thread = 2;
  const BoundedVerifyResult result = verify_bounded(targets::find("treiber_stack"), options);
  EXPECT_EQ(result.verdict, BoundedVerdict::kLinearizable) << result.failure;
  EXPECT_EQ(result.calls, 3u);             // push(1), push(2), pop()
  EXPECT_EQ(result.total_workloads, 45u);  // C(9 + 1, 2)
  EXPECT_EQ(result.workloads, 45u);
  EXPECT_GT(result.executions, result.workloads);  // several interleavings per workload
  EXPECT_FALSE(result.failing);
}

TEST(VerifyBounded, PreemptionBoundLimitsTheExecutions) {
  BoundedVerifyOptions options;
  options.ops_per_thread = 1;
  const std::uint64_t unbounded =
      verify_bounded(targets::find("treiber_stack"), options).executions;
  options.max_preemptions = 0;
  const BoundedVerifyResult bounded = verify_bounded(targets::find("treiber_stack"), options);
  EXPECT_EQ(bounded.verdict, BoundedVerdict::kLinearizable);
  EXPECT_EQ(bounded.workloads, 6u);  // C(3 + 1, 2)
  EXPECT_LT(bounded.executions, unbounded);
  // Without preemptions each thread runs to completion: two orders per workload.
  EXPECT_EQ(bounded.executions, 12u);
  EXPECT_EQ(describe_bound(options), "2 threads x 1 ops, 2 values per argument, preemptions <= 0");
}

TEST(VerifyBounded, BuggyStackFailsWithARealNonLinearizableRun) {
  const BoundedVerifyResult result =
      verify_bounded(targets::find("treiber_stack_buggy"), BoundedVerifyOptions{});
  ASSERT_EQ(result.verdict, BoundedVerdict::kNotLinearizable);
  ASSERT_TRUE(result.failing);
  EXPECT_EQ(result.failing->target, "treiber_stack_buggy");
  EXPECT_LE(result.workloads, 45u);
  EXPECT_EQ(result.failing->workload.threads.size(), 2u);
  // The saved history really is not linearizable, or the run ended with a failing outcome.
  if (result.failing->outcome == dpct::RunOutcome::kOk) {
    EXPECT_EQ(result.failing->verdict.result, detect::Result::kViolation);
    EXPECT_EQ(detect::check_history(result.failing->model, result.failing->history, {}).result,
              detect::Result::kViolation);
  }
  EXPECT_FALSE(result.failure.empty());
}

TEST(VerifyBounded, SetupMustBeCallsOfTheTarget) {
  BoundedVerifyOptions options;
  options.setup = {Call{"enq", {1}}};
  EXPECT_THROW(verify_bounded(targets::find("treiber_stack"), options), std::invalid_argument);
  options.setup = {Call{"push", {1}}};
  options.ops_per_thread = 1;
  const BoundedVerifyResult result = verify_bounded(targets::find("treiber_stack"), options);
  EXPECT_EQ(result.verdict, BoundedVerdict::kLinearizable);
  EXPECT_EQ(result.workloads, 6u);  // C(3 + 1, 2)
}

TEST(VerifyBounded, TimeLimitMakesItInconclusive) {
  BoundedVerifyOptions options;
  options.ops_per_thread = 3;
  options.timeout_seconds = 1e-6;
  const BoundedVerifyResult result = verify_bounded(targets::find("lf_list"), options);
  EXPECT_EQ(result.verdict, BoundedVerdict::kInconclusive);
  EXPECT_LT(result.workloads, *result.total_workloads);
  EXPECT_NE(result.inconclusive_reason.find("time limit"), std::string::npos);
}

}  // namespace
}  // namespace linfault::minimize
