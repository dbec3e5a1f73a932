// Prints, for every buggy built-in target's known minimal scenarios (the test cases the minimizer
// ends with) and for each of their one-operation removals from Pc (what its minimality proof
// enumerates), the executions that exhaust every interleaving with full enumeration and with
// partial-order reduction (dpct/exhaustive.h; complete runs + sleep-set-blocked runs), and the
// time of each.
// Usage: bench_minimize [max executions per enumeration (default 2000000)]

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "dpct/executor.h"
#include "dpct/exhaustive.h"
#include "targets/registry.h"

namespace {

using namespace linfault;

struct Cost {
  std::uint64_t runs = 0;
  bool exhausted = false;
  double ms = 0;
};

Cost enumerate(const targets::Target& target, const dpct::Workload& workload, bool reduce,
               std::uint64_t budget) {
  dpct::Executor executor;
  dpct::ExhaustiveOptions options;
  options.reduce = reduce;
  options.max_executions = budget;
  options.execution.record_points = false;
  options.execution.max_steps = 10'000;
  const auto start = std::chrono::steady_clock::now();
  const dpct::ExhaustiveResult r =
      dpct::explore_exhaustively(executor, target.factory, workload, options);
  Cost cost;
  cost.runs = r.executions + r.redundant;
  cost.exhausted = r.exhausted;
  cost.ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return cost;
}

std::string shape(const dpct::Workload& w) {
  std::string out;
  for (const auto& thread : w.threads) {
    if (!out.empty()) out += " ‖ ";
    std::string calls;
    for (const history::Call& call : thread) calls += (calls.empty() ? "" : "; ") + call.method;
    out += calls;
  }
  return out;
}

std::string runs(const Cost& c) { return std::to_string(c.runs) + (c.exhausted ? "" : "+"); }

}  // namespace

int main(int argc, char** argv) {
  const std::uint64_t budget = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 2'000'000;
  std::printf(
      "| target | Pc | full: runs | DPOR: runs | ratio | removals full | removals DPOR |"
      " full ms | DPOR ms |\n|---|---|---|---|---|---|---|---|---|\n");
  for (const targets::Target& target : targets::all()) {
    if (!target.bug_expected) continue;
    for (const targets::KnownScenario& scenario : target.known_scenarios) {
      const dpct::Workload& w = scenario.workload;
      const Cost full = enumerate(target, w, false, budget);
      const Cost reduced = enumerate(target, w, true, budget);
      Cost removals_full{0, true, 0};
      Cost removals_reduced{0, true, 0};
      for (std::size_t t = 0; t < w.threads.size(); ++t) {
        for (std::size_t i = 0; i < w.threads[t].size(); ++i) {
          dpct::Workload smaller = w;
          smaller.threads[t].erase(smaller.threads[t].begin() + static_cast<std::ptrdiff_t>(i));
          for (auto [total, reduce] :
               {std::pair{&removals_full, false}, {&removals_reduced, true}}) {
            const Cost c = enumerate(target, smaller, reduce, budget);
            total->runs += c.runs;
            total->ms += c.ms;
            total->exhausted = total->exhausted && c.exhausted;
          }
        }
      }
      const double ratio = reduced.runs == 0 ? 0 : static_cast<double>(full.runs) / reduced.runs;
      std::printf("| %s | %s | %s | %s | %.1fx | %s | %s | %.1f | %.1f |\n", target.name.c_str(),
                  shape(w).c_str(), runs(full).c_str(), runs(reduced).c_str(), ratio,
                  runs(removals_full).c_str(), runs(removals_reduced).c_str(),
                  full.ms + removals_full.ms, reduced.ms + removals_reduced.ms);
    }
  }
  std::printf("\n'+': the budget of %llu executions ran out before every interleaving was run.\n",
              static_cast<unsigned long long>(budget));
  return 0;
}
