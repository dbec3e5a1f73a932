// Progress on a terminal: one status line on stderr, redrawn in place at most ten times a
// second, and nothing at all when stderr is not a terminal (piped output stays clean).
//
//   ProgressLine progress;                      // enabled iff stderr is a TTY
//   progress.update("12/100 histories");        // rate-limited redraw
//   progress.note("localized: ...");            // a permanent line (TTY only)
//   progress.finish();                          // ends the status line
//
// Thread-safety: not thread-safe; callers serialize (the detection driver calls its progress
// callback under a lock).
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_TOOL_PROGRESS_H_
#define LINFAULT_TOOL_PROGRESS_H_

#include <chrono>
#include <string>

namespace linfault::detect {
struct Progress;
}  // namespace linfault::detect

namespace linfault::tool {

class ProgressLine {
 public:
  ProgressLine();  // enabled when stderr is a terminal
  explicit ProgressLine(bool enabled) : enabled_(enabled) {}

  bool enabled() const { return enabled_; }
  // Redraws the status line; skipped when the last redraw is under 100 ms old unless `force`.
  void update(const std::string& text, bool force = false);
  // As update(), but the text is made (make_text() -> std::string) only when it is drawn: the
  // detection driver reports every history, and formatting each line cost about a twentieth of
  // a 2 x 5 history.
  template <class MakeText>
  void update_with(MakeText&& make_text, bool force = false) {
    if (due(force)) update(make_text(), /*force=*/true);
  }
  // Whether update() would redraw now.
  bool due(bool force = false) const;
  // Prints `text` as a line of its own above the status line.
  void note(const std::string& text);
  // Ends the status line (a newline if one is drawn).
  void finish();

 private:
  static constexpr std::chrono::milliseconds kInterval{100};

  bool enabled_;
  bool drawn_ = false;
  std::size_t width_ = 0;
  std::chrono::steady_clock::time_point last_{};
};

// "12/100 histories, 1 violations, 0.4 s": the detection driver's progress as a status line.
std::string detection_progress_text(const detect::Progress& progress);

}  // namespace linfault::tool

#endif  // LINFAULT_TOOL_PROGRESS_H_
