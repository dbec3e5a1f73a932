// Runs until the first violation, per buggy target and scheduler, over many seeds:
//   dpct        PCT with k from the structure trees, revised during the run (paper's unit:
//               instructions of all threads);
//   dpct-dec    the same, k counted as decisions (sum minus the largest per-thread share);
//   pct-fixed   PCT with a fixed k: the largest number of decisions observed in a calibration
//               pass over the same kind of workloads;
//   random      a uniformly random walk.
// Seed s draws the i-th run's workload from (s, i), the same for every scheduler, so the
// schedulers differ only in their interleavings.
//
//   bench_dpct_vs_pct [--seeds N] [--cap RUNS] [--depth D] [--target NAME]...
//
// Prints, per target and scheduler: the median and 90th percentile of runs until the first
// violation (">cap" when not found within the cap), how many seeds found one, and the mean k.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "detect/checker.h"
#include "dpct/executor.h"
#include "dpct/pct_scheduler.h"
#include "dpct/random_scheduler.h"
#include "structure_tree/dpct_estimator.h"
#include "structure_trees/linfault_targets.h"
#include "targets/registry.h"

namespace {

namespace st = linfault::structure_tree;
namespace dpct = linfault::dpct;
namespace targets = linfault::targets;

struct Settings {
  std::size_t seeds = 100;
  std::size_t cap = 1000;
  unsigned depth = 3;
  std::vector<std::string> only;
};

const targets::WorkloadShape kShape{.setup = 2, .threads = 2, .ops_per_thread = 4, .reveal = 3};

dpct::Workload workload_for(const targets::Target& target, std::size_t seed, std::size_t run) {
  return targets::random_workload(target, kShape, seed * 1'000'003ULL + run);
}

bool violates(const targets::Target& target, const dpct::Run& run) {
  linfault::detect::CheckOptions options;
  options.timeout_seconds = 2;
  return linfault::detect::check_history(target.model, run.history, options).result ==
         linfault::detect::Result::kViolation;
}

enum class Kind { kDpct, kDpctDecisions, kPctFixed, kRandom };
const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::kDpct:
      return "dpct";
    case Kind::kDpctDecisions:
      return "dpct-dec";
    case Kind::kPctFixed:
      return "pct-fixed";
    case Kind::kRandom:
      return "random";
  }
  return "?";
}

struct Outcome {
  std::vector<std::size_t> runs_to_violation;  // cap + 1 when none was found
  double k_sum = 0;
  std::size_t k_count = 0;
};

std::unique_ptr<dpct::Scheduler> make_scheduler(Kind kind, std::uint64_t seed, unsigned depth,
                                                std::uint64_t fixed_k,
                                                const std::shared_ptr<const st::TreeSet>& trees) {
  switch (kind) {
    case Kind::kDpct:
    case Kind::kDpctDecisions: {
      st::TreeEstimatorOptions options;
      options.unit = kind == Kind::kDpct ? st::KUnit::kInstructions : st::KUnit::kDecisions;
      return std::make_unique<dpct::PctScheduler>(
          dpct::PctOptions{.seed = seed, .depth = depth},
          std::make_unique<st::TreeStepEstimator>(trees, options));
    }
    case Kind::kPctFixed:
      return std::make_unique<dpct::PctScheduler>(
          dpct::PctOptions{.seed = seed, .depth = depth, .steps = fixed_k});
    case Kind::kRandom:
      return std::make_unique<dpct::RandomScheduler>(seed);
  }
  return nullptr;
}

std::string percentile(std::vector<std::size_t> values, double q, std::size_t cap) {
  std::sort(values.begin(), values.end());
  const std::size_t index =
      static_cast<std::size_t>(q * static_cast<double>(values.size() - 1) + 0.5);
  const std::size_t value = values[index];
  return value > cap ? ">" + std::to_string(cap) : std::to_string(value);
}

}  // namespace

int main(int argc, char** argv) {
  Settings settings;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--seeds")
      settings.seeds = std::strtoul(argv[i + 1], nullptr, 10);
    else if (flag == "--cap")
      settings.cap = std::strtoul(argv[i + 1], nullptr, 10);
    else if (flag == "--depth")
      settings.depth = static_cast<unsigned>(std::strtoul(argv[i + 1], nullptr, 10));
    else if (flag == "--target")
      settings.only.push_back(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: %s [--seeds N] [--cap RUNS] [--depth D] [--target NAME]...\n",
                   argv[0]);
      return 64;
    }
  }
  const std::string_view json = linfault::structure_tree::embedded::linfault_targets();
  if (json.empty()) {
    std::fprintf(stderr, "bench_dpct_vs_pct: built without structure trees\n");
    return 70;
  }
  const auto trees = std::make_shared<const st::TreeSet>(st::parse_tree_set(json, "embedded"));

  std::printf(
      "shape: setup %zu, %zu threads x %zu ops, reveal %zu; depth %u; %zu seeds; cap %zu runs\n",
      kShape.setup, kShape.threads, kShape.ops_per_thread, kShape.reveal, settings.depth,
      settings.seeds, settings.cap);
  std::printf("%-22s %-10s %8s %8s %8s %8s\n", "target", "scheduler", "median", "p90", "found",
              "mean k");
  dpct::Executor executor;
  dpct::ExecutionOptions execution;
  execution.record_points = false;
  execution.max_steps = 20'000;
  for (const targets::Target& target : targets::all()) {
    if (!target.bug_expected) continue;
    if (!settings.only.empty() &&
        std::find(settings.only.begin(), settings.only.end(), target.name) == settings.only.end()) {
      continue;
    }
    // Calibration: the largest number of decisions over random-walk and D-PCT runs.
    std::uint64_t fixed_k = 1;
    for (std::size_t run = 0; run < 200; ++run) {
      for (Kind kind : {Kind::kRandom, Kind::kDpct}) {
        auto scheduler = make_scheduler(kind, run + 7, settings.depth, 0, trees);
        const dpct::Run result = executor.execute(
            target.factory, workload_for(target, 999'999, run), *scheduler, execution);
        fixed_k = std::max<std::uint64_t>(fixed_k, result.schedule.decisions.size());
      }
    }
    for (Kind kind : {Kind::kDpct, Kind::kDpctDecisions, Kind::kPctFixed, Kind::kRandom}) {
      Outcome outcome;
      for (std::size_t seed = 0; seed < settings.seeds; ++seed) {
        std::size_t found = settings.cap + 1;
        for (std::size_t run = 0; run < settings.cap; ++run) {
          auto scheduler = make_scheduler(kind, seed * 7919 + run, settings.depth, fixed_k, trees);
          const dpct::Run result = executor.execute(target.factory, workload_for(target, seed, run),
                                                    *scheduler, execution);
          if (auto* pct = dynamic_cast<dpct::PctScheduler*>(scheduler.get())) {
            outcome.k_sum += static_cast<double>(pct->steps());
            ++outcome.k_count;
          }
          if (violates(target, result)) {
            found = run + 1;
            break;
          }
        }
        outcome.runs_to_violation.push_back(found);
      }
      const std::size_t found = static_cast<std::size_t>(
          std::count_if(outcome.runs_to_violation.begin(), outcome.runs_to_violation.end(),
                        [&](std::size_t runs) { return runs <= settings.cap; }));
      const std::string mean_k =
          outcome.k_count == 0
              ? "-"
              : std::to_string(static_cast<long>(outcome.k_sum / outcome.k_count + 0.5));
      std::printf("%-22s %-10s %8s %8s %5zu/%-3zu %7s\n", target.name.c_str(), kind_name(kind),
                  percentile(outcome.runs_to_violation, 0.5, settings.cap).c_str(),
                  percentile(outcome.runs_to_violation, 0.9, settings.cap).c_str(), found,
                  settings.seeds, mean_k.c_str());
      std::fflush(stdout);
    }
  }
  return 0;
}
