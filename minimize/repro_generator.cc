// linfault_repro_generator OUT_DIR TARGET...: writes OUT_DIR/<target>_repro_test.cc, the
// GoogleTest repro (minimize/gtest_emitter.h) of a failing run of each buggy target's first known
// scenario, and OUT_DIR/<target>_repro.violation, the violation the repro must fail with.
//
// The build runs it on the list of buggy targets written in minimize/CMakeLists.txt, compiles the
// files and checks that every repro fails (minimize/repro_driver_test.cc). It exits 1 when that
// list is not exactly the registry's buggy targets with a known scenario, so a target added to or
// removed from the registry breaks the build until the list follows.
//
// A failing schedule is searched by exhaustive enumeration under a small preemption bound; a
// scenario whose bug needs more preemptions than that uses a hand-written schedule, the way
// targets/scenarios_test.cc does.

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "dpct/executor.h"
#include "dpct/scheduler.h"
#include "dpct/scripted_scheduler.h"
#include "history/atomic_file.h"
#include "minimize/gtest_emitter.h"
#include "minimize/scenario_repro.h"
#include "targets/registry.h"

namespace linfault::minimize {
namespace {

using Segment = dpct::ScriptedScheduler::Segment;
constexpr std::uint32_t kUntilDone = dpct::ScriptedScheduler::kUntilDone;

// Scenarios whose bug is deeper than the search's preemption bound: the schedule of
// targets/scenarios_test.cc. pair_snapshot: the writer's (2,1), (2,2), (2,1), (1,1) around the
// reader's x = 1, y = 2, x2 = 1.
const std::map<std::string, std::vector<Segment>>& hand_written_schedules() {
  static const std::map<std::string, std::vector<Segment>> scripts = {
      {"pair_snapshot", {{1, 1}, {0, 2}, {1, 1}, {0, kUntilDone}, {1, kUntilDone}}},
  };
  return scripts;
}

std::optional<ScenarioRepro> repro_of(const targets::Target& target) {
  const targets::KnownScenario& scenario = target.known_scenarios.front();
  const auto script = hand_written_schedules().find(target.name);
  if (script == hand_written_schedules().end()) return find_scenario_repro(target, scenario);
  dpct::ScriptedScheduler scheduler(script->second);
  dpct::ExecutionOptions options;
  options.record_trace = true;
  options.max_steps = TestCase::kDefaultMaxSteps;
  dpct::Run run = dpct::execute(target.factory, scenario.workload, scheduler, options);
  return scenario_repro_of_run(
      target, scenario.workload, std::move(run), options.max_steps,
      "a failing schedule of the known scenario \"" + scenario.description +
          "\", written by hand (targets/scenarios_test.cc); minimality not checked");
}

// Leaves an unchanged file untouched, so the build does not recompile its repro.
void write_if_changed(const std::filesystem::path& path, const std::string& text) {
  std::ifstream in(path);
  std::stringstream old;
  old << in.rdbuf();
  if (in && old.str() == text) return;
  in.close();
  history::write_file_atomically(path, text);
}

int generate(const std::filesystem::path& out_dir, const std::set<std::string>& listed) {
  std::set<std::string> buggy;
  for (const targets::Target& target : targets::all()) {
    if (target.bug_expected && !target.known_scenarios.empty()) buggy.insert(target.name);
  }
  if (buggy != listed) {
    std::string registry, list;
    for (const std::string& name : buggy) registry += " " + name;
    for (const std::string& name : listed) list += " " + name;
    std::fprintf(stderr,
                 "linfault_repro_generator: the list of buggy targets in minimize/CMakeLists.txt "
                 "(%s ) differs from the registry's (%s ); update LINFAULT_REPRO_TARGETS\n",
                 list.c_str(), registry.c_str());
    return 1;
  }
  std::filesystem::create_directories(out_dir);
  for (const std::string& name : buggy) {
    const std::optional<ScenarioRepro> repro = repro_of(targets::find(name));
    if (!repro) {
      std::fprintf(stderr, "linfault_repro_generator: %s: no failing schedule found\n",
                   name.c_str());
      return 1;
    }
    write_if_changed(out_dir / (name + "_repro_test.cc"), emit_gtest(repro->test_case));
    write_if_changed(out_dir / (name + "_repro.violation"), repro->test_case.violation + "\n");
  }
  return 0;
}

}  // namespace
}  // namespace linfault::minimize

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: linfault_repro_generator OUT_DIR TARGET...\n");
    return 64;
  }
  try {
    return linfault::minimize::generate(argv[1], std::set<std::string>(argv + 2, argv + argc));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "linfault_repro_generator: %s\n", e.what());
    return 70;
  }
}
