// Prints detection figures for every built-in target (targets/registry.h):
//   - known scenarios: the fraction of PCT (d = 2 and 3) and uniformly random schedules whose
//     history is not linearizable, and the number of executions the exhaustive search (at most
//     3 preemptions, "keep running" first) needs to reach the first violation;
//   - random workloads (2 threads x 8 ops, 2-op Ps, 4-op Pr): runs until the first violation
//     under PCT d = 3, over fresh workloads;
//   - controls: violations over the same random runs (must be 0), and the mean time per
//     execution + check.
// Usage: bench_targets [runs-per-measurement (default 1000)]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "detect/checker.h"
#include "dpct/executor.h"
#include "dpct/exhaustive.h"
#include "dpct/pct_scheduler.h"
#include "dpct/random_scheduler.h"
#include "targets/registry.h"

namespace {

using namespace linfault;

bool violates(const targets::Target& target, const dpct::Run& run) {
  detect::CheckOptions options;
  options.threads = 1;
  options.want_witness = false;
  return run.outcome != dpct::RunOutcome::kOk ||
         detect::check_history(target.model, run.history, options).result !=
             detect::Result::kLinearizable;
}

// The most decisions seen in 20 random runs of `workload`, used as PCT's k.
std::uint64_t measure_steps(dpct::Executor& executor, const targets::Target& target,
                            const dpct::Workload& workload) {
  std::uint64_t k = 1;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    dpct::RandomScheduler random(seed);
    const dpct::Run run = executor.execute(target.factory, workload, random);
    k = std::max<std::uint64_t>(k, run.schedule.decisions.size());
  }
  return k;
}

double hit_rate(dpct::Executor& executor, const targets::Target& target,
                const dpct::Workload& workload, dpct::Scheduler& scheduler, int runs) {
  int hits = 0;
  for (int i = 0; i < runs; ++i) {
    scheduler.reseed(static_cast<std::uint64_t>(i) + 1);
    hits += violates(target, executor.execute(target.factory, workload, scheduler));
  }
  return static_cast<double>(hits) / runs;
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 1000;
  dpct::Executor executor;
  dpct::ExecutionOptions quick;
  quick.record_points = false;
  quick.max_steps = 100'000;

  std::printf("Known scenarios (%d runs each; rates are violating runs / runs)\n", runs);
  std::printf("%-24s %-4s %-5s %6s %8s %8s %8s %10s\n", "target", "scn", "type", "k", "pct_d2",
              "pct_d3", "random", "exh_first");
  for (const targets::Target& target : targets::all()) {
    for (std::size_t s = 0; s < target.known_scenarios.size(); ++s) {
      const dpct::Workload& workload = target.known_scenarios[s].workload;
      const std::uint64_t k = measure_steps(executor, target, workload);
      dpct::PctScheduler pct2({.seed = 1, .depth = 2, .steps = k});
      dpct::PctScheduler pct3({.seed = 1, .depth = 3, .steps = k});
      dpct::RandomScheduler random(1);
      dpct::ExhaustiveOptions exhaustive;
      exhaustive.max_preemptions = 3;
      exhaustive.execution = quick;
      const dpct::ExhaustiveResult found =
          dpct::explore_exhaustively(executor, target.factory, workload, exhaustive,
                                     [&](const dpct::Run& run) { return violates(target, run); });
      std::printf("%-24s %-4zu %-5d %6llu %8.3f %8.3f %8.3f %10s\n", target.name.c_str(), s,
                  target.known_scenarios[s].type, static_cast<unsigned long long>(k),
                  hit_rate(executor, target, workload, pct2, runs),
                  hit_rate(executor, target, workload, pct3, runs),
                  hit_rate(executor, target, workload, random, runs),
                  found.found ? std::to_string(found.executions).c_str() : "none");
    }
  }

  std::printf("\nRandom workloads: 2 threads x 8 ops, Ps 2, Pr 4; PCT d=3; up to %d runs\n", runs);
  std::printf("%-24s %-4s %12s %12s %12s\n", "target", "bug", "first_hit", "violations", "us/run");
  for (const targets::Target& target : targets::all()) {
    int violations = 0;
    int first_hit = -1;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < runs; ++i) {
      const dpct::Workload workload = targets::random_workload(
          target, {.setup = 2, .threads = 2, .ops_per_thread = 8, .reveal = 4},
          static_cast<std::uint64_t>(i) + 1);
      dpct::PctScheduler pct({.seed = static_cast<std::uint64_t>(i) + 1, .depth = 3, .steps = 60});
      const bool bad = violates(target, executor.execute(target.factory, workload, pct, quick));
      violations += bad;
      if (bad && first_hit < 0) first_hit = i + 1;
    }
    const double us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
            .count() /
        runs;
    std::printf("%-24s %-4s %12s %12d %12.1f\n", target.name.c_str(),
                target.bug_expected ? "yes" : "no",
                first_hit < 0 ? "none" : std::to_string(first_hit).c_str(), violations, us);
  }
  return 0;
}
