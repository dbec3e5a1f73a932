// Schedule: the scheduling decisions of one controlled execution, with the parameters of the
// scheduler that made them: enough to replay the execution exactly (dpct/replay_scheduler.h)
// and to notice when a replay diverges from it.
//
// A decision is recorded at every scheduling point where at least two threads were enabled
// (points with one enabled thread have no choice); `decisions[i]` is the thread chosen at the
// i-th such point. `points[i]`, when present, says where decision i was taken (which thread was
// at which source line, or the start of the concurrent part), so a replay can report "decision 7:
// recorded thread 1 at treiber.h:31, got thread 0 at treiber.h:35".
//
// Text form (docs/schedule-format.md), one line:
//   pct seed=42 n=2 k=37 d=3 prio=4,3 cp=12,30 | 0x5 1x3 0x2 | ^ 0@treiber.h:31 @:33 1- ...
// JSON form: {"scheduler": "pct", "parameters": {"seed": "42", ...}, "decisions": [0, 0, ...],
//             "points": ["^", "0@treiber.h:31", ...]}.
// A weak-memory run (memory model c11) ends its text with a section of read decisions,
// `| reads 1.0 i 0.2/1` (StoreId texts, dpct/memory_model.h; the section is there, maybe empty,
// exactly for c11 runs), and its JSON has "memory_model": "c11" and "reads": ["1.0", ...].
// Both round-trip exactly (JSON orders parameters by name).
//
// Thread-safety: plain data.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_DPCT_SCHEDULE_H_
#define LINFAULT_DPCT_SCHEDULE_H_

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "dpct/scheduler.h"

namespace linfault::dpct {

// Where a decision was taken. `file` indexes Schedule::files (kNoFile for kStart / kFinished).
struct PointTag {
  static constexpr std::uint32_t kNoFile = 0xffffffffu;
  PointKind kind = PointKind::kStart;
  ThreadId thread = kNoThread;
  std::uint32_t file = kNoFile;
  std::uint32_t line = 0;
};

// Thrown when schedule text or JSON cannot be parsed; what() names the position and problem.
class ScheduleFormatError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct Schedule {
  std::string scheduler;  // "pct", "random", "exhaustive", ...
  std::vector<std::pair<std::string, std::string>> parameters;  // in the order written
  std::vector<ThreadId> decisions;
  std::vector<PointTag> points;    // empty, or one per decision
  std::vector<std::string> files;  // source file base names referenced by `points`
  // kC11: the run followed the C++20 model, and `reads` holds its read decisions in order: the
  // store each load with more than one candidate read (Scheduler::choose_read).
  MemoryModel memory_model = MemoryModel::kSequential;
  std::vector<StoreId> reads;

  // The value of parameter `name`, or nullptr.
  const std::string* parameter(std::string_view name) const;
  void set_parameter(std::string name, std::string value);

  // Index of `base_name` in `files`, appended if new.
  std::uint32_t intern_file(std::string_view base_name);
  // "^", "1@treiber.h:31", "0!lock.h:9" (blocked), "1-" (finished), always with the file.
  std::string describe_point(std::size_t decision) const;

  std::string to_text() const;
  // Throws ScheduleFormatError.
  static Schedule from_text(std::string_view text);
  nlohmann::json to_json() const;
  // Throws ScheduleFormatError.
  static Schedule from_json(const nlohmann::json& json);

  // Same scheduler, parameters (in any order), decisions and points (files compared by name).
  friend bool operator==(const Schedule& a, const Schedule& b);
};

// The file name without its directories: "treiber.h" for "/src/targets/treiber.h".
std::string_view base_name(std::string_view path);

}  // namespace linfault::dpct

#endif  // LINFAULT_DPCT_SCHEDULE_H_
