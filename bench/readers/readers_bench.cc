// Times the history readers: each format is generated in memory (25-50 MB), then
// history::load_history_text reads it best-of-N times (CPU time); prints MB/s and ns per
// operation. Then the real files of ../shared/data (fastlin, porcupine) are read end to end
// through load_history_file (the file read included), all files of a folder per round, best of N
// rounds. A copy of a 10^6-operation History shows the floor: the memory any reader must
// allocate and fill.
//
//   bench_readers [--rounds N] [--scale F] [--only TEXT]
//
// --scale multiplies every generated size (default 1; 0.1 for a quick look); --only times just
// the inputs whose name contains TEXT (for profiling one reader). A format the reader
// rejects (whole-file EDN vectors, until the EDN reader takes them) is reported as not supported.

#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "history/formats.h"
#include "history/json_format.h"
#include "spec/generator.h"

namespace {

namespace fs = std::filesystem;
using linfault::history::Event;
using linfault::history::Format;
using linfault::history::History;
using linfault::history::Operation;

// The process's CPU time (user and system: page faults count), the steady figure on a machine
// shared with other work, where wall time waits for a core.
double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// The least CPU time of `rounds` runs of `body`, in seconds.
double best_of(int rounds, const std::function<void()>& body) {
  double best = std::numeric_limits<double>::infinity();
  for (int i = 0; i < rounds; ++i) {
    const double start = cpu_seconds();
    body();
    best = std::min(best, cpu_seconds() - start);
  }
  return best;
}

History generate(const std::string& model, double operations, std::size_t threads) {
  linfault::spec::GeneratorOptions options;
  options.model = model;
  options.operations = static_cast<std::size_t>(operations);
  options.threads = threads;
  options.seed = 15;
  return linfault::spec::generate_history(options).history;
}

// The Jepsen value of an operation's invocation or completion: its argument (nil when it has
// none) or its result.
std::string jepsen_value(const Operation& op, bool completion) {
  if (completion && op.call.args.empty()) return op.result.to_string();
  return op.call.args.empty() ? "nil" : op.call.args[0].to_string();
}

// Jepsen records of `history`, one event per line, through `line(process, type, f, value, index)`.
template <typename WriteLine>
std::string jepsen_records(const History& history, WriteLine write_line) {
  std::string text;
  std::size_t index = 0;
  for (const Event& event : history.events()) {
    const Operation& op = history.op(event.op);
    const bool completion = event.kind == Event::Kind::kReturn;
    write_line(text, op.process, completion ? "ok" : "invoke", op.call.method,
               jepsen_value(op, completion), index++);
  }
  return text;
}

std::string jepsen_log(const History& history) {
  return jepsen_records(history, [](std::string& text, auto process, const char* type,
                                    const std::string& f, const std::string& value, std::size_t) {
    text += "INFO  jepsen.util - " + std::to_string(process) + "\t:" + type + "\t:" + f + "\t" +
            value + "\n";
  });
}

std::string edn_map(std::int64_t process, const char* type, const std::string& f,
                    const std::string& value, std::size_t index) {
  return "{:process " + std::to_string(process) + ", :type :" + type + ", :f :" + f + ", :value " +
         value + ", :time " + std::to_string(1000 * index + 17) + ", :index " +
         std::to_string(index) + "}";
}

std::string edn_lines(const History& history) {
  return jepsen_records(
      history, [](std::string& text, auto process, const char* type, const std::string& f,
                  const std::string& value,
                  std::size_t index) { text += edn_map(process, type, f, value, index) + "\n"; });
}

std::string edn_vector(const History& history) {
  std::string text = "[";
  text += jepsen_records(
      history, [](std::string& text, auto process, const char* type, const std::string& f,
                  const std::string& value,
                  std::size_t index) { text += edn_map(process, type, f, value, index) + "\n "; });
  text.back() = ']';
  return text + "\n";
}

struct Input {
  std::string name;
  Format format;
  std::string text;
  std::size_t operations;
};

void time_reader(const Input& input, int rounds) {
  std::size_t read_operations = 0;
  std::string problem;
  const double seconds = best_of(rounds, [&] {
    try {
      read_operations =
          linfault::history::load_history_text(input.text, "bench", input.format).history.size();
    } catch (const linfault::history::InputError& e) {
      problem = e.what();
    }
  });
  const double mb = static_cast<double>(input.text.size()) / 1e6;
  if (!problem.empty()) {
    std::printf("| %-22s | %7.1f | not supported yet: %.60s |\n", input.name.c_str(), mb,
                problem.c_str());
    return;
  }
  if (read_operations != input.operations) {
    std::fprintf(stderr, "%s: read %zu operations, generated %zu\n", input.name.c_str(),
                 read_operations, input.operations);
    std::exit(1);
  }
  std::printf("| %-22s | %7.1f | %9zu | %8.3f | %7.0f | %6.0f |\n", input.name.c_str(), mb,
              input.operations, seconds, mb / seconds,
              1e9 * seconds / static_cast<double>(input.operations));
}

// The floor under every reader: copying a History of the same size (its memory allocated and
// written for the first time, as a reader must) with no text to read.
void time_history_copy(const History& history, int rounds) {
  std::size_t copied = 0;
  const double seconds = best_of(rounds, [&] {
    const History copy = history;
    copied = copy.size();
  });
  std::printf("| %-22s |       - | %9zu | %8.3f |       - | %6.0f |\n", "history copy (floor)",
              copied, seconds, 1e9 * seconds / static_cast<double>(copied));
}

void time_files(const std::string& name, const fs::path& dir, int rounds) {
  std::vector<std::string> files;
  std::error_code error;
  for (const auto& entry : fs::recursive_directory_iterator(dir, error)) {
    const std::string file = entry.path().filename().string();
    if (entry.is_regular_file() && file.rfind("LICENSE", 0) != 0 && file != "README.md") {
      files.push_back(entry.path().string());
    }
  }
  if (files.empty()) {
    std::printf("| %-22s | (no files in %s) |\n", name.c_str(), dir.c_str());
    return;
  }
  std::size_t bytes = 0;
  for (const std::string& file : files) bytes += fs::file_size(file);
  std::size_t operations = 0;
  std::size_t rejected = 0;
  const double seconds = best_of(rounds, [&] {
    operations = 0;
    rejected = 0;
    for (const std::string& file : files) {
      try {
        operations += linfault::history::load_history_file(file).history.size();
      } catch (const linfault::history::InputError&) {
        ++rejected;
      }
    }
  });
  const double mb = static_cast<double>(bytes) / 1e6;
  std::printf("| %-22s | %7.2f | %9zu | %8.4f | %7.0f | %6.0f | %zu files, %zu rejected\n",
              name.c_str(), mb, operations, seconds, mb / seconds,
              1e9 * seconds / static_cast<double>(std::max<std::size_t>(operations, 1)),
              files.size(), rejected);
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 5;
  double scale = 1;
  std::string only;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--rounds") {
      rounds = std::atoi(argv[i + 1]);
    } else if (flag == "--scale") {
      scale = std::atof(argv[i + 1]);
    } else if (flag == "--only") {
      only = argv[i + 1];
    } else {
      std::fprintf(stderr, "usage: bench_readers [--rounds N] [--scale F] [--only TEXT]\n");
      return 64;
    }
  }
  std::printf("| input                  |      MB |       ops |   best s |    MB/s |  ns/op |\n");
  std::printf("|---|---|---|---|---|---|\n");
  // One input at a time, so that at most one text and one history are in memory.
  const auto wanted = [&](const std::string& name) { return name.find(only) != std::string::npos; };
  // Generates `operations` operations of `model` (8 threads) and times reading them as `format`.
  const auto run = [&](const std::string& name, Format format, const std::string& model,
                       double operations, const std::function<std::string(const History&)>& write) {
    if (!wanted(name)) return;
    const History history = generate(model, operations * scale, 8);
    time_reader({name, format, write(history), history.size()}, rounds);
  };
  const auto fastlin = [](const std::string& model) {
    return [model](const History& h) {
      std::ostringstream out;
      linfault::spec::write_fastlin(out, h, model);
      return out.str();
    };
  };
  run("fastlin stack", Format::kFastlin, "stack", 1e6, fastlin("stack"));
  run("fastlin queue", Format::kFastlin, "queue", 1e6, fastlin("queue"));
  if (wanted("history copy")) time_history_copy(generate("stack", 1e6 * scale, 8), rounds);
  run("jepsen log", Format::kJepsenLog, "stack", 5e5, jepsen_log);
  run("edn, one map a line", Format::kEdn, "stack", 2e5, edn_lines);
  run("edn, one vector", Format::kEdn, "stack", 2e5, edn_vector);
  run("snapshot", Format::kSnapshot, "snapshot", 1e6, [](const History& h) {
    std::ostringstream out;
    linfault::spec::write_snapshot_actions(out, h);
    return out.str();
  });
  run("linfault json", Format::kJson, "queue", 3e5,
      [](const History& h) { return linfault::history::history_to_json_text(h, "queue"); });

  const fs::path data = fs::path(LINFAULT_SHARED_DIR) / "data";
  std::printf("\nReal files, end to end (load_history_file, all files of the folder):\n\n");
  std::printf("| files                  |      MB |       ops |   best s |    MB/s |  ns/op |\n");
  std::printf("|---|---|---|---|---|---|\n");
  const std::pair<const char*, fs::path> folders[] = {
      {"fastlin", data / "fastlin"},
      {"porcupine jepsen logs", data / "porcupine" / "jepsen"},
      {"porcupine kv (edn)", data / "porcupine" / "kv"},
      {"snapshot", data / "snapshot"}};
  for (const auto& [name, folder] : folders) {
    if (wanted(name)) time_files(name, folder, rounds);
  }
  return 0;
}
