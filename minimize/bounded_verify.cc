#include "minimize/bounded_verify.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <set>
#include <stdexcept>

#include "detect/checker.h"
#include "dpct/exhaustive.h"
#include "dpct/random_scheduler.h"
#include "minimize/test_case.h"
#include "targets/registry.h"

namespace linfault::minimize {
namespace {

using history::Call;
using history::Value;
using Clock = std::chrono::steady_clock;

// The argument tuples of `op` over the `values` smallest values of each position.
std::vector<std::vector<Value>> argument_tuples(const targets::OperationSpec& op,
                                                std::size_t values) {
  targets::ArgumentSource source(1);
  std::set<std::vector<Value>> drawn;
  std::vector<std::set<Value>> by_position;
  for (std::size_t i = 0; i < kDomainSamples; ++i) {
    std::vector<Value> args = op.arguments(source);
    if (by_position.size() < args.size()) by_position.resize(args.size());
    for (std::size_t p = 0; p < args.size(); ++p) by_position[p].insert(args[p]);
    drawn.insert(std::move(args));
  }
  std::vector<std::set<Value>> smallest(by_position.size());
  for (std::size_t p = 0; p < by_position.size(); ++p) {
    for (const Value& v : by_position[p]) {
      if (smallest[p].size() == values) break;
      smallest[p].insert(v);
    }
  }
  std::vector<std::vector<Value>> tuples;
  for (const std::vector<Value>& args : drawn) {
    bool small = true;
    for (std::size_t p = 0; p < args.size() && small; ++p) small = smallest[p].contains(args[p]);
    if (small) tuples.push_back(args);
  }
  return tuples;
}

bool is_operation(const targets::Target& target, const Call& call) {
  return std::any_of(target.operations.begin(), target.operations.end(),
                     [&](const targets::OperationSpec& op) { return op.method == call.method; });
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

std::vector<Call> call_domain(const targets::Target& target, std::size_t values) {
  if (values == 0) throw std::invalid_argument("the value domain must have at least one value");
  std::vector<Call> calls;
  for (const targets::OperationSpec& op : target.operations) {
    for (std::vector<Value>& args : argument_tuples(op, values)) {
      calls.push_back(Call{op.method, std::move(args)});
    }
  }
  return calls;
}

std::optional<std::uint64_t> count_workloads(std::size_t calls, std::size_t threads,
                                             std::size_t ops) {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t sequences = 1;  // calls^ops
  for (std::size_t i = 0; i < ops; ++i) {
    if (calls != 0 && sequences > kMax / calls) return std::nullopt;
    sequences *= calls;
  }
  // C(sequences + threads - 1, threads) = prod_{i=1..threads} (sequences - 1 + i) / i, each
  // partial product an integer (a binomial coefficient itself).
  unsigned __int128 result = 1;
  for (std::size_t i = 1; i <= threads; ++i) {
    result = result * (sequences - 1 + i) / i;
    if (result > kMax) return std::nullopt;
  }
  return static_cast<std::uint64_t>(result);
}

WorkloadEnumerator::WorkloadEnumerator(std::vector<Call> domain, std::size_t threads,
                                       std::size_t ops)
    : domain_(std::move(domain)), ops_(ops), digits_(threads, std::vector<std::size_t>(ops, 0)) {
  if (domain_.empty()) throw std::invalid_argument("the target has no calls to enumerate");
  if (threads == 0) throw std::invalid_argument("at least one thread is needed");
  if (ops == 0) throw std::invalid_argument("at least one call per thread is needed");
}

bool WorkloadEnumerator::next(std::vector<std::vector<Call>>& threads) {
  if (done_) return false;
  if (started_) {
    // Increment the last thread's sequence that is not the largest one; the threads after it
    // restart from its new value (the smallest canonical continuation).
    std::size_t t = digits_.size();
    bool advanced = false;
    while (t-- > 0 && !advanced) {
      std::vector<std::size_t>& seq = digits_[t];
      for (std::size_t i = ops_; i-- > 0;) {
        if (seq[i] + 1 < domain_.size()) {
          ++seq[i];
          std::fill(seq.begin() + static_cast<std::ptrdiff_t>(i) + 1, seq.end(), 0);
          advanced = true;
          break;
        }
      }
      if (advanced) {
        for (std::size_t u = t + 1; u < digits_.size(); ++u) digits_[u] = seq;
      }
    }
    if (!advanced) {
      done_ = true;
      return false;
    }
  }
  started_ = true;
  threads.assign(digits_.size(), {});
  for (std::size_t t = 0; t < digits_.size(); ++t) {
    for (std::size_t d : digits_[t]) threads[t].push_back(domain_[d]);
  }
  return true;
}

const char* bounded_verdict_name(BoundedVerdict verdict) {
  switch (verdict) {
    case BoundedVerdict::kLinearizable:
      return "linearizable";
    case BoundedVerdict::kNotLinearizable:
      return "not linearizable";
    case BoundedVerdict::kInconclusive:
      return "inconclusive";
    case BoundedVerdict::kFails:
      return "fails";
  }
  return "inconclusive";
}

std::string describe_bound(const BoundedVerifyOptions& options) {
  return std::to_string(options.threads) + " threads x " + std::to_string(options.ops_per_thread) +
         " ops, " + std::to_string(options.values) + " values per argument, preemptions " +
         (options.max_preemptions ? "<= " + std::to_string(*options.max_preemptions)
                                  : std::string("unbounded")) +
         (options.memory_model == dpct::MemoryModel::kC11 ? ", every read of the C++20 model" : "");
}

BoundedVerifyResult verify_bounded(const targets::Target& target,
                                   const BoundedVerifyOptions& options) {
  for (const std::vector<Call>* part : {&options.setup, &options.reveal}) {
    for (const Call& call : *part) {
      if (!is_operation(target, call)) {
        throw std::invalid_argument(call.to_string() + " is not an operation of target " +
                                    target.name);
      }
    }
  }
  {
    // Ps and Pr alone, once: a call the target rejects (wrong arity, a value out of its domain) is
    // a usage error, not a counterexample.
    dpct::Executor executor;
    dpct::RandomScheduler scheduler(1);
    dpct::ExecutionOptions sequential;
    sequential.max_steps = options.max_steps;
    const dpct::Run alone = executor.execute(
        target.factory, dpct::Workload{options.setup, {}, options.reveal}, scheduler, sequential);
    if (alone.outcome == dpct::RunOutcome::kCrash) {
      throw std::invalid_argument("the setup and reveal calls fail on their own: " + alone.message);
    }
  }
  const Clock::time_point start = Clock::now();
  BoundedVerifyResult result;
  std::vector<Call> domain = call_domain(target, options.values);
  result.calls = domain.size();
  result.total_workloads = count_workloads(domain.size(), options.threads, options.ops_per_thread);
  WorkloadEnumerator workloads(std::move(domain), options.threads, options.ops_per_thread);

  dpct::Executor executor;
  dpct::ExhaustiveOptions explore;
  explore.max_preemptions = options.max_preemptions;
  explore.memory_model = options.memory_model;
  explore.execution.max_steps = options.max_steps;
  explore.execution.record_points = false;
  detect::CheckOptions check;
  check.threads = 1;
  check.want_witness = false;

  bool timed_out = false;
  std::uint64_t unknown_checks = 0;
  detect::Verdict failing_verdict;
  const bool tells_blocking = detect::model_tells_blocking(target.model);
  const auto stop = [&](const dpct::Run& run) {
    check.stuck = tells_blocking && dpct::ended_stuck(run.outcome);
    if (run.outcome != dpct::RunOutcome::kOk && !check.stuck) {
      result.failure = std::string(dpct::run_outcome_name(run.outcome)) + ": " + run.message;
      if (run.outcome == dpct::RunOutcome::kLivelock) {
        result.failure +=
            " (even with fair spinning: a thread past a spin hint runs again once another writes)";
      }
      return true;
    }
    if (options.timeout_seconds > 0) {
      const double left = options.timeout_seconds - seconds_since(start);
      if (left <= 0) {
        timed_out = true;
        return true;
      }
      check.timeout_seconds =
          options.check_timeout_seconds > 0 ? std::min(options.check_timeout_seconds, left) : left;
    } else {
      check.timeout_seconds = options.check_timeout_seconds;
    }
    detect::Verdict verdict = detect::check_history(target.model, run.history, check);
    if (verdict.result == detect::Result::kUnknown) ++unknown_checks;
    if (verdict.result != detect::Result::kViolation) return false;
    result.failure = violation_reason(run, verdict);
    failing_verdict = std::move(verdict);
    return true;
  };

  dpct::Workload workload{options.setup, {}, options.reveal};
  if (options.progress) options.progress(0, 0);
  while (workloads.next(workload.threads)) {
    if (targets::roles_problem(target, workload)) continue;  // outside the object's contract
    const dpct::ExhaustiveResult explored =
        dpct::explore_exhaustively(executor, target.factory, workload, explore, stop);
    // Runs the partial-order reduction cut short cost time too.
    result.executions += explored.executions + explored.redundant;
    if (timed_out) break;
    if (!explored.found && !explored.exhausted) {
      timed_out = true;  // cannot happen without an execution limit; never claim it verified
      break;
    }
    ++result.workloads;
    if (options.progress) options.progress(result.workloads, result.executions);
    if (!explored.found) continue;
    detect::SavedRun failing;
    failing.target = target.name;
    failing.model = target.model;
    failing.scheduling.kind = "exhaustive";
    failing.scheduling.max_steps = options.max_steps;
    failing.scheduling.description =
        "exhaustive (bounded verification: " + describe_bound(options) + ")";
    failing.workload = workload;
    failing.schedule = explored.found->schedule;
    failing.outcome = explored.found->outcome;
    failing.message = explored.found->message;
    failing.verdict = explored.found->outcome == dpct::RunOutcome::kOk
                          ? detect::summarize(failing_verdict)
                          : detect::SavedVerdict{};
    failing.history = explored.found->history;
    result.failing = std::move(failing);
    result.verdict = explored.found->outcome == dpct::RunOutcome::kOk
                         ? BoundedVerdict::kNotLinearizable
                         : BoundedVerdict::kFails;
    result.seconds = seconds_since(start);
    return result;
  }
  result.seconds = seconds_since(start);
  result.weak_order_sites = executor.weak_order_sites();
  if (timed_out) {
    result.verdict = BoundedVerdict::kInconclusive;
    result.inconclusive_reason = "time limit reached";
  } else if (unknown_checks > 0) {
    result.verdict = BoundedVerdict::kInconclusive;
    result.inconclusive_reason =
        std::to_string(unknown_checks) + " history checks ended without a verdict (check timeout)";
  } else {
    result.verdict = BoundedVerdict::kLinearizable;
  }
  return result;
}

}  // namespace linfault::minimize
