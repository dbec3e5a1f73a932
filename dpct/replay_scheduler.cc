#include "dpct/replay_scheduler.h"

#include <algorithm>
#include <string>

namespace linfault::dpct {

namespace {

std::string describe(const SchedulingPoint& point) {
  switch (point.kind) {
    case PointKind::kStart:
      return "the start of the concurrent part";
    case PointKind::kFinished:
      return "thread " + std::to_string(point.thread) + " finished";
    case PointKind::kAccess:
    case PointKind::kBlocked:
      break;
  }
  return "thread " + std::to_string(point.thread) +
         (point.kind == PointKind::kBlocked ? " blocked at " : " at ") +
         std::string(base_name(point.access.where.file_name())) + ":" +
         std::to_string(point.access.where.line()) + " (" + access_kind_name(point.access.kind) +
         ")";
}

std::string describe(const Schedule& s, std::size_t decision) {
  const PointTag& tag = s.points[decision];
  switch (tag.kind) {
    case PointKind::kStart:
      return "the start of the concurrent part";
    case PointKind::kFinished:
      return "thread " + std::to_string(tag.thread) + " finished";
    case PointKind::kAccess:
    case PointKind::kBlocked:
      break;
  }
  return "thread " + std::to_string(tag.thread) +
         (tag.kind == PointKind::kBlocked ? " blocked at " : " at ") +
         (tag.file < s.files.size() ? s.files[tag.file] : "?") + ":" + std::to_string(tag.line);
}

bool matches(const Schedule& s, const PointTag& tag, const SchedulingPoint& point) {
  if (tag.kind != point.kind || tag.thread != point.thread) return false;
  if (tag.kind != PointKind::kAccess && tag.kind != PointKind::kBlocked) return true;
  return tag.line == point.access.where.line() && tag.file < s.files.size() &&
         s.files[tag.file] == base_name(point.access.where.file_name());
}

std::string list(std::span<const ThreadId> enabled) {
  std::string out;
  for (ThreadId t : enabled) out += (out.empty() ? "" : ",") + std::to_string(t);
  return out;
}

}  // namespace

ReplayScheduler::ReplayScheduler(Schedule schedule, ReplayMode mode)
    : schedule_(std::move(schedule)), mode_(mode) {}

void ReplayScheduler::begin(const RunInfo&) {
  next_ = 0;
  next_read_ = 0;
  divergences_ = 0;
}

ThreadId ReplayScheduler::diverge(const std::string& message, const SchedulingPoint& point,
                                  std::span<const ThreadId> enabled, ThreadId recorded) {
  if (mode_ == ReplayMode::kStrict) throw ScheduleDivergence("schedule divergence: " + message);
  ++divergences_;
  if (std::find(enabled.begin(), enabled.end(), recorded) != enabled.end()) return recorded;
  if (std::find(enabled.begin(), enabled.end(), point.thread) != enabled.end()) return point.thread;
  return enabled[0];
}

ThreadId ReplayScheduler::choose(const SchedulingPoint& point, std::span<const ThreadId> enabled) {
  if (enabled.size() < 2) return enabled[0];
  const std::size_t index = next_++;
  if (index >= schedule_.decisions.size()) {
    return diverge("decision " + std::to_string(index) + " (step " + std::to_string(point.step) +
                       "): the schedule records only " +
                       std::to_string(schedule_.decisions.size()) + " decisions; the run is at " +
                       describe(point),
                   point, enabled, kNoThread);
  }
  const ThreadId recorded = schedule_.decisions[index];
  if (!schedule_.points.empty() && !matches(schedule_, schedule_.points[index], point)) {
    return diverge("decision " + std::to_string(index) + " (step " + std::to_string(point.step) +
                       "): recorded at " + describe(schedule_, index) + ", but the run is at " +
                       describe(point),
                   point, enabled, recorded);
  }
  if (std::find(enabled.begin(), enabled.end(), recorded) == enabled.end()) {
    return diverge("decision " + std::to_string(index) + " (step " + std::to_string(point.step) +
                       "): recorded thread " + std::to_string(recorded) +
                       " is not enabled (enabled: " + list(enabled) + ") at " + describe(point),
                   point, enabled, recorded);
  }
  return recorded;
}

std::size_t ReplayScheduler::choose_read(const ReadPoint& point,
                                         std::span<const StoreId> candidates) {
  const std::size_t index = next_read_++;
  const std::string where = "thread " + std::to_string(point.thread) + " at " +
                            std::string(base_name(point.access->where.file_name())) + ":" +
                            std::to_string(point.access->where.line());
  std::string problem;
  if (index >= schedule_.reads.size()) {
    problem = "the schedule records only " + std::to_string(schedule_.reads.size()) +
              " read decisions; the run reads at " + where;
  } else {
    const StoreId recorded = schedule_.reads[index];
    const auto found = std::find(candidates.begin(), candidates.end(), recorded);
    if (found != candidates.end()) return static_cast<std::size_t>(found - candidates.begin());
    std::string readable;
    for (const StoreId& id : candidates)
      readable += (readable.empty() ? "" : ",") + store_id_text(id);
    problem = "recorded store " + store_id_text(recorded) + " is not readable by " + where +
              " (readable: " + readable + ")";
  }
  if (mode_ == ReplayMode::kStrict) {
    throw ScheduleDivergence("schedule divergence: read " + std::to_string(index) + ": " + problem);
  }
  ++divergences_;
  return 0;
}

void ReplayScheduler::end(Schedule& schedule) {
  if (next_ < schedule_.decisions.size()) {
    if (mode_ == ReplayMode::kStrict) {
      throw ScheduleDivergence("schedule divergence: the run ended after " + std::to_string(next_) +
                               " of " + std::to_string(schedule_.decisions.size()) +
                               " recorded decisions");
    }
    ++divergences_;
  }
  if (next_read_ < schedule_.reads.size()) {
    if (mode_ == ReplayMode::kStrict) {
      throw ScheduleDivergence("schedule divergence: the run ended after " +
                               std::to_string(next_read_) + " of " +
                               std::to_string(schedule_.reads.size()) + " recorded read decisions");
    }
    // Fewer reads than recorded is no divergence of a lenient replay: a shrunk schedule drops
    // the trailing reads on purpose.
  }
  schedule.scheduler = schedule_.scheduler;
  schedule.parameters = schedule_.parameters;
  if (divergences_ > 0) schedule.set_parameter("diverged", std::to_string(divergences_));
}

}  // namespace linfault::dpct
