#include "minimize/gtest_emitter.h"

#include <cctype>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

namespace linfault::minimize {
namespace {

constexpr std::size_t kLiteralPiece = 80;  // characters of text per line of a long literal

// Text safe inside a // comment: one line, printable ASCII only, and no backslash (one that ended
// a line would splice the next line into the comment).
std::string comment_text(std::string_view text) {
  std::string out;
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    out += byte >= 0x20 && byte < 0x7f && c != '\\' ? c : '?';
  }
  return out;
}

// "//   label: text" word-wrapped to kCommentWidth columns, continuation lines indented.
std::string comment_block(const std::string& label, std::string_view text) {
  constexpr std::size_t kCommentWidth = 100;
  const std::string first = "//   " + label + ": ";
  const std::string next = "//     ";
  std::string out = first;
  std::size_t column = first.size();
  bool line_empty = true;
  std::string word;
  auto flush_word = [&] {
    if (word.empty()) return;
    if (!line_empty && column + 1 + word.size() > kCommentWidth) {
      out += "\n" + next;
      column = next.size();
      line_empty = true;
    }
    if (!line_empty) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
    line_empty = false;
    word.clear();
  };
  for (char c : comment_text(text)) {
    if (c == ' ') {
      flush_word();
    } else {
      word += c;
    }
  }
  flush_word();
  return out + "\n";
}

std::string value_expression(const history::Value& value) {
  if (value.is_nil()) return "Value()";
  if (value.is_bool()) return value.as_bool() ? "Value(true)" : "Value(false)";
  if (value.is_int()) {
    const std::int64_t v = value.as_int();
    if (v == std::numeric_limits<std::int64_t>::min()) {
      return "Value(std::numeric_limits<std::int64_t>::min())";
    }
    return "Value(std::int64_t{" + std::to_string(v) + "})";
  }
  if (value.is_string()) return "Value(std::string(" + cpp_string_literal(value.as_string()) + "))";
  std::string out = "Value(Value::List{";
  const history::Value::List& list = value.as_list();
  for (std::size_t i = 0; i < list.size(); ++i) out += (i ? ", " : "") + value_expression(list[i]);
  return out + "})";
}

std::string call_expression(const history::Call& call) {
  std::string out = "Call{" + cpp_string_literal(call.method) + ", {";
  for (std::size_t i = 0; i < call.args.size(); ++i) {
    out += (i ? ", " : "") + value_expression(call.args[i]);
  }
  return out + "}}";
}

std::string observed(const Step& step) {
  std::string out = "-> ";
  switch (step.outcome) {
    case history::Outcome::kOk:
      out += step.result.to_string();
      break;
    case history::Outcome::kFail:
      out += "fail";
      break;
    case history::Outcome::kPending:
      out += "pending";
      break;
  }
  return comment_text(step.culprit ? out + " (no linearization explains this)" : out);
}

// `<open>{...}<close>` with one call per line and its observed result as a comment.
std::string calls_block(const std::string& indent, const std::string& open,
                        const std::vector<Step>& steps, const std::string& close) {
  if (steps.empty()) return indent + open + "{}" + close + "\n";
  std::string out = indent + open + "{\n";
  for (const Step& step : steps) {
    out += indent + "    " + call_expression(step.call) + ",  // " + observed(step) + "\n";
  }
  return out + indent + "}" + close + "\n";
}

std::string steps_summary(const std::vector<Step>& steps) {
  if (steps.empty()) return "(none)";
  std::string out;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    out += (i ? "; " : "") + steps[i].call.to_string();
  }
  return comment_text(out);
}

// A long literal as adjacent pieces, one per line, each at most kLiteralPiece characters of text.
std::string long_literal(std::string_view text, const std::string& indent) {
  if (text.size() <= kLiteralPiece) return " " + cpp_string_literal(text);
  std::string out;
  for (std::size_t at = 0; at < text.size(); at += kLiteralPiece) {
    out += "\n" + indent + cpp_string_literal(text.substr(at, kLiteralPiece));
  }
  return out;
}

}  // namespace

std::string cpp_string_literal(std::string_view text) {
  static constexpr char kOctal[] = "01234567";
  std::string out = "\"";
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        continue;
      case '\\':
        out += "\\\\";
        continue;
      case '\n':
        out += "\\n";
        continue;
      case '\t':
        out += "\\t";
        continue;
      case '?':  // never part of a trigraph
        out += "\\?";
        continue;
      default:
        break;
    }
    if (byte >= 0x20 && byte < 0x7f) {
      out += c;
    } else {  // three octal digits: the escape cannot swallow a following digit
      out += '\\';
      out += kOctal[(byte >> 6) & 7];
      out += kOctal[(byte >> 3) & 7];
      out += kOctal[byte & 7];
    }
  }
  return out + "\"";
}

std::string gtest_name(std::string_view target) {
  std::string out;
  bool upper = true;
  for (char c : target) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0) {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out.front())) != 0) {
    out = "Target" + out;
  }
  return out;
}

std::string emit_gtest(const TestCase& tc) {
  if (!tc.target) {
    throw std::invalid_argument(
        "a history-level test case has no target to re-execute: no GoogleTest file for it");
  }
  if (!tc.schedule) {
    throw std::invalid_argument("the test case has no schedule to replay: no GoogleTest file");
  }
  const std::string target = *tc.target;
  const std::string file = comment_text(target) + "_repro_test.cc";
  std::string out;
  out += "// Reproduces a concurrency bug of the linfault target \"" + comment_text(target) +
         "\" (model: " + comment_text(tc.model) + ").\n";
  out += "// Generated by linfault from a failing run. The test FAILS while the bug is there and\n";
  out += "// PASSES once it is fixed: it replays the recorded schedule (following its thread\n";
  out += "// choices even where lines moved), then explores every interleaving of the concurrent\n";
  out += "// part, and fails only on a real violation (or a deadlock or crash).\n";
  out += "//\n";
  out += comment_block("Ps", steps_summary(tc.ps));
  for (std::size_t t = 0; t < tc.pc.size(); ++t) {
    out += comment_block("Pc thread " + std::to_string(t), steps_summary(tc.pc[t]));
  }
  out += comment_block("Pr", steps_summary(tc.pr));
  out += comment_block("violation", tc.violation.empty() ? "(none recorded)" : tc.violation);
  out += comment_block("guarantee", tc.guarantee.empty() ? "(none stated)" : tc.guarantee);
  out += "//\n";
  out += "// Build it in the project that registers the target, against the installed linfault:\n";
  out += "//   find_package(linfault CONFIG REQUIRED)\n";
  out += "//   linfault_add_test(" + comment_text(target) + "_repro SOURCES " + file + "\n";
  out += "//                     TARGETS <the linfault_add_target library registering it>)\n";
  out += "// (a built-in target needs no TARGETS library).\n\n";
  out += "#include <linfault/gtest.h>\n\n";
  out += "#include <cstdint>\n#include <limits>\n#include <string>\n\n";
  out += "namespace {\n\n";
  out += "using linfault::Call;\nusing linfault::Value;\n\n";
  out += "TEST(LinfaultRepro, " + gtest_name(target) + ") {\n";
  out += "  linfault::Workload workload;\n";
  out += "  // Ps: sequential set-up (thread 0).\n";
  out += calls_block("  ", "workload.setup = ", tc.ps, ";");
  out += "  // Pc: one list of calls per thread, run concurrently.\n";
  for (std::size_t t = 0; t < tc.pc.size(); ++t) {
    out += "  // Pc thread " + std::to_string(t) + "\n";
    out += calls_block("  ", "workload.threads.push_back(", tc.pc[t], ");");
  }
  out += "  // Pr: sequential reveal after every thread of Pc returned (thread 0).\n";
  out += calls_block("  ", "workload.reveal = ", tc.pr, ";");
  out += "  // The failing schedule (docs/schedule-format.md).\n";
  out += "  const std::string schedule =" + long_literal(*tc.schedule, "      ") + ";\n\n";
  out += "  EXPECT_TRUE(linfault::testing::ReproPasses(\n      " + cpp_string_literal(target) +
         ", workload, schedule, /*max_steps=*/" + std::to_string(tc.max_steps) + "));\n";
  out += "}\n\n";
  out += "}  // namespace\n";
  return out;
}

}  // namespace linfault::minimize
