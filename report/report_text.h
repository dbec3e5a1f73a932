// Short texts shared by the HTML and SVG renderers and by triage: how an operation's result, a
// test-case step and a verdict read to a person.
//
// Thread-safety: pure functions.

#ifndef LINFAULT_REPORT_REPORT_TEXT_H_
#define LINFAULT_REPORT_REPORT_TEXT_H_

#include <string>

#include "detect/verdict.h"
#include "history/history.h"
#include "minimize/test_case.h"

namespace linfault::report {

// "3", "nil", "fail", "fail :timed-out", "pending".
std::string result_text(const history::Operation& op);
// "pop() -> 2", "push(1)", "size() -> fail".
std::string step_text(const minimize::Step& step);
// One sentence: "Not linearizable: the response of #7 p2 read() -> 3 ... (event 15 of 40)".
std::string verdict_sentence(const detect::Verdict& verdict, const history::History& history);

}  // namespace linfault::report

#endif  // LINFAULT_REPORT_REPORT_TEXT_H_
