// The weak-memory model against the C++20 axioms: the bundled litmus suite (outcomes seen,
// allowed, forbidden seen, allowed but missing), a differential run over random programs (the
// model alone, and through the executor with every execution checked against the axioms), and
// weak executions of every wm_ target, each checked against the axioms. Prints figures; see
// README.md.

#include <CLI/CLI.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "dpct/litmus.h"
#include "targets/registry.h"
#include "targets/weak_memory_objects.h"

namespace {

using linfault::dpct::LitmusOutcome;

std::size_t count_outside(const std::set<LitmusOutcome>& a, const std::set<LitmusOutcome>& b) {
  std::size_t n = 0;
  for (const LitmusOutcome& outcome : a) n += b.contains(outcome) ? 0 : 1;
  return n;
}

// `runs` weak executions of each wm_ target on random 2-thread workloads (half under a random
// scheduler, half under PCT, reads drawn by the mixed policy), each checked against the axioms
// (ExecutionOptions::check_memory_model). Returns the violations.
// Only the targets named in `only`, when it is not empty.
std::uint64_t check_targets(std::uint64_t runs, const std::vector<std::string>& only) {
  using namespace linfault;
  std::printf("%-28s %9s %11s %10s %9s %10s\n", "target", "runs", "stale reads", "violations",
              "seconds", "runs/s");
  std::uint64_t violations = 0;
  for (const targets::Target& target : targets::all()) {
    if (target.memory_model != dpct::MemoryModel::kC11) continue;
    if (!only.empty() && std::find(only.begin(), only.end(), target.name) == only.end()) continue;
    const auto start = std::chrono::steady_clock::now();
    const targets::AxiomCheckedRuns checked = targets::run_axiom_checked(target, runs);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (checked.violations > 0) {
      std::printf("VIOLATION in %s, %s\n", target.name.c_str(), checked.first_violation.c_str());
    }
    std::printf("%-28s %9llu %11llu %10llu %9.1f %10.0f\n", target.name.c_str(),
                static_cast<unsigned long long>(checked.runs),
                static_cast<unsigned long long>(checked.stale_reads),
                static_cast<unsigned long long>(checked.violations), seconds,
                static_cast<double>(checked.runs) / seconds);
    violations += checked.violations;
  }
  return violations;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"WeakMemory against the C++20 axioms: the litmus suite and random programs"};
  std::uint64_t programs = 10'000;
  app.add_option("--programs", programs, "random programs to compare (default 10000)");
  std::uint64_t target_runs = 100'000;
  app.add_option("--target-runs", target_runs,
                 "checked weak executions of each wm_ target (default 100000; 0: none)");
  std::vector<std::string> only;
  app.add_option("--target", only, "check only these wm_ targets (repeatable; default: all)");
  CLI11_PARSE(app, argc, argv);
  for (const std::string& name : only) {
    const auto& all = linfault::targets::all();
    if (std::none_of(all.begin(), all.end(), [&](const linfault::targets::Target& target) {
          return target.name == name && target.memory_model == linfault::dpct::MemoryModel::kC11;
        })) {
      std::fprintf(stderr, "weak_memory_bench: --target %s: no wm_ target of that name\n",
                   name.c_str());
      return 2;
    }
  }

  using Clock = std::chrono::steady_clock;
  int failures = 0;

  std::printf("%-14s %-10s %5s %7s %9s %7s\n", "test", "variant", "seen", "allowed", "forbidden",
              "missing");
  const Clock::time_point suite_start = Clock::now();
  for (const auto& test : linfault::dpct::litmus_suite()) {
    const auto seen = linfault::dpct::weak_memory_outcomes(test.program);
    const auto allowed = linfault::dpct::axiomatic_outcomes(test.program);
    const std::size_t forbidden = count_outside(seen, allowed);
    failures += forbidden > 0 ? 1 : 0;
    std::printf("%-14s %-10s %5zu %7zu %9zu %7zu\n", test.name.c_str(), test.variant.c_str(),
                seen.size(), allowed.size(), forbidden, count_outside(allowed, seen));
  }
  const double suite_seconds = std::chrono::duration<double>(Clock::now() - suite_start).count();
  std::printf("suite: %.3f s\n\n", suite_seconds);

  // Every order variant of the classic shapes.
  {
    std::map<std::string, std::array<std::size_t, 4>>
        by_shape;  // programs, forbidden, short, missing
    const Clock::time_point sweep_start = Clock::now();
    for (const auto& test : linfault::dpct::litmus_order_sweep()) {
      const auto seen = linfault::dpct::weak_memory_outcomes(test.program);
      const auto allowed = linfault::dpct::axiomatic_outcomes(test.program);
      auto& row = by_shape[test.name];
      ++row[0];
      const std::size_t outside = count_outside(seen, allowed);
      row[1] += outside;
      if (outside > 0) {
        std::printf("FORBIDDEN outcome in %s %s: %s\n", test.name.c_str(), test.variant.c_str(),
                    test.program.describe().c_str());
      }
      const std::size_t missing = count_outside(allowed, seen);
      row[2] += missing > 0 ? 1 : 0;
      row[3] += missing;
    }
    const double sweep_seconds = std::chrono::duration<double>(Clock::now() - sweep_start).count();
    std::printf("%-12s %9s %10s %14s %16s\n", "shape", "variants", "forbidden", "short of C++20",
                "outcomes missing");
    for (const auto& [shape, row] : by_shape) {
      std::printf("%-12s %9zu %10zu %14zu %16zu\n", shape.c_str(), row[0], row[1], row[2], row[3]);
      failures += row[1] > 0 ? 1 : 0;
    }
    std::printf("order sweep: %.1f s\n\n", sweep_seconds);
  }

  std::uint64_t outcomes_seen = 0, forbidden = 0, complete = 0, sc_programs = 0, sc_complete = 0;
  std::uint64_t executed_runs = 0, executor_differs = 0;
  const Clock::time_point random_start = Clock::now();
  for (std::uint64_t seed = 0; seed < programs; ++seed) {
    const bool seq_cst_only = seed % 5 == 0;
    const auto program = linfault::dpct::random_litmus_program(seed, seq_cst_only);
    const auto seen = linfault::dpct::weak_memory_outcomes(program);
    const auto allowed = linfault::dpct::axiomatic_outcomes(program);
    outcomes_seen += seen.size();
    std::size_t outside = count_outside(seen, allowed);
    // Through the executor: every execution is also checked against the axioms (it throws on a
    // violation), and its outcomes must equal the model's.
    try {
      std::uint64_t runs = 0;
      const auto executed =
          linfault::dpct::executed_outcomes(program, linfault::dpct::MemoryModel::kC11, &runs);
      executed_runs += runs;
      outside += count_outside(executed, allowed);
      if (executed != seen) ++executor_differs;
    } catch (const std::logic_error& e) {
      std::printf("AXIOM VIOLATION in program %llu: %s\n", static_cast<unsigned long long>(seed),
                  e.what());
      ++outside;
    }
    forbidden += outside;
    if (outside > 0) {
      std::printf("FORBIDDEN outcome in program %llu: %s\n", static_cast<unsigned long long>(seed),
                  program.describe().c_str());
    }
    const bool all = count_outside(allowed, seen) == 0;
    complete += all ? 1 : 0;
    sc_programs += seq_cst_only ? 1 : 0;
    sc_complete += seq_cst_only && all ? 1 : 0;
  }
  const double random_seconds = std::chrono::duration<double>(Clock::now() - random_start).count();
  std::printf(
      "random programs: %llu (%llu seq_cst only), outcomes seen %llu, forbidden outcomes %llu,\n"
      "programs whose every allowed outcome was seen %llu (seq_cst only: %llu), %.1f s\n",
      static_cast<unsigned long long>(programs), static_cast<unsigned long long>(sc_programs),
      static_cast<unsigned long long>(outcomes_seen), static_cast<unsigned long long>(forbidden),
      static_cast<unsigned long long>(complete), static_cast<unsigned long long>(sc_complete),
      random_seconds);
  std::printf(
      "through the executor: %llu executions, each checked against the axioms; programs whose "
      "outcomes differ from the model's: %llu\n\n",
      static_cast<unsigned long long>(executed_runs),
      static_cast<unsigned long long>(executor_differs));
  const std::uint64_t violations = target_runs > 0 ? check_targets(target_runs, only) : 0;
  return failures > 0 || forbidden > 0 || executor_differs > 0 || violations > 0 ? 1 : 0;
}
