// bench_ported: does a target written in plain std::atomic / std::mutex and instrumented by the
// rewriter (linfault_add_target(... INSTRUMENT)) find its bug as the hand-instrumented original
// does, at the same speed?
//
// For each pair (bundled target, its port in targets/ported/), in the same run:
//   - histories until the first violation under D-PCT (2 threads x 5 operations), for seeds
//     1..SEEDS, with the median and the number of seeds that found the bug within MAX histories;
//   - throughput: histories per second over HISTORIES histories of seed 1 (execution + check),
//     and the ratio port / original.
// Usage: bench_ported [SEEDS=20] [MAX=2000] [HISTORIES=4000]

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "detect/driver.h"
#include "minimize/pipeline.h"
#include "targets/registry.h"

namespace {

using namespace linfault;

detect::DriverOptions options_for(std::uint64_t seed) {
  detect::DriverOptions options;
  options.threads = 2;
  options.ops_per_thread = 5;
  options.scheduler = detect::SchedulerKind::kDpct;
  options.epoch_operations = 2;
  options.seed = seed;
  options.step_estimator = minimize::tree_step_estimators();
  return options;
}

struct Figures {
  std::vector<std::uint64_t> to_first;  // per seed; 0: not found
  double histories_per_second = 0;
};

Figures measure(const targets::Target& target, int seeds, std::uint64_t max,
                std::uint64_t histories) {
  Figures f;
  for (int seed = 1; seed <= seeds; ++seed) {
    const minimize::FirstFailure first =
        minimize::detect_first_failure(target, options_for(seed * 100'000ull), max, 0);
    f.to_first.push_back(
        first.failing ? detect::history_index(seed * 100'000ull, first.failing->seed) + 1 : 0);
  }
  detect::DriverOptions throughput = options_for(1);
  throughput.histories = histories;
  const auto start = std::chrono::steady_clock::now();
  const detect::DetectionReport report = detect::run_detection(target, throughput);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  f.histories_per_second = static_cast<double>(report.histories) / seconds;
  return f;
}

std::string median_text(std::vector<std::uint64_t> values) {
  std::vector<std::uint64_t> found;
  for (std::uint64_t v : values) {
    if (v > 0) found.push_back(v);
  }
  if (found.empty()) return "-";
  std::sort(found.begin(), found.end());
  return std::to_string(found[found.size() / 2]);
}

int found_count(const std::vector<std::uint64_t>& values) {
  return static_cast<int>(
      std::count_if(values.begin(), values.end(), [](auto v) { return v > 0; }));
}

}  // namespace

int main(int argc, char** argv) {
  const int seeds = argc > 1 ? std::atoi(argv[1]) : 20;
  const std::uint64_t max = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 2000;
  const std::uint64_t histories = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 4000;
  const char* pairs[][2] = {{"treiber_stack_buggy", "treiber_stack_buggy_std"},
                            {"optimistic_queue_buggy", "optimistic_queue_buggy_std"},
                            {"simple_list_buggy", "simple_list_buggy_std"}};
  std::printf("D-PCT, 2 threads x 5 operations; %d seeds, at most %llu histories each\n", seeds,
              static_cast<unsigned long long>(max));
  std::printf("%-26s %-10s %-13s %-13s %-12s %-12s %s\n", "target", "version", "found/seeds",
              "median hist.", "same seeds", "hist./s", "ratio");
  for (const auto& pair : pairs) {
    const Figures original = measure(targets::find(pair[0]), seeds, max, histories);
    const Figures port = measure(targets::find(pair[1]), seeds, max, histories);
    const bool same = original.to_first == port.to_first;
    std::printf("%-26s %-10s %2d/%-10d %-13s %-12s %-12.0f\n", pair[0], "hand",
                found_count(original.to_first), seeds, median_text(original.to_first).c_str(), "",
                original.histories_per_second);
    std::printf("%-26s %-10s %2d/%-10d %-13s %-12s %-12.0f %.2f\n", "", "std+INSTR.",
                found_count(port.to_first), seeds, median_text(port.to_first).c_str(),
                same ? "identical" : "differ", port.histories_per_second,
                port.histories_per_second / original.histories_per_second);
  }
  return 0;
}
