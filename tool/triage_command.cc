// `linfault triage FILES|DIR`: checks many histories, minimizes the failing ones in parallel and
// groups them by root cause (report/triage.h).

#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "history/json_format.h"
#include "history/value.h"
#include "minimize/pipeline.h"
#include "minimize/test_case.h"
#include "report/triage.h"
#include "spec/registry.h"
#include "tool/commands.h"
#include "tool/detection_options.h"
#include "tool/input.h"
#include "tool/progress.h"

namespace linfault::tool {
namespace {

struct TriageArguments {
  std::vector<std::string> paths;
  std::string target;
  std::string model;
  unsigned jobs = 0;
  double timeout_seconds = 60;
  bool json = false;
};

std::string indent(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  std::string out;
  for (std::string line; std::getline(in, line);) out += prefix + line + "\n";
  return out;
}

nlohmann::json entry_json(const report::TriageEntry& e) {
  return {{"file", e.file},
          {"status", report::triage_status_name(e.status)},
          {"message", e.message},
          {"operations", e.operations}};
}

nlohmann::json result_json(const report::TriageResult& r) {
  nlohmann::json groups = nlohmann::json::array();
  for (std::size_t g = 0; g < r.groups.size(); ++g) {
    const report::TriageGroup& group = r.groups[g];
    const report::TriageEntry& rep = r.entries[group.members.front()];
    nlohmann::json members = nlohmann::json::array();
    for (std::size_t i : group.members) members.push_back(r.entries[i].file);
    nlohmann::json item = {{"group", g + 1},
                           {"count", group.members.size()},
                           {"signature", group.signature},
                           {"representative", rep.file},
                           {"model", rep.model},
                           {"level", rep.level},
                           {"members", members},
                           {"test_case", minimize::test_case_to_json(*rep.test_case)}};
    if (!rep.target.empty()) item["target"] = rep.target;
    groups.push_back(std::move(item));
  }
  nlohmann::json unreadable = nlohmann::json::array();
  nlohmann::json unknown = nlohmann::json::array();
  nlohmann::json passing = nlohmann::json::array();
  for (const report::TriageEntry& e : r.entries) {
    if (e.status == report::TriageStatus::kUnreadable) unreadable.push_back(entry_json(e));
    if (e.status == report::TriageStatus::kUnknown) unknown.push_back(entry_json(e));
    if (e.status == report::TriageStatus::kPassing) passing.push_back(e.file);
  }
  return {{"linfault", "triage"},           {"inputs", r.entries.size()},
          {"passing", r.passing},           {"failing", r.failing},
          {"unknown", r.unknown},           {"unreadable", r.unreadable},
          {"elapsed_ms", r.elapsed_ms},     {"groups", groups},
          {"passing_inputs", passing},      {"unknown_inputs", unknown},
          {"unreadable_inputs", unreadable}};
}

// The summary and groups go to `out`; the inputs that could not be read to `errors`, one
// "file:line: problem" per line, like every other error.
void print_text(std::ostream& out, std::ostream& errors, const report::TriageResult& r) {
  out << r.entries.size() << " inputs: " << r.failing << " failing in " << r.groups.size()
      << (r.groups.size() == 1 ? " group" : " groups") << ", " << r.passing << " passing, "
      << r.unknown << " unknown, " << r.unreadable << " unreadable ("
      << static_cast<long long>(r.elapsed_ms) << " ms)\n";
  if (!r.groups.empty()) {
    out << "\ngroup  count  representative\n";
    for (std::size_t g = 0; g < r.groups.size(); ++g) {
      const report::TriageGroup& group = r.groups[g];
      const report::TriageEntry& rep = r.entries[group.members.front()];
      char head[64];
      std::snprintf(head, sizeof head, "%5zu  %5zu  ", g + 1, group.members.size());
      out << head << rep.file << " (" << rep.operations << " operations";
      if (!rep.target.empty()) out << ", target " << rep.target;
      out << ", " << rep.level << "-level)\n";
      out << indent(minimize::test_case_to_text(*rep.test_case), "              ");
      out << "              root cause: " << group.signature << "\n";
      if (group.members.size() > 1) {
        out << "              also:";
        for (std::size_t k = 1; k < group.members.size(); ++k) {
          out << (k > 1 ? ", " : " ") << r.entries[group.members[k]].file;
        }
        out << "\n";
      }
    }
  }
  for (const report::TriageEntry& e : r.entries) {
    if (e.status != report::TriageStatus::kUnreadable) continue;
    errors << tool_name() << " triage: " << history::printable(e.message) << "\n";
  }
  bool header = false;
  for (const report::TriageEntry& e : r.entries) {
    if (e.status != report::TriageStatus::kUnknown) continue;
    if (!header) out << "\nunknown (a limit was hit):\n";
    header = true;
    out << "  " << e.file << ": " << e.message << "\n";
  }
}

void run_triage(const TriageArguments& args) {
  // Usage errors, once, rather than the same error for every input: an unknown target or model,
  // or a model that is not the target's.
  const targets::Target* target = args.target.empty() ? nullptr : &find_target(args.target);
  if (!args.model.empty()) {
    spec::canonical_model_spec(args.model);  // a usage error for an unknown or bad spec
    if (target != nullptr && !spec::same_model(target->model, args.model)) {
      throw UsageError("--model " + args.model + " is not the model of target " + target->name +
                       " (" + target->model + ")");
    }
  }
  const std::vector<std::string> files = report::collect_inputs(args.paths);
  if (files.empty()) throw UsageError("no input files (the directories are empty)");
  report::TriageOptions options;
  options.model = args.model;
  options.target = args.target;
  options.jobs = args.jobs;
  options.timeout_seconds = args.timeout_seconds;
  options.step_estimator = minimize::tree_step_estimators();
  ProgressLine progress;
  const report::TriageResult result =
      report::triage(files, options, [&progress](const report::TriageProgress& p) {
        progress.update("triage: " + std::to_string(p.done) + "/" + std::to_string(p.total) +
                            " inputs, " + std::to_string(p.failing) + " failing, " +
                            std::to_string(p.passing) + " passing, " +
                            std::to_string(p.unreadable) + " unreadable",
                        p.done == p.total);
      });
  progress.finish();
  if (args.json) {
    std::cout << history::json_text(result_json(result)) << std::endl;
  } else {
    print_text(std::cout, std::cerr, result);
  }
  throw CLI::RuntimeError(result.exit_code());
}

}  // namespace

void add_triage_command(CLI::App& app) {
  auto args = std::make_shared<TriageArguments>();
  CLI::App* cmd = app.add_subcommand(
      "triage", "Check many histories, minimize the failing ones and group them by root cause.");
  cmd->add_option("inputs", args->paths,
                  "History files, runs saved by `detect --out`, or directories (read "
                  "recursively)")
      ->required();
  cmd->add_option("--target", args->target,
                  "The target plain histories were recorded from: gives their model, and they "
                  "are minimized by re-executing it (saved runs name their own target)");
  cmd->add_option("-m,--model", args->model,
                  "Model of plain histories that imply none: " + model_name_list());
  cmd->add_option("-j,--jobs", args->jobs, "Worker threads (0: one per core)")
      ->capture_default_str();
  cmd->add_option("-t,--timeout", args->timeout_seconds,
                  "Seconds per input for its check and for its minimization")
      ->check(positive())
      ->capture_default_str()
      ->option_text("S");
  cmd->add_flag("--json", args->json, "Print the groups as one JSON object");
  cmd->footer(
      "Examples:\n"
      "  linfault detect --target lf_list_buggy -s 200 --out runs && linfault triage runs\n"
      "  linfault triage ci-artifacts/ --model kv --jobs 4\n"
      "  linfault triage runs/*.json --json > groups.json\n"
      "A group is the canonical form of the minimal test case: model, the calls of Pc per\n"
      "thread (threads sorted), the calls of Ps as a multiset, Pr, the culprit, with values\n"
      "renamed by first appearance. Progress is shown on a terminal only.\n"
      "Exit codes: 1 some input fails, 0 every input passes, 2 some check hit its limit,\n"
      "65 some input is unreadable (and none fails), 64 usage error, 70 internal error.");
  cmd->callback([args] { run_triage(*args); });
}

}  // namespace linfault::tool
