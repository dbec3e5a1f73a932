// Report: what `linfault report` shows about one input, and its two renderings.
//
// A Report gathers, for a history (read from a file, a saved run, a check result or a test
// case), the data a person wants to look at:
//   - the history itself: threads (processes) as lanes, operations as bars spanning their call
//     and return events, labelled with arguments and results;
//   - the verdict: the shortest non-linearizable prefix (drawn as a cut line after its last
//     event), the culprit (the operation whose response no linearization explains) and the
//     longest partial linearization (numbered, in the order Porcupine shows it);
//   - for a test case: Ps, Pc and Pr with the observed results;
//   - when a schedule could be replayed: the step-by-step interleaving of the concurrent part,
//     one shared access per row with the source line it executed.
//
// render_html() returns one self-contained HTML document (inline CSS and script, no network, no
// external assets; every text from the input is escaped). Its timeline is drawn by the script
// into an SVG that holds only the bars in view, so histories of 10^4 operations and more zoom and
// scroll smoothly. The culprit's bar has id="culprit" and the class "culprit". render_svg()
// returns a static SVG timeline for embedding in a CI page (a window around the violation when
// the history is large).
//
// Thread-safety: plain data and pure functions; replay_interleaving() runs the target on the
// calling thread with its own executor.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_REPORT_REPORT_H_
#define LINFAULT_REPORT_REPORT_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "detect/saved_run.h"
#include "detect/verdict.h"
#include "dpct/executor.h"
#include "dpct/workload.h"
#include "history/history.h"
#include "minimize/test_case.h"

namespace linfault::report {

// A replayed execution: the calls it ran, its history and every shared access, in order
// (minimize/interleaving.h turns it into rows).
struct Interleaving {
  dpct::Workload workload;
  dpct::Run run;                            // with its trace and history
  std::optional<history::OpIndex> culprit;  // in run.history, when the replay violates
};

struct Report {
  std::string title;   // what the input was (a file name)
  std::string kind;    // "history", "saved run", "check result", "test case"
  std::string model;   // spec/registry.h model name
  std::string target;  // targets/registry.h name, when known
  history::History history;
  std::optional<detect::Verdict> verdict;  // of `history`
  std::optional<minimize::TestCase> test_case;
  std::optional<Interleaving> interleaving;
  // Lines shown under the title (e.g. why no interleaving could be replayed).
  std::vector<std::string> notes;
};

// `text` with &, <, >, " and ' replaced by entities (safe in element content and attributes).
std::string escape_html(const std::string& text);

std::string render_html(const Report& report);

struct SvgOptions {
  double width = 1200;  // pixels
  // Histories with more operations are shown as a window of this many operations ending just
  // after the culprit (or the last ones, with no violation); the SVG says so.
  std::size_t max_operations = 400;
};
std::string render_svg(const Report& report, const SvgOptions& options = {});

// Replays a target-level test case's failing schedule (strict dpct::ReplayScheduler, the test
// case's max_steps) with the access trace recorded. Returns nullopt and sets `why` when the test
// case has no target or schedule, names an unknown target, or the replay diverges.
std::optional<Interleaving> replay_interleaving(const minimize::TestCase& test_case,
                                                std::string& why);
// The same for a run saved by `linfault detect` (native runs have no schedule to replay).
std::optional<Interleaving> replay_interleaving(const detect::SavedRun& run, std::string& why);

}  // namespace linfault::report

#endif  // LINFAULT_REPORT_REPORT_H_
