#include "detect/checker.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/topological_sort.hpp>
#include <cstdio>
#include <iterator>
#include <new>
#include <stdexcept>

#include "spec/registry.h"

namespace linfault::detect {
namespace internal {
namespace {

std::string format_seconds(double seconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", seconds);
  return buffer;
}

// One linearization of the whole history from the partitions' witnesses: a topological order
// of (each witness's chain) + (real-time order). Real time is encoded with one node per event,
// chained in event order: an op sits after its call event's node and before its return event's
// node, which keeps the graph linear in size. Locality (Herlihy & Wing) makes it acyclic.
std::vector<history::OpIndex> merge_witnesses(const history::History& history,
                                              const std::vector<PartitionOutcome>& outcomes) {
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
  const std::size_t events = history.events().size();
  std::vector<history::OpIndex> ops;
  for (const PartitionOutcome& o : outcomes) ops.insert(ops.end(), o.order.begin(), o.order.end());
  Graph graph(events + ops.size());
  for (std::size_t e = 0; e + 1 < events; ++e) boost::add_edge(e, e + 1, graph);
  std::size_t node = events;
  for (const PartitionOutcome& o : outcomes) {
    for (std::size_t k = 0; k < o.order.size(); ++k, ++node) {
      const history::Operation& op = history.op(o.order[k]);
      boost::add_edge(static_cast<std::size_t>(op.call_event), node, graph);
      if (op.return_event != history::kNoEvent) {
        boost::add_edge(node, static_cast<std::size_t>(op.return_event), graph);
      }
      if (k > 0) boost::add_edge(node - 1, node, graph);
    }
  }
  std::vector<std::size_t> reversed;
  boost::topological_sort(graph, std::back_inserter(reversed));
  std::vector<history::OpIndex> witness;
  witness.reserve(ops.size());
  for (auto it = reversed.rbegin(); it != reversed.rend(); ++it) {
    if (*it >= events) witness.push_back(ops[*it - events]);
  }
  return witness;
}

}  // namespace

SearchLimits::SearchLimits(const CheckOptions& options)
    : start_(std::chrono::steady_clock::now()),
      timeout_seconds_(options.timeout_seconds),
      memory_limit_(options.memory_limit_bytes) {}

std::optional<std::string> SearchLimits::should_stop(std::ptrdiff_t memory_delta) {
  const std::int64_t used =
      memory_used_.fetch_add(memory_delta, std::memory_order_relaxed) + memory_delta;
  if (memory_limit_ > 0 && used > static_cast<std::int64_t>(memory_limit_)) {
    return "memory limit of " + std::to_string(memory_limit_) + " bytes reached";
  }
  if (timeout_seconds_ > 0 &&
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count() >
          timeout_seconds_) {
    return "timeout after " + format_seconds(timeout_seconds_) + " s";
  }
  return std::nullopt;
}

void SearchLimits::offer_violation(history::EventIndex event) {
  history::EventIndex current = violation_bound_.load(std::memory_order_relaxed);
  while (event < current && !violation_bound_.compare_exchange_weak(current, event)) {
  }
}

Verdict merge_outcomes(const history::History& history, std::vector<PartitionOutcome> outcomes,
                       bool want_witness) {
  Verdict verdict;
  for (const PartitionOutcome& o : outcomes) {
    verdict.states_explored += o.states;
    verdict.memo_bytes += o.memo_bytes;
  }
  const PartitionOutcome* failing = nullptr;
  for (const PartitionOutcome& o : outcomes) {
    if (o.result == Result::kViolation &&
        (!failing || o.violation_event < failing->violation_event)) {
      failing = &o;
    }
  }
  if (failing) {
    const history::EventIndex culprit_event = failing->violation_event;
    verdict.result = Result::kViolation;
    verdict.prefix_events = static_cast<std::size_t>(culprit_event) + 1;
    verdict.culprit = history.events()[static_cast<std::size_t>(culprit_event)].op;
    verdict.longest_partial = failing->order;
    if (outcomes.size() > 1) verdict.partition_key = failing->key;
    // Exact only if every partition is known to be linearizable up to the culprit's return.
    for (const PartitionOutcome& o : outcomes) {
      const bool decided = &o == failing ? o.exact : o.known_events >= culprit_event;
      if (!decided) {
        verdict.prefix_exact = false;
        if (verdict.reason.empty()) verdict.reason = o.reason;
      }
    }
    if (!verdict.prefix_exact) {
      verdict.reason = "shortest prefix not proven (" + verdict.reason + ")";
    }
    return verdict;
  }
  for (const PartitionOutcome& o : outcomes) {
    if (o.result == Result::kUnknown) {
      verdict.result = Result::kUnknown;
      verdict.reason = o.reason.empty() ? "check stopped" : o.reason;
      if (outcomes.size() == 1) verdict.longest_partial = o.order;
      return verdict;
    }
  }
  verdict.result = Result::kLinearizable;
  if (want_witness) {
    verdict.witness = outcomes.size() == 1 ? std::move(outcomes.front().order)
                                           : merge_witnesses(history, outcomes);
  }
  return verdict;
}

void throw_model_error(const history::History& history, history::OpIndex op,
                       const std::string& message) {
  throw history::InputError(history.origin(), history.op(op).source.call_line, message);
}

std::string describe_partition_failure(const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e)) return "out of memory";
  return std::string("internal error: ") + e.what();
}

}  // namespace internal

Verdict check_history(std::string_view model_name, const history::History& history,
                      const CheckOptions& options) {
  return spec::visit_model(model_name,
                           [&](const auto& model) { return check(model, history, options); });
}

}  // namespace linfault::detect
