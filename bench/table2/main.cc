// Reproduces Table II of the CGVT paper (../shared/seeds/002_521e6b1992152e4f.txt): for each
// object, detection under the three versions B (native stress), D (D-PCT) and H (D-PCT with the
// one-operation-per-thread rounds), plus D/1 (D-PCT with one PCT plan per history, as the paper
// has it; D redraws the plan every 2 operations), with the paper's history sizes and counts,
// then localization
// and minimization of the first failing history of each version. The paper's figures are printed
// beside ours. A second table runs every control for many executions.
//
//   bench_table2 [--quick] [--controls N] [--object NAME]... [--jobs J] [--keys MAX|target]
//                [--write-bias P] [--native-noise on|off] [--versions BDHdPW]
//                [--histories N] [--seed S] [--epoch E] [--depth D] [--scheduler S] [--no-minimize]
//                [--window-pauses mixed|act|inside]
//
// Set keys are drawn from the targets' own range (0..4) by default; `--keys 99` draws them from
// 0..99 as in the paper (which lowers the set targets' detection rates: README.md).
// `--write-bias P` sets D's and H's write bias (detect --write-bias); D/1 always runs plain D-PCT.
// `--native-noise off` runs B at full speed (detect --native-noise); `--versions B` runs only B
// (letters B, D, H and d for D/1, P for P). P is linfault's own default beside the paper's
// versions: the portfolio scheduler over mixed even and split shapes (detect --scheduler
// portfolio --shapes mixed); B, D, H and D/1 run the paper's even 2 x M histories. P is compared
// with the paper's D. W is the window scheduler (dpct/window_scheduler.h) on the paper's even
// histories, also compared with the paper's D; `--window-pauses` sets where its operations pause
// (detect --window-pauses, default inside).
//
// For experiments: --histories and --seed replace each row's count and seed 1, --epoch and
// --depth D's and H's PCT epoch (2) and depth (3), --scheduler runs D and H under another
// scheduler, and --no-minimize skips the minimization.
//
// Columns per version: non-linearizable/total (paper), average ms per history (paper), |Pc| of
// the minimized test case (paper's t_c.P_c size), localization time (H_p(b) and OpOrder) and the
// whole minimization (CHECKs and the enumeration that proves minimality), against the paper's
// localization time cost.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "detect/driver.h"
#include "minimize/pipeline.h"
#include "minimize/target_minimizer.h"
#include "targets/registry.h"
#include "tool/detection_options.h"

namespace {

namespace dpct = linfault::dpct;
namespace detect = linfault::detect;
namespace minimize = linfault::minimize;
namespace targets = linfault::targets;

// One version's figures in the paper; -1 where the paper prints "-".
struct PaperCell {
  int violations;
  double avg_ms;
  int pc_size;
  double localization_ms;
};

struct Row {
  const char* paper_object;  // as the paper names it; "" for objects not in Table II
  const char* target;
  std::vector<std::string> methods;  // the paper's operation mix
  std::size_t ops_per_thread;
  std::uint64_t histories;
  PaperCell paper[3];  // B, D, H
};

const std::vector<Row>& rows() {
  static const std::vector<Row> all = {
      {"LFList",
       "lf_list_buggy",
       {"add", "remove"},
       500,
       20,
       {{5, 643, 2, 154}, {2, 611, 2, 233}, {8, 237, 2, 207}}},
      {"CGList",
       "simple_list_buggy",
       {"add", "contains"},
       50,
       20,
       {{20, 33, 2, 51}, {20, 24, 2, 256}, {20, 23, 2, 219}}},
      {"CGList+size",
       "unsafe_size_list",
       {"add", "remove", "size"},
       500,
       80,
       {{0, 660, -1, -1}, {3, 682, 4, 756}, {1, 483, 3, 832}}},
      {"BUList1",
       "bu_list1",
       {"add", "remove"},
       500,
       20,
       {{7, 488, 2, 162}, {5, 704, 2, 245}, {5, 532, 2, 311}}},
      {"BUList2",
       "bu_list2",
       {"add", "remove"},
       50,
       20,
       {{18, 31, 2, 83}, {20, 35, 2, 365}, {20, 28, 2, 247}}},
      {"BUList3",
       "bu_list3",
       {"add", "remove"},
       500,
       80,
       {{0, 625, -1, -1}, {2, 603, 2, 326}, {3, 524, 2, 335}}},
      {"OPQueue",
       "optimistic_queue_buggy",
       {"offer", "poll"},
       500,
       20,
       {{4, 2430, 2, 378}, {19, 1412, 3, 796}, {16, 832, 2, 683}}},
      {"BUQueue",
       "ms_queue_nocheck",
       {"enq", "deq"},
       200,
       80,
       {{0, 288, -1, -1}, {0, 726, -1, -1}, {0, 230, -1, -1}}},
      {"KStack",
       "k_stack_buggy",
       {"push", "pop"},
       50,
       20,
       {{10, 83, 2, 2323}, {18, 30, 3, 864}, {15, 62, 3, 831}}},
      {"TBStack",
       "treiber_stack_buggy",
       {"push", "pop"},
       100,
       20,
       {{19, 72, 2, 1596}, {20, 124, 2, 532}, {20, 60, 2, 356}}},
      {"", "bu_list4", {"add", "remove", "contains"}, 500, 20, {}},
      {"", "snark_deque", {}, 50, 20, {}},
      {"", "pair_snapshot", {}, 1000, 20, {}},
  };
  return all;
}

struct Settings {
  bool quick = false;
  std::uint64_t control_executions = 100'000;
  std::vector<std::string> only;
  unsigned jobs = 1;
  std::int64_t max_key = -1;                                       // -1: the targets' own key range
  double write_bias = detect::kDefaultWriteBias;                   // D and H; D/1 is plain D-PCT
  bool native_noise = true;                                        // B: detect --native-noise
  dpct::WindowPauses window_pauses = dpct::WindowPauses::kInside;  // W: detect --window-pauses
  std::string versions = "BDHdPW";  // which to run: B, D, H, d (= D/1), P (portfolio), W (window)
  // Experiments: 0 = the row's own figure / the default.
  std::uint64_t histories = 0;
  std::uint64_t seed = 1;
  std::uint64_t epoch = 2;  // D and H
  unsigned depth = 3;       // D, H and D/1
  bool minimize = true;
  std::optional<detect::SchedulerKind> d_scheduler;  // D and H: instead of dpct
};

struct Cell {
  bool refused = false;
  std::string note;
  std::uint64_t histories = 0;
  std::uint64_t violations = 0;
  double avg_ms = 0;
  std::optional<std::size_t> pc_size;
  std::string shape;
  double localize_ms = 0;
  double minimize_ms = 0;
  bool minimal_exhaustive = false;
};

targets::Target with_methods(const targets::Target& target, const std::vector<std::string>& m) {
  if (m.empty()) return target;
  targets::Target out = target;
  out.operations.clear();
  for (const targets::OperationSpec& op : target.operations) {
    if (std::find(m.begin(), m.end(), op.method) != m.end()) out.operations.push_back(op);
  }
  return out;
}

// The benchmark's convention (../shared/docs/benchmark-objects.md): keys in 0..max_key (99 in
// the paper) instead of the targets' own small range, which a long history fills in a few
// operations.
targets::Target with_keys(const targets::Target& target, std::int64_t max_key) {
  if (target.model != "set" || max_key < 0) return target;
  targets::Target out = target;
  for (targets::OperationSpec& op : out.operations) {
    if (op.method == "add" || op.method == "remove" || op.method == "contains") {
      op.arguments = targets::key_in(0, max_key);
      op.signature = op.method + "(key 0.." + std::to_string(max_key) + ") -> bool";
    }
  }
  return out;
}

Cell run_version(const targets::Target& target, const Row& row, int version,
                 const Settings& settings) {
  Cell cell;
  detect::DriverOptions options;
  options.threads = 2;
  options.ops_per_thread =
      settings.quick ? std::min<std::size_t>(row.ops_per_thread, 50) : row.ops_per_thread;
  options.histories = settings.quick ? std::min<std::uint64_t>(row.histories, 10) : row.histories;
  if (settings.histories > 0) options.histories = settings.histories;
  options.seed = settings.seed;
  options.depth = settings.depth;
  options.jobs = settings.jobs;
  options.check_timeout_seconds = 30;
  options.scheduler = version == 0   ? detect::SchedulerKind::kNative
                      : version == 4 ? detect::SchedulerKind::kPortfolio
                      : version == 5 ? detect::SchedulerKind::kWindow
                                     : detect::SchedulerKind::kDpct;
  if (settings.d_scheduler && (version == 1 || version == 2))
    options.scheduler = *settings.d_scheduler;
  options.shapes = version == 4 ? detect::ShapeMix::kMixed : detect::ShapeMix::kEven;
  options.native_noise = settings.native_noise;
  options.heuristic = version == 2;
  // D and H redraw the PCT plan every 2 operations (linfault's default, `--epoch auto`); D/1 is
  // the paper's D-PCT with one plan per history.
  options.epoch_operations = version == 3 ? 0 : settings.epoch;
  options.write_bias = version == 3 ? 0 : settings.write_bias;
  if (version == 5) options.window_pauses = settings.window_pauses;
  if (version != 0) options.step_estimator = linfault::minimize::tree_step_estimators();
  detect::DetectionReport report;
  try {
    report = detect::run_detection(target, options);
  } catch (const std::invalid_argument& e) {
    cell.refused = true;
    cell.note = e.what();
    return cell;
  }
  cell.histories = report.histories;
  cell.violations = report.violations;
  cell.avg_ms = report.avg_ms;
  for (const detect::SavedRun* run : report.failing_runs()) {
    if (!settings.minimize) break;
    if (run->verdict.result != detect::Result::kViolation) continue;
    minimize::TargetMinimizerOptions m_options;
    m_options.timeout_seconds = 60;
    m_options.step_estimator = linfault::minimize::tree_step_estimators();
    try {
      const minimize::TargetMinimization m = minimize::minimize_saved_run(target, *run, m_options);
      std::size_t pc = 0;
      for (const auto& t : m.workload.threads) {
        pc += t.size();
        cell.shape += (cell.shape.empty() ? "" : "|") + std::to_string(t.size());
      }
      cell.pc_size = pc;
      cell.localize_ms = m.localize_ms;
      cell.minimize_ms = m.elapsed_ms;
      cell.minimal_exhaustive = m.proof.minimal_exhaustive;
    } catch (const std::invalid_argument& e) {
      cell.note = e.what();
    }
    break;
  }
  return cell;
}

// The paper's figures of version v (D/1 is compared with the paper's D).
int paper_version(int v) { return v >= 3 ? 1 : v; }

std::string paper_violations(const Row& row, int v) {
  if (!*row.paper_object) return "";
  v = paper_version(v);
  return " (" + std::to_string(row.paper[v].violations) + "/" + std::to_string(row.histories) + ")";
}

void print_cell(const Row& row, int version, const Cell& c) {
  const int v = paper_version(version);
  const char* names[] = {"B", "D", "H", "D/1", "P", "W"};
  char line[512];
  if (c.refused) {
    std::printf("| %-22s | %s | refused: %s |\n", row.target, names[version], c.note.c_str());
    return;
  }
  const bool in_paper = *row.paper_object != 0;
  std::string avg = std::to_string(static_cast<int>(c.avg_ms + 0.5));
  if (c.avg_ms < 10) {
    char b[32];
    std::snprintf(b, sizeof b, "%.2f", c.avg_ms);
    avg = b;
  }
  if (in_paper) avg += " (" + std::to_string(static_cast<int>(row.paper[v].avg_ms)) + ")";
  std::string pc = c.pc_size ? std::to_string(*c.pc_size) + " [" + c.shape + "]" : "-";
  if (in_paper) {
    pc += " (" +
          (row.paper[v].pc_size < 0 ? std::string("-") : std::to_string(row.paper[v].pc_size)) +
          ")";
  }
  std::string loc = "-";
  if (c.pc_size) {
    char b[96];
    std::snprintf(b, sizeof b, "%.2f / %.0f%s", c.localize_ms, c.minimize_ms,
                  c.minimal_exhaustive ? "" : " (not proven)");
    loc = b;
  }
  if (in_paper) {
    loc += " (" +
           (row.paper[v].localization_ms < 0
                ? std::string("-")
                : std::to_string(static_cast<int>(row.paper[v].localization_ms))) +
           ")";
  }
  std::snprintf(line, sizeof line, "| %-22s | %s | %llu/%llu%s | %s | %s | %s |%s\n", row.target,
                names[version], static_cast<unsigned long long>(c.violations),
                static_cast<unsigned long long>(c.histories),
                paper_violations(row, version).c_str(), avg.c_str(), pc.c_str(), loc.c_str(),
                c.note.empty() ? "" : (" " + c.note).c_str());
  std::fputs(line, stdout);
  std::fflush(stdout);
}

void run_controls(const Settings& settings) {
  std::printf("\nControls: %llu executions each (2 threads x 5 operations, D-PCT, seeds 1..)\n\n",
              static_cast<unsigned long long>(settings.control_executions));
  std::printf("| control | executions | violations | deadlock/livelock/crash | ms per history |\n");
  std::printf("|---|---|---|---|---|\n");
  for (const targets::Target& target : targets::all()) {
    if (target.bug_expected) continue;
    if (!settings.only.empty() &&
        std::find(settings.only.begin(), settings.only.end(), target.name) == settings.only.end()) {
      continue;
    }
    detect::DriverOptions options;
    options.threads = 2;
    options.ops_per_thread = 5;
    options.histories = settings.control_executions;
    options.scheduler = detect::SchedulerKind::kDpct;
    options.step_estimator = linfault::minimize::tree_step_estimators();
    options.jobs = settings.jobs;
    const detect::DetectionReport report = detect::run_detection(target, options);
    std::printf("| %s | %llu | %llu | %llu/%llu/%llu | %.3f |\n", target.name.c_str(),
                static_cast<unsigned long long>(report.histories),
                static_cast<unsigned long long>(report.violations),
                static_cast<unsigned long long>(report.outcomes[1]),
                static_cast<unsigned long long>(report.outcomes[2]),
                static_cast<unsigned long long>(report.outcomes[3]), report.avg_ms);
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Settings settings;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--quick") {
      settings.quick = true;
      settings.control_executions = 2000;
    } else if (arg == "--controls" && i + 1 < argc) {
      settings.control_executions = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--object" && i + 1 < argc) {
      settings.only.push_back(argv[++i]);
    } else if (arg == "--jobs" && i + 1 < argc) {
      settings.jobs = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 10));
    } else if (arg == "--write-bias" && i + 1 < argc) {
      settings.write_bias = std::strtod(argv[++i], nullptr);
    } else if (arg == "--native-noise" && i + 1 < argc) {
      settings.native_noise = std::string(argv[++i]) != "off";
    } else if (arg == "--versions" && i + 1 < argc) {
      settings.versions = argv[++i];
    } else if (arg == "--histories" && i + 1 < argc) {
      settings.histories = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--seed" && i + 1 < argc) {
      settings.seed = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--epoch" && i + 1 < argc) {
      settings.epoch = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--depth" && i + 1 < argc) {
      settings.depth = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 10));
    } else if (arg == "--no-minimize") {
      settings.minimize = false;
    } else if (arg == "--scheduler" && i + 1 < argc) {
      settings.d_scheduler = detect::parse_scheduler_kind(argv[++i]);
      if (!settings.d_scheduler) {
        std::fprintf(stderr, "bench_table2: unknown scheduler '%s'\n", argv[i]);
        return 64;
      }
    } else if (arg == "--window-pauses" && i + 1 < argc) {
      const std::optional<dpct::WindowPauses> pauses = dpct::parse_window_pauses(argv[++i]);
      if (!pauses) {
        std::fprintf(stderr, "bench_table2: --window-pauses: expected mixed, act or inside\n");
        return 64;
      }
      settings.window_pauses = *pauses;
    } else if (arg == "--keys" && i + 1 < argc) {
      const std::string keys = argv[++i];
      settings.max_key = keys == "target" ? -1 : std::strtoll(keys.c_str(), nullptr, 10);
    } else {
      std::fprintf(stderr,
                   "usage: bench_table2 [--quick] [--controls N] [--object TARGET]... [--jobs J]"
                   " [--keys MAX|target] [--write-bias P] [--native-noise on|off]"
                   " [--versions BDHdPW] [--histories N] [--seed S] [--epoch E] [--depth D]"
                   " [--scheduler S] [--no-minimize] [--window-pauses mixed|act|inside]\n");
      return 64;
    }
  }
  std::printf(
      "Table II, ours (paper's figures in parentheses). Versions: B = native stress, D = D-PCT\n"
      "(plan redrawn every 2 operations, write bias %g), H = D with the heuristic's rounds, D/1 =\n"
      "plain D-PCT with one plan per history as in the paper (compared with the paper's D), P =\n"
      "the portfolio over mixed shapes, W = the window scheduler (both compared with the paper's "
      "D).\n"
      "Histories of 2 threads x M operations, seed 1.\n"
      "Localization: H_p(b) + OpOrder ms / whole minimization ms (with the enumeration proving\n"
      "minimality), against the paper's localization time cost.\n",
      settings.write_bias);
  if (settings.histories > 0 || settings.seed != 1 || settings.epoch != 2 || settings.depth != 3 ||
      settings.d_scheduler || !settings.minimize) {
    std::printf(
        "Experiment settings: histories %s, seed %llu, D/H epoch %llu and depth %u, D/H scheduler "
        "%s%s.\n",
        settings.histories > 0 ? std::to_string(settings.histories).c_str() : "per row",
        static_cast<unsigned long long>(settings.seed),
        static_cast<unsigned long long>(settings.epoch), settings.depth,
        settings.d_scheduler ? detect::scheduler_kind_name(*settings.d_scheduler) : "dpct",
        settings.minimize ? "" : ", no minimization");
  }
  if (settings.window_pauses != dpct::WindowPauses::kInside) {
    std::printf("W pauses operations: %s (detect --window-pauses).\n",
                dpct::window_pauses_name(settings.window_pauses));
  }
  if (settings.max_key >= 0) {
    std::printf("Set keys in 0..%lld (the paper: 0..99).\n\n",
                static_cast<long long>(settings.max_key));
  } else {
    std::printf("Set keys in the targets' own range (0..4).\n\n");
  }
  std::printf(
      "| target | v | non-lin./total (paper) | avg ms/history (paper) | |Pc| [shape] (paper) "
      "| localization / minimization ms (paper) |\n");
  std::printf("|---|---|---|---|---|---|\n");
  for (const Row& row : rows()) {
    if (!settings.only.empty() &&
        std::find(settings.only.begin(), settings.only.end(), row.target) == settings.only.end()) {
      continue;
    }
    const targets::Target target =
        with_keys(with_methods(targets::find(row.target), row.methods), settings.max_key);
    for (int v = 0; v < 6; ++v) {
      if (settings.versions.find("BDHdPW"[v]) == std::string::npos) continue;
      print_cell(row, v, run_version(target, row, v, settings));
    }
  }
  if (settings.control_executions > 0) run_controls(settings);
  return 0;
}
