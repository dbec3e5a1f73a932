#include "report/report_text.h"

namespace linfault::report {

std::string result_text(const history::Operation& op) {
  switch (op.outcome) {
    case history::Outcome::kOk:
      return op.result.to_string();
    case history::Outcome::kFail:
      return op.result.is_nil() ? "fail" : "fail " + op.result.to_string();
    case history::Outcome::kPending:
      break;
  }
  return "pending";
}

std::string verdict_sentence(const detect::Verdict& verdict, const history::History& history) {
  switch (verdict.result) {
    case detect::Result::kLinearizable:
      return "Linearizable (" + verdict.algorithm + ").";
    case detect::Result::kUnknown:
      return "Unknown: " + verdict.reason + ".";
    case detect::Result::kViolation:
      break;
  }
  std::string out = "Not linearizable: the response of ";
  if (verdict.culprit >= 0 && static_cast<std::size_t>(verdict.culprit) < history.size()) {
    out += "#" + std::to_string(verdict.culprit) + " " + history.op(verdict.culprit).to_string();
  } else {
    out += "an operation";
  }
  out += " cannot be explained; the shortest non-linearizable prefix has " +
         std::to_string(verdict.prefix_events) + " of " + std::to_string(history.events().size()) +
         " events";
  if (!verdict.prefix_exact) out += " (an upper bound: " + verdict.reason + ")";
  return out + ".";
}

}  // namespace linfault::report
