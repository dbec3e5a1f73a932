#include "detect/checker.h"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/topological_sort.hpp>
#include <concepts>
#include <cstdio>
#include <iterator>
#include <new>
#include <optional>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>

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

namespace {

// Models whose checks can apply the stuck-history rule: those whose calls never block, and those
// registered at run time that know blocking (tells_blocking(): a target's serial specification).
template <class M>
concept MayTellBlocking = spec::NeverBlockingModel<M> || std::same_as<M, spec::ErasedModel>;

template <MayTellBlocking M>
bool tells_blocking(const M& model) {
  if constexpr (std::same_as<M, spec::ErasedModel>) {
    return model.tells_blocking();
  } else {
    return true;
  }
}

// `model` with the operation called at `blocked_call` compiled as a call that must block forever
// (nullopt for a model whose calls never block: it cannot step).
template <MayTellBlocking M>
class BlockingView {
 public:
  using State = typename M::State;
  using Op = std::optional<typename M::Op>;

  BlockingView(const M& model, history::EventIndex blocked_call)
      : model_(&model), blocked_call_(blocked_call) {}

  std::string_view name() const { return model_->name(); }
  State initial() const { return model_->initial(); }
  spec::Compiled<Op> compile(const history::Operation& op) const {
    if (op.call_event == blocked_call_) {
      if constexpr (std::same_as<M, spec::ErasedModel>) {
        return lift(model_->compile_blocked(op));
      } else {
        return Op{};
      }
    }
    return lift(model_->compile(op));
  }
  bool step(State& state, const Op& op) const { return op && model_->step(state, *op); }
  std::size_t hash(const State& state) const { return model_->hash(state); }
  std::string describe(const State& state) const { return model_->describe(state); }

 private:
  static spec::Compiled<Op> lift(spec::Compiled<typename M::Op> compiled) {
    if (auto* op = std::get_if<typename M::Op>(&compiled)) return Op(std::move(*op));
    if (auto* error = std::get_if<spec::ModelError>(&compiled)) return std::move(*error);
    return spec::NoEffect{};
  }

  const M* model_;
  history::EventIndex blocked_call_;
};

// H[e] of Line-Up: `history` without the other calls that never returned, and `blocked`, which
// returns at the very end (so that every linearization must place it, after everything it does
// not precede). A pending call that its process followed with another (`returned[op]`: its
// outcome is unknown) returned, and may have taken effect: it stays, pending. Sets
// `blocked_call` to its call event in the result.
history::History with_only_pending(const history::History& history, history::OpIndex blocked,
                                   const std::vector<bool>& returned,
                                   history::EventIndex& blocked_call) {
  history::HistoryBuilder builder(history.origin());
  blocked_call = history::kNoEvent;
  history::EventIndex events = 0;
  for (const history::Event& event : history.events()) {
    const history::Operation& op = history.op(event.op);
    const bool other_pending = !op.completed() && event.op != blocked;
    if (other_pending && !returned[event.op]) continue;
    if (event.kind == history::Event::Kind::kCall) {
      if (event.op == blocked) blocked_call = events;
      builder.invoke(op.process, op.call, op.source.call_line);
      // Closed at once: it has no response event, so it may still take effect at any later point.
      if (other_pending) builder.respond(op.process, history::Outcome::kPending, history::Value());
    } else {
      builder.respond(op.process, op.outcome, op.result, op.source.return_line);
    }
    ++events;
  }
  const history::Operation& e = history.op(blocked);
  builder.respond(e.process, history::Outcome::kOk, history::Value(), e.source.call_line);
  return std::move(builder).build();
}

// Line-Up's rule for a stuck history that the plain check found linearizable.
template <MayTellBlocking M>
Verdict check_stuck(const M& model, const history::History& history, const CheckOptions& options,
                    Verdict plain) {
  CheckOptions each = options;
  each.partition = false;
  each.want_witness = false;
  // Only a process's last call can be the one that never returned: a pending call its process
  // followed with another (an outcome reported unknown, Jepsen's :info) did return.
  // Operations are numbered by call: walking them backwards, a process seen already called later.
  std::vector<bool> returned(history.size(), false);
  std::unordered_set<history::ProcessId> called_later;
  for (std::size_t e = history.size(); e-- > 0;) {
    returned[e] = !called_later.insert(history.op(static_cast<history::OpIndex>(e)).process).second;
  }
  for (history::OpIndex e = 0; e < static_cast<history::OpIndex>(history.size()); ++e) {
    if (history.op(e).completed() || returned[e]) continue;
    Verdict v;
    if constexpr (spec::NeverBlockingModel<M>) {
      v.result = Result::kViolation;  // e cannot block in any order: no search needed
    } else {
      history::EventIndex blocked_call = history::kNoEvent;
      const history::History only_e = with_only_pending(history, e, returned, blocked_call);
      v = check(BlockingView(model, blocked_call), only_e, each);
    }
    if (v.result == Result::kLinearizable) continue;
    Verdict verdict;
    verdict.model = plain.model;
    verdict.algorithm = "search (stuck history)";
    verdict.operations = history.size();
    verdict.elapsed_ms = plain.elapsed_ms + v.elapsed_ms;
    if (v.result == Result::kUnknown) {
      verdict.result = Result::kUnknown;
      verdict.reason = "stuck history: " + v.reason;
      return verdict;
    }
    verdict.result = Result::kViolation;
    verdict.stuck = true;
    verdict.culprit = e;
    verdict.prefix_events = history.events().size();
    verdict.reason = history.op(e).call.to_string() + " of process " +
                     std::to_string(history.op(e).process) +
                     " never returns, but no serial order of the operations makes it block";
    return verdict;
  }
  return plain;
}

}  // namespace

bool model_tells_blocking(std::string_view model_name) {
  return spec::visit_model(model_name, [](const auto& model) {
    if constexpr (MayTellBlocking<std::decay_t<decltype(model)>>) {
      return tells_blocking(model);
    } else {
      return false;
    }
  });
}

// The synchronisation requirement (CheckOptions::synchronization) on a history with clocks: the
// first operation, by response, that took an element none of whose adders' calls happens-before
// its return, and the first adder of that element.
template <spec::FlowModel M>
std::optional<std::pair<history::OpIndex, history::OpIndex>> find_unsynchronized_take(
    const M& model, const history::History& history) {
  std::unordered_map<std::int64_t, std::vector<history::OpIndex>> adders;
  std::vector<std::optional<std::int64_t>> taken(history.size());
  for (std::size_t i = 0; i < history.size(); ++i) {
    const auto index = static_cast<history::OpIndex>(i);
    const auto compiled = model.compile(history.op(index));
    const auto* op = std::get_if<typename M::Op>(&compiled);
    if (op == nullptr) continue;
    if (const auto element = model.element_added(*op)) adders[*element].push_back(index);
    if (history.op(index).outcome == history::Outcome::kOk) taken[i] = model.element_taken(*op);
  }
  for (const history::Event& event : history.events()) {
    if (event.kind != history::Event::Kind::kReturn) continue;
    const auto& element = taken[static_cast<std::size_t>(event.op)];
    if (!element) continue;
    const auto it = adders.find(*element);
    if (it == adders.end()) continue;  // put in by nobody: the linearizability check's business
    const bool ordered = std::any_of(it->second.begin(), it->second.end(), [&](history::OpIndex a) {
      return a == event.op || history.call_happens_before_return(a, event.op);
    });
    if (ordered) continue;
    // Name the adder the element most likely came from: the last one called before the taker
    // returned.
    history::OpIndex source = it->second.front();
    for (const history::OpIndex a : it->second) {
      if (history.op(a).call_event < history.op(event.op).return_event) source = a;
    }
    return std::pair{event.op, source};
  }
  return std::nullopt;
}

template <class M>
void apply_synchronization(const M& model, const history::History& history,
                           const CheckOptions& options, Verdict& verdict) {
  if constexpr (spec::FlowModel<M>) {
    if (!options.synchronization || verdict.result != Result::kLinearizable ||
        history.clocks().empty()) {
      return;
    }
    const auto found = find_unsynchronized_take(model, history);
    if (!found) return;
    verdict.result = Result::kViolation;
    verdict.unsynchronized = true;
    verdict.culprit = found->first;
    verdict.source = found->second;
    verdict.prefix_events = static_cast<std::size_t>(history.op(found->first).return_event) + 1;
    verdict.prefix_exact = true;
    verdict.witness.clear();
    verdict.longest_partial.clear();
  }
}

Verdict check_history(std::string_view model_name, const history::History& history,
                      const CheckOptions& options) {
  return spec::visit_model(model_name, [&](const auto& model) {
    Verdict verdict = check(model, history, options);
    apply_synchronization(model, history, options, verdict);
    if constexpr (MayTellBlocking<std::decay_t<decltype(model)>>) {
      if (options.stuck && verdict.result == Result::kLinearizable && tells_blocking(model)) {
        return check_stuck(model, history, options, std::move(verdict));
      }
    }
    return verdict;
  });
}

void check_synchronization(std::string_view model_name, const history::History& history,
                           const CheckOptions& options, Verdict& verdict) {
  if (!options.synchronization || verdict.result != Result::kLinearizable ||
      history.clocks().empty()) {
    return;
  }
  spec::visit_model(model_name, [&](const auto& model) {
    apply_synchronization(model, history, options, verdict);
    return 0;
  });
}

}  // namespace linfault::detect
