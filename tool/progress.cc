#include "tool/progress.h"

#include <unistd.h>

#include <cstdio>

#include "detect/driver.h"

namespace linfault::tool {

ProgressLine::ProgressLine() : enabled_(::isatty(STDERR_FILENO) != 0) {}

bool ProgressLine::due(bool force) const {
  if (!enabled_) return false;
  if (force || !drawn_) return true;
  return std::chrono::steady_clock::now() - last_ >= kInterval;
}

void ProgressLine::update(const std::string& text, bool force) {
  if (!due(force)) return;
  last_ = std::chrono::steady_clock::now();
  // Pad with blanks so a shorter line erases the end of a longer one.
  const std::size_t pad = width_ > text.size() ? width_ - text.size() : 0;
  std::fprintf(stderr, "\r%s%*s", text.c_str(), static_cast<int>(pad), "");
  std::fflush(stderr);
  width_ = text.size();
  drawn_ = true;
}

void ProgressLine::note(const std::string& text) {
  if (!enabled_) return;
  if (drawn_) {
    std::fprintf(stderr, "\r%*s\r", static_cast<int>(width_), "");
    drawn_ = false;
    width_ = 0;
  }
  std::fprintf(stderr, "%s\n", text.c_str());
}

void ProgressLine::finish() {
  if (drawn_) std::fputs("\n", stderr);
  drawn_ = false;
  width_ = 0;
}

std::string detection_progress_text(const detect::Progress& p) {
  char line[160];
  std::snprintf(line, sizeof line, "%llu/%llu histories, %llu violations, %.1f s",
                static_cast<unsigned long long>(p.done), static_cast<unsigned long long>(p.total),
                static_cast<unsigned long long>(p.violations), p.elapsed_seconds);
  return line;
}

}  // namespace linfault::tool
