// `linfault targets [NAME] [--json]`: lists the targets the tool knows (those the program
// registers, then the built-in ones; targets/registry.h) with their model, origin and whether a bug
// is expected, or shows one target's operations and known scenarios.

#include <algorithm>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "history/json_format.h"
#include "targets/registry.h"
#include "tool/commands.h"

namespace linfault::tool {
namespace {

struct TargetsArguments {
  std::string name;
  bool json = false;
};

std::string calls_text(const std::vector<history::Call>& calls) {
  std::string out;
  for (const auto& call : calls) out += (out.empty() ? "" : "; ") + call.to_string();
  return out;
}

nlohmann::json target_json(const targets::Target& target) {
  nlohmann::json operations = nlohmann::json::array();
  for (const auto& op : target.operations) operations.push_back(op.signature);
  nlohmann::json scenarios = nlohmann::json::array();
  for (const auto& scenario : target.known_scenarios) {
    nlohmann::json threads = nlohmann::json::array();
    for (const auto& thread : scenario.workload.threads) threads.push_back(calls_text(thread));
    scenarios.push_back({{"description", scenario.description},
                         {"type", scenario.type},
                         {"setup", calls_text(scenario.workload.setup)},
                         {"threads", threads},
                         {"reveal", calls_text(scenario.workload.reveal)}});
  }
  return {{"name", target.name},
          {"origin", targets::is_registered(target.name) ? "registered" : "built-in"},
          {"model", target.model},
          {"bug_expected", target.bug_expected},
          {"description", target.description},
          {"paper_name", target.paper_name},
          {"may_livelock", target.may_livelock},
          {"memory_model", dpct::memory_model_name(target.memory_model)},
          {"operations", operations},
          {"known_scenarios", scenarios}};
}

void print_table(const std::vector<const targets::Target*>& list) {
  std::size_t name_width = 4;
  std::size_t model_width = 5;
  for (const auto* target : list) {
    name_width = std::max(name_width, target->name.size());
    model_width = std::max(model_width, target->model.size());
  }
  auto row = [&](const std::string& name, const std::string& model, const std::string& bug,
                 const std::string& description) {
    std::cout << name << std::string(name_width - name.size() + 2, ' ') << model
              << std::string(model_width - model.size() + 2, ' ') << bug
              << std::string(5 - std::min<std::size_t>(bug.size(), 3), ' ') << description << "\n";
  };
  row("NAME", "MODEL", "BUG", "DESCRIPTION");
  bool registered_shown = false;
  bool weak_shown = false;
  for (const auto* target : list) {
    const bool registered = targets::is_registered(target->name);
    if (registered) registered_shown = true;
    if (!registered && registered_shown) {
      std::cout << "-- built in:\n";
      registered_shown = false;
    }
    // The built-in objects whose bugs are memory orders come last, in a group of their own.
    if (!registered && !weak_shown && target->memory_model == dpct::MemoryModel::kC11) {
      std::cout << "-- weak memory (run under the C++20 model by default: --memory-model c11; "
                   "docs/weak-memory.md):\n";
      weak_shown = true;
    }
    row(target->name, target->model, target->bug_expected ? "yes" : "no", target->description);
  }
}

void print_details(const targets::Target& target) {
  std::cout << target.name << ": " << target.description << "\n"
            << "  model:        " << target.model << "\n"
            << "  bug expected: " << (target.bug_expected ? "yes" : "no") << "\n";
  if (!target.paper_name.empty()) std::cout << "  paper name:   " << target.paper_name << "\n";
  if (target.may_livelock) std::cout << "  may livelock: yes (runs end at the step cap)\n";
  if (target.memory_model != dpct::MemoryModel::kSequential) {
    std::cout << "  memory model: " << dpct::memory_model_name(target.memory_model) << "\n";
  }
  std::cout << "  operations:\n";
  for (const auto& op : target.operations) std::cout << "    " << op.signature << "\n";
  for (const auto& scenario : target.known_scenarios) {
    std::cout << "  known scenario (type " << scenario.type << "): " << scenario.description
              << "\n    Ps: " << calls_text(scenario.workload.setup) << "\n";
    for (std::size_t t = 0; t < scenario.workload.threads.size(); ++t) {
      std::cout << "    T" << t << ": " << calls_text(scenario.workload.threads[t]) << "\n";
    }
    if (!scenario.workload.reveal.empty()) {
      std::cout << "    Pr: " << calls_text(scenario.workload.reveal) << "\n";
    }
  }
}

void run_targets(const TargetsArguments& args) {
  std::vector<const targets::Target*> list;
  if (args.name.empty()) {
    try {
      list = targets::registered();
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());  // a registration that does not hold (names its file:line)
    }
    for (const auto& target : targets::all()) list.push_back(&target);
  } else {
    list.push_back(&find_target(args.name));
  }
  if (args.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto* target : list) out.push_back(target_json(*target));
    std::cout << history::json_text(args.name.empty() ? out : out.front(), 2) << std::endl;
  } else if (args.name.empty()) {
    print_table(list);
  } else {
    print_details(*list.front());
  }
}

}  // namespace

void add_targets_command(CLI::App& app) {
  auto args = std::make_shared<TargetsArguments>();
  CLI::App* cmd = app.add_subcommand(
      "targets",
      "List the concurrent objects (targets) this tool knows, registered ones first, with their "
      "model and whether a bug is expected, or show one target's operations and known failing "
      "scenarios.");
  cmd->add_option("name", args->name, "Show this target only");
  cmd->add_flag("--json", args->json, "Print JSON instead of text");
  cmd->footer(
      "Examples:\n  linfault targets\n  linfault targets treiber_stack_buggy\n"
      "  linfault targets --json");
  cmd->callback([args] { run_targets(*args); });
}

}  // namespace linfault::tool
