// Independent checks of the checker's answers, built on the real-time precedence DAG.
//
// validate_witness(model, history, order, events): nullopt iff `order` is a linearization of
// history.prefix(events) (default: the whole history): every op that completed within the
// prefix and took effect appears exactly once, ops called beyond it do not appear, completed
// ops without effect (failed calls) do not appear, the order is a topological order of the
// precedence DAG, and the model accepts the ops in that order (ops completing beyond the cut with
// any result). Otherwise a one-line description of the first problem.
//
// brute_force_linearizable / brute_force_shortest_prefix: the exhaustive oracle the search is
// tested against — every order of the ops that respects real-time order, pending ops included
// or dropped, no memo. Exponential: for histories of a handful of ops.
//
// Thread-safety: pure functions.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_DETECT_WITNESS_H_
#define LINFAULT_DETECT_WITNESS_H_

#include <boost/graph/adjacency_list.hpp>
#include <cstddef>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "history/history.h"
#include "spec/model.h"

namespace linfault::detect {

// Vertex i is op i; an edge a -> b means a's response precedes b's invocation.
using PrecedenceGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS>;
PrecedenceGraph precedence_graph(const history::History& history);

namespace internal {

// The model's compiled ops for `history`; nullopt for NoEffect. Throws std::invalid_argument on
// a ModelError.
template <spec::SequentialModel M>
std::vector<std::optional<typename M::Op>> compile_for_oracle(const M& model,
                                                              const history::History& history) {
  std::vector<std::optional<typename M::Op>> out;
  for (const history::Operation& op : history.operations()) {
    auto c = model.compile(op);
    if (auto* error = std::get_if<spec::ModelError>(&c))
      throw std::invalid_argument(error->message);
    if (auto* compiled = std::get_if<typename M::Op>(&c)) {
      out.emplace_back(*compiled);
    } else {
      out.emplace_back(std::nullopt);
    }
  }
  return out;
}

}  // namespace internal

template <spec::SequentialModel M>
std::optional<std::string> validate_witness(
    const M& model, const history::History& history, const std::vector<history::OpIndex>& order,
    std::size_t events = std::numeric_limits<std::size_t>::max()) {
  const history::History prefix =
      events >= history.events().size() ? history : history.prefix(events);
  // History::prefix keeps event indices; map the order's ops through their call events.
  std::vector<history::OpIndex> by_call(history.events().size(), -1);
  for (history::OpIndex i = 0; i < static_cast<history::OpIndex>(prefix.size()); ++i) {
    by_call[static_cast<std::size_t>(prefix.op(i).call_event)] = i;
  }
  const auto compiled = internal::compile_for_oracle(model, prefix);
  std::vector<int> position(prefix.size(), -1);
  for (std::size_t k = 0; k < order.size(); ++k) {
    const history::OpIndex full = order[k];
    if (full < 0 || static_cast<std::size_t>(full) >= history.size()) {
      return "op index " + std::to_string(full) + " out of range";
    }
    const history::EventIndex call = history.op(full).call_event;
    const history::OpIndex i = by_call[static_cast<std::size_t>(call)];
    if (i < 0) return "op " + std::to_string(full) + " is called after the prefix";
    if (position[i] >= 0) return "op " + std::to_string(full) + " appears twice";
    if (!compiled[i] && prefix.op(i).completed()) {
      return "op " + std::to_string(full) + " did not take effect";
    }
    position[i] = static_cast<int>(k);
  }
  for (history::OpIndex i = 0; i < static_cast<history::OpIndex>(prefix.size()); ++i) {
    if (compiled[i] && prefix.op(i).completed() && position[i] < 0) {
      return "completed op " + prefix.op(i).to_string() + " is missing";
    }
  }
  const PrecedenceGraph graph = precedence_graph(prefix);
  for (auto [e, end] = boost::edges(graph); e != end; ++e) {
    const auto a = boost::source(*e, graph);
    const auto b = boost::target(*e, graph);
    if (position[a] >= 0 && position[b] >= 0 && position[a] > position[b]) {
      return "real-time order broken: " + prefix.op(static_cast<history::OpIndex>(a)).to_string() +
             " returned before " + prefix.op(static_cast<history::OpIndex>(b)).to_string() +
             " was called";
    }
  }
  typename M::State state = model.initial();
  for (history::OpIndex full : order) {
    const history::OpIndex i = by_call[static_cast<std::size_t>(history.op(full).call_event)];
    if (!compiled[i]) continue;  // pending in the prefix and without effect (a cut-off read)
    const std::string before = model.describe(state);
    if (!model.step(state, *compiled[i])) {
      return "model rejects " + prefix.op(i).to_string() + " in state " + before;
    }
  }
  return std::nullopt;
}

template <spec::SequentialModel M>
bool brute_force_linearizable(const M& model, const history::History& history,
                              std::vector<history::OpIndex>* witness = nullptr) {
  const auto compiled = internal::compile_for_oracle(model, history);
  const PrecedenceGraph graph = precedence_graph(history);
  const std::size_t n = history.size();
  std::size_t required = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (compiled[i] && history.operations()[i].completed()) ++required;
  }
  // Unplaced predecessors that took effect; a predecessor that did not is no constraint.
  std::vector<int> blockers(n, 0);
  for (auto [e, end] = boost::edges(graph); e != end; ++e) {
    if (compiled[boost::source(*e, graph)]) ++blockers[boost::target(*e, graph)];
  }
  std::vector<bool> placed(n, false);
  std::vector<history::OpIndex> order;
  std::function<bool(const typename M::State&, std::size_t)> extend =
      [&](const typename M::State& state, std::size_t placed_required) -> bool {
    if (placed_required == required) return true;
    for (std::size_t i = 0; i < n; ++i) {
      if (placed[i] || !compiled[i] || blockers[i] > 0) continue;
      typename M::State next = state;
      if (!model.step(next, *compiled[i])) continue;
      placed[i] = true;
      order.push_back(static_cast<history::OpIndex>(i));
      for (auto [e, end] = boost::out_edges(i, graph); e != end; ++e) {
        --blockers[boost::target(*e, graph)];
      }
      const bool completed = history.operations()[i].completed();
      if (extend(next, placed_required + (completed ? 1 : 0))) return true;
      for (auto [e, end] = boost::out_edges(i, graph); e != end; ++e) {
        ++blockers[boost::target(*e, graph)];
      }
      order.pop_back();
      placed[i] = false;
    }
    return false;
  };
  const bool ok = extend(model.initial(), 0);
  if (ok && witness) *witness = order;
  return ok;
}

// 0 if the history is linearizable, else the length in events of its shortest non-linearizable
// prefix (History::prefix semantics), found by checking every prefix.
template <spec::SequentialModel M>
std::size_t brute_force_shortest_prefix(const M& model, const history::History& history) {
  for (std::size_t n = 1; n <= history.events().size(); ++n) {
    if (!brute_force_linearizable(model, history.prefix(n))) return n;
  }
  return 0;
}

}  // namespace linfault::detect

#endif  // LINFAULT_DETECT_WITNESS_H_
