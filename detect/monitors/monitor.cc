#include "detect/monitors/monitor.h"

#include <chrono>
#include <functional>
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

// Decides history.prefix(cut) exactly: by the monitor when it can, else by the search within
// the remaining time budget. Returns kUncertain only when the search hit a limit.
PrefixDecision exact_prefix(const std::function<PrefixDecision(std::int32_t)>& monitor,
                            std::string_view model, const history::History& history,
                            const CheckOptions& options, double& seconds_left, std::int32_t cut) {
  PrefixDecision d = monitor(cut);
  if (d.decision == Decision::kLinearizable || d.decision == Decision::kViolation) return d;
  if (seconds_left <= 0) return {Decision::kUncertain, "search time budget used up"};
  CheckOptions search_options = options;
  search_options.want_witness = false;
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
MonitorResult decide_by_prefixes(const std::function<PrefixDecision(std::int32_t)>& monitor,
                                 std::string_view model, const history::History& history,
                                 const CheckOptions& options, Verdict verdict) {
  const auto events = static_cast<std::int32_t>(history.events().size());
  PrefixDecision whole = monitor(events);
  if (whole.decision == Decision::kUnsupported || whole.decision == Decision::kUncertain) {
    return {std::nullopt, whole.reason};
  }
  if (whole.decision == Decision::kLinearizable) {
    verdict.result = Result::kLinearizable;
    return {verdict, ""};
  }
  // prefix(lo) is linearizable, prefix(hi) is not.
  std::int32_t lo = 0, hi = events;
  std::string limit;
  double seconds_left =
      options.timeout_seconds > 0 ? options.timeout_seconds : kDefaultSearchSeconds;
  while (hi - lo > 1) {
    const std::int32_t mid = lo + (hi - lo) / 2;
    const PrefixDecision d = exact_prefix(monitor, model, history, options, seconds_left, mid);
    if (d.decision == Decision::kLinearizable) {
      lo = mid;
    } else if (d.decision == Decision::kViolation) {
      hi = mid;
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
        "the violation is certain but the shortest violating prefix is only an upper "
        "bound (" +
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
    result = decide_by_prefixes(
        [&](std::int32_t cut) { return internal::decide_container_prefix(ops, cut); }, model,
        history, options, verdict);
  } else if (model == "set") {
    auto compiled = internal::compile_set_ops(history);
    if (auto* why = std::get_if<std::string>(&compiled)) return {std::nullopt, *why};
    const auto& ops = std::get<internal::SetOps>(compiled);
    result =
        decide_by_prefixes([&](std::int32_t cut) { return internal::decide_set_prefix(ops, cut); },
                           model, history, options, verdict);
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
    if (r.verdict) return std::move(*r.verdict);
    if (algo == Algo::kMonitor) {
      if (!has_monitor(model)) spec::visit_model(model, [](const auto&) { return 0; });
      throw history::InputError(history.origin(), 0,
                                "the " + std::string(model) +
                                    " monitor cannot decide this history: " + r.unsupported +
                                    " (use --algo search or auto)");
    }
  }
  return check_history(model, history, options);
}

}  // namespace linfault::detect
