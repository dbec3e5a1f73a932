#include "minimize/scenario_repro.h"

#include <string>

#include "detect/checker.h"
#include "dpct/exhaustive.h"

namespace linfault::minimize {
namespace {

bool fails(const dpct::Run& run, const detect::Verdict& verdict) {
  return run.outcome != dpct::RunOutcome::kOk || verdict.result == detect::Result::kViolation;
}

}  // namespace

std::optional<ScenarioRepro> scenario_repro_of_run(const targets::Target& target,
                                                   const dpct::Workload& workload, dpct::Run run,
                                                   std::uint64_t max_steps,
                                                   const std::string& guarantee) {
  detect::CheckOptions check;
  check.want_witness = false;
  check.stuck = dpct::ended_stuck(run.outcome);
  ScenarioRepro repro;
  repro.verdict = detect::check_history(target.model, run.history, check);
  if (!fails(run, repro.verdict)) return std::nullopt;
  repro.test_case = test_case_from_run(target.name, target.model, workload, run, repro.verdict,
                                       max_steps, guarantee);
  repro.run = std::move(run);
  return repro;
}

std::optional<ScenarioRepro> find_scenario_repro(const targets::Target& target,
                                                 const targets::KnownScenario& scenario,
                                                 const ScenarioSearchOptions& options) {
  dpct::ExhaustiveOptions exhaustive;
  exhaustive.max_preemptions = options.max_preemptions;
  exhaustive.memory_model = target.memory_model;
  exhaustive.max_executions = options.max_executions;
  exhaustive.execution.record_trace = true;
  exhaustive.execution.max_steps = options.max_steps;
  detect::CheckOptions check;
  check.want_witness = false;
  dpct::Executor executor;
  const dpct::ExhaustiveResult result = dpct::explore_exhaustively(
      executor, target.factory, scenario.workload, exhaustive, [&](const dpct::Run& run) {
        detect::CheckOptions this_run = check;
        this_run.stuck = dpct::ended_stuck(run.outcome);
        return fails(run, detect::check_history(target.model, run.history, this_run));
      });
  if (!result.found) return std::nullopt;
  const std::string guarantee =
      "a failing schedule of the known scenario \"" + scenario.description +
      "\", found by enumerating its interleavings with at most " +
      std::to_string(options.max_preemptions) + " preemptions" +
      (target.memory_model == dpct::MemoryModel::kC11 ? " and every read decision" : "") + " (" +
      std::to_string(result.executions) + " executions); minimality not checked";
  std::optional<ScenarioRepro> repro =
      scenario_repro_of_run(target, scenario.workload, *result.found, options.max_steps, guarantee);
  if (repro) repro->executions = result.executions;
  return repro;
}

}  // namespace linfault::minimize
