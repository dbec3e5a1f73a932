#include "tool/bounded_verify_command.h"

#include <cctype>
#include <charconv>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "detect/driver.h"
#include "history/json_format.h"
#include "minimize/bounded_verify.h"
#include "minimize/pipeline.h"
#include "minimize/target_minimizer.h"
#include "targets/registry.h"
#include "tool/campaign.h"
#include "tool/commands.h"
#include "tool/detection_options.h"
#include "tool/limits.h"
#include "tool/progress.h"
#include "tool/test_case_output.h"

namespace linfault::tool {
namespace {

using history::Call;
using nlohmann::json;

std::string trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return "";
  const auto last = text.find_last_not_of(" \t");
  return std::string(text.substr(first, last - first + 1));
}

// "push(1)", "write(0, 2)", "pop()": a method and integer arguments.
Call parse_call(const std::string& text, const std::string& option) {
  const auto fail = [&]() -> Call {
    throw UsageError(option + ": cannot read '" + history::printable(text) +
                     "' as a call such as push(1) or write(0, 2)");
  };
  const std::size_t open = text.find('(');
  if (open == std::string::npos || text.back() != ')') return fail();
  Call call{trim(text.substr(0, open)), {}};
  if (call.method.empty() || !std::all_of(call.method.begin(), call.method.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
      })) {
    return fail();
  }
  const std::string inside = trim(std::string_view(text).substr(open + 1, text.size() - open - 2));
  std::size_t start = 0;
  while (!inside.empty() && start <= inside.size()) {
    const std::size_t comma = std::min(inside.find(',', start), inside.size());
    const std::string number = trim(std::string_view(inside).substr(start, comma - start));
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (number.empty() || error != std::errc() || end != number.data() + number.size()) {
      return fail();
    }
    call.args.emplace_back(value);
    start = comma + 1;
  }
  return call;
}

// Each option value holds one call or several separated by ';'.
std::vector<Call> parse_calls(const std::vector<std::string>& values, const std::string& option) {
  std::vector<Call> calls;
  for (const std::string& value : values) {
    std::stringstream parts(value);
    std::string part;
    while (std::getline(parts, part, ';')) {
      part = trim(part);
      if (!part.empty()) calls.push_back(parse_call(part, option));
    }
  }
  return calls;
}

json calls_json(const std::vector<Call>& calls) {
  json out = json::array();
  for (const Call& call : calls) out.push_back(call.to_string());
  return out;
}

// "W workloads, E executions (<bound>) in S s"; "W of T workloads, ..." when `of_total`.
std::string bound_sentence(const minimize::BoundedVerifyResult& r,
                           const minimize::BoundedVerifyOptions& options, bool of_total = false) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(1);
  out << r.workloads;
  if (of_total) {
    out << " of "
        << (r.total_workloads ? std::to_string(*r.total_workloads)
                              : std::string("too many to count"));
  }
  out << " workloads, " << r.executions << " executions (" << minimize::describe_bound(options)
      << ") in " << r.seconds << " s";
  return out.str();
}

}  // namespace

std::vector<CLI::Option*> add_bounded_verify_options(CLI::App& verify,
                                                     BoundedVerifyArguments& args) {
  std::vector<CLI::Option*> options;
  add_spec_option(verify, args.spec);
  options.push_back(verify.add_option(
      "--target", args.target,
      "Verify a target instead: every workload of --threads x --ops calls over --values values, "
      "in every interleaving (`linfault targets` lists them)"));
  options.push_back(
      verify.add_option("--threads", args.threads, "--target: concurrent threads (N)")
          ->capture_default_str()
          ->check(CLI::Range(std::size_t{1}, std::size_t{8})));
  options.push_back(verify.add_option("--ops", args.ops, "--target: calls per thread (M)")
                        ->capture_default_str()
                        ->check(CLI::Range(std::size_t{1}, std::size_t{8})));
  options.push_back(verify
                        .add_option("--values", args.values,
                                    "--target: values per argument (keys 0..V-1, unique values "
                                    "1..V, cells 0..V-1)")
                        ->capture_default_str()
                        ->check(CLI::Range(std::size_t{1}, std::size_t{16})));
  options.push_back(verify.add_option_function<unsigned>(
      "--preemptions", [&args](const unsigned& bound) { args.preemptions = bound; },
      "--target: explore only interleavings with at most P preemptions (default: all)"));
  add_memory_model_options(verify, args.memory_model, nullptr);
  options.push_back(verify.get_option("--memory-model"));
  options.push_back(verify.add_option(
      "--setup", args.setup,
      "--target: Ps, calls run before every concurrent part, e.g. \"add(0); add(1)\""));
  options.push_back(verify.add_option(
      "--reveal", args.reveal, "--target: Pr, calls run after every concurrent part, e.g. pop()"));
  options.push_back(verify.add_flag(
      "--json", args.json,
      "--target: print one JSON object (workloads, executions, verdict, bound, test_case)"));
  options.push_back(verify
                        .add_option("--min-timeout", args.minimize_seconds,
                                    "--target: seconds for minimizing a counterexample")
                        ->capture_default_str()
                        ->check(positive()));
  return options;
}

void run_bounded_verify(const BoundedVerifyArguments& args, double timeout_seconds,
                        const std::string& out) {
  const targets::Target& target = target_with_spec(find_target(args.target), args.spec);
  minimize::BoundedVerifyOptions options;
  options.threads = args.threads;
  options.ops_per_thread = args.ops;
  options.values = args.values;
  options.max_preemptions = args.preemptions;
  options.memory_model = args.memory_model.empty() ? target.memory_model
                                                   : *dpct::parse_memory_model(args.memory_model);
  options.setup = parse_calls(args.setup, "--setup");
  options.reveal = parse_calls(args.reveal, "--reveal");
  TestCaseArguments files;
  if (!out.empty()) {
    prepare_output_directory(out, "--out");
    files.save = (std::filesystem::path(out) / "testcase.json").string();
    files.gtest = (std::filesystem::path(out) / (target.name + "_repro_test.cc")).string();
  }
  // The minimization's last step re-checks its result: like `minimize`, leave it room.
  start_process_limits({timeout_seconds, 0, "target " + target.name, args.json, 0.85});
  set_phase("verifying");
  options.timeout_seconds = seconds_left();

  ProgressLine progress;
  const std::optional<std::uint64_t> total = minimize::count_workloads(
      minimize::call_domain(target, args.values).size(), args.threads, args.ops);
  const std::string of_total = total ? "/" + std::to_string(*total) : "";
  options.progress = [&](std::uint64_t workloads, std::uint64_t executions) {
    progress.update("verify: " + std::to_string(workloads) + of_total + " workloads, " +
                    std::to_string(executions) + " executions");
  };
  minimize::BoundedVerifyResult result;
  try {
    result = minimize::verify_bounded(target, options);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  progress.finish();

  json report = {{"linfault", "verify"},
                 {"target", target.name},
                 {"model", target.model},
                 {"threads", args.threads},
                 {"ops", args.ops},
                 {"values", args.values},
                 {"preemptions", args.preemptions ? json(*args.preemptions) : json(nullptr)},
                 {"setup", calls_json(options.setup)},
                 {"reveal", calls_json(options.reveal)},
                 {"calls", calls_json(minimize::call_domain(target, args.values))},
                 {"total_workloads", total ? json(*total) : json(nullptr)},
                 {"workloads", result.workloads},
                 {"executions", result.executions},
                 {"seconds", result.seconds},
                 {"verdict", minimize::bounded_verdict_name(result.verdict)},
                 {"test_case", nullptr}};
  if (!args.json) {
    std::cout << "verify:   " << target.name << " (model " << target.model << "), "
              << report["calls"].size() << " calls per operation slot, "
              << (total ? std::to_string(*total) : std::string("too many to count")) << " workloads"
              << (target.roles.empty() ? ""
                                       : ", of which only those that keep the target's roles run")
              << "\n";
  }
  if (result.verdict != minimize::BoundedVerdict::kNotLinearizable &&
      result.verdict != minimize::BoundedVerdict::kFails) {
    set_phase(nullptr);
    const bool proven = result.verdict == minimize::BoundedVerdict::kLinearizable;
    if (args.json) {
      if (!proven) report["reason"] = result.inconclusive_reason;
      report["weak_order_sites"] = result.weak_order_sites;
      std::cout << history::json_text(report) << std::endl;
    } else if (proven) {
      std::cout << "linearizable in all " << bound_sentence(result, options) << "\n";
    } else {
      std::cout << "inconclusive (" << result.inconclusive_reason << "): no failure in "
                << bound_sentence(result, options, /*of_total=*/true) << "\n";
    }
    const std::string note = detect::weak_order_note(target, result.weak_order_sites);
    if (!note.empty()) std::cerr << tool_name() << ": note: " << note << std::endl;
    throw CLI::RuntimeError(proven ? kExitSuccess : kExitUnknown);
  }

  if (!args.json) {
    std::cout << "failing:  workload " << result.workloads << " after " << result.executions
              << " executions: " << result.failure << "\n"
              << std::flush;
  }
  set_phase("minimizing");
  minimize::TargetMinimizerOptions minimizer = minimizer_options(files);
  minimizer.timeout_seconds = args.minimize_seconds;
  if (timeout_seconds > 0) minimizer.timeout_seconds = seconds_left();
  minimizer.max_steps = options.max_steps;
  minimizer.step_estimator = minimize::tree_step_estimators();
  minimizer.progress = [&progress](const std::string& line) { progress.note("minimize: " + line); };
  minimize::TargetMinimization m;
  try {
    m = minimize::minimize_saved_run(target, *result.failing, minimizer);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error("the failing run of bounded verification could not be minimized: " +
                             std::string(e.what()));
  }
  progress.finish();
  set_phase(nullptr);
  const std::string written = save_test_case_files(m, files);
  if (args.json) {
    report["failure"] = result.failure;
    report["test_case"] = minimize::minimization_to_json(m, tool_name());
    std::cout << history::json_text(report) << std::endl;
  } else {
    std::cout << "\n";
    minimize::print_minimization(std::cout, m, /*compact=*/false);
    std::cout << "counterexample (" << result.failure << ") found after "
              << bound_sentence(result, options) << "\n"
              << written;
  }
  throw CLI::RuntimeError(kExitViolation);
}

}  // namespace linfault::tool
