// The cached Wing–Gong linearizability checker (Lowe's memo, Horn & Kroening's
// P-compositionality), templated on the sequential model so that model steps inline.
//
//   Verdict v = detect::check(spec::StackModel{}, history, CheckOptions{});
//   Verdict v = detect::check_history("stack", history, options);  // by model name
//
// Semantics: completed ops must take effect between their call and return; pending ops may take
// effect any time after their call, or never; ops the model compiles to NoEffect (failed calls)
// are left out.
//
// Violations carry the exact shortest non-linearizable prefix in the sense of Theorem 1
// (docs/algorithms.md): the prefix is `history.prefix(n)`, in which an op whose response lies
// beyond the cut is pending and may return anything. The search's frontier (the furthest return
// event it got past, using every op's recorded result) gives a lower bound n0; prefix checks
// starting at n0 (usually one) find the exact n. `culprit` is the op whose response is event
// n - 1; `longest_partial` linearizes `history.prefix(n - 1)`.
//
// Limits: timeout_seconds and memory_limit_bytes (memo + search stack) are checked every few
// thousand steps in every partition; past them the verdict is kUnknown with a reason.
//
// Partitioning: when options.partition is set, the model is partitionable and every op has a
// key, each key's sub-history is checked on its own, in parallel on options.threads threads.
// The partitions' searches advance in slices, the least advanced first, so that a violation
// that is cheap to find is found before an expensive partition has run to its end. A partition
// that has got past the earliest violation found elsewhere stops early, so the shortest prefix
// stays exact (Verdict::prefix_exact says when a limit made it an upper bound).
//
// The refinement probes the lowest candidate cut first, then gallops upwards and bisects; a
// violating probe's own frontier raises the lower bound.
//
// Thread-safety: check() may be called concurrently; it shares nothing but the const model.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_DETECT_CHECKER_H_
#define LINFAULT_DETECT_CHECKER_H_

#include <algorithm>
#include <chrono>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <variant>
#include <vector>

#include "detect/search.h"
#include "detect/verdict.h"
#include "history/history.h"
#include "spec/model.h"

namespace linfault::detect {

namespace internal {

// What one partition concluded, in full-history op and event indices.
struct PartitionOutcome {
  Result result = Result::kUnknown;
  std::optional<history::Value> key;
  // kViolation: the culprit's return event (an upper bound when `exact` is false).
  history::EventIndex violation_event = history::kNoEvent;
  bool exact = true;
  // How many leading events are known to be linearizable (kNoLimitEvent: all of them).
  history::EventIndex known_events = 0;
  // kLinearizable: a witness; otherwise the longest partial linearization.
  std::vector<history::OpIndex> order;
  std::string reason;
  std::uint64_t states = 0;
  std::size_t memo_bytes = 0;
};

Verdict merge_outcomes(const history::History& history, std::vector<PartitionOutcome> outcomes,
                       bool want_witness);
[[noreturn]] void throw_model_error(const history::History& history, history::OpIndex op,
                                    const std::string& message);
std::string describe_partition_failure(const std::exception& e);

template <spec::SequentialModel M>
class Checker {
 public:
  using Op = typename M::Op;

  Checker(const M& model, const history::History& history, const CheckOptions& options)
      : model_(model), history_(history), options_(options), limits_(options) {
    compiled_.reserve(history.size());
    for (history::OpIndex i = 0; i < static_cast<history::OpIndex>(history.size()); ++i) {
      auto c = model.compile(history.op(i));
      if (auto* error = std::get_if<spec::ModelError>(&c)) {
        throw_model_error(history, i, error->message);
      }
      compiled_.push_back(std::holds_alternative<Op>(c) ? std::optional<Op>(std::get<Op>(c))
                                                        : std::nullopt);
    }
  }

  Verdict run() {
    std::vector<Partition> partitions = plan_partitions();
    std::vector<PartitionOutcome> outcomes(partitions.size());
    std::vector<Task> tasks(partitions.size());
    std::mutex mutex;
    std::exception_ptr model_error;
    // Each worker repeatedly takes the partition that has had the fewest search steps so far and
    // runs one slice of it (slices double with the steps taken): partitions progress together,
    // so the cheapest violation is found first and bounds the rest (SearchLimits).
    auto worker = [&] {
      while (true) {
        std::size_t p = tasks.size();
        {
          std::lock_guard<std::mutex> lock(mutex);
          for (std::size_t t = 0; t < tasks.size(); ++t) {
            if (tasks[t].busy || tasks[t].done) continue;
            if (p == tasks.size() || tasks[t].steps < tasks[p].steps) p = t;
          }
          if (p == tasks.size()) return;
          tasks[p].busy = true;
        }
        bool done = true;
        try {
          done = run_slice(partitions[p], tasks[p], outcomes[p]);
        } catch (const std::invalid_argument&) {
          // The model's own error (a target whose serial runs are not deterministic): the
          // caller's to report, after the other partitions stop.
          outcomes[p].result = Result::kUnknown;
          std::lock_guard<std::mutex> lock(mutex);
          if (!model_error) model_error = std::current_exception();
        } catch (const std::exception& e) {
          outcomes[p].result = Result::kUnknown;
          outcomes[p].reason = describe_partition_failure(e);
        }
        if (done) {
          outcomes[p].key = partitions[p].key;
          tasks[p].search.reset();
        }
        std::lock_guard<std::mutex> lock(mutex);
        tasks[p].busy = false;
        tasks[p].done = done;
      }
    };
    unsigned threads = options_.threads ? options_.threads : std::thread::hardware_concurrency();
    threads = std::clamp<unsigned>(threads, 1, static_cast<unsigned>(partitions.size()));
    if (threads <= 1) {
      worker();
    } else {
      std::vector<std::thread> pool;
      for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker);
      for (std::thread& t : pool) t.join();
    }
    if (model_error) std::rethrow_exception(model_error);
    Verdict verdict = merge_outcomes(history_, std::move(outcomes), options_.want_witness);
    verdict.model = std::string(model_.name());
    verdict.partitions = partitions.size();
    return verdict;
  }

 private:
  struct Partition {
    std::optional<history::Value> key;
    std::vector<history::OpIndex> ops;  // by call event; includes ops compiled to NoEffect
  };

  // The full-history search of one partition, run slice by slice.
  struct Task {
    std::unique_ptr<internal::Search<M>> search;
    std::deque<Op> pending_storage;  // compiled ops the search points into
    std::uint64_t steps = 0;
    bool busy = false;
    bool done = false;
  };
  static constexpr std::uint64_t kFirstSlice = std::uint64_t{1} << 14;

  std::vector<Partition> plan_partitions() const {
    std::vector<history::OpIndex> all(history_.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<history::OpIndex>(i);
    std::sort(all.begin(), all.end(), [&](history::OpIndex a, history::OpIndex b) {
      return history_.op(a).call_event < history_.op(b).call_event;
    });
    if constexpr (spec::PartitionableModel<M>) {
      if (options_.partition) {
        std::map<history::Value, std::vector<history::OpIndex>> by_key;
        bool keyed = true;
        for (history::OpIndex i : all) {
          std::optional<history::Value> key = model_.partition_key(history_.op(i));
          if (!key) {
            keyed = false;
            break;
          }
          by_key[*key].push_back(i);
        }
        if (keyed && by_key.size() > 1) {
          std::vector<Partition> partitions;
          for (auto& [key, ops] : by_key) partitions.push_back(Partition{key, std::move(ops)});
          std::stable_sort(
              partitions.begin(), partitions.end(),
              [](const Partition& a, const Partition& b) { return a.ops.size() > b.ops.size(); });
          return partitions;
        }
      }
    }
    return {Partition{std::nullopt, std::move(all)}};
  }

  // The search input for history.prefix(cut) restricted to `partition`: ops whose response lies
  // at or beyond the cut are pending there, with any result.
  std::vector<internal::SearchOp<Op>> search_ops(const Partition& partition,
                                                 history::EventIndex cut,
                                                 std::deque<Op>& pending_storage) const {
    std::vector<internal::SearchOp<Op>> ops;
    for (history::OpIndex i : partition.ops) {
      const history::Operation& op = history_.op(i);
      if (op.call_event >= cut) continue;
      if (op.return_event != history::kNoEvent && op.return_event < cut) {
        if (compiled_[i]) ops.push_back({i, op.call_event, op.return_event, &*compiled_[i]});
        continue;
      }
      if (op.outcome == history::Outcome::kPending) {
        if (compiled_[i]) ops.push_back({i, op.call_event, history::kNoEvent, &*compiled_[i]});
        continue;
      }
      history::Operation cut_op = op;
      cut_op.outcome = history::Outcome::kPending;
      cut_op.result = history::Value();
      auto c = model_.compile(cut_op);
      if (auto* compiled = std::get_if<Op>(&c)) {
        pending_storage.push_back(std::move(*compiled));
        ops.push_back({i, op.call_event, history::kNoEvent, &pending_storage.back()});
      }
    }
    return ops;
  }

  internal::SearchResult search(const Partition& partition, history::EventIndex cut) {
    std::deque<Op> pending_storage;
    internal::Search<M> s(model_, search_ops(partition, cut, pending_storage), limits_);
    return s.run();
  }

  // Runs one slice of the partition's search; true when it has ended and `out` holds its outcome.
  bool run_slice(const Partition& partition, Task& task, PartitionOutcome& out) {
    if (!task.search) {
      task.search = std::make_unique<internal::Search<M>>(
          model_, search_ops(partition, internal::kNoLimitEvent, task.pending_storage), limits_);
    }
    std::optional<internal::SearchResult> full =
        task.search->advance(std::max(kFirstSlice, task.steps));
    task.steps = task.search->steps_taken();
    if (!full) return false;
    out = conclude_partition(partition, std::move(*full));
    return true;
  }

  PartitionOutcome conclude_partition(const Partition& partition, internal::SearchResult full) {
    PartitionOutcome out;
    out.states = full.states;
    out.memo_bytes = full.memo_bytes;
    out.order = std::move(full.order);
    switch (full.end) {
      case internal::SearchEnd::kLinearizable:
        out.result = Result::kLinearizable;
        out.known_events = internal::kNoLimitEvent;
        return out;
      case internal::SearchEnd::kLimit:
        out.reason = full.reason;
        out.known_events = full.frontier == history::kNoEvent ? 0 : full.frontier;
        return out;
      case internal::SearchEnd::kPastBound:
        out.known_events = full.frontier;
        return out;
      case internal::SearchEnd::kViolation:
        break;
    }
    out.result = Result::kViolation;
    refine_prefix(partition, full.frontier, out);
    limits_.offer_violation(out.violation_event);
    return out;
  }

  // The frontier f of the full search is a lower bound: prefix(f) is linearizable. Find the
  // smallest n > f with prefix(n) non-linearizable, over the partition's return events.
  void refine_prefix(const Partition& partition, history::EventIndex frontier,
                     PartitionOutcome& out) {
    std::vector<history::EventIndex> candidates;  // cut lengths: return event + 1
    for (history::OpIndex i : partition.ops) {
      const history::EventIndex r = history_.op(i).return_event;
      if (r != history::kNoEvent && r >= frontier) candidates.push_back(r + 1);
    }
    std::sort(candidates.begin(), candidates.end());
    // The first candidate above a proven-linearizable prefix(f).
    auto first_above = [&](history::EventIndex f) {
      return static_cast<std::size_t>(std::upper_bound(candidates.begin(), candidates.end(), f) -
                                      candidates.begin());
    };
    // The answer is candidates[k] for the smallest k whose prefix is non-linearizable; the last
    // candidate is (the partition's own history is), and candidates[0] usually is: try it first,
    // then gallop upwards from it (the answer is usually near the frontier), then bisect. A
    // violating probe's own frontier is a lower bound too.
    std::size_t lo = 0;
    std::size_t hi = candidates.size() - 1;
    std::size_t gallop = 0;
    bool galloping = true;
    history::EventIndex known = frontier;  // prefix(known) is linearizable
    while (lo < hi) {
      const std::size_t mid = galloping ? std::min(hi - 1, lo + gallop) : lo + (hi - lo) / 2;
      internal::SearchResult r = search(partition, candidates[mid]);
      out.states += r.states;
      out.memo_bytes = std::max(out.memo_bytes, r.memo_bytes);
      if (r.end == internal::SearchEnd::kLinearizable) {
        out.order = std::move(r.order);
        known = candidates[mid];
        lo = mid + 1;
        gallop = gallop * 2 + 1;
      } else if (r.end == internal::SearchEnd::kViolation) {
        hi = mid;
        galloping = false;
        if (const std::size_t above = first_above(r.frontier); above > lo) {
          lo = above;
          known = r.frontier;
          out.order = std::move(r.order);
        }
      } else {
        // A limit, or another partition's violation lies before this prefix's frontier (which
        // is then known linearizable): this partition's answer stays an upper bound.
        if (r.end == internal::SearchEnd::kPastBound) known = std::max(known, r.frontier);
        out.reason = r.reason;
        break;
      }
    }
    out.violation_event = candidates[hi] - 1;
    out.exact = lo == hi;
    // Between a linearizable prefix and the next candidate there are only calls of this
    // partition, which leave it linearizable.
    out.known_events = out.exact ? out.violation_event : known;
  }

  const M& model_;
  const history::History& history_;
  const CheckOptions& options_;
  internal::SearchLimits limits_;
  std::vector<std::optional<Op>> compiled_;
};

}  // namespace internal

template <spec::SequentialModel M>
Verdict check(const M& model, const history::History& history, const CheckOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  Verdict verdict = internal::Checker<M>(model, history, options).run();
  verdict.algorithm = "search";
  verdict.operations = history.size();
  verdict.elapsed_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return verdict;
}

// Checks against a model by name (spec/registry.h): a built-in one or one registered at run time.
// Throws spec::UnknownModel for an unknown name, history::InputError ("file:line: problem") for an
// op the model rejects, and what a registered model throws (std::invalid_argument: e.g. a target
// whose serial runs are not deterministic). Applies the stuck-history rule when options.stuck,
// and the synchronisation requirement (CheckOptions::synchronization).
Verdict check_history(std::string_view model_name, const history::History& history,
                      const CheckOptions& options);

// The synchronisation requirement (CheckOptions::synchronization) alone: a linearizable
// `verdict` of a history that carries happens-before becomes an unsynchronized violation when
// an operation took an element whose insertion does not happen-before its return. check_history
// applies it; so must a caller that decides linearizability another way (a monitor, the quick
// check of detection).
void check_synchronization(std::string_view model_name, const history::History& history,
                           const CheckOptions& options, Verdict& verdict);

// True when the model knows which calls block forever, so that CheckOptions::stuck applies (a
// target's serial specification). Throws what check_history throws for an unknown model.
bool model_tells_blocking(std::string_view model_name);

}  // namespace linfault::detect

#endif  // LINFAULT_DETECT_CHECKER_H_
