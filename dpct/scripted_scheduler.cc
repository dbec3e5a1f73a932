#include "dpct/scripted_scheduler.h"

#include <algorithm>
#include <stdexcept>

#include "dpct/schedule.h"

namespace linfault::dpct {

void ScriptedScheduler::begin(const RunInfo&) {
  segment_ = 0;
  used_ = 0;
}

ThreadId ScriptedScheduler::choose(const SchedulingPoint&, std::span<const ThreadId> enabled) {
  while (segment_ < script_.size()) {
    const Segment& s = script_[segment_];
    const bool is_enabled = std::find(enabled.begin(), enabled.end(), s.thread) != enabled.end();
    const bool finished = s.points == kUntilDone && !is_enabled;
    if (finished || used_ == s.points) {
      ++segment_;
      used_ = 0;
      continue;
    }
    if (!is_enabled) {
      throw std::invalid_argument("script segment " + std::to_string(segment_) + " (" +
                                  std::to_string(s.thread) + "x" + std::to_string(s.points) +
                                  "): thread " + std::to_string(s.thread) +
                                  " is not enabled after " + std::to_string(used_) + " points");
    }
    ++used_;
    return s.thread;
  }
  return enabled.front();
}

void ScriptedScheduler::end(Schedule& schedule) {
  schedule.scheduler = "scripted";
  schedule.set_parameter("script", script_text());
}

std::string ScriptedScheduler::script_text() const {
  std::string text;
  for (const Segment& s : script_) {
    if (!text.empty()) text += ",";
    text += std::to_string(s.thread) + "x" +
            (s.points == kUntilDone ? std::string("*") : std::to_string(s.points));
  }
  return text;
}

}  // namespace linfault::dpct
