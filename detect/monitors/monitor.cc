#include "detect/monitors/monitor.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <optional>
#include <span>
#include <variant>

#include "detect/checker.h"
#include "detect/monitors/container_monitor.h"
#include "detect/monitors/set_monitor.h"
#include "detect/monitors/snapshot_monitor.h"
#include "spec/registry.h"

namespace linfault::detect {
namespace {

using internal::Decision;
using internal::PrefixDecision;

// Monitors are chosen by the exact model spec, never by its name alone: a model with parameters
// may have other semantics (queue(fifo="per-producer") is FIFO per producer only, which the queue
// monitor would wrongly call violations) and goes to the search.
std::optional<internal::ContainerKind> container_kind(std::string_view model) {
  if (model == "stack") return internal::ContainerKind::kStack;
  if (model == "queue") return internal::ContainerKind::kQueue;
  if (model == "priorityqueue") return internal::ContainerKind::kPriorityQueue;
  return std::nullopt;
}

// Without limits of its own, the search on a highly concurrent prefix could run for ever: the
// searches of one localisation share this budget, after which the prefix is reported inexact.
constexpr double kDefaultSearchSeconds = 2;
constexpr std::size_t kDefaultSearchMemory = std::size_t{1} << 30;
// The search decides only prefixes up to this long: beyond, it would spend the whole budget.
constexpr std::int32_t kSearchWindowEvents = 60000;
// How many cuts around an undecided one the shortest-prefix search tries, and how many undecided
// cuts it meets in all, before it settles for an upper bound.
constexpr int kDetours = 2;
constexpr int kUndecidedCuts = 4;

// What the shortest-prefix search of a container history works with.
struct ContainerContext {
  const internal::ContainerOps& ops;
  const internal::ContainerValueIndex& index;
  const history::History& history;
  internal::ScratchMemory& scratch;
};

// The restriction's sizes tried around a piece of evidence, smallest first.
constexpr std::size_t kRestrictionSizes[] = {2, 3, 4, internal::kMaxRestrictedValues};

// The values, and the empty-returning op, a restriction around the op responding or called at
// event `evidence` keeps.
struct Neighbourhood {
  std::vector<std::int32_t> values;
  std::vector<std::int32_t> extra_ops;
};
Neighbourhood neighbourhood(const ContainerContext& c, std::int32_t evidence, std::size_t size) {
  const auto op =
      static_cast<std::int32_t>(c.history.events()[static_cast<std::size_t>(evidence)].op);
  Neighbourhood n{internal::values_near(c.ops, c.index, op, size), {}};
  if (c.ops.ops[static_cast<std::size_t>(op)].value == internal::kEmptyValue)
    n.extra_ops.push_back(op);
  return n;
}

// Decides prefix(cut) through a restriction to `n`: kViolation is certain, kLinearizable when a
// completion suggested by the restriction makes the whole prefix linearizable, else kUncertain.
PrefixDecision decide_through(const ContainerContext& c, const Neighbourhood& n, std::int32_t cut) {
  if (n.values.empty()) return {Decision::kUncertain, ""};
  const internal::RestrictedDecision r =
      internal::decide_restricted_prefix(c.ops, c.index, n.values, n.extra_ops, cut, c.scratch);
  if (r.decision == Decision::kViolation) return {Decision::kViolation, ""};
  if (r.decision == Decision::kLinearizable &&
      internal::decide_completion(c.ops, cut, r.forced, c.scratch).decision ==
          Decision::kLinearizable) {
    return {Decision::kLinearizable, ""};
  }
  return {Decision::kUncertain, ""};
}

// Decides history.prefix(cut) exactly: by the monitor when it can, then by case splits over the
// pending removals on restrictions around the under-approximation's evidence, else by the search
// within the remaining time budget. Returns kUncertain only when the search hit a limit.
PrefixDecision exact_prefix(const ContainerContext& c, std::string_view model,
                            const CheckOptions& options, double& seconds_left, std::int32_t cut) {
  const history::History& history = c.history;
  PrefixDecision d = internal::decide_container_prefix(c.ops, cut, c.scratch);
  if (d.decision == Decision::kLinearizable || d.decision == Decision::kViolation) return d;
  if (d.decision == Decision::kUncertain) {
    const PrefixDecision counted = internal::empties_outnumbered(c.ops, cut);
    if (counted.decision == Decision::kViolation) return counted;
  }
  if (d.decision == Decision::kUncertain && d.evidence >= 0) {
    for (std::size_t size : kRestrictionSizes) {
      const PrefixDecision local = decide_through(c, neighbourhood(c, d.evidence, size), cut);
      if (local.decision == Decision::kViolation) return {Decision::kViolation, "", d.evidence};
      if (local.decision == Decision::kLinearizable) return local;
    }
  }
  if (cut > kSearchWindowEvents) {
    return {Decision::kUncertain, "pending removals the monitor cannot place, in a prefix of " +
                                      std::to_string(cut) + " events (too long for the search)"};
  }
  if (seconds_left <= 0) return {Decision::kUncertain, "search time budget used up"};
  CheckOptions search_options = options;
  search_options.want_witness = false;
  search_options.synchronization = false;  // check_auto applies it to the whole history
  search_options.timeout_seconds = seconds_left;
  if (search_options.memory_limit_bytes == 0)
    search_options.memory_limit_bytes = kDefaultSearchMemory;
  const Verdict v =
      check_history(model, history.prefix(static_cast<std::size_t>(cut)), search_options);
  seconds_left -= v.elapsed_ms / 1000;
  if (v.result == Result::kLinearizable) return {Decision::kLinearizable, ""};
  if (v.result == Result::kViolation) return {Decision::kViolation, ""};
  return {Decision::kUncertain, "the search on a prefix hit a limit: " + v.reason};
}

// The monitor verdict for a prefix-decidable model: decide the whole history, then binary-search
// the shortest non-linearizable prefix.
MonitorResult decide_by_prefixes(const internal::ContainerOps& ops, std::string_view model,
                                 const history::History& history, const CheckOptions& options,
                                 Verdict verdict) {
  const auto events = static_cast<std::int32_t>(history.events().size());
  const auto start = std::chrono::steady_clock::now();
  internal::ScratchMemory scratch;
  PrefixDecision whole = internal::decide_container_prefix(ops, events, scratch);
  const auto seconds_since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  // The shortest-prefix search gets twice the time the whole decision took (at least the
  // search's default budget, or options.timeout_seconds), then settles for bounds.
  const double refine_seconds = options.timeout_seconds > 0
                                    ? options.timeout_seconds
                                    : std::max(kDefaultSearchSeconds, 2 * seconds_since(start));
  const auto refine_start = std::chrono::steady_clock::now();
  if (whole.decision == Decision::kUnsupported || whole.decision == Decision::kUncertain) {
    return {std::nullopt, whole.reason};
  }
  if (whole.decision == Decision::kLinearizable) {
    verdict.result = Result::kLinearizable;
    return {verdict, ""};
  }
  const internal::ContainerValueIndex index = internal::index_container_values(ops);
  const ContainerContext context{ops, index, history, scratch};
  // prefix(lo) is linearizable, prefix(hi) is not.
  std::int32_t lo = 0, hi = events;
  std::int32_t hint = whole.evidence;
  int undecided = 0;
  std::string limit;
  double seconds_left =
      options.timeout_seconds > 0 ? options.timeout_seconds : kDefaultSearchSeconds;
  // The violation is usually local: a few values around the evidence. The first restriction to
  // them that is not linearizable certifies every prefix it fails on, and its own shortest
  // violating prefix (a binary search over cheap decisions: the restriction's verdict is
  // monotone in the cut like any history's) is the likely answer, which one exact decision of
  // the prefix one event shorter confirms.
  if (hint >= 0) {
    // The counting certificate at the evidence comes first: it is cheap.
    if (hint + 1 < hi &&
        internal::empties_outnumbered(ops, hint + 1).decision == Decision::kViolation) {
      hi = hint + 1;
    }
    std::optional<Neighbourhood> failing;  // the restriction that is not linearizable
    // Both loops stop at the refinement's time budget; every `hi` they set is certified.
    const auto out_of_time = [&] { return seconds_since(refine_start) > refine_seconds; };
    for (std::size_t size : kRestrictionSizes) {
      if (out_of_time()) break;
      Neighbourhood n = neighbourhood(context, hint, size);
      auto restricted_fails = [&](std::int32_t cut) {
        return !n.values.empty() &&
               internal::decide_restricted_prefix(ops, index, n.values, n.extra_ops, cut, scratch)
                       .decision == Decision::kViolation;
      };
      if (!restricted_fails(hi)) continue;
      std::int32_t below = lo;  // the restriction is linearizable here (or undecided)
      while (hi - below > 1 && !out_of_time()) {
        const std::int32_t mid = below + (hi - below) / 2;
        (restricted_fails(mid) ? hi : below) = mid;
      }
      failing = std::move(n);
      break;
    }
    if (hi < events && hi - lo > 1) {
      // The restriction around the evidence usually also names the completion that makes the
      // prefix one event shorter linearizable (the op at the evidence, pending there, taking the
      // value it should have).
      PrefixDecision d = decide_through(
          context, failing ? *failing : neighbourhood(context, hint, kRestrictionSizes[0]), hi - 1);
      if (d.decision != Decision::kLinearizable) {
        d = exact_prefix(context, model, options, seconds_left, hi - 1);
      }
      if (d.decision == Decision::kLinearizable) {
        lo = hi - 1;
      } else if (d.decision == Decision::kViolation) {
        hi = hi - 1;
        hint = d.evidence;
      }
    }
  }
  // Then, if still needed, the cut at the evidence is probed first, then cuts galloping down from
  // it (1, 2, 4, ... events below), and a plain binary search takes over after the first
  // linearizable probe. Every probe is exact, so the answer is the same as a binary search's.
  std::int32_t step = 0;  // > 0 while galloping down
  while (hi - lo > 1) {
    if (seconds_since(refine_start) > refine_seconds) {
      limit = "its time budget of " + std::to_string(refine_seconds) + " s is used up";
      break;
    }
    const bool at_hint = hint >= 0 && hint + 1 > lo && hint + 1 < hi;
    std::int32_t cut = at_hint    ? hint + 1
                       : step > 0 ? std::max(lo + (hi - lo) / 2, hi - step)
                                  : lo + (hi - lo) / 2;
    PrefixDecision d = exact_prefix(context, model, options, seconds_left, cut);
    if (d.decision == Decision::kUncertain && ++undecided > kUndecidedCuts) {
      limit = d.reason;
      break;
    }
    if (d.decision == Decision::kUncertain && at_hint) {
      hint = -1;  // a hint is only a shortcut: carry on without it
      continue;
    }
    // An undecided cut (pending removals) need not stop the search: any decided cut between lo
    // and hi narrows it just as well, so try the neighbours, alternately below and above.
    for (int detour = 1; d.decision == Decision::kUncertain && detour <= kDetours; ++detour) {
      const std::int32_t next = detour % 2 == 1 ? cut - (detour + 1) / 2 : cut + detour / 2;
      if (next <= lo || next >= hi) continue;
      PrefixDecision nd = exact_prefix(context, model, options, seconds_left, next);
      if (nd.decision == Decision::kUncertain) ++undecided;
      if (nd.decision != Decision::kUncertain) {
        cut = next;
        d = std::move(nd);
      }
    }
    if (d.decision == Decision::kViolation) {
      hi = cut;
      hint = d.evidence;
      step = at_hint ? 1 : step * 2;
    } else if (d.decision == Decision::kLinearizable) {
      lo = cut;
      hint = -1;
      step = 0;
    } else {
      limit = d.reason;
      break;
    }
  }
  verdict.result = Result::kViolation;
  verdict.prefix_events = static_cast<std::size_t>(hi);
  verdict.culprit = history.events()[static_cast<std::size_t>(hi - 1)].op;
  if (!limit.empty()) {
    verdict.prefix_exact = false;
    verdict.reason =
        "the violation is certain but the shortest violating prefix is only known to "
        "have " +
        std::to_string(lo + 1) + " to " + std::to_string(hi) + " events (" + limit + ")";
  }
  return {verdict, ""};
}

// The sub-history of the operations `ops` (indices into history, any order), built in
// O(k log k) rather than by a pass over the whole history.
history::History operations_history(const history::History& history,
                                    std::span<const std::int32_t> ops) {
  struct Stamp {
    history::EventIndex event;
    std::int32_t op;
  };
  std::vector<Stamp> stamps;
  stamps.reserve(2 * ops.size());
  for (std::int32_t i : ops) {
    const history::Operation& op = history.op(i);
    stamps.push_back({op.call_event, i});
    if (op.return_event != history::kNoEvent) stamps.push_back({op.return_event, i});
  }
  std::sort(stamps.begin(), stamps.end(),
            [](const Stamp& a, const Stamp& b) { return a.event < b.event; });
  std::vector<std::int32_t> ops_of_new;  // the new history's op i is `history`'s ops_of_new[i]
  ops_of_new.reserve(ops.size());
  history::HistoryBuilder builder(history.origin());
  for (const Stamp& s : stamps) {
    const history::Operation& op = history.op(s.op);
    if (s.event == op.call_event) {
      // A pending operation has no return event: it ends where its process calls again, as the
      // readers end it (docs/formats.md). Left open, the next call would be refused as input
      // that calls twice at once.
      if (const std::optional<history::OpIndex> open = builder.open_call(op.process)) {
        builder.respond(op.process, history::Outcome::kPending,
                        history.op(ops_of_new[*open]).result,
                        history.op(ops_of_new[*open]).source.return_line);
      }
      ops_of_new.push_back(s.op);
      builder.invoke(op.process, op.call, op.source.call_line, op.key);
    } else {
      builder.respond(op.process, op.outcome, op.result, op.source.return_line);
    }
  }
  return std::move(builder).build();
}

// How many events of `ops` lie before `cut` (the length of their sub-history's matching prefix).
std::size_t events_before(const history::History& history, std::span<const std::int32_t> ops,
                          std::int32_t cut) {
  std::size_t n = 0;
  for (std::int32_t i : ops) {
    const history::Operation& op = history.op(i);
    if (op.call_event < cut) ++n;
    if (op.return_event != history::kNoEvent && op.return_event < cut) ++n;
  }
  return n;
}

// The set monitor, value by value (set_monitor.h): the shortest violating prefix is the smallest
// of the values' own, each found by a binary search over that value's response events. Where the
// monitor cannot decide a value at a cut (pending adds and removes), the search decides that
// value's few operations instead of the whole history.
MonitorResult decide_set(const internal::SetOps& ops, const history::History& history,
                         const CheckOptions& options, Verdict verdict) {
  const internal::SetValueIndex index = internal::index_set_values(ops);
  double seconds_left =
      options.timeout_seconds > 0 ? options.timeout_seconds : kDefaultSearchSeconds;
  std::string limit;  // why some value stayed undecided
  const auto events = static_cast<std::int32_t>(history.events().size());
  std::int32_t shortest = events + 1;  // the shortest violating prefix found so far
  std::vector<std::int32_t> cuts;
  for (std::size_t v = 0; v + 1 < index.begin.size(); ++v) {
    const std::span<const std::int32_t> value_ops(
        index.ops.data() + index.begin[v],
        static_cast<std::size_t>(index.begin[v + 1] - index.begin[v]));
    std::optional<history::History> value_history;
    auto decide_at = [&](std::int32_t cut) -> PrefixDecision {
      PrefixDecision d = internal::decide_set_value(ops, value_ops, cut);
      if (d.decision != Decision::kUncertain) return d;
      if (seconds_left <= 0) return {Decision::kUncertain, "search time budget used up"};
      if (!value_history) value_history = operations_history(history, value_ops);
      CheckOptions search_options = options;
      search_options.want_witness = false;
      search_options.synchronization = false;  // check_auto applies it to the whole history
      search_options.timeout_seconds = seconds_left;
      if (search_options.memory_limit_bytes == 0) {
        search_options.memory_limit_bytes = kDefaultSearchMemory;
      }
      const Verdict sv = check_history(
          "set", value_history->prefix(events_before(history, value_ops, cut)), search_options);
      seconds_left -= sv.elapsed_ms / 1000;
      if (sv.result == Result::kLinearizable) return {Decision::kLinearizable, ""};
      if (sv.result == Result::kViolation) return {Decision::kViolation, ""};
      return {Decision::kUncertain, "the search on one value hit a limit: " + sv.reason};
    };
    const PrefixDecision whole = decide_at(events);
    if (whole.decision == Decision::kUnsupported) return {std::nullopt, whole.reason};
    if (whole.decision == Decision::kUncertain) {
      if (limit.empty()) limit = whole.reason;
      continue;
    }
    if (whole.decision == Decision::kLinearizable) continue;
    // The value's verdict changes only at its own responses: binary search over them, below the
    // best prefix so far.
    cuts.clear();
    for (std::int32_t i : value_ops) {
      const auto ret = ops.ops[static_cast<std::size_t>(i)].ret;
      if (ret != internal::kNoReturn && ret + 1 < shortest) cuts.push_back(ret + 1);
    }
    if (cuts.empty()) continue;
    std::sort(cuts.begin(), cuts.end());
    // Invariant: cuts[lo - 1] (or nothing) is linearizable, cuts[hi] (or `shortest`) is not.
    std::size_t lo = 0, hi = cuts.size();
    bool exact = true;
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      const PrefixDecision d = decide_at(cuts[mid]);
      if (d.decision == Decision::kViolation) {
        hi = mid;
      } else if (d.decision == Decision::kLinearizable) {
        lo = mid + 1;
      } else {
        exact = false;
        if (limit.empty()) limit = d.reason;
        break;
      }
    }
    if (!exact) {
      // Only an upper bound for this value; keep it if nothing better turns up.
      if (hi < cuts.size() && cuts[hi] < shortest) shortest = cuts[hi];
      verdict.prefix_exact = false;
      continue;
    }
    if (hi < cuts.size()) shortest = cuts[hi];
  }
  if (shortest > events) {
    if (!limit.empty()) return {std::nullopt, limit};
    verdict.result = Result::kLinearizable;
    return {verdict, ""};
  }
  verdict.result = Result::kViolation;
  verdict.prefix_events = static_cast<std::size_t>(shortest);
  verdict.culprit = history.events()[static_cast<std::size_t>(shortest - 1)].op;
  if (!limit.empty()) {
    // Another value was left undecided at some cut, so a shorter violating prefix may exist.
    verdict.prefix_exact = false;
    verdict.reason =
        "the violation is certain but the shortest violating prefix is only an upper bound (" +
        limit + ")";
  }
  return {verdict, ""};
}

}  // namespace

std::vector<std::string_view> monitored_models() {
  return {"set", "stack", "queue", "priorityqueue", "snapshot"};
}

bool has_monitor(std::string_view model) {
  for (std::string_view m : monitored_models()) {
    if (m == model) return true;
  }
  return false;
}

MonitorResult run_monitor(std::string_view model, const history::History& history,
                          const CheckOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  Verdict verdict;
  verdict.model = std::string(model);
  verdict.algorithm = "monitor:" + std::string(model);
  verdict.operations = history.size();
  MonitorResult result;
  if (auto kind = container_kind(model)) {
    auto compiled = internal::compile_container_ops(*kind, history);
    if (auto* why = std::get_if<std::string>(&compiled)) return {std::nullopt, *why};
    const auto& ops = std::get<internal::ContainerOps>(compiled);
    result = decide_by_prefixes(ops, model, history, options, verdict);
  } else if (model == "set") {
    auto compiled = internal::compile_set_ops(history);
    if (auto* why = std::get_if<std::string>(&compiled)) return {std::nullopt, *why};
    result = decide_set(std::get<internal::SetOps>(compiled), history, options, verdict);
  } else if (model == "snapshot") {
    internal::SnapshotOutcome outcome = internal::check_simple_snapshot(history);
    if (auto* why = std::get_if<internal::SnapshotUnsupported>(&outcome)) {
      return {std::nullopt, why->reason};
    }
    if (auto* violation = std::get_if<internal::SnapshotViolation>(&outcome)) {
      verdict.result = Result::kViolation;
      verdict.prefix_events = violation->prefix_events;
      verdict.culprit = violation->culprit;
    } else {
      verdict.result = Result::kLinearizable;
    }
    result = {verdict, ""};
  } else {
    return {std::nullopt, "no monitor for the " + std::string(model) + " model"};
  }
  if (result.verdict) {
    result.verdict->elapsed_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  return result;
}

std::optional<Algo> parse_algo_name(std::string_view name) {
  if (name == "auto") return Algo::kAuto;
  if (name == "search") return Algo::kSearch;
  if (name == "monitor") return Algo::kMonitor;
  return std::nullopt;
}

const char* algo_name(Algo algo) {
  switch (algo) {
    case Algo::kAuto:
      return "auto";
    case Algo::kSearch:
      return "search";
    case Algo::kMonitor:
      return "monitor";
  }
  return "?";
}

Verdict check_auto(std::string_view model, const history::History& history,
                   const CheckOptions& options, Algo algo) {
  if (algo != Algo::kSearch) {
    MonitorResult r = run_monitor(model, history, options);
    if (r.verdict) {
      check_synchronization(model, history, options, *r.verdict);
      return std::move(*r.verdict);
    }
    if (algo == Algo::kMonitor) {
      if (!has_monitor(model)) spec::visit_model(model, [](const auto&) { return 0; });
      throw history::InputError(history.origin(), 0,
                                "the " + std::string(model) +
                                    " monitor cannot decide this history: " + r.unsupported +
                                    " (use --algo search or auto)");
    }
    if (has_monitor(model)) {
      Verdict v = check_history(model, history, options);
      v.monitor_declined = r.unsupported;
      return v;
    }
  }
  return check_history(model, history, options);
}

}  // namespace linfault::detect
