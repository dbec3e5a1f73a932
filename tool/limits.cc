#include "tool/limits.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <forward_list>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "history/json_format.h"
#include "history/value.h"
#include "tool/commands.h"
#include "tool/heap_limit.h"

namespace linfault::tool {
namespace {

using Clock = std::chrono::steady_clock;

struct State {
  Clock::time_point start = Clock::now();
  double timeout_seconds = 0;
  double algorithm_share = 0.95;
  std::string subject;
  bool json = false;
};

// Never destroyed: the watchdog may read it while the main thread runs the static destructors.
State& state() {
  static State* s = new State;
  return *s;
}

// The phase of the command; kFiring once the watchdog has claimed the process.
const char kFiringText[] = "firing";
const char* const kFiring = kFiringText;
std::atomic<const char*> current_phase{"starting"};
// The model the command checks against, once known: the newest of the names set, which are all
// kept, never destroyed (the watchdog may still read an earlier one) and reachable (so no leak
// checker flags them).
std::forward_list<std::string>& model_names() {
  static auto* names = new std::forward_list<std::string>;
  return *names;
}
std::atomic<const std::string*> current_model{nullptr};

std::string subject_prefix() {
  const std::string& subject = state().subject;
  return subject.empty() ? "" : history::printable(subject) + ": ";
}

std::string format_seconds(double seconds) {
  std::ostringstream out;
  out << seconds;
  return out.str();
}

// The report of a limit: one line on stderr, and the unknown verdict on stdout in JSON mode.
[[noreturn]] void exit_unknown(const std::string& reason) {
  std::fflush(stdout);
  if (state().json) {
    const std::string* model = current_model.load();
    // The fields of a checker's verdict that are known here; "algorithm" is null: none ran to
    // the end.
    const nlohmann::json verdict = {{"linfault", "verdict"},
                                    {"verdict", "unknown"},
                                    {"reason", reason},
                                    {"file", state().subject},
                                    {"model", model ? nlohmann::json(*model) : nlohmann::json()},
                                    {"algorithm", nullptr}};
    std::fputs((history::json_text(verdict) + "\n").c_str(), stdout);
    std::fflush(stdout);
  }
  std::fputs((tool_name() + ": " + subject_prefix() + "unknown: " + reason + "\n").c_str(), stderr);
  std::fflush(stderr);
  std::_Exit(kExitUnknown);
}

// Ends the process when the time limit has passed, unless the command has begun printing its
// result: the phase is swapped for kFiring only if it is still a working phase.
void watch_deadline(double timeout_seconds) {
  std::this_thread::sleep_until(
      state().start +
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_seconds)));
  const char* phase = current_phase.load();
  do {
    if (phase == nullptr) return;
  } while (!current_phase.compare_exchange_weak(phase, kFiring));
  exit_unknown("the time limit (" + format_seconds(timeout_seconds) + " s) was reached while " +
               phase);
}

[[noreturn]] void on_terminate() {
  if (heap::refused()) exit_memory_limit();
  std::fputs((tool_name() + ": internal error: terminated\n").c_str(), stderr);
  std::abort();
}

}  // namespace

void mark_command_start() { state().start = Clock::now(); }

void start_process_limits(const ProcessLimits& limits) {
  State& s = state();
  s.timeout_seconds = limits.timeout_seconds;
  s.algorithm_share = limits.algorithm_share;
  s.subject = limits.subject;
  s.json = limits.json;
  if (limits.memory_limit_bytes > 0) {
    // A bad_alloc escaping a noexcept function ends in std::terminate: still exit 2.
    std::set_terminate(on_terminate);
    heap::set_limit(limits.memory_limit_bytes);
    if (!heap::supported()) {
      std::fputs((tool_name() + ": note: this build does not count the whole heap (a sanitizer "
                                "build); --memory-limit bounds the search's memory only\n")
                     .c_str(),
                 stderr);
    }
  }
  if (limits.timeout_seconds > 0) std::thread(watch_deadline, limits.timeout_seconds).detach();
}

void set_phase(const char* phase) {
  if (current_phase.exchange(phase) == kFiring) {
    current_phase.store(kFiring);
    // The watchdog is printing "unknown" and ending the process: print nothing else.
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

void set_model(const std::string& model) {
  if (model.empty()) return;
  model_names().push_front(model);  // earlier names keep their address
  current_model.store(&model_names().front());
}

double seconds_left() {
  const State& s = state();
  if (s.timeout_seconds <= 0) return 0;
  const double elapsed = std::chrono::duration<double>(Clock::now() - s.start).count();
  return std::max(s.algorithm_share * s.timeout_seconds - elapsed, 1e-3);
}

std::size_t heap_bytes_left() {
  const std::size_t limit = heap::limit();
  if (limit == 0) return 0;
  const std::size_t used = heap::in_use();
  return used < limit ? limit - used : 1;
}

bool memory_limit_reached() { return heap::refused(); }

void exit_memory_limit() {
  const char* phase = current_phase.exchange(kFiring);
  if (phase == kFiring) {
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));  // the watchdog reports
  }
  exit_unknown("the memory limit (" + std::to_string(heap::limit() >> 20) +
               " MB) was reached while " + (phase == nullptr ? "writing the result" : phase));
}

}  // namespace linfault::tool
