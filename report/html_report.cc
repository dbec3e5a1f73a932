// render_html(): the static parts of the page are written here; the timeline is drawn by the
// inline script (report/timeline_script.h) from the data embedded as JSON.

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "history/json_format.h"
#include "minimize/interleaving.h"
#include "minimize/test_case.h"
#include "report/report.h"
#include "report/report_text.h"
#include "report/timeline_script.h"

namespace linfault::report {
namespace {

using history::History;
using history::OpIndex;
using nlohmann::json;

// Rows beyond these are summarized, so a huge input still gives a page a browser can open.
constexpr std::size_t kMaxListedPartial = 2000;
constexpr std::size_t kMaxTraceRows = 5000;

// JSON for a <script type="application/json"> block: '<' only occurs inside JSON strings, and
// as \u003c it can never close the script element.
std::string script_safe_json(const json& data) {
  const std::string text = history::json_text(data);
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  return out;
}

// [process, call event, return event (-1: pending), call text, result text, outcome, line,
// return line]: compact, since a history may have 10^4 operations and more.
json operations_data(const History& h) {
  json ops = json::array();
  for (std::size_t i = 0; i < h.size(); ++i) {
    const history::Operation& op = h.op(static_cast<OpIndex>(i));
    ops.push_back(json::array({op.process, op.call_event, op.return_event, op.call.to_string(),
                               result_text(op), history::outcome_name(op.outcome),
                               op.source.call_line, op.source.return_line}));
  }
  return ops;
}

json verdict_data(const Report& report) {
  if (!report.verdict) return nullptr;
  const detect::Verdict& v = *report.verdict;
  json out = {
      {"result", detect::result_name(v.result)}, {"algorithm", v.algorithm}, {"reason", v.reason}};
  if (v.result == detect::Result::kViolation) {
    out["prefix_events"] = v.prefix_events;
    out["prefix_exact"] = v.prefix_exact;
    out["culprit"] = v.culprit;
  }
  out["partial"] = v.result == detect::Result::kLinearizable ? v.witness : v.longest_partial;
  return out;
}

void write_head(std::ostream& out, const Report& report) {
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      << "<title>linfault report: " << escape_html(report.title)
      << "</title>\n"
      // Installed first, so even an error while the page is parsed is shown (and tests see it).
      << "<script>window.linfaultErrors=[];window.onerror=function(m,s,l){"
         "window.linfaultErrors.push(m+' (line '+l+')');var e=document.getElementById("
         "'script-errors');if(e){e.textContent=window.linfaultErrors.join('\\n');"
         "e.hidden=false;}};</script>\n"
      << "<style>\n"
      << kReportCss << "</style>\n</head>\n";
}

void write_summary(std::ostream& out, const Report& report) {
  out << "<header>\n<h1>linfault report <span class=\"file\">" << escape_html(report.title)
      << "</span></h1>\n<p class=\"meta\">" << escape_html(report.kind) << " · model <b>"
      << escape_html(report.model) << "</b>";
  if (!report.target.empty()) out << " · target <b>" << escape_html(report.target) << "</b>";
  out << " · " << report.history.size() << " operations, " << report.history.events().size()
      << " events</p>\n";
  if (report.verdict) {
    const detect::Verdict& v = *report.verdict;
    out << "<p class=\"verdict verdict-" << detect::result_name(v.result) << "\">"
        << escape_html(verdict_sentence(v, report.history)) << "</p>\n";
  }
  for (const std::string& note : report.notes) {
    out << "<p class=\"note\">" << escape_html(note) << "</p>\n";
  }
  out << "<pre id=\"script-errors\" class=\"errors\" hidden></pre>\n</header>\n";
}

void write_legend(std::ostream& out) {
  out << "<div class=\"legend\">"
      << "<span><i class=\"sw sw-op\"></i>operation</span>"
      << "<span><i class=\"sw sw-lin\"></i>in the longest partial linearization (numbered)</span>"
      << "<span><i class=\"sw sw-culprit\"></i>culprit: its response cannot be explained</span>"
      << "<span><i class=\"sw sw-fail\"></i>failed call</span>"
      << "<span><i class=\"sw sw-pending\"></i>pending (no response)</span>"
      << "<span><i class=\"sw sw-beyond\"></i>after the shortest non-linearizable prefix</span>"
      << "<span><i class=\"sw-cut\"></i>end of the shortest non-linearizable prefix</span>"
      << "</div>\n";
}

void write_timeline(std::ostream& out) {
  out << "<section id=\"timeline-section\">\n<h2>Timeline</h2>\n"
      << "<div class=\"toolbar\">"
      << "<button id=\"zoom-in\" title=\"Zoom in (+)\">+</button>"
      << "<button id=\"zoom-out\" title=\"Zoom out (-)\">&minus;</button>"
      << "<button id=\"zoom-fit\" title=\"Whole history (0)\">whole history</button>"
      << "<button id=\"zoom-culprit\" title=\"Around the culprit (c)\">go to culprit</button>"
      << "<input id=\"pan\" type=\"range\" min=\"0\" max=\"1000\" value=\"0\" "
         "title=\"Scroll in time\">"
      << "<span id=\"view-info\"></span></div>\n"
      << "<p class=\"hint\">Drag or use the slider to scroll in time, Ctrl+wheel or +/- to zoom, "
         "wheel to scroll the threads; click an operation for its details. The horizontal axis "
         "is the position in the history's event order.</p>\n"
      << "<svg id=\"axis\" class=\"axis\" height=\"22\"></svg>\n"
      << "<div id=\"lanes\"><svg id=\"timeline\"></svg></div>\n"
      << "<div id=\"details\" class=\"details\">Click an operation to see its details.</div>\n"
      << "</section>\n";
}

void write_culprit(std::ostream& out, const Report& report) {
  if (!report.verdict || report.verdict->result != detect::Result::kViolation) return;
  const detect::Verdict& v = *report.verdict;
  if (v.culprit < 0 || static_cast<std::size_t>(v.culprit) >= report.history.size()) return;
  const history::Operation& op = report.history.op(v.culprit);
  out << "<section class=\"culprit-info\">\n<h2>Culprit</h2>\n<p><span class=\"chip "
         "chip-culprit\">#"
      << v.culprit << "</span> process " << op.process << ": <code>"
      << escape_html(op.call.to_string()) << " &rarr; " << escape_html(result_text(op))
      << "</code>";
  if (op.source.call_line) out << " (input line " << op.source.call_line << ")";
  out << "</p>\n<p>The shortest non-linearizable prefix ends with this response (event "
      << v.prefix_events << " of " << report.history.events().size()
      << (v.prefix_exact ? "" : ", an upper bound") << "): no legal order of the operations "
      << "before it, keeping real-time order, can return that result.</p>\n</section>\n";
}

void write_partial(std::ostream& out, const Report& report) {
  if (!report.verdict) return;
  const detect::Verdict& v = *report.verdict;
  const bool witness = v.result == detect::Result::kLinearizable;
  const std::vector<OpIndex>& order = witness ? v.witness : v.longest_partial;
  if (order.empty()) return;
  out << "<section>\n<h2>" << (witness ? "A linearization" : "Longest partial linearization")
      << "</h2>\n<p>"
      << (witness ? "A legal sequential order of the operations that respects real time."
                  : "A legal order of operations that explains every response before the "
                    "culprit's; the numbers match the timeline.")
      << "</p>\n<ol class=\"partial\">\n";
  for (std::size_t i = 0; i < order.size() && i < kMaxListedPartial; ++i) {
    const OpIndex o = order[i];
    if (o < 0 || static_cast<std::size_t>(o) >= report.history.size()) continue;
    const history::Operation& op = report.history.op(o);
    out << "<li><a href=\"#\" data-op=\"" << o << "\">p" << op.process << " <code>"
        << escape_html(op.call.to_string()) << " &rarr; " << escape_html(result_text(op))
        << "</code></a></li>\n";
  }
  out << "</ol>\n";
  if (order.size() > kMaxListedPartial) {
    out << "<p class=\"note\">" << order.size() - kMaxListedPartial
        << " more operations not listed (all are numbered on the timeline).</p>\n";
  }
  out << "</section>\n";
}

void write_steps(std::ostream& out, const std::vector<minimize::Step>& steps) {
  out << "<ol class=\"steps\">";
  for (const minimize::Step& step : steps) {
    out << "<li" << (step.culprit ? " class=\"culprit-step\"" : "") << "><code>"
        << escape_html(minimize::step_to_text(step)) << "</code>"
        << (step.culprit ? " <span class=\"chip chip-culprit\">culprit</span>" : "") << "</li>";
  }
  out << "</ol>";
}

void write_test_case(std::ostream& out, const minimize::TestCase& tc) {
  out << "<section id=\"test-case\">\n<h2>Test case</h2>\n";
  if (!tc.violation.empty()) out << "<p>" << escape_html(tc.violation) << "</p>\n";
  if (!tc.guarantee.empty()) {
    out << "<p class=\"note\">Guarantee: " << escape_html(tc.guarantee) << "</p>\n";
  }
  out << "<div class=\"programs\">\n<div class=\"program\"><h3>Ps (sequential set-up)</h3>";
  if (tc.ps.empty()) out << "<p class=\"note\">empty</p>";
  write_steps(out, tc.ps);
  out << "</div>\n<div class=\"program pc\"><h3>Pc (concurrent)</h3><div class=\"threads\">";
  for (std::size_t t = 0; t < tc.pc.size(); ++t) {
    out << "<div class=\"thread\"><h4>thread " << t << "</h4>";
    write_steps(out, tc.pc[t]);
    out << "</div>";
  }
  out << "</div></div>\n<div class=\"program\"><h3>Pr (sequential reveal)</h3>";
  if (tc.pr.empty()) out << "<p class=\"note\">empty</p>";
  write_steps(out, tc.pr);
  out << "</div>\n</div>\n</section>\n";
}

void write_interleaving(std::ostream& out, const Interleaving& il) {
  const std::vector<minimize::InterleavingRow> rows =
      minimize::interleaving_rows(il.workload, il.run, il.culprit);
  const std::size_t threads = std::max<std::size_t>(il.workload.threads.size(), 1);
  std::size_t concurrent = 0;
  for (const dpct::TraceStep& step : il.run.trace) {
    concurrent += step.phase == dpct::Phase::kConcurrent;
  }
  out << "<section id=\"interleaving\">\n<h2>Interleaving</h2>\n<p>The failing schedule "
         "replayed step by step: "
      << il.run.trace.size() << " shared accesses, " << concurrent
      << " of them in the concurrent part; each thread of Pc has its own column, Ps and Pr run "
         "on thread 0. Accesses show the source line they executed.</p>\n"
      << "<p class=\"note\">Schedule: <code>" << escape_html(il.run.schedule.to_text())
      << "</code></p>\n<table class=\"trace\"><thead><tr><th>step</th><th>part</th>";
  for (std::size_t t = 0; t < threads; ++t) out << "<th>thread " << t << "</th>";
  out << "</tr></thead>\n<tbody>\n";
  for (std::size_t i = 0; i < rows.size() && i < kMaxTraceRows; ++i) {
    const minimize::InterleavingRow& row = rows[i];
    const std::size_t column = row.phase == dpct::Phase::kConcurrent ? row.thread : 0;
    const char* part = row.phase == dpct::Phase::kSetup    ? "Ps"
                       : row.phase == dpct::Phase::kReveal ? "Pr"
                                                           : "Pc";
    std::string cell;
    switch (row.kind) {
      case minimize::InterleavingRow::Kind::kStart:
        cell = "<span class=\"kind\">start</span> <code>" + escape_html(row.operation) + "</code>";
        break;
      case minimize::InterleavingRow::Kind::kAccess:
        cell = "<code>" + escape_html(row.operation) + "</code> <span class=\"loc\">" +
               escape_html(row.text) + "</span>";
        break;
      case minimize::InterleavingRow::Kind::kReturn:
        cell = "<span class=\"kind\">return</span> <code>" + escape_html(row.text) + "</code>";
        if (row.culprit) cell += " <span class=\"chip chip-culprit\">culprit</span>";
        break;
    }
    out << "<tr class=\"part-" << part << (row.culprit ? " culprit-step" : "")
        << "\"><td class=\"num\">";
    if (row.kind == minimize::InterleavingRow::Kind::kAccess) out << row.step;
    out << "</td><td>" << part << "</td>";
    for (std::size_t c = 0; c < threads; ++c) {
      out << (c == column ? "<td class=\"access\">" + cell + "</td>" : "<td></td>");
    }
    out << "</tr>\n";
  }
  out << "</tbody></table>\n";
  if (rows.size() > kMaxTraceRows) {
    out << "<p class=\"note\">" << rows.size() - kMaxTraceRows << " more rows not shown.</p>\n";
  }
  out << "</section>\n";
}

}  // namespace

std::string escape_html(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string render_html(const Report& report) {
  json data = {{"events", report.history.events().size()},
               {"ops", operations_data(report.history)},
               {"verdict", verdict_data(report)}};
  std::ostringstream out;
  write_head(out, report);
  out << "<body>\n";
  write_summary(out, report);
  out << "<main>\n";
  write_legend(out);
  write_timeline(out);
  write_culprit(out, report);
  write_partial(out, report);
  if (report.test_case) write_test_case(out, *report.test_case);
  if (report.interleaving) write_interleaving(out, *report.interleaving);
  out << "</main>\n<footer>Made by <code>linfault report</code>. Self-contained: no network "
         "access, no external files.</footer>\n"
      << "<script type=\"application/json\" id=\"report-data\">" << script_safe_json(data)
      << "</script>\n<script>\n"
      << kTimelineScript << "</script>\n</body>\n</html>\n";
  return out.str();
}

}  // namespace linfault::report
