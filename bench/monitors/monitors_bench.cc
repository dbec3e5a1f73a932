// Times the polynomial monitors on large generated histories and prints, per run: model, size,
// threads, expected verdict, the time to generate the history (not part of the monitor), the
// monitor's wall and CPU time (run_monitor: compiling the history, deciding it and, for a
// violation, finding the shortest violating prefix), the monitor's own peak memory (the growth of
// the peak RSS over the RSS before it ran, heap and mapped blocks alike), the process's peak RSS,
// CPU time / (n log2 n) to show the growth, and for a violation `vs_lin`: its CPU time over that
// of the linearizable twin (same model, size and threads, generated just before it).
// CPU time is the steadier figure on a shared machine.
//
//   monitors_bench [--min-ops N] [--max-ops N] [--models stack,queue,...] [--threads 8,100]
//                  [--lin-only]
//
// Sizes are --min-ops (default 10^5), 10 times that, ... up to --max-ops (default 10^6; pass
// 10000000 for the 10^7 runs).
// Snapshot histories are sized in events (two per operation) and reported in events/second.

#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "detect/monitors/monitor.h"
#include "spec/generator.h"

namespace {

using linfault::detect::CheckOptions;
using linfault::detect::Result;

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) out.push_back(item);
  return out;
}

double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// A field of /proc/self/status in MiB ("VmRSS", "VmHWM"), or -1.
double status_mb(const std::string& field) {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind(field + ":", 0) == 0) return std::stod(line.substr(field.size() + 1)) / 1024;
  }
  return -1;
}

// Resets the peak RSS (VmHWM) to the current RSS; false if the kernel does not allow it.
bool reset_peak_rss() {
  std::ofstream clear_refs("/proc/self/clear_refs");
  clear_refs << "5";
  clear_refs.flush();
  return static_cast<bool>(clear_refs);
}

double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t min_ops = 100000;
  std::size_t max_ops = 1000000;
  std::vector<std::string> models = {"stack", "queue", "priorityqueue", "set", "snapshot"};
  std::vector<std::size_t> thread_counts = {8, 100};
  bool lin_only = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--max-ops" && i + 1 < argc) {
      max_ops = std::stoull(argv[++i]);
    } else if (arg == "--min-ops" && i + 1 < argc) {
      min_ops = std::stoull(argv[++i]);
    } else if (arg == "--models" && i + 1 < argc) {
      models = split(argv[++i]);
    } else if (arg == "--threads" && i + 1 < argc) {
      thread_counts.clear();
      for (const std::string& t : split(argv[++i])) thread_counts.push_back(std::stoull(t));
    } else if (arg == "--lin-only") {
      lin_only = true;
    } else {
      std::fprintf(stderr,
                   "usage: %s [--min-ops N] [--max-ops N] [--models a,b] [--threads 8,100] "
                   "[--lin-only]\n",
                   argv[0]);
      return 64;
    }
  }
  std::printf("%-14s %9s %7s %-12s %-12s %7s %8s %8s %10s %11s %12s %7s %s\n", "model", "ops",
              "threads", "expected", "verdict", "gen_s", "wall_s", "cpu_s", "monitor_MB",
              "peak_RSS_MB", "ns/(nlog2n)", "vs_lin", "note");
  for (const std::string& model : models) {
    for (std::size_t n = min_ops; n <= max_ops; n *= 10) {
      // Snapshot sizes count events: n events are n / 2 operations.
      const std::size_t ops = model == "snapshot" ? n / 2 : n;
      for (std::size_t threads : thread_counts) {
        double twin_cpu = 0;  // the linearizable run's CPU time
        for (bool violation : {false, true}) {
          if (violation && lin_only) continue;
          const auto gen_start = std::chrono::steady_clock::now();
          linfault::spec::GeneratedHistory g =
              linfault::spec::generate_history({model, ops, threads, violation, 2024 + n, 0});
          const double gen_seconds =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - gen_start).count();
          const bool peak_reset = reset_peak_rss();
          const double base_mb = status_mb("VmRSS");
          const double cpu_start = cpu_seconds();
          const auto start = std::chrono::steady_clock::now();
          const linfault::detect::MonitorResult r =
              linfault::detect::run_monitor(model, g.history, CheckOptions{});
          const double seconds =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          const double cpu = cpu_seconds() - cpu_start;
          const double monitor_mb = peak_reset ? status_mb("VmHWM") - base_mb : -1;
          const double nlogn = static_cast<double>(n) * std::log2(static_cast<double>(n));
          std::string verdict = !r.verdict                                   ? "unsupported"
                                : r.verdict->result == Result::kLinearizable ? "linearizable"
                                                                             : "violation";
          std::string note;
          if (model == "snapshot") {
            note =
                std::to_string(static_cast<long long>(static_cast<double>(n) / cpu)) + " events/s";
          }
          if (r.verdict && r.verdict->result == Result::kViolation) {
            note += (note.empty() ? "" : "; ") + std::string("prefix ") +
                    std::to_string(r.verdict->prefix_events) +
                    (r.verdict->prefix_exact ? " (exact)" : " (upper bound)");
          }
          if (!r.verdict) note = r.unsupported;
          if (!violation) twin_cpu = cpu;
          const std::string vs_lin =
              violation && twin_cpu > 0 ? std::to_string(cpu / twin_cpu).substr(0, 4) : "-";
          std::printf("%-14s %9zu %7zu %-12s %-12s %7.2f %8.3f %8.3f %10.1f %11.0f %12.2f %7s %s\n",
                      model.c_str(), n, threads, violation ? "violation" : "linearizable",
                      verdict.c_str(), gen_seconds, seconds, cpu, monitor_mb, peak_rss_mb(),
                      1e9 * cpu / nlogn, vs_lin.c_str(), note.c_str());
          std::fflush(stdout);
        }
      }
    }
  }
  return 0;
}
