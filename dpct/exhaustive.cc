#include "dpct/exhaustive.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace linfault::dpct {

namespace {

// Follows a stack of decision frames: the prefix left by the previous run, then first choices.
class ExhaustiveScheduler final : public Scheduler {
 public:
  explicit ExhaustiveScheduler(std::optional<unsigned> bound) : bound_(bound) {}

  void begin(const RunInfo&) override {
    depth_ = 0;
    preemptions_ = 0;
  }

  ThreadId choose(const SchedulingPoint& point, std::span<const ThreadId> enabled) override {
    if (enabled.size() < 2) return enabled[0];
    if (depth_ == frames_.size()) {
      Frame frame;
      frame.preemptible = !point.is_yield() && point.thread != kNoThread &&
                          std::find(enabled.begin(), enabled.end(), point.thread) != enabled.end();
      if (frame.preemptible) frame.alternatives.push_back(point.thread);
      for (ThreadId t : enabled) {
        if (!frame.preemptible || t != point.thread) frame.alternatives.push_back(t);
      }
      frame.preemptions_before = preemptions_;
      frames_.push_back(std::move(frame));
    } else {
      const Frame& frame = frames_[depth_];
      std::vector<ThreadId> now(enabled.begin(), enabled.end());
      std::vector<ThreadId> then = frame.alternatives;
      std::sort(then.begin(), then.end());
      if (now != then || frame.preemptions_before != preemptions_) {
        throw std::runtime_error(
            "exhaustive exploration: the workload is not deterministic (decision " +
            std::to_string(depth_) + " sees other enabled threads than before)");
      }
    }
    const Frame& frame = frames_[depth_++];
    preemptions_ += cost(frame, frame.chosen);
    return frame.alternatives[frame.chosen];
  }

  void end(Schedule& schedule) override {
    if (depth_ != frames_.size()) {
      throw std::runtime_error(
          "exhaustive exploration: the workload is not deterministic (run ended after " +
          std::to_string(depth_) + " of " + std::to_string(frames_.size()) +
          " replayed decisions)");
    }
    schedule.scheduler = "exhaustive";
    schedule.set_parameter("run", std::to_string(runs_++));
    schedule.set_parameter("preemptions", std::to_string(preemptions_));
    schedule.set_parameter("bound", bound_ ? std::to_string(*bound_) : "none");
  }

  // Moves to the next schedule in depth-first order; false when none is left.
  bool advance() {
    while (!frames_.empty()) {
      Frame& frame = frames_.back();
      for (std::size_t next = frame.chosen + 1; next < frame.alternatives.size(); ++next) {
        if (!bound_ || frame.preemptions_before + cost(frame, next) <= *bound_) {
          frame.chosen = next;
          return true;
        }
      }
      frames_.pop_back();
    }
    return false;
  }

 private:
  struct Frame {
    std::vector<ThreadId> alternatives;  // the running thread first when it may continue
    std::size_t chosen = 0;
    unsigned preemptions_before = 0;
    bool preemptible = false;  // switching away from alternatives[0] is a preemption
  };
  static unsigned cost(const Frame& frame, std::size_t alternative) {
    return frame.preemptible && alternative != 0 ? 1 : 0;
  }

  std::optional<unsigned> bound_;
  std::vector<Frame> frames_;
  std::size_t depth_ = 0;
  unsigned preemptions_ = 0;
  std::uint64_t runs_ = 0;
};

}  // namespace

ExhaustiveResult explore_exhaustively(Executor& executor, const ObjectFactory& factory,
                                      const Workload& workload, const ExhaustiveOptions& options,
                                      const std::function<bool(const Run&)>& stop) {
  ExhaustiveResult result;
  ExhaustiveScheduler scheduler(options.max_preemptions);
  while (true) {
    Run run = executor.execute(factory, workload, scheduler, options.execution);
    ++result.executions;
    ++result.outcomes[static_cast<std::size_t>(run.outcome)];
    if (stop && stop(run)) {
      result.found = std::move(run);
      result.exhausted = false;
      return result;
    }
    const bool more = scheduler.advance();
    if (!more) {
      result.exhausted = true;
      return result;
    }
    if (options.max_executions != 0 && result.executions >= options.max_executions) return result;
  }
}

}  // namespace linfault::dpct
