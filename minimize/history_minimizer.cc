#include "minimize/history_minimizer.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <unordered_set>
#include <variant>

#include "detect/checker.h"
#include "spec/registry.h"

namespace linfault::minimize {
namespace {

using history::History;
using history::OpIndex;
using Clock = std::chrono::steady_clock;

template <spec::SequentialModel M>
class Minimizer {
 public:
  Minimizer(const M& model, const History& input, const HistoryMinimizerOptions& options)
      : model_(model),
        input_(input),
        options_(options),
        start_(Clock::now()),
        deadline_(start_ + std::chrono::duration_cast<Clock::duration>(
                               std::chrono::duration<double>(options.timeout_seconds))) {
    check_options_ = options.check;
    check_options_.want_witness = false;
  }

  HistoryMinimization run() {
    HistoryMinimization out;
    out.original = detect::check(model_, input_, check_options_);
    if (out.original.result != detect::Result::kViolation) {
      out.note = out.original.result == detect::Result::kLinearizable
                     ? "the history is linearizable: nothing to minimize"
                     : "the check of the whole history hit a limit: " + out.original.reason;
      return finish(out);
    }
    prefix_ = input_.prefix(out.original.prefix_events);
    // prefix() keeps the ops invoked before the cut, renumbered in call order.
    std::vector<OpIndex> by_call(input_.size());
    for (std::size_t i = 0; i < by_call.size(); ++i) by_call[i] = static_cast<OpIndex>(i);
    std::sort(by_call.begin(), by_call.end(), [&](OpIndex a, OpIndex b) {
      return input_.op(a).call_event < input_.op(b).call_event;
    });
    by_call.resize(prefix_.size());
    to_input_ = by_call;
    culprit_ = static_cast<OpIndex>(
        std::find(to_input_.begin(), to_input_.end(), out.original.culprit) - to_input_.begin());

    needs_source_ = producible(prefix_);
    std::vector<OpIndex> others;
    for (OpIndex i = 0; i < static_cast<OpIndex>(prefix_.size()); ++i) {
      if (i != culprit_) others.push_back(i);
    }
    others = ddmin(std::move(others));
    bool timed_out = Clock::now() > deadline_;
    // ddmin ends 1-minimal; a last pass makes that explicit and cheap to trust.
    for (bool removed = true; removed && !timed_out;) {
      removed = false;
      for (std::size_t i = 0; i < others.size(); ++i) {
        std::vector<OpIndex> fewer = others;
        fewer.erase(fewer.begin() + static_cast<std::ptrdiff_t>(i));
        if (fails(fewer)) {
          others = std::move(fewer);
          removed = true;
          break;
        }
        if ((timed_out = Clock::now() > deadline_)) break;
      }
    }
    out.one_minimal = !timed_out && !limit_hit_;
    if (timed_out) out.note = "stopped at the deadline: the result is not proven 1-minimal";
    if (limit_hit_ && out.note.empty()) {
      out.note = "some checks hit a limit and were counted as passing; not proven 1-minimal";
    }
    return finish(out, others);
  }

 private:
  HistoryMinimization finish(HistoryMinimization& out, const std::vector<OpIndex>& others = {}) {
    if (out.original.result == detect::Result::kViolation) {
      std::vector<OpIndex> kept = with_culprit(others);
      out.minimal = prefix_.subhistory(kept);
      for (OpIndex i : kept) out.kept.push_back(to_input_[i]);
      out.culprit =
          static_cast<OpIndex>(std::find(kept.begin(), kept.end(), culprit_) - kept.begin());
      if (out.one_minimal) {
        out.strictly_one_minimal = true;
        for (std::size_t i = 0; i < kept.size() && out.strictly_one_minimal; ++i) {
          std::vector<OpIndex> fewer = kept;
          fewer.erase(fewer.begin() + static_cast<std::ptrdiff_t>(i));
          ++checks_;
          out.strictly_one_minimal =
              detect::check(model_, prefix_.subhistory(fewer), check_options_).result ==
              detect::Result::kLinearizable;
        }
        if (!out.strictly_one_minimal) {
          out.note =
              "1-minimal among sub-histories that keep a source for every observed result; "
              "removing some operation still leaves a (different) violation";
        }
      }
    }
    out.checks = checks_;
    out.elapsed_ms = std::chrono::duration<double, std::milli>(Clock::now() - start_).count();
    return std::move(out);
  }

  std::vector<OpIndex> with_culprit(std::vector<OpIndex> others) const {
    others.push_back(culprit_);
    std::sort(others.begin(), others.end());
    return others;
  }

  // Rules 1 and 2 of the header for the sub-history `others` + culprit.
  bool fails(const std::vector<OpIndex>& others) {
    const std::vector<OpIndex> kept = with_culprit(others);
    const History candidate = prefix_.subhistory(kept);
    const auto culprit_here =
        static_cast<OpIndex>(std::find(kept.begin(), kept.end(), culprit_) - kept.begin());
    ++checks_;
    detect::CheckOptions limits = check_options_;
    const double left = std::chrono::duration<double>(deadline_ - Clock::now()).count();
    if (left <= 0) return false;
    if (limits.timeout_seconds <= 0 || limits.timeout_seconds > left) limits.timeout_seconds = left;
    const detect::Verdict v = detect::check(model_, candidate, limits);
    if (v.result == detect::Result::kUnknown) limit_hit_ = true;
    return v.result == detect::Result::kViolation && v.culprit == culprit_here &&
           admissible(candidate, kept);
  }

  struct StateHash {
    const M* model;
    std::size_t operator()(const typename M::State& s) const { return model->hash(s); }
  };

  // For each op of `candidate`: could its recorded result be produced by the model from a state
  // reachable with the candidate's ops (any order, any results, each op reusable, at most as many
  // steps as there are ops)? Exact for that over-approximation when the reachable states fit under
  // the cap; past the cap it falls back to a syntactic test (the result value appears among the
  // arguments of another op; nil and booleans always pass).
  std::vector<bool> producible(const History& candidate) const {
    using Op = typename M::Op;
    std::vector<Op> any_result;
    for (const history::Operation& op : candidate.operations()) {
      history::Operation unknown = op;
      unknown.outcome = history::Outcome::kPending;
      unknown.result = history::Value();
      if (auto c = model_.compile(unknown); std::holds_alternative<Op>(c)) {
        any_result.push_back(std::get<Op>(c));
      }
    }
    std::unordered_set<typename M::State, StateHash> seen(16, StateHash{&model_});
    std::vector<typename M::State> level{model_.initial()};
    seen.insert(model_.initial());
    bool capped = false;
    for (std::size_t depth = 0; depth < candidate.size() && !level.empty() && !capped; ++depth) {
      std::vector<typename M::State> next_level;
      for (const typename M::State& s : level) {
        for (const Op& op : any_result) {
          typename M::State next = s;
          if (model_.step(next, op) && seen.insert(next).second) {
            next_level.push_back(std::move(next));
          }
        }
        if ((capped = seen.size() >= options_.reachable_state_cap)) break;
      }
      level = std::move(next_level);
    }
    std::vector<bool> out(candidate.size(), true);
    for (std::size_t i = 0; i < candidate.size(); ++i) {
      const history::Operation& op = candidate.op(static_cast<OpIndex>(i));
      if (op.outcome == history::Outcome::kPending) continue;
      if (capped) {
        out[i] = has_syntactic_source(candidate, i);
        continue;
      }
      auto c = model_.compile(op);
      if (!std::holds_alternative<Op>(c)) continue;
      const Op& recorded = std::get<Op>(c);
      out[i] = std::any_of(seen.begin(), seen.end(), [&](const auto& s) {
        typename M::State copy = s;
        return model_.step(copy, recorded);
      });
    }
    return out;
  }

  static bool contains_value(const history::Value& haystack, const history::Value& needle) {
    if (haystack == needle) return true;
    if (!haystack.is_list()) return false;
    const auto& list = haystack.as_list();
    return std::any_of(list.begin(), list.end(),
                       [&](const history::Value& v) { return contains_value(v, needle); });
  }

  static bool has_syntactic_source(const History& candidate, std::size_t i) {
    const history::Value& result = candidate.op(static_cast<OpIndex>(i)).result;
    if (result.is_nil() || result.is_bool()) return true;
    for (std::size_t j = 0; j < candidate.size(); ++j) {
      if (j == i) continue;
      for (const history::Value& arg : candidate.op(static_cast<OpIndex>(j)).call.args) {
        if (contains_value(arg, result)) return true;
      }
    }
    return false;
  }

  // Rule 2: every op whose result had a possible source in the shortest prefix still has one.
  bool admissible(const History& candidate, const std::vector<OpIndex>& kept) const {
    const std::vector<bool> ok = producible(candidate);
    for (std::size_t i = 0; i < kept.size(); ++i) {
      if (needs_source_[static_cast<std::size_t>(kept[i])] && !ok[i]) return false;
    }
    return true;
  }

  // Zeller's ddmin over `ops` with fails() as the test.
  std::vector<OpIndex> ddmin(std::vector<OpIndex> ops) {
    std::size_t n = 2;
    while (ops.size() >= 2 && Clock::now() < deadline_) {
      const std::size_t chunk = (ops.size() + n - 1) / n;
      bool reduced = false;
      for (std::size_t start = 0; start < ops.size() && !reduced; start += chunk) {
        const auto first = ops.begin() + static_cast<std::ptrdiff_t>(start);
        const auto last =
            ops.begin() + static_cast<std::ptrdiff_t>(std::min(ops.size(), start + chunk));
        std::vector<OpIndex> subset(first, last);
        if (fails(subset)) {
          ops = std::move(subset);
          n = 2;
          reduced = true;
          break;
        }
        std::vector<OpIndex> complement(ops.begin(), first);
        complement.insert(complement.end(), last, ops.end());
        if (n > 2 && fails(complement)) {
          ops = std::move(complement);
          n = std::max<std::size_t>(n - 1, 2);
          reduced = true;
        }
      }
      if (reduced) continue;
      if (n >= ops.size()) break;
      n = std::min(ops.size(), 2 * n);
    }
    if (ops.size() == 1 && fails({})) ops.clear();
    return ops;
  }

  const M& model_;
  const History& input_;
  const HistoryMinimizerOptions& options_;
  detect::CheckOptions check_options_;
  const Clock::time_point start_;
  const Clock::time_point deadline_;
  History prefix_;
  std::vector<OpIndex> to_input_;   // prefix op index -> input op index
  OpIndex culprit_ = -1;            // in prefix_ indices
  std::vector<bool> needs_source_;  // per prefix op: its result had a possible source there
  std::size_t checks_ = 0;
  bool limit_hit_ = false;
};

}  // namespace

HistoryMinimization minimize_history(std::string_view model, const history::History& history,
                                     const HistoryMinimizerOptions& options) {
  // Surface model mismatches as InputError before minimizing, exactly as `check` does.
  return spec::visit_model(model, [&](const auto& m) {
    return Minimizer<std::decay_t<decltype(m)>>(m, history, options).run();
  });
}

}  // namespace linfault::minimize
