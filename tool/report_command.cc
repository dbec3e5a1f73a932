// `linfault report INPUT --html OUT.html [--svg OUT.svg]`: a report people can look at
// (report/report.h) for a history, a saved run, a check result or a test case.

#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "detect/checker.h"
#include "detect/monitors/monitor.h"
#include "history/atomic_file.h"
#include "history/formats.h"
#include "history/json_format.h"
#include "minimize/test_case.h"
#include "report/report.h"
#include "tool/commands.h"
#include "tool/input.h"
#include "tool/verdict_json.h"

namespace linfault::tool {
namespace {

constexpr std::size_t kSearchForPartialOps = 2000;
constexpr double kSearchForPartialSeconds = 10;

struct ReportArguments {
  std::string file;
  std::string model;
  std::optional<std::string> init;  // --init
  std::string format = "auto";
  std::string html;
  std::string svg;
  double timeout_seconds = 0;
  bool json = false;
};

// The document's JSON, or null when the file is not one JSON object.
nlohmann::json peek_json(const std::string& file) {
  nlohmann::json doc =
      nlohmann::json::parse(history::read_file(file), nullptr, /*allow_exceptions=*/false);
  return doc.is_object() ? doc : nlohmann::json();
}

// The fast checker that applies (a monitor for large container histories), then the search for
// the longest partial linearization a monitor does not give, when the history is small enough.
void check_into(report::Report& r, double timeout_seconds) {
  detect::CheckOptions options;
  options.timeout_seconds = timeout_seconds;
  detect::Verdict v = detect::check_auto(r.model, r.history, options, detect::Algo::kAuto);
  if (v.result == detect::Result::kViolation && v.longest_partial.empty() &&
      v.algorithm != "search") {
    if (r.history.size() <= kSearchForPartialOps) {
      detect::CheckOptions search = options;
      if (search.timeout_seconds == 0) search.timeout_seconds = kSearchForPartialSeconds;
      detect::Verdict searched = detect::check_history(r.model, r.history, search);
      if (searched.result == detect::Result::kViolation) v = std::move(searched);
    }
    if (v.longest_partial.empty()) {
      r.notes.push_back("Decided by " + v.algorithm +
                        ", which gives no partial linearization (the search would take too long "
                        "on " +
                        std::to_string(r.history.size()) + " operations).");
    }
  }
  r.verdict = std::move(v);
}

// A `linfault check --json` result: the history file it names, with the verdict it recorded.
report::Report from_check_result(const ReportArguments& args, const nlohmann::json& doc) {
  auto fail = [&](const std::string& problem) -> history::InputError {
    return history::InputError(args.file, 0, "check result: " + problem);
  };
  if (!doc.contains("file") || !doc["file"].is_string()) throw fail("no \"file\" field");
  std::string named = doc["file"].get<std::string>();
  if (named == "-") throw fail("the checked history was read from standard input");
  const std::filesystem::path beside = std::filesystem::path(args.file).parent_path() / named;
  if (!std::filesystem::exists(named) && std::filesystem::exists(beside)) named = beside.string();
  std::string model = args.model;
  if (model.empty() && doc.contains("model") && doc["model"].is_string()) {
    model = doc["model"].get<std::string>();
  }
  std::string format = args.format;
  if (format == "auto" && doc.contains("format") && doc["format"].is_string()) {
    format = doc["format"].get<std::string>();
  }
  Input input = load_input(named, format, model, args.init);
  report::Report r;
  r.title = named + " (checked in " + args.file + ")";
  r.kind = "check result";
  r.model = input.model;
  if (input.saved_run) r.target = input.saved_run->target;
  r.history = std::move(input.loaded.history);

  const std::size_t n = r.history.size();
  if (doc.value("operations", n) != n) {
    throw fail(named + " has " + std::to_string(n) + " operations, the check result " +
               std::to_string(doc.value("operations", n)) + ": the file changed since");
  }
  auto index_of = [&](const nlohmann::json& op) {
    if (!op.is_object() || !op.contains("index") || !op["index"].is_number_integer()) {
      throw fail("an operation without an \"index\"");
    }
    const auto i = op["index"].get<std::int64_t>();
    if (i < 0 || static_cast<std::size_t>(i) >= n) throw fail("operation index out of range");
    return static_cast<history::OpIndex>(i);
  };
  detect::Verdict v;
  const std::string result = doc.value("verdict", "");
  if (result == "linearizable") {
    v.result = detect::Result::kLinearizable;
  } else if (result == "violation") {
    v.result = detect::Result::kViolation;
  } else if (result == "unknown") {
    v.result = detect::Result::kUnknown;
  } else {
    throw fail("\"verdict\" must be linearizable, violation or unknown");
  }
  v.model = r.model;
  v.algorithm = doc.value("algorithm", "");
  v.reason = doc.value("reason", "");
  v.operations = n;
  if (v.result == detect::Result::kViolation) {
    if (!doc.contains("culprit")) throw fail("a violation without a culprit");
    v.culprit = index_of(doc["culprit"]);
    v.prefix_events = doc.value("prefix_events", std::size_t{0});
    v.prefix_exact = doc.value("prefix_exact", true);
    if (v.prefix_events == 0 || v.prefix_events > r.history.events().size()) {
      throw fail("\"prefix_events\" out of range");
    }
  }
  const char* order_field =
      v.result == detect::Result::kLinearizable ? "witness" : "longest_partial";
  if (doc.contains(order_field) && doc[order_field].is_array()) {
    std::vector<history::OpIndex>& order =
        v.result == detect::Result::kLinearizable ? v.witness : v.longest_partial;
    for (const nlohmann::json& op : doc[order_field]) order.push_back(index_of(op));
  }
  if (v.result == detect::Result::kViolation && v.longest_partial.empty() &&
      !v.algorithm.starts_with("search")) {
    r.notes.push_back("The checker that decided (" + v.algorithm +
                      ") gives no partial linearization; `linfault check --algo search --json` "
                      "does.");
  }
  r.verdict = std::move(v);
  return r;
}

report::Report from_test_case(const ReportArguments& args) {
  minimize::TestCase tc = minimize::read_test_case(args.file);
  report::Report r;
  r.title = args.file;
  r.kind = "test case";
  r.model = tc.model;
  if (tc.target) r.target = *tc.target;
  r.history = tc.history;
  check_into(r, args.timeout_seconds);
  std::string why;
  r.interleaving = report::replay_interleaving(tc, why);
  if (!r.interleaving) r.notes.push_back("No interleaving: " + why + ".");
  r.test_case = std::move(tc);
  return r;
}

report::Report from_history(const ReportArguments& args) {
  Input input = load_input(args.file, args.format, args.model, args.init);
  report::Report r;
  r.title = args.file;
  r.kind = input.saved_run ? "saved run"
                           : std::string(history::format_name(input.loaded.format)) + " history";
  r.model = input.model;
  r.history = std::move(input.loaded.history);
  check_into(r, args.timeout_seconds);
  if (input.saved_run) {
    const detect::SavedRun& run = *input.saved_run;
    r.target = run.target;
    r.notes.push_back("Saved run of " + run.target + ", seed " + std::to_string(run.seed) + ", " +
                      run.scheduling.description + ", outcome " +
                      dpct::run_outcome_name(run.outcome) + ".");
    std::string why;
    r.interleaving = report::replay_interleaving(run, why);
    if (!r.interleaving) r.notes.push_back("No interleaving: " + why + ".");
  }
  return r;
}

// A report killed mid-write leaves the previous file, never a partial one.
void write_file(const std::string& path, const std::string& content) {
  try {
    history::write_file_atomically(path, content);
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
}

void run_report(const ReportArguments& args) {
  if (args.html.empty() && args.svg.empty()) {
    throw UsageError("nothing to write: give --html OUT.html and/or --svg OUT.svg");
  }
  report::Report r;
  const nlohmann::json doc = args.file == "-" ? nlohmann::json() : peek_json(args.file);
  if (history::is_document_kind(doc, "verdict")) {
    r = from_check_result(args, doc);
  } else if (doc.is_object() && minimize::is_test_case_document(doc)) {
    r = from_test_case(args);
  } else {
    r = from_history(args);
  }
  if (!args.html.empty()) write_file(args.html, report::render_html(r));
  if (!args.svg.empty()) write_file(args.svg, report::render_svg(r));

  const detect::Result result = r.verdict ? r.verdict->result : detect::Result::kUnknown;
  if (args.json) {
    nlohmann::json out = {{"linfault", "report"},
                          {"file", args.file},
                          {"kind", r.kind},
                          {"model", r.model},
                          {"operations", r.history.size()},
                          {"verdict", detect::result_name(result)},
                          {"interleaving", r.interleaving.has_value()}};
    if (!r.target.empty()) out["target"] = r.target;
    if (!args.html.empty()) out["html"] = args.html;
    if (!args.svg.empty()) out["svg"] = args.svg;
    std::cout << history::json_text(out) << std::endl;
  } else {
    std::cout << args.file << ": " << r.kind << ", " << r.history.size() << " operations, "
              << detect::result_name(result) << "\n";
    for (const std::string& note : r.notes) std::cout << "  " << note << "\n";
    if (!args.html.empty()) std::cout << "wrote " << args.html << "\n";
    if (!args.svg.empty()) std::cout << "wrote " << args.svg << "\n";
  }
  exit_with_verdict(result);
}

}  // namespace

void add_report_command(CLI::App& app) {
  auto args = std::make_shared<ReportArguments>();
  CLI::App* cmd = app.add_subcommand(
      "report",
      "Write an HTML report (and/or an SVG timeline) of a history, saved run, check "
      "result or test case.");
  cmd->add_option("file", args->file,
                  "A history (any format `check` reads), a run saved by `detect --out`, the "
                  "output of `check --json`, or a test case JSON")
      ->required();
  cmd->add_option("--html", args->html, "Write the self-contained HTML report here")
      ->option_text("OUT.html");
  cmd->add_option("--svg", args->svg, "Write a static SVG timeline here (for a CI page)")
      ->option_text("OUT.svg");
  cmd->add_option(
      "-m,--model", args->model,
      "Sequential model: " + model_name_list() + " (default: the model the file implies)");
  add_init_option(*cmd, args->init);
  cmd->add_option("-f,--format", args->format, "Input format (default: auto, by content)");
  cmd->add_option("-t,--timeout", args->timeout_seconds,
                  "Seconds for the check (0: the checkers' own defaults)")
      ->capture_default_str()
      ->option_text("S");
  cmd->add_flag("--json", args->json, "Print what was written as one JSON object");
  cmd->footer(
      "Examples:\n"
      "  linfault report ../shared/data/porcupine/jepsen/etcd_002.log --html etcd.html\n"
      "  linfault check run.edn --model kv --json > verdict.json && linfault report verdict.json "
      "--html r.html\n"
      "  linfault minimize runs/treiber_stack_buggy-3.json --save tc.json; linfault report tc.json "
      "--html tc.html\n"
      "  linfault report history.json --svg timeline.svg      (a static picture for a CI page)\n"
      "The HTML file needs nothing else (no network). Open it in a browser: drag or use the\n"
      "slider to scroll, Ctrl+wheel or +/- to zoom, `c` jumps to the culprit.\n"
      "Exit codes: 1 the input is not linearizable, 0 it is, 2 unknown (limit hit),\n"
      "64 usage error, 65 bad input, 66 input cannot be opened, 70 internal error.");
  cmd->callback([args] { run_report(*args); });
}

}  // namespace linfault::tool
