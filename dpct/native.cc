#include "dpct/native.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "dpct/watchdog.h"
#include "history/value.h"

namespace linfault::dpct {

namespace {

struct StampedEvent {
  std::uint64_t stamp;
  ThreadId thread;
  std::size_t op;
  bool is_return;
  history::Value result;
};

struct ThreadLog {
  std::vector<StampedEvent> events;
  std::string crash;  // empty unless an operation threw
};

std::string describe_exception(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& ex) {
    return history::printable(ex.what());  // the object's text: into JSON and terminals
  } catch (...) {
    return "an exception that is not a std::exception";
  }
}

}  // namespace

Run run_native(const ObjectFactory& factory, const Workload& workload,
               const NativeOptions& options) {
  Run run;
  run.schedule.scheduler = "native";
  history::HistoryBuilder builder(options.origin);
  // The stall watchdog (dpct/watchdog.h): a deadlock here would otherwise hang the process.
  RunProgress progress;
  progress.native = true;
  watch(&progress);
  struct Unwatch {
    RunProgress* progress;
    ~Unwatch() { unwatch(progress); }
  } unwatch_at_return{&progress};
  progress.start(options.history_seed);
  std::atomic<std::uint64_t> clock{0};  // the events' stamps (header), also the beats
  std::unique_ptr<ObjectUnderTest> object = factory();
  if (!object) throw std::invalid_argument("the object factory returned no object");

  auto sequential = [&](const std::vector<history::Call>& calls, const char* phase) {
    for (std::size_t i = 0; i < calls.size(); ++i) {
      progress.native_beat(clock.fetch_add(1));
      if (options.record_history) builder.invoke(0, calls[i]);
      try {
        history::Value result = object->invoke(calls[i]);
        if (options.record_history) builder.respond(0, history::Outcome::kOk, std::move(result));
      } catch (...) {
        run.outcome = RunOutcome::kCrash;
        run.message = std::string(phase) + " call " + std::to_string(i) + " " +
                      calls[i].to_string() + ": " + describe_exception(std::current_exception());
        return false;
      }
    }
    return true;
  };

  if (sequential(workload.setup, "setup")) {
    const std::size_t n = workload.threads.size();
    std::vector<ThreadLog> logs(n);
    std::vector<NoiseCounts> noise_counts(n);
    std::atomic<std::size_t> arrived{0};
    auto body = [&](ThreadId t) {
      const std::vector<history::Call>& calls = workload.threads[t];
      ThreadLog& log = logs[t];
      log.events.reserve(2 * calls.size());
      std::optional<NoiseInjector> noise;
      if (options.noise) noise.emplace(*options.noise, t);
      arrived.fetch_add(1);
      while (arrived.load() < n) std::this_thread::yield();
      {
        // Installed after the start, so that the start's own accesses draw no noise.
        ScopedContext observed(noise ? &*noise : nullptr);
        for (std::size_t i = 0; i < calls.size(); ++i) {
          const std::uint64_t invoked = clock.fetch_add(1);
          progress.native_beat(invoked);
          log.events.push_back({invoked, t, i, false, {}});
          try {
            history::Value result = object->invoke(calls[i]);
            const std::uint64_t returned = clock.fetch_add(1);
            progress.native_beat(returned);
            log.events.push_back({returned, t, i, true, std::move(result)});
          } catch (...) {
            log.crash = "thread " + std::to_string(t) + ", call " + std::to_string(i) + " " +
                        calls[i].to_string() + ": " + describe_exception(std::current_exception());
            break;
          }
        }
      }
      if (noise) noise_counts[t] = noise->counts();
    };
    {
      std::vector<std::jthread> threads;
      threads.reserve(n);
      for (std::size_t t = 0; t < n; ++t) threads.emplace_back(body, static_cast<ThreadId>(t));
    }

    if (options.noise_counts != nullptr) {
      for (const NoiseCounts& counts : noise_counts) *options.noise_counts += counts;
    }
    std::vector<StampedEvent> events;
    for (ThreadLog& log : logs) {
      std::move(log.events.begin(), log.events.end(), std::back_inserter(events));
      if (!log.crash.empty() && run.outcome == RunOutcome::kOk) {
        run.outcome = RunOutcome::kCrash;
        run.message = log.crash;
      }
    }
    std::sort(events.begin(), events.end(),
              [](const StampedEvent& a, const StampedEvent& b) { return a.stamp < b.stamp; });
    if (options.record_history) {
      for (StampedEvent& e : events) {
        if (e.is_return) {
          builder.respond(e.thread, history::Outcome::kOk, std::move(e.result));
        } else {
          builder.invoke(e.thread, workload.threads[e.thread][e.op]);
        }
      }
    }
    if (run.outcome == RunOutcome::kOk) sequential(workload.reveal, "reveal");
  }
  object.reset();
  if (options.record_history) run.history = std::move(builder).build();
  return run;
}

}  // namespace linfault::dpct
