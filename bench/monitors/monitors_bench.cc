// Times the polynomial monitors on large generated histories and prints, per run: model, size,
// threads, expected verdict, monitor wall time, the monitor's own peak heap (counted by this
// program's operator new), the process's peak RSS, and time / (n log2 n) to show the growth.
//
//   monitors_bench [--max-ops N] [--models stack,queue,...] [--threads 8,100] [--lin-only]
//
// Sizes are 10^5, 10^6, ... up to --max-ops (default 10^6; pass 10000000 for the 10^7 runs).
// Snapshot histories are sized in events (two per operation) and reported in events/second.

#include <malloc.h>
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include "detect/monitors/monitor.h"
#include "spec/generator.h"

namespace {

std::atomic<std::size_t> g_live_bytes{0};
std::atomic<std::size_t> g_peak_bytes{0};

void note_alloc(void* p) {
  if (!p) return;
  const std::size_t now = g_live_bytes += malloc_usable_size(p);
  std::size_t peak = g_peak_bytes.load();
  while (now > peak && !g_peak_bytes.compare_exchange_weak(peak, now)) {
  }
}

}  // namespace

void* operator new(std::size_t n) {
  void* p = std::malloc(n ? n : 1);
  if (!p) throw std::bad_alloc();
  note_alloc(p);
  return p;
}
void operator delete(void* p) noexcept {
  if (p) g_live_bytes -= malloc_usable_size(p);
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept { operator delete(p); }

namespace {

using linfault::detect::CheckOptions;
using linfault::detect::Result;

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) out.push_back(item);
  return out;
}

double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t max_ops = 1000000;
  std::vector<std::string> models = {"stack", "queue", "priorityqueue", "set", "snapshot"};
  std::vector<std::size_t> thread_counts = {8, 100};
  bool lin_only = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--max-ops" && i + 1 < argc) {
      max_ops = std::stoull(argv[++i]);
    } else if (arg == "--models" && i + 1 < argc) {
      models = split(argv[++i]);
    } else if (arg == "--threads" && i + 1 < argc) {
      thread_counts.clear();
      for (const std::string& t : split(argv[++i])) thread_counts.push_back(std::stoull(t));
    } else if (arg == "--lin-only") {
      lin_only = true;
    } else {
      std::fprintf(stderr,
                   "usage: %s [--max-ops N] [--models a,b] [--threads 8,100] [--lin-only]\n",
                   argv[0]);
      return 64;
    }
  }
  std::printf("%-14s %10s %7s %-13s %-12s %10s %12s %11s %13s %s\n", "model", "ops", "threads",
              "expected", "verdict", "time_s", "monitor_MB", "peak_RSS_MB", "ns/(n log2n)", "note");
  for (const std::string& model : models) {
    for (std::size_t n = 100000; n <= max_ops; n *= 10) {
      // Snapshot sizes count events: n events are n / 2 operations.
      const std::size_t ops = model == "snapshot" ? n / 2 : n;
      for (std::size_t threads : thread_counts) {
        for (bool violation : {false, true}) {
          if (violation && lin_only) continue;
          linfault::spec::GeneratedHistory g =
              linfault::spec::generate_history({model, ops, threads, violation, 2024 + n, 0});
          g_peak_bytes = g_live_bytes.load();
          const std::size_t base = g_live_bytes.load();
          const auto start = std::chrono::steady_clock::now();
          const linfault::detect::MonitorResult r =
              linfault::detect::run_monitor(model, g.history, CheckOptions{});
          const double seconds =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          const double monitor_mb = static_cast<double>(g_peak_bytes.load() - base) / (1 << 20);
          const double nlogn = static_cast<double>(n) * std::log2(static_cast<double>(n));
          std::string verdict = !r.verdict                                   ? "unsupported"
                                : r.verdict->result == Result::kLinearizable ? "linearizable"
                                                                             : "violation";
          std::string note;
          if (model == "snapshot") {
            note = std::to_string(static_cast<long long>(static_cast<double>(n) / seconds)) +
                   " events/s";
          }
          if (r.verdict && r.verdict->result == Result::kViolation) {
            note += (note.empty() ? "" : "; ") + std::string("prefix ") +
                    std::to_string(r.verdict->prefix_events) +
                    (r.verdict->prefix_exact ? " (exact)" : " (upper bound)");
          }
          if (!r.verdict) note = r.unsupported;
          std::printf("%-14s %10zu %7zu %-13s %-12s %10.3f %12.1f %11.0f %13.2f %s\n",
                      model.c_str(), n, threads, violation ? "violation" : "linearizable",
                      verdict.c_str(), seconds, monitor_mb, peak_rss_mb(), 1e9 * seconds / nlogn,
                      note.c_str());
          std::fflush(stdout);
        }
      }
    }
  }
  return 0;
}
