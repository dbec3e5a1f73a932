// Scenario repros: a failing execution of a target's known scenario (targets/registry.h), found
// by exhaustive exploration and packaged as a strictly replayable target-level TestCase.
//
// The exploration (dpct/exhaustive.h) runs the scenario's workload under every schedule with at
// most `max_preemptions` preemptions, fewest first, and stops at the first run that fails: a
// non-linearizable history, or a deadlock, livelock or crash. The test case carries that run's
// schedule, so `linfault replay`, the interleaving report and the GoogleTest emitter reproduce it
// exactly. Used to make the repro files that test the emitter, and for demonstrations.
//
// Thread-safety: a pure function of its arguments (it uses its own executor).
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_MINIMIZE_SCENARIO_REPRO_H_
#define LINFAULT_MINIMIZE_SCENARIO_REPRO_H_

#include <cstdint>
#include <optional>

#include "detect/verdict.h"
#include "dpct/executor.h"
#include "minimize/test_case.h"
#include "targets/registry.h"

namespace linfault::minimize {

struct ScenarioSearchOptions {
  unsigned max_preemptions = 2;
  std::uint64_t max_executions = 20'000;
  std::uint64_t max_steps = TestCase::kDefaultMaxSteps;
};

struct ScenarioRepro {
  TestCase test_case;
  dpct::Run run;  // the failing run, with its access trace
  detect::Verdict verdict;
  std::uint64_t executions = 0;  // spent by the search
};

// The first failing run of `scenario` within the bounds, or nullopt when none was found.
std::optional<ScenarioRepro> find_scenario_repro(const targets::Target& target,
                                                 const targets::KnownScenario& scenario,
                                                 const ScenarioSearchOptions& options = {});

// The test case of a failing run of `workload` on `target` made by any scheduler (e.g. a
// hand-written one); nullopt when the run does not fail. `run` must be recorded with its history.
std::optional<ScenarioRepro> scenario_repro_of_run(const targets::Target& target,
                                                   const dpct::Workload& workload, dpct::Run run,
                                                   std::uint64_t max_steps,
                                                   const std::string& guarantee);

}  // namespace linfault::minimize

#endif  // LINFAULT_MINIMIZE_SCENARIO_REPRO_H_
