#include "tool/limits.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "history/value.h"
#include "tool/commands.h"
#include "tool/heap_limit.h"

namespace linfault::tool {
namespace {

using Clock = std::chrono::steady_clock;

// What an algorithm's own limit gets of the timeout: it stops with its partial result before the
// backstop ends the process.
constexpr double kAlgorithmShare = 0.95;

// The clock starts with the process (static initialization), not with the command: the promise
// is about the whole run as the user times it.
const Clock::time_point process_start = Clock::now();

struct State {
  Clock::time_point start = process_start;
  double timeout_seconds = 0;
  std::string subject;
  bool json = false;
};

State& state() {
  static State s;
  return s;
}

std::atomic<const char*> current_phase{"starting"};

std::string subject_prefix() {
  const std::string& subject = state().subject;
  return subject.empty() ? "" : history::printable(subject) + ": ";
}

std::string phase_text() {
  const char* phase = current_phase.load();
  return phase == nullptr ? "writing the result" : phase;
}

std::string format_seconds(double seconds) {
  std::ostringstream out;
  out << seconds;
  return out.str();
}

// The backstop's report: one line on stderr, and the unknown verdict on stdout in JSON mode.
[[noreturn]] void exit_unknown(const std::string& reason) {
  std::fflush(stdout);
  if (state().json) {
    const nlohmann::json verdict = {{"linfault", "verdict"},
                                    {"verdict", "unknown"},
                                    {"reason", reason},
                                    {"file", state().subject}};
    std::fputs((verdict.dump() + "\n").c_str(), stdout);
    std::fflush(stdout);
  }
  std::fputs((tool_name() + ": " + subject_prefix() + "unknown: " + reason + "\n").c_str(), stderr);
  std::fflush(stderr);
  std::_Exit(kExitUnknown);
}

// Ends the process when the time limit has passed, unless the command is already printing its
// result (phase nullptr).
void watch_deadline(double timeout_seconds) {
  std::this_thread::sleep_until(
      state().start +
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_seconds)));
  if (current_phase.load() == nullptr) return;
  exit_unknown("the time limit (" + format_seconds(timeout_seconds) + " s) was reached while " +
               phase_text());
}

[[noreturn]] void on_terminate() {
  if (heap::refused()) {
    exit_unknown("the memory limit (" + std::to_string(heap::limit() >> 20) +
                 " MB) was reached while " + phase_text());
  }
  std::fputs((tool_name() + ": internal error: terminated\n").c_str(), stderr);
  std::abort();
}

}  // namespace

void start_process_limits(const ProcessLimits& limits) {
  State& s = state();
  s.timeout_seconds = limits.timeout_seconds;
  s.subject = limits.subject;
  s.json = limits.json;
  if (limits.memory_limit_bytes > 0) {
    // A bad_alloc escaping a noexcept function ends in std::terminate: still exit 2.
    std::set_terminate(on_terminate);
    heap::set_limit(limits.memory_limit_bytes);
  }
  if (limits.timeout_seconds > 0) std::thread(watch_deadline, limits.timeout_seconds).detach();
}

void set_phase(const char* phase) { current_phase.store(phase); }

double seconds_left() {
  const State& s = state();
  if (s.timeout_seconds <= 0) return 0;
  const double elapsed = std::chrono::duration<double>(Clock::now() - s.start).count();
  return std::max(kAlgorithmShare * s.timeout_seconds - elapsed, 1e-3);
}

std::size_t heap_bytes_left() {
  const std::size_t limit = heap::limit();
  if (limit == 0) return 0;
  const std::size_t used = heap::in_use();
  return used < limit ? limit - used : 1;
}

bool memory_limit_reached() { return heap::refused(); }

std::string memory_limit_message() {
  return subject_prefix() + "unknown: the memory limit (" + std::to_string(heap::limit() >> 20) +
         " MB) was reached while " + phase_text();
}

std::size_t heap_bytes_in_use() { return heap::in_use(); }

}  // namespace linfault::tool
