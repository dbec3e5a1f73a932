// The long exhaustive sweep (detect/exhaustive/exhaustive.h): for each model, every history of 1
// to --ops operations over --values values (up to --pending of them pending), checked by the
// brute-force oracle, the search, the model's monitor and --algo auto. Prints one line per model
// and size: histories, violations, histories the monitor decided and declined, disagreements,
// seconds; then the decline reasons and the first disagreements. Exits 1 on any disagreement.
//
//   exhaustive_bench [--models stack,queue] [--ops 5] [--values 3] [--pending 5]
//                    [--event-orders] [--failures] [--without size] [--distinct-adds]
//                    [--show 3]
//
// By default the sizes of README.md's table: per model the largest that runs in minutes.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "detect/exhaustive/exhaustive.h"
#include "spec/registry.h"

namespace {

using linfault::detect::exhaustive::DomainOptions;
using linfault::detect::exhaustive::ShapeSet;
using linfault::detect::exhaustive::Tally;

struct Size {
  int ops;
  int values;
};

// The default sweep per model (README.md gives the figures).
const std::map<std::string, Size, std::less<>> kDefaultSizes = {
    {"register", {5, 2}}, {"cas-register", {4, 2}},  {"counter", {5, 2}}, {"kv", {4, 2}},
    {"set", {4, 2}},      {"stack", {5, 3}},         {"queue", {5, 3}},   {"deque", {4, 2}},
    {"snapshot", {4, 2}}, {"priorityqueue", {4, 3}},
};

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Exhaustive cross-check of the search, the monitors and auto against an oracle"};
  std::string models;
  int ops = 0, values = 0, pending = -1;
  bool event_orders = false, failures = false, distinct_adds = false;
  std::size_t show = 3;
  std::string without;
  app.add_option("--models", models, "comma-separated models (default: all)");
  app.add_option("--ops", ops, "largest number of operations (default: per model)");
  app.add_option("--values", values, "values per domain (default: per model)");
  app.add_option("--pending", pending, "most pending operations (default: any)");
  app.add_flag("--event-orders", event_orders,
               "every event order, not one per interval order and pending set");
  app.add_flag("--failures", failures, "also failed calls of mutating methods");
  app.add_flag("--distinct-adds", distinct_adds, "containers: each value added at most once");
  app.add_option("--without", without, "comma-separated methods left out of the domains");
  app.add_option("--show", show, "disagreements to print per model");
  CLI11_PARSE(app, argc, argv);

  std::vector<std::string> names = split(models);
  if (names.empty()) {
    for (std::string_view m : linfault::spec::model_names()) names.emplace_back(m);
  }
  std::uint64_t disagreements = 0;
  std::printf("%-14s %3s %6s %11s %10s %11s %10s %13s %9s\n", "model", "ops", "values", "histories",
              "violations", "mon.decided", "declined", "disagreements", "seconds");
  for (const std::string& model : names) {
    const auto size = kDefaultSizes.find(model);
    if (size == kDefaultSizes.end()) {
      std::fprintf(stderr, "no exhaustive domain for the model '%s'\n", model.c_str());
      return 64;
    }
    const int max_ops = ops > 0 ? ops : size->second.ops;
    const DomainOptions options{values > 0 ? values : size->second.values, failures, split(without),
                                distinct_adds};
    Tally all;
    for (int n = 1; n <= max_ops; ++n) {
      linfault::detect::exhaustive::SweepOptions sweep;
      sweep.ops = n;
      sweep.max_pending = pending < 0 ? n : pending;
      sweep.set = event_orders ? ShapeSet::kEventOrders : ShapeSet::kIntervalOrders;
      sweep.domain = options;
      const Tally t = linfault::detect::exhaustive::sweep(model, sweep);
      std::printf("%-14s %3d %6d %11llu %10llu %11llu %10llu %13llu %9.2f\n", model.c_str(), n,
                  options.values, static_cast<unsigned long long>(t.histories),
                  static_cast<unsigned long long>(t.violations),
                  static_cast<unsigned long long>(t.monitor_decided),
                  static_cast<unsigned long long>(t.monitor_declined),
                  static_cast<unsigned long long>(t.total_disagreements()), t.seconds);
      std::fflush(stdout);
      all.add(t);
    }
    std::printf("%-14s all %6d %11llu %10llu %11llu %10llu %13llu %9.2f\n", model.c_str(),
                options.values, static_cast<unsigned long long>(all.histories),
                static_cast<unsigned long long>(all.violations),
                static_cast<unsigned long long>(all.monitor_decided),
                static_cast<unsigned long long>(all.monitor_declined),
                static_cast<unsigned long long>(all.total_disagreements()), all.seconds);
    for (const auto& [reason, count] : all.decline_reasons) {
      std::printf("    declined %llu: %s\n", static_cast<unsigned long long>(count),
                  reason.c_str());
    }
    for (const auto& [what, count] : all.disagreements) {
      std::printf("    disagreement %s: %llu\n", what.c_str(),
                  static_cast<unsigned long long>(count));
    }
    for (std::size_t i = 0; i < all.first.size() && i < show; ++i) {
      std::printf("    %s %s: %s", all.first[i].checker.c_str(), all.first[i].what.c_str(),
                  all.first[i].detail.c_str());
    }
    disagreements += all.total_disagreements();
  }
  return disagreements == 0 ? 0 : 1;
}
