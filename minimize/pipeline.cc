#include "minimize/pipeline.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iomanip>
#include <iterator>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "detect/checker.h"
#include "dpct/executor.h"
#include "dpct/exhaustive.h"
#include "dpct/replay_scheduler.h"
#include "dpct/schedule.h"
#include "history/atomic_file.h"
#include "history/json_format.h"
#include "minimize/gtest_emitter.h"
#include "minimize/interleaving.h"
#include "structure_tree/dpct_estimator.h"
#include "structure_tree/embedded.h"
#include "structure_trees/linfault_targets.h"
#include "targets/serial_spec.h"

namespace linfault::minimize {

detect::StepEstimatorFactory tree_step_estimators() {
  // The built-in targets are a static archive whose registration object nothing references, so
  // their trees are registered here; a user's linfault_add_target() library registers its own.
  static const bool builtin_registered = structure_tree::register_embedded_trees(
      "linfault_targets", structure_tree::embedded::linfault_targets());
  (void)builtin_registered;
  std::shared_ptr<const structure_tree::TreeSet> trees = structure_tree::embedded_trees();
  if (!trees || trees->operations.empty()) return {};
  return [trees](const targets::Target&) {
    return std::make_unique<structure_tree::TreeStepEstimator>(
        trees, structure_tree::TreeEstimatorOptions{});
  };
}

std::uint64_t first_failure_batch(unsigned jobs) { return std::max<std::uint64_t>(8, 4ull * jobs); }

FirstFailure detect_first_failure(const targets::Target& target, detect::DriverOptions options,
                                  std::uint64_t histories, double seconds,
                                  const detect::ProgressCallback& progress) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  FirstFailure f;
  const std::uint64_t batch = first_failure_batch(options.jobs);
  // Each batch is a campaign of its own, and the search ends at the first failure: there is no
  // violation for a portfolio to learn from, and a learning one would draw members that depend on
  // the batch size (--jobs). Fixed shares keep every history's member a function of its seed and of
  // its index in the search (histories_before: the portfolio's opening).
  options.portfolio_learning = false;
  const std::uint64_t shard = options.shard_index;
  const std::uint64_t shards = options.shard_count;
  const std::uint64_t shard_histories = detect::shard_size(histories, shard, shards);
  std::uint64_t begun = 0;  // global index of the next batch's first history
  for (std::uint64_t b = 0; begun < histories && !f.failing; ++b, begun += options.histories) {
    if (seconds > 0 && elapsed() >= seconds) {
      f.time_budget_hit = true;
      break;
    }
    options.histories_before = begun;
    options.histories = std::min(batch, histories - begun);
    // History j of the batch is history begun + j of the campaign.
    options.shard_index = (shard + shards - begun % shards) % shards;
    const std::uint64_t done_before = f.histories;
    const std::uint64_t violations_before = f.violations;
    const detect::DetectionReport report =
        detect::run_detection(target, options, [&](const detect::Progress& p) {
          if (!progress) return;
          detect::Progress total = p;
          total.done += done_before;
          total.total = shard_histories;
          total.violations += violations_before;
          total.elapsed_seconds = elapsed();
          progress(total);
        });
    if (b == 0) f.scheduler = report.scheduler;  // every batch runs the same pilot runs
    f.histories += report.histories;
    f.violations += report.violations;
    f.without_shared_access += report.without_shared_access;
    std::vector<std::string> merged;
    std::set_union(f.weak_order_sites.begin(), f.weak_order_sites.end(),
                   report.weak_order_sites.begin(), report.weak_order_sites.end(),
                   std::back_inserter(merged));
    f.weak_order_sites = std::move(merged);
    f.total_ms += report.avg_ms * static_cast<double>(report.histories);
    for (const detect::SavedRun* run : report.failing_runs()) {
      // A violation first; a deadlock, livelock or crash only when there is none.
      if (run->verdict.result == detect::Result::kViolation) {
        f.failing = *run;
        break;
      }
      if (run->outcome != dpct::RunOutcome::kOk && !f.failing) f.failing = *run;
    }
    if (f.failing) f.failing_batch = b;
  }
  f.wall_seconds = elapsed();
  return f;
}

std::size_t pc_operations(const TargetMinimization& m) {
  std::size_t n = 0;
  for (const auto& thread : m.workload.threads) n += thread.size();
  return n;
}

nlohmann::json minimization_to_json(const TargetMinimization& m, std::string_view tool) {
  TestCase test_case = m.test_case;
  if (!tool.empty()) test_case.tool = std::string(tool);
  nlohmann::json out = test_case_to_json(test_case);
  out["minimization"] = {
      {"original_operations", m.original_operations},
      {"prefix_events", m.prefix_events},
      {"pc_operations", pc_operations(m)},
      {"candidates", m.candidates},
      {"executions", m.executions},
      {"localize_ms", m.localize_ms},
      {"elapsed_ms", m.elapsed_ms},
      {"timed_out", m.timed_out},
      {"cut_by_time", m.cut_by_time},
      {"failing_schedule_exhaustive", m.proof.failing_schedule_exhaustive},
      {"simplest_schedule", m.proof.simplest_schedule},
      {"schedule_preemptions", m.proof.schedule_preemptions
                                   ? nlohmann::json(*m.proof.schedule_preemptions)
                                   : nlohmann::json(nullptr)},
      {"schedule_context_switches", m.proof.schedule_context_switches},
      {"minimal_exhaustive", m.proof.minimal_exhaustive},
      {"preemption_bound", m.proof.preemption_bound ? nlohmann::json(*m.proof.preemption_bound)
                                                    : nlohmann::json(nullptr)},
      {"log", m.log}};
  return out;
}

void print_minimization(std::ostream& out, const TargetMinimization& m, bool compact) {
  out << test_case_to_text(m.test_case);
  InterleavingOptions layout;
  if (m.verdict.result == detect::Result::kViolation) layout.culprit = m.verdict.culprit;
  if (m.verdict.unsynchronized) layout.source = m.verdict.source;
  layout.compact = compact;
  layout.max_width = 120;
  out << "\nfailing interleaving:\n"
      << format_interleaving(m.workload, m.failing_run, layout) << "\n";
  out << "schedule: " << m.test_case.schedule.value_or("") << "\n";
  out << std::fixed << std::setprecision(1) << "minimized: " << m.original_operations
      << " operations -> " << m.workload.setup.size() << " + " << pc_operations(m) << " + "
      << m.workload.reveal.size() << " (Ps + Pc + Pr) in " << m.elapsed_ms << " ms ("
      << "localization " << m.localize_ms << " ms), " << m.candidates << " candidates, "
      << m.executions << " executions";
  if (m.cut_by_time > 0) {
    out << "; " << m.cut_by_time
        << " searches cut by time (a slower or faster machine may report other counts)";
  }
  out << "\n";
}

namespace {

// Why `run` shows a bug, or nullopt. Livelocks count only when `livelock_counts`.
std::optional<std::string> failure_of(const targets::Target& target, const dpct::Run& run,
                                      bool livelock_counts, double check_timeout,
                                      detect::Verdict* verdict_out) {
  // A model that knows blocking (the serial specification) judges a stuck run by Line-Up's rule.
  const bool judged_stuck =
      dpct::ended_stuck(run.outcome) && detect::model_tells_blocking(target.model);
  switch (run.outcome) {
    case dpct::RunOutcome::kDeadlock:
      if (judged_stuck) break;
      [[fallthrough]];
    case dpct::RunOutcome::kCrash:
      return std::string(dpct::run_outcome_name(run.outcome)) + ": " + run.message;
    case dpct::RunOutcome::kLivelock:
      if (livelock_counts) return "livelock: " + run.message;
      return std::nullopt;
    case dpct::RunOutcome::kOk:
      break;
  }
  detect::CheckOptions check;
  check.timeout_seconds = check_timeout;
  check.threads = 1;
  check.stuck = judged_stuck;
  detect::Verdict verdict = detect::check_history(target.model, run.history, check);
  if (verdict.result != detect::Result::kViolation) return std::nullopt;
  std::string why = violation_reason(run, verdict);
  if (verdict_out) *verdict_out = std::move(verdict);
  return why;
}

// What the minimized test case shows, after the target's name: a crash or a deadlock is not a
// history that no order explains, and a user reading "not linearizable" would look for one.
std::string failure_headline(const TargetMinimization& m) {
  if (m.verdict.result == detect::Result::kViolation) {
    if (m.verdict.unsynchronized) {
      return "does not synchronize (an element is taken without happens-before from where it "
             "was put in)";
    }
    return m.verdict.stuck ? "is not linearizable (an operation never returns)"
                           : "is not linearizable";
  }
  switch (m.failing_run.outcome) {
    case dpct::RunOutcome::kCrash:
      return "crashes (an operation throws)";
    case dpct::RunOutcome::kDeadlock:
      return "deadlocks";
    case dpct::RunOutcome::kLivelock:
      return "does not terminate (livelock)";
    case dpct::RunOutcome::kOk:
      break;
  }
  return "fails";
}

std::string render_failure(const dpct::Workload& workload, const dpct::Run& run,
                           const detect::Verdict& verdict) {
  InterleavingOptions layout;
  if (verdict.result == detect::Result::kViolation) layout.culprit = verdict.culprit;
  if (verdict.unsynchronized) layout.source = verdict.source;
  layout.max_width = 120;
  return format_interleaving(workload, run, layout);
}

}  // namespace

ReproVerdict verify_test_case(const targets::Target& target, const dpct::Workload& workload,
                              std::string_view schedule_text, std::uint64_t max_steps,
                              const ReproOptions& options) {
  ReproVerdict v;
  const dpct::Schedule schedule = dpct::Schedule::from_text(schedule_text);
  dpct::Executor executor;
  dpct::ExecutionOptions execution;
  execution.max_steps = max_steps;
  execution.record_trace = true;

  // 1. The recorded schedule, its thread choices followed even where the places moved.
  dpct::ReplayScheduler replay(schedule, dpct::ReplayMode::kLenient);
  const dpct::Run replayed = executor.execute(target.factory, workload, replay, execution);
  v.replay_exact = replay.divergences() == 0;
  detect::Verdict verdict;
  // A livelock is the bug only when the recorded run is reproduced exactly.
  if (auto why =
          failure_of(target, replayed, v.replay_exact, options.check_timeout_seconds, &verdict)) {
    v.failed = true;
    v.replay_failed = true;
    v.summary = std::string("the recorded schedule ") +
                (v.replay_exact ? "replays exactly" : "replays with its places moved") +
                " and fails: " + *why;
    v.details = render_failure(workload, replayed, verdict);
    return v;
  }

  // 2. Every interleaving of Pc (within the budget, then within the preemption bound).
  dpct::ExhaustiveOptions explore;
  explore.memory_model = schedule.memory_model;  // a weak test case's reads are enumerated too
  explore.max_executions = options.max_executions;
  explore.execution.max_steps = max_steps;
  explore.execution.record_points = false;
  std::optional<std::string> found_why;
  const auto stop = [&](const dpct::Run& run) {
    found_why = failure_of(target, run, false, options.check_timeout_seconds, nullptr);
    if (run.outcome == dpct::RunOutcome::kLivelock) ++v.livelocks;
    return found_why.has_value();
  };
  dpct::ExhaustiveResult result =
      dpct::explore_exhaustively(executor, target.factory, workload, explore, stop);
  v.explored = result.executions + result.redundant;
  if (!result.found && !result.exhausted) {
    explore.max_preemptions = options.preemption_bound;
    v.bound = options.preemption_bound;
    result = dpct::explore_exhaustively(executor, target.factory, workload, explore, stop);
    v.explored += result.executions + result.redundant;
  }
  v.exhausted = result.exhausted;
  const std::string space =
      v.bound ? "interleavings with at most " + std::to_string(*v.bound) + " preemptions"
              : std::string("interleavings");
  if (result.found) {
    v.failed = true;
    // Re-run the failing interleaving with its trace, to show it.
    dpct::ReplayScheduler again(result.found->schedule, dpct::ReplayMode::kLenient);
    const dpct::Run traced = executor.execute(target.factory, workload, again, execution);
    detect::Verdict traced_verdict;
    const auto traced_why =
        failure_of(target, traced, true, options.check_timeout_seconds, &traced_verdict);
    v.summary = std::string("the recorded schedule ") +
                (v.replay_exact ? "no longer fails" : "no longer applies") + "; exploring " +
                space + " found a failing one after " + std::to_string(v.explored) +
                " executions: " + found_why.value_or(traced_why.value_or("failing outcome"));
    v.details = render_failure(workload, traced, traced_verdict);
    return v;
  }
  std::ostringstream summary;
  summary << "no failure: the recorded schedule "
          << (v.replay_exact ? "replays" : "no longer applies") << " and passes, and " << v.explored
          << " executions "
          << (v.exhausted ? "covered every one of Pc's " + space
                          : "did not cover all of Pc's " + space + " (budget reached)");
  if (v.livelocks > 0) {
    summary << "; " << v.livelocks << " runs reached the step cap (a waiting thread starved by "
            << "the explorer) and were not counted";
  }
  v.summary = summary.str();
  return v;
}

std::size_t CheckResult::concurrent_operations() const {
  return minimization ? pc_operations(*minimization) : 0;
}

namespace {

std::string join_path(const std::string& dir, const std::string& file) {
  return (std::filesystem::path(dir) / file).string();
}

}  // namespace

CheckResult check_target(const targets::Target& given, const CheckOptions& options) {
  if (options.spec != "model" && options.spec != "serial") {
    throw std::invalid_argument("unknown spec '" + options.spec + "' (model or serial)");
  }
  const std::optional<targets::Target> serial =
      options.spec == "serial" ? std::optional(targets::with_serial_spec(given)) : std::nullopt;
  const targets::Target& target = serial ? *serial : given;
  const std::optional<detect::SchedulerKind> kind = detect::parse_scheduler_kind(options.scheduler);
  if (!kind) {
    throw std::invalid_argument("unknown scheduler '" + options.scheduler + "' (" +
                                detect::controlled_scheduler_names(true) + ")");
  }
  if (*kind == detect::SchedulerKind::kNative) {
    throw std::invalid_argument("the native scheduler has no schedule to minimize from: use " +
                                detect::controlled_scheduler_names(true));
  }
  detect::DriverOptions driver;
  if (!options.memory_model.empty()) {
    driver.memory_model = dpct::parse_memory_model(options.memory_model);
    if (!driver.memory_model) {
      throw std::invalid_argument("unknown memory model '" + options.memory_model +
                                  "' (sc or c11)");
    }
  }
  driver.threads = options.threads;
  driver.ops_per_thread = options.ops;
  driver.scheduler = *kind;
  driver.epoch_operations = options.threads;
  driver.seed = options.seed;
  driver.jobs = std::max(1u, options.jobs);
  driver.check_timeout_seconds = 10;
  if (*kind == detect::SchedulerKind::kDpct || *kind == detect::SchedulerKind::kSurw ||
      *kind == detect::SchedulerKind::kPortfolio) {
    driver.step_estimator = tree_step_estimators();
  }

  CheckResult result;
  result.target = target.name;
  result.seed = options.seed;
  const auto say = [&](const std::string& line) {
    if (options.progress) options.progress(line);
  };
  const FirstFailure f = detect_first_failure(
      target, driver, options.histories, options.seconds, [&](const detect::Progress& p) {
        if (options.progress && (p.done % 100 == 0 || p.done == p.total)) {
          say("detect: " + std::to_string(p.done) + "/" + std::to_string(p.total) + " histories, " +
              std::to_string(p.violations) + " non-linearizable");
        }
      });
  result.histories = f.histories;
  result.scheduler = f.scheduler;
  result.seconds = f.wall_seconds;
  result.time_budget_hit = f.time_budget_hit;

  std::ostringstream report;
  report << std::fixed << std::setprecision(2);
  const std::string shape =
      std::to_string(options.threads) + " threads x " + std::to_string(options.ops) + " operations";
  if (!f.failing) {
    report << target.name << " (model " << target.model << "): no violation in " << f.histories
           << " histories of " << shape << " (" << f.scheduler << ", seed " << options.seed << ", "
           << f.wall_seconds << " s" << (f.time_budget_hit ? ", stopped by the time budget" : "")
           << ")";
    result.warning = detect::no_interleaving_warning(target, f.histories, f.without_shared_access);
    if (!result.warning.empty()) report << "\nwarning: " << result.warning;
    result.note = detect::weak_order_note(target, f.weak_order_sites);
    if (!result.note.empty()) report << "\nnote: " << result.note;
    result.report = report.str();
    return result;
  }

  result.violation = true;
  result.failing_seed = f.failing->seed;
  TargetMinimizerOptions minimizer;
  minimizer.timeout_seconds = options.minimize_seconds;
  minimizer.check.timeout_seconds = 10;
  minimizer.seed = options.seed;
  minimizer.memory_model = driver.memory_model;
  minimizer.step_estimator = tree_step_estimators();
  minimizer.progress = [&](const std::string& line) { say("minimize: " + line); };
  result.minimization = minimize_saved_run(target, *f.failing, minimizer);
  const TargetMinimization& m = *result.minimization;

  if (!options.output_dir.empty()) {
    std::error_code error;
    std::filesystem::create_directories(options.output_dir, error);
    if (error) {
      throw std::runtime_error(options.output_dir + ": cannot create: " + error.message());
    }
    result.failing_run_path = join_path(
        options.output_dir, target.name + "-" + std::to_string(f.failing->seed) + ".json");
    detect::write_saved_run(*f.failing, result.failing_run_path);
    result.testcase_path = join_path(options.output_dir, "testcase.json");
    history::write_file_atomically(
        result.testcase_path, history::json_text(minimization_to_json(m, options.tool), 2) + "\n");
    result.repro_path = join_path(options.output_dir, target.name + "_repro_test.cc");
    history::write_file_atomically(result.repro_path, emit_gtest(m.test_case));
  }

  report << target.name << " (model " << target.model << ") " << failure_headline(m)
         << ": history seed " << f.failing->seed << " of " << f.histories << " (" << shape << ", "
         << f.scheduler << ") failed; minimized to " << m.workload.setup.size() << " + "
         << pc_operations(m) << " + " << m.workload.reveal.size()
         << " operations (Ps + Pc + Pr):\n\n";
  print_minimization(report, m, /*compact=*/false);
  report << "\nreproduce: the campaign used seed " << options.seed
         << " (set LINFAULT_SEED to override it)";
  if (!result.testcase_path.empty()) {
    const std::string tool = !options.tool.empty()                 ? options.tool
                             : targets::is_registered(target.name) ? "<your linfault_add_tool tool>"
                                                                   : "linfault";
    report << "\ntest case: " << result.testcase_path << " (re-execute it with `" << tool
           << " replay " << result.testcase_path << "`)"
           << "\nrepro:     " << result.repro_path
           << " (a GoogleTest that fails while the bug is there; build it with\n"
           << "           linfault_add_test(NAME SOURCES "
           << std::filesystem::absolute(result.repro_path).lexically_normal().string()
           << " TARGETS <your linfault_add_target library>))";
  }
  result.report = report.str();
  return result;
}

}  // namespace linfault::minimize
