// The cost of spec-free checking (`--spec serial`, targets/serial_spec.h) against model-based
// checking, in Line-Up's terms and in ours. For each target and each workload shape (2x2, 2x3,
// 3x3 by default) it prints:
//   - phase 1 of Line-Up: the full serial histories of a random workload (every order of its
//     calls that keeps each thread's order; (pq)!/(q!)^p when nothing blocks) and the stuck ones,
//     mean and max over --workloads workloads, and the time to enumerate them all with serial
//     runs (a fresh trie per workload);
//   - our lazy use of the same specification: serial runs per checked history (trie nodes the
//     WGL search asked for, with the trie shared by the whole campaign, as in `linfault detect`);
//   - time per history of a detection campaign (random scheduler, even shapes, --histories
//     histories) with the serial specification and with the target's written model, and the
//     ratio. Both campaigns run in the same process, one after the other.
//
//   lineup_bench [--targets a,b] [--shapes 2x2,2x3,3x3] [--workloads 20] [--histories 2000]

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "detect/driver.h"
#include "history/history.h"
#include "spec/registry.h"
#include "targets/registry.h"
#include "targets/serial_spec.h"

namespace {

using linfault::history::Call;
using linfault::history::Operation;
using linfault::history::Outcome;
namespace targets = linfault::targets;
namespace detect = linfault::detect;
namespace spec = linfault::spec;

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

struct SerialHistories {
  std::uint64_t full = 0;   // every call ran and returned
  std::uint64_t stuck = 0;  // a call blocked before all had run
};

// Line-Up's phase 1 on `threads`: every serial order of the calls (each thread's in order), run on
// the object through the serial specification `model`. Calls are given as pending operations, so
// the model accepts whatever they return and fails a step only after a call that blocked.
SerialHistories enumerate(const spec::ErasedModel& model,
                          const std::vector<std::vector<Call>>& threads) {
  std::vector<std::vector<spec::DynamicId>> ops(threads.size());
  for (std::size_t t = 0; t < threads.size(); ++t) {
    for (const Call& call : threads[t]) {
      Operation op;
      op.call = call;
      op.outcome = Outcome::kPending;
      ops[t].push_back(std::get<spec::DynamicId>(model.compile(op)));
    }
  }
  SerialHistories counts;
  std::vector<std::size_t> next(threads.size(), 0);
  auto visit = [&](auto& self, spec::DynamicId state) -> void {
    bool any_left = false;
    bool stepped = false;
    for (std::size_t t = 0; t < threads.size(); ++t) {
      if (next[t] == ops[t].size()) continue;
      any_left = true;
      spec::DynamicId child = state;
      if (!model.step(child, ops[t][next[t]])) continue;
      stepped = true;
      ++next[t];
      self(self, child);
      --next[t];
    }
    if (!any_left) {
      ++counts.full;
    } else if (!stepped) {
      ++counts.stuck;
    }
  };
  visit(visit, model.initial());
  return counts;
}

struct Shape {
  std::size_t threads;
  std::size_t ops;
};

Shape parse_shape(const std::string& text) {
  const auto x = text.find('x');
  return {std::stoul(text.substr(0, x)), std::stoul(text.substr(x + 1))};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Spec-free (Line-Up) against model-based checking: serial histories and time"};
  std::string target_list;
  std::string shape_list = "2x2,2x3,3x3";
  std::size_t workloads = 20;
  std::uint64_t histories = 2000;
  app.add_option("--targets", target_list, "comma-separated targets (default: the built-in ones)");
  app.add_option("--shapes", shape_list, "workload shapes, threads x operations per thread");
  app.add_option("--workloads", workloads, "random workloads per shape for phase 1");
  app.add_option("--histories", histories, "histories per detection campaign");
  CLI11_PARSE(app, argc, argv);

  std::vector<std::string> names = split(target_list);
  if (names.empty()) {
    for (const targets::Target& t : targets::all()) names.push_back(t.name);
  }
  std::printf("%-24s %-5s %10s %8s %8s %10s | %8s %10s %10s %7s\n", "target", "shape", "full/wl",
              "max", "stuck/wl", "ph1 ms/wl", "runs/h", "serial ms", "model ms", "ratio");
  for (const std::string& name : names) {
    const targets::Target& target = targets::find(name);
    const targets::Target serial = targets::with_serial_spec(target);
    for (const std::string& shape_text : split(shape_list)) {
      const Shape shape = parse_shape(shape_text);
      targets::WorkloadShape workload_shape;
      workload_shape.threads = shape.threads;
      workload_shape.ops_per_thread = shape.ops;

      // Phase 1, a fresh trie per workload: what Line-Up pays before checking anything.
      double full_sum = 0, stuck_sum = 0, phase1_ms = 0;
      std::uint64_t full_max = 0;
      for (std::size_t w = 0; w < workloads; ++w) {
        const auto workload = targets::random_workload(target, workload_shape, 1000 + w);
        targets::reset_serial_spec(target.name);
        const Clock::time_point start = Clock::now();
        const SerialHistories counts = spec::visit_model(serial.model, [&](const auto& model) {
          if constexpr (std::is_same_v<std::decay_t<decltype(model)>, spec::ErasedModel>) {
            return enumerate(model, workload.threads);
          } else {
            return SerialHistories{};
          }
        });
        phase1_ms += ms_since(start);
        full_sum += static_cast<double>(counts.full);
        stuck_sum += static_cast<double>(counts.stuck);
        full_max = std::max(full_max, counts.full);
      }

      // Detection campaigns: the serial specification (a trie shared by the campaign) against
      // the written model, same histories.
      detect::DriverOptions options;
      options.threads = shape.threads;
      options.ops_per_thread = shape.ops;
      options.histories = histories;
      options.scheduler = detect::SchedulerKind::kRandom;
      options.shapes = detect::ShapeMix::kEven;
      options.seed = 1;
      targets::reset_serial_spec(target.name);
      const detect::DetectionReport with_serial = detect::run_detection(serial, options);
      const targets::SerialSpecStats stats = targets::serial_spec_stats(target.name);
      const detect::DetectionReport with_model = detect::run_detection(target, options);
      const double w = static_cast<double>(workloads);
      std::printf("%-24s %-5s %10.1f %8llu %8.1f %10.2f | %8.2f %10.4f %10.4f %7.1f%s\n",
                  target.name.c_str(), shape_text.c_str(), full_sum / w,
                  static_cast<unsigned long long>(full_max), stuck_sum / w, phase1_ms / w,
                  static_cast<double>(stats.serial_runs) / static_cast<double>(histories),
                  with_serial.avg_ms, with_model.avg_ms, with_serial.avg_ms / with_model.avg_ms,
                  with_serial.violations == with_model.violations
                      ? ""
                      : ("  violations differ: serial " + std::to_string(with_serial.violations) +
                         ", model " + std::to_string(with_model.violations))
                            .c_str());
      std::fflush(stdout);
    }
  }
  return 0;
}
