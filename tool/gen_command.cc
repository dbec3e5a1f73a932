// `linfault gen --model M --ops N --threads T [--violation] [--seed S] -o FILE`: writes a random
// history of a set, stack, queue, priority queue or snapshot (spec/generator.h).

#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "history/atomic_file.h"
#include "history/json_format.h"
#include "spec/generator.h"
#include "tool/commands.h"

namespace linfault::tool {
namespace {

struct GenArguments {
  spec::GeneratorOptions options;
  std::string output;
  std::string format = "json";
};

void run_gen(const GenArguments& args) {
  spec::GeneratedHistory generated;
  try {
    generated = spec::generate_history(args.options);
  } catch (const spec::GeneratorError& e) {
    throw UsageError(e.what());
  }
  // A file appears complete or not at all, even if gen is killed mid-write.
  std::optional<history::AtomicFileWriter> file;
  if (args.output != "-") {
    try {
      file.emplace(args.output);
    } catch (const std::runtime_error& e) {
      throw UsageError(e.what());
    }
  }
  std::ostream& out = file ? file->stream() : std::cout;
  try {
    if (args.format == "fastlin") {
      spec::write_fastlin(out, generated.history, args.options.model);
    } else if (args.format == "snapshot") {
      if (args.options.model != "snapshot") {
        throw UsageError("--format snapshot needs --model snapshot");
      }
      spec::write_snapshot_actions(out, generated.history);
    } else {
      out << history::history_to_json_text(generated.history, args.options.model);
    }
  } catch (const spec::GeneratorError& e) {
    throw UsageError(e.what());
  }
  out.flush();
  if (!out) throw UsageError(args.output + ": write failed");
  if (file) {
    try {
      file->commit();
    } catch (const std::runtime_error& e) {
      throw UsageError(e.what());
    }
  }
  std::ostream& note = args.output == "-" ? std::cerr : std::cout;
  note << "linfault gen: " << generated.history.size() << " " << args.options.model
       << " operations, " << args.options.threads << " threads"
       << (args.output == "-" ? "" : " -> " + args.output) << "\n";
  if (!generated.injected.empty()) note << "injected violation: " << generated.injected << "\n";
  throw CLI::RuntimeError(kExitSuccess);
}

}  // namespace

void add_gen_command(CLI::App& app) {
  auto args = std::make_shared<GenArguments>();
  CLI::App* gen = app.add_subcommand(
      "gen", "Write a random history of a set, stack, queue, priority queue or snapshot.");
  gen->add_option("-m,--model", args->options.model, "set, stack, queue, priorityqueue or snapshot")
      ->required()
      ->check(CLI::IsMember({"set", "stack", "queue", "priorityqueue", "snapshot"}));
  gen->add_option("-n,--ops", args->options.operations, "Number of operations")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 30))
      ->capture_default_str();
  gen->add_option("-t,--threads", args->options.threads, "Number of threads (processes)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20))
      ->capture_default_str();
  gen->add_flag("--violation", args->options.violation,
                "Change one result so that the history is certainly not linearizable");
  gen->add_option("-s,--seed", args->options.seed, "Random seed")->capture_default_str();
  gen->add_option("--pending", args->options.pending_fraction,
                  "Fraction of threads whose last operation stays pending (json only)")
      ->check(fraction());
  gen->add_option("-f,--format", args->format, "json (linfault's own), fastlin or snapshot")
      ->check(CLI::IsMember({"json", "fastlin", "snapshot"}))
      ->capture_default_str();
  gen->add_option("-o,--output", args->output, "Output file (`-`: standard output)")->required();
  gen->footer(
      "Histories are linearizable by construction (each operation is stretched around its\n"
      "linearization point), with distinct values and empty results; --violation injects one\n"
      "certain violation and reports it.\n"
      "Examples:\n"
      "  linfault gen --model stack --ops 1000000 --threads 100 -o stack.json\n"
      "  linfault gen --model queue --ops 20 --threads 3 --violation --seed 7 -o - --format "
      "fastlin");
  gen->callback([args] { run_gen(*args); });
}

}  // namespace linfault::tool
