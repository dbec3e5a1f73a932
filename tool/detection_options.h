// The options of a detection run (`linfault detect`, and `linfault run`, which detects first):
// what to run (target, N threads x M operations, S histories), how to schedule it (native,
// random, pct, dpct; the heuristic H) and the limits, turned into detect::DriverOptions.
//
// Thread-safety: plain data and pure functions.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_TOOL_DETECTION_OPTIONS_H_
#define LINFAULT_TOOL_DETECTION_OPTIONS_H_

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "detect/driver.h"
#include "targets/registry.h"

namespace linfault::tool {

struct DetectionArguments {
  std::string target;
  std::size_t threads = 2;
  std::size_t ops = 10;
  std::uint64_t histories = 100;
  // bench/schedulers/README.md: on no target worse than a random walk (beyond the noise), and
  // within 10% of the best scheduler overall.
  std::string scheduler = "portfolio";
  std::string shapes = "mixed";  // --shapes: even, split, uneven or mixed
  bool heuristic = false;
  std::size_t round_ops = 3;
  unsigned depth = 3;
  std::string epoch = "auto";  // --epoch: "auto" (one operation per thread) or a count
  double write_bias = detect::kDefaultWriteBias;  // --write-bias
  std::string window_pauses;  // --window-pauses mixed|act|inside; empty: not given (inside)
  std::uint64_t k = 0;
  std::uint64_t seed = 1;
  unsigned jobs = 1;
  double timeout_seconds = 10;
  std::uint64_t max_steps = 200'000;
  std::string native_noise = "on";  // --native-noise on|off
  std::string workload_file;        // a fixed workload instead of random ones (--workload)
  std::string spec = "model";       // --spec model|serial (tool/commands.h target_with_spec)
  bool isolate = false;             // --isolate: histories in child processes
  std::string memory_model;         // --memory-model sc|c11; empty: the target's
  std::string reads = "mixed";      // --reads: the read policy under c11 (dpct/weak_reads.h)
};

// Registers --target (required or with its default), --threads, --ops, --histories,
// --scheduler, --shapes, --native-noise, --heuristic, --round-ops, --depth, --epoch,
// --write-bias, --window-pauses, --k, --seed, --jobs,
// --timeout, --max-steps, --workload, --spec, --isolate, --memory-model, --reads.
void add_detection_options(CLI::App& app, DetectionArguments& args, bool target_required);

// --memory-model into `memory_model` (empty when not given) and, when `reads` is not null,
// --reads: for the commands that run controlled executions.
void add_memory_model_options(CLI::App& app, std::string& memory_model, std::string* reads);

// DriverOptions for `args`, with the structure-tree estimator for dpct when the build has trees
// and the --workload file read (history::OpenError / InputError when it cannot be; UsageError
// naming the file when `target` cannot run it: targets::workload_problem).
detect::DriverOptions driver_options(const DetectionArguments& args, const targets::Target& target);

// What a detection campaign is, for the summaries of sharded runs (tool/campaign.h): everything
// that decides which histories run and what they find (target, shape or workload, histories,
// seed, scheduling, limits, and `scheduler`, what run_detection says ran), not --jobs.
nlohmann::json detection_campaign(const targets::Target& target,
                                  const detect::DriverOptions& options,
                                  const std::string& scheduler);

}  // namespace linfault::tool

#endif  // LINFAULT_TOOL_DETECTION_OPTIONS_H_
