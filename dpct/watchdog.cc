#include "dpct/watchdog.h"

#include <pthread.h>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace linfault::dpct {
namespace {

using Clock = std::chrono::steady_clock;

std::chrono::milliseconds limit_from_environment() {
  const char* text = std::getenv("LINFAULT_STALL_SECONDS");
  if (text == nullptr || *text == '\0') {
    return std::chrono::milliseconds(static_cast<std::int64_t>(kDefaultStallSeconds * 1000));
  }
  char* end = nullptr;
  const double seconds = std::strtod(text, &end);
  if (end == text || *end != '\0' || !(seconds >= 0) || seconds > 1e6) {
    std::fprintf(stderr,
                 "linfault: LINFAULT_STALL_SECONDS=%s is not a number of seconds from 0 to 1e6; "
                 "using %g\n",
                 text, kDefaultStallSeconds);
    return std::chrono::milliseconds(static_cast<std::int64_t>(kDefaultStallSeconds * 1000));
  }
  return std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000));
}

// The limit in seconds as the messages say it: "20", "0.3".
std::string seconds_text(std::chrono::milliseconds limit) {
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%g", static_cast<double>(limit.count()) / 1000);
  return seconds;
}

// " (history seed 17)", or "" for a run that is no campaign's history.
std::string seed_note(const RunProgress& progress) {
  if (!progress.has_seed.load(std::memory_order_relaxed)) return "";
  return " (history seed " + std::to_string(progress.seed.load(std::memory_order_relaxed)) + ")";
}

std::string describe_native_stall(const RunProgress& progress, std::chrono::milliseconds limit) {
  return "a native run" + seed_note(progress) + " has made no progress for " + seconds_text(limit) +
         " s: no operation returned or started. A deadlock or a livelock, which real threads "
         "cannot be stopped from: a controlled scheduler reports these as failures (mark the "
         "target may_livelock to keep native runs away from it); stopped. LINFAULT_STALL_SECONDS "
         "sets the limit (0: no limit)";
}

std::string describe_stall(const RunProgress& progress, std::chrono::milliseconds limit) {
  if (progress.native) return describe_native_stall(progress, limit);
  const std::int32_t thread = progress.thread.load(std::memory_order_relaxed);
  const history::Call* call = progress.call.load(std::memory_order_acquire);
  const char* file = progress.last_file.load(std::memory_order_relaxed);
  const std::uint32_t line = progress.last_line.load(std::memory_order_relaxed);

  std::string who;
  if (thread == RunProgress::kConstructor) {
    who = "the object's constructor";
  } else {
    who = thread == RunProgress::kSequential ? std::string("the sequential call")
                                             : "thread " + std::to_string(thread) + "'s call";
    who += " " + (call != nullptr ? call->to_string() : std::string("?"));
  }
  std::string where = file != nullptr && thread != RunProgress::kConstructor
                          ? " since its access at " + std::string(file) + ":" + std::to_string(line)
                          : "";
  return "a controlled run" + seed_note(progress) + " reached no scheduling point for " +
         seconds_text(limit) + " s: " + who + " runs on" + where +
         " without another. It may spin on shared state linfault does not control (a plain "
         "std::atomic or variable: instrument it, docs/adding-a-target.md), which a controlled run "
         "cannot preempt; stopped. LINFAULT_STALL_SECONDS sets the limit (0: no limit)";
}

class Watchdog {
 public:
  static Watchdog& instance() {
    // Leaked: the detached thread may still look at it while static objects are destroyed.
    static Watchdog* const watchdog = [] {
      auto* made = new Watchdog;
      // A child forked to run histories (dpct/fork_server.h) has none of the caller's threads:
      // the lock must not be held across the fork, and the child starts a thread of its own for
      // the runs it watches, not for the caller's copied ones.
      pthread_atfork([] { instance().mutex_.lock(); }, [] { instance().mutex_.unlock(); },
                     [] {
                       Watchdog& self = instance();
                       self.mutex_.unlock();
                       self.watched_.clear();
                       self.started_ = false;
                     });
      return made;
    }();
    return *watchdog;
  }

  void watch(RunProgress* progress) {
    std::lock_guard lock(mutex_);
    watched_[progress] = Seen{};
    if (!started_) {
      started_ = true;
      if (!limit_overridden_) limit_ = limit_from_environment();
      std::thread([this] { loop(); }).detach();
    }
  }

  void unwatch(RunProgress* progress) {
    std::lock_guard lock(mutex_);
    watched_.erase(progress);
  }

  void set_handler(StallHandler handler) {
    std::lock_guard lock(mutex_);
    handler_ = std::move(handler);
  }

  std::chrono::milliseconds limit() {
    std::lock_guard lock(mutex_);
    return limit_;
  }

  void set_limit(std::chrono::milliseconds limit) {
    std::lock_guard lock(mutex_);
    limit_ = limit;
    limit_overridden_ = true;
  }

 private:
  struct Seen {
    std::uint64_t beats = 0;
    Clock::time_point since = Clock::now();
    bool reported = false;
  };

  void loop() {
    constexpr std::chrono::milliseconds kPeriod(250);
    Clock::time_point woken = Clock::now();
    for (;;) {
      std::this_thread::sleep_for(kPeriod);
      std::vector<std::string> stalls;
      StallHandler handler;
      {
        std::lock_guard lock(mutex_);
        const Clock::time_point now = Clock::now();
        // A sleep far longer than asked: the whole process was stopped (a debugger's breakpoint,
        // SIGSTOP, a suspended machine). Its runs did not stall; their clocks start again.
        const bool process_was_stopped = now - woken > 8 * kPeriod;
        woken = now;
        for (auto& [progress, seen] : watched_) {
          const std::uint64_t beats = progress->beats.load(std::memory_order_relaxed);
          if (!progress->running.load(std::memory_order_relaxed) || beats != seen.beats ||
              process_was_stopped) {
            seen = Seen{beats, now, false};
            continue;
          }
          if (limit_.count() > 0 && !seen.reported && now - seen.since >= limit_) {
            seen.reported = true;
            if (progress->interruptible.load(std::memory_order_relaxed)) {
              sigval value{};
              value.sival_ptr = reinterpret_cast<void*>(static_cast<std::uintptr_t>(beats));
              pthread_sigqueue(progress->os_thread.load(std::memory_order_relaxed), stall_signal(),
                               value);
            } else {
              stalls.push_back(describe_stall(*progress, limit_));
            }
          }
        }
        handler = handler_;
      }
      for (const std::string& message : stalls) {
        if (handler) {
          handler(message);
        } else {
          std::fprintf(stderr, "linfault: %s\n", message.c_str());
          std::fflush(stderr);
          std::_Exit(kStallExitCode);
        }
      }
    }
  }

  std::mutex mutex_;
  std::map<RunProgress*, Seen> watched_;
  StallHandler handler_;
  // Read at once, so that stall_limit() says it before the first run (detect --isolate sizes
  // its waits by it), and again when the thread starts.
  std::chrono::milliseconds limit_{limit_from_environment()};
  bool limit_overridden_ = false;
  bool started_ = false;
};

}  // namespace

int stall_signal() { return SIGRTMIN + 3; }
std::chrono::milliseconds stall_limit() { return Watchdog::instance().limit(); }

void watch(RunProgress* progress) { Watchdog::instance().watch(progress); }
void unwatch(RunProgress* progress) { Watchdog::instance().unwatch(progress); }
void set_stall_handler(StallHandler handler) {
  Watchdog::instance().set_handler(std::move(handler));
}
void set_stall_limit(std::chrono::milliseconds limit) { Watchdog::instance().set_limit(limit); }

}  // namespace linfault::dpct
