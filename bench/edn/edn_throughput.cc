// EDN reading throughput: builds a register history of N operations (default 10^6) in three
// shapes — one map per line, one top-level vector, Jepsen records spread over lines — and times
// history::load_history_text on each, end to end to a History. Prints MB/s and operations/s
// (best of a few runs), by wall-clock time and by the process's CPU time (the figure to quote on a
// machine busy with other work). A last line times edn::Scanner alone over the one-per-line text:
// the share of reading that is tokenizing.
// Usage: edn_throughput [OPERATIONS] [RUNS]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

#include "history/edn.h"
#include "history/formats.h"

namespace {

using linfault::history::Format;

enum class Shape { kLines, kVector, kRecords };

// Ten processes invoke, then complete, in turn: writes of i and reads of the last value.
std::string make_history(std::size_t operations, Shape shape) {
  std::string text;
  text.reserve(operations * 160);
  if (shape == Shape::kVector) text += "[";
  constexpr int kProcesses = 10;
  std::size_t index = 0;
  long long time = 123456789;
  auto emit = [&](int process, const char* type, const char* f, const std::string& value) {
    char line[256];
    if (shape == Shape::kRecords) {
      std::snprintf(line, sizeof line,
                    "#jepsen.history.Op{:index %zu,\n :time %lld,\n :type %s,\n :process %d,\n"
                    " :f %s,\n :value %s}\n",
                    index, time, type, process, f, value.c_str());
    } else {
      std::snprintf(line, sizeof line,
                    "{:process %d, :type %s, :f %s, :value %s, :time %lld, :index %zu}\n", process,
                    type, f, value.c_str(), time, index);
    }
    text += line;
    ++index;
    time += 1789;
  };
  for (std::size_t done = 0; done < operations; done += kProcesses) {
    const int batch = static_cast<int>(std::min<std::size_t>(kProcesses, operations - done));
    for (int p = 0; p < batch; ++p) {
      const bool write = p % 2 == 0;
      emit(p, ":invoke", write ? ":write" : ":read", write ? std::to_string(done + p) : "nil");
    }
    for (int p = 0; p < batch; ++p) {
      const bool write = p % 2 == 0;
      emit(p, ":ok", write ? ":write" : ":read", write ? std::to_string(done + p) : "5");
    }
  }
  if (shape == Shape::kVector) text += "]\n";
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t operations = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
  const int runs = argc > 2 ? std::atoi(argv[2]) : 3;
  const std::pair<Shape, const char*> shapes[] = {{Shape::kLines, "one map per line"},
                                                  {Shape::kVector, "whole-file vector"},
                                                  {Shape::kRecords, "multi-line Op records"}};
  for (const auto& [shape, name] : shapes) {
    const std::string text = make_history(operations, shape);
    double best_wall = 1e30;
    double best_cpu = 1e30;
    std::size_t loaded_operations = 0;
    for (int run = 0; run < runs; ++run) {
      const auto start = std::chrono::steady_clock::now();
      const std::clock_t cpu_start = std::clock();
      const auto loaded = linfault::history::load_history_text(text, "bench.edn", Format::kAuto);
      const double cpu = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
      const double wall =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      best_wall = std::min(best_wall, wall);
      best_cpu = std::min(best_cpu, cpu);
      loaded_operations = loaded.history.size();
    }
    const double megabytes = text.size() / 1e6;
    std::printf(
        "%-22s %8zu operations %6.1f MB  wall %6.3f s %6.1f MB/s  cpu %6.3f s %6.1f MB/s "
        "%5.2f M ops/s\n",
        name, loaded_operations, megabytes, best_wall, megabytes / best_wall, best_cpu,
        megabytes / best_cpu, loaded_operations / 1e6 / best_cpu);
  }
  const std::string text = make_history(operations, Shape::kLines);
  double best_cpu = 1e30;
  std::size_t tokens = 0;
  for (int run = 0; run < runs; ++run) {
    const std::clock_t cpu_start = std::clock();
    linfault::history::edn::Scanner scanner(text);
    tokens = 0;
    while (scanner.next().kind != linfault::history::edn::TokenKind::kEnd) ++tokens;
    best_cpu = std::min(best_cpu, static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC);
  }
  std::printf("%-22s %8zu tokens     %6.1f MB  cpu %6.3f s %6.1f MB/s\n", "scanner alone", tokens,
              text.size() / 1e6, best_cpu, text.size() / 1e6 / best_cpu);
  return 0;
}
