// History-level minimization of the non-linearizable etcd histories (Jepsen, cas-register):
// for each, the size of the 1-minimal failing sub-history and the time it took. Goal (issue
// "detect → localize → minimize"): at most 6 operations on average, each in under 1 s.
//
// Usage: bench_minimize_history [DATA_DIR]   (default: ../shared/data/porcupine/jepsen)

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "history/formats.h"
#include "minimize/history_minimizer.h"

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  using namespace linfault;
  const fs::path dir = argc > 1 ? argv[1] : "../shared/data/porcupine/jepsen";
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".log" && fs::file_size(entry.path()) > 0) {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  std::printf("%-14s %6s %8s %6s %7s %6s %9s\n", "file", "ops", "prefix", "kept", "checks",
              "strict", "ms");
  std::size_t minimized = 0, total_kept = 0, over_one_second = 0, max_kept = 0;
  double total_ms = 0, max_ms = 0;
  for (const fs::path& file : files) {
    const history::LoadedHistory loaded = history::load_history_file(file.string());
    minimize::HistoryMinimizerOptions options;
    options.timeout_seconds = 10;
    const minimize::HistoryMinimization m =
        minimize::minimize_history("cas-register", loaded.history, options);
    if (m.original.result != detect::Result::kViolation) continue;
    ++minimized;
    total_kept += m.minimal.size();
    max_kept = std::max(max_kept, m.minimal.size());
    total_ms += m.elapsed_ms;
    max_ms = std::max(max_ms, m.elapsed_ms);
    if (m.elapsed_ms > 1000) ++over_one_second;
    std::printf("%-14s %6zu %8zu %6zu %7zu %6s %9.1f%s\n", file.filename().c_str(),
                loaded.history.size(), m.original.prefix_events, m.minimal.size(), m.checks,
                m.strictly_one_minimal ? "yes" : "no", m.elapsed_ms,
                m.one_minimal ? "" : "  (not proven 1-minimal)");
  }
  if (minimized == 0) {
    std::printf("no non-linearizable history found in %s\n", dir.c_str());
    return 1;
  }
  std::printf("\n%zu non-linearizable histories minimized (goal: 79)\n", minimized);
  std::printf("operations kept: %.2f on average (goal <= 6), %zu at most\n",
              static_cast<double>(total_kept) / minimized, max_kept);
  std::printf("time: %.1f ms on average, %.1f ms at most, %zu over 1 s (goal: none)\n",
              total_ms / minimized, max_ms, over_one_second);
  return 0;
}
