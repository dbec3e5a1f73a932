// Short texts shared by the HTML and SVG renderers and by triage: how an operation's result and a
// verdict read to a person (a test-case step: minimize::step_to_text).
//
// Thread-safety: pure functions.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_REPORT_REPORT_TEXT_H_
#define LINFAULT_REPORT_REPORT_TEXT_H_

#include <string>

#include "detect/verdict.h"
#include "history/history.h"

namespace linfault::report {

// "3", "nil", "fail", "fail :timed-out", "pending".
std::string result_text(const history::Operation& op);
// One sentence: "Not linearizable: the response of #7 p2 read() -> 3 ... (event 15 of 40)".
std::string verdict_sentence(const detect::Verdict& verdict, const history::History& history);

}  // namespace linfault::report

#endif  // LINFAULT_REPORT_REPORT_TEXT_H_
