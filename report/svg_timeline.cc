// render_svg(): a static timeline, the same picture as the HTML report's without the script.

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "report/report.h"
#include "report/report_text.h"

namespace linfault::report {
namespace {

using history::OpIndex;

constexpr double kLane = 28;
constexpr double kBar = 20;
constexpr double kGutter = 56;
constexpr double kHeader = 64;  // title, verdict and axis
constexpr double kLegend = 26;
constexpr double kCharWidth = 6.6;

std::string number(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f", x);
  return buffer;
}

// The operations shown: all of them, or a window of `max_operations` (by call order) ending just
// after the culprit, or the last ones.
std::pair<std::size_t, std::size_t> operation_window(const Report& report, std::size_t max_ops) {
  const std::size_t n = report.history.size();
  if (n <= max_ops || max_ops == 0) return {0, n};
  std::size_t end = n;
  if (report.verdict && report.verdict->result == detect::Result::kViolation) {
    // Operations invoked before the prefix's end, plus a few after it for context.
    std::size_t invoked = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (report.history.op(static_cast<OpIndex>(i)).call_event <
          static_cast<history::EventIndex>(report.verdict->prefix_events)) {
        invoked = i + 1;
      }
    }
    end = std::min(n, invoked + max_ops / 10);
  }
  return {end - std::min(end, max_ops), end};
}

}  // namespace

std::string render_svg(const Report& report, const SvgOptions& options) {
  const history::History& h = report.history;
  const auto [first, last] = operation_window(report, options.max_operations);
  const bool violation = report.verdict && report.verdict->result == detect::Result::kViolation;
  const OpIndex culprit = violation ? report.verdict->culprit : -1;
  const std::size_t cut = violation ? report.verdict->prefix_events : 0;

  std::map<OpIndex, std::size_t> order;
  if (report.verdict) {
    const auto& partial = report.verdict->result == detect::Result::kLinearizable
                              ? report.verdict->witness
                              : report.verdict->longest_partial;
    for (std::size_t i = 0; i < partial.size(); ++i) order[partial[i]] = i + 1;
  }

  // The event range of the window, and its lanes.
  history::EventIndex e0 = static_cast<history::EventIndex>(h.events().size());
  history::EventIndex e1 = 0;
  std::set<history::ProcessId> processes;
  for (std::size_t i = first; i < last; ++i) {
    const history::Operation& op = h.op(static_cast<OpIndex>(i));
    e0 = std::min(e0, op.call_event);
    const history::EventIndex end = op.return_event >= 0
                                        ? op.return_event + 1
                                        : static_cast<history::EventIndex>(h.events().size());
    e1 = std::max(e1, end);
    processes.insert(op.process);
  }
  if (e1 <= e0) e1 = e0 + 1;
  std::map<history::ProcessId, std::size_t> lane;
  for (history::ProcessId p : processes) lane.emplace(p, lane.size());

  const double width = std::max(options.width, kGutter + 200);
  const double plot = width - kGutter - 8;
  const double height = kHeader + static_cast<double>(lane.size()) * kLane + kLegend + 12;
  auto x_of = [&](double event) { return kGutter + (event - e0) / (e1 - e0) * plot; };

  std::ostringstream out;
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << number(width) << "\" height=\""
      << number(height) << "\" viewBox=\"0 0 " << number(width) << " " << number(height)
      << "\" font-family=\"monospace\" font-size=\"11\">\n"
      << "<style>.op{fill:#a9bfe0;stroke:#4a6a9a}.lin{fill:#7cc68d;stroke:#2f7d43}"
         ".fail{fill:#f7dcb4;stroke:#e59a2f;stroke-width:2}.pending{fill-opacity:.45;"
         "stroke-dasharray:4 3}.beyond{fill:#e3e5e8;stroke:#b9bec6}.culprit{fill:#d62f35;"
         "stroke:#7a0d12;stroke-width:2}.cut{stroke:#d62f35;stroke-width:2;"
         "stroke-dasharray:6 3}text.on-culprit{fill:#fff;font-weight:bold}</style>\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n"
      << "<text x=\"8\" y=\"18\" font-size=\"14\" font-weight=\"bold\">linfault: "
      << escape_html(report.title) << " (" << escape_html(report.model) << ")</text>\n";
  if (report.verdict) {
    out << "<text x=\"8\" y=\"36\" fill=\"" << (violation ? "#b3141b" : "#2f7d43") << "\">"
        << escape_html(verdict_sentence(*report.verdict, h)) << "</text>\n";
  }
  if (last - first < h.size()) {
    out << "<text x=\"8\" y=\"52\" fill=\"#5b6472\">showing operations " << first << "-"
        << (last == 0 ? 0 : last - 1) << " of " << h.size() << " (events " << e0 << "-" << e1
        << ")</text>\n";
  }

  for (const auto& [process, l] : lane) {
    const double y = kHeader + static_cast<double>(l) * kLane;
    if (l % 2) {
      out << "<rect x=\"0\" y=\"" << number(y - 4) << "\" width=\"" << number(width)
          << "\" height=\"" << number(kLane) << "\" fill=\"#f3f5f8\"/>\n";
    }
    out << "<text x=\"6\" y=\"" << number(y + 14) << "\" fill=\"#5b6472\" font-weight=\"bold\">p"
        << process << "</text>\n";
  }

  for (std::size_t i = first; i < last; ++i) {
    const OpIndex index = static_cast<OpIndex>(i);
    const history::Operation& op = h.op(index);
    const double xa = x_of(op.call_event);
    const double end = op.return_event >= 0 ? op.return_event + 1 : e1;
    const double w = std::max(x_of(end) - xa - 1, 2.0);
    const double y = kHeader + static_cast<double>(lane[op.process]) * kLane;
    std::string cls = "op";
    if (order.count(index)) cls += " lin";
    if (op.outcome == history::Outcome::kFail) cls += " fail";
    if (op.outcome == history::Outcome::kPending) cls += " pending";
    if (violation && static_cast<std::size_t>(op.call_event) >= cut) cls += " beyond";
    if (index == culprit) cls += " culprit";
    const std::string label = op.call.to_string() + " -> " + result_text(op);
    out << "<g" << (index == culprit ? " id=\"culprit\"" : "") << "><rect class=\"" << cls
        << "\" x=\"" << number(xa) << "\" y=\"" << number(y) << "\" width=\"" << number(w)
        << "\" height=\"" << number(kBar) << "\" rx=\"3\"><title>#" << i << " "
        << escape_html(op.to_string()) << "</title></rect>";
    const std::size_t room = w > 16 ? static_cast<std::size_t>((w - 8) / kCharWidth) : 0;
    if (room >= 4) {
      const std::string shown = label.size() <= room ? label : label.substr(0, room - 2) + "..";
      out << "<text x=\"" << number(xa + 4) << "\" y=\"" << number(y + 14) << "\""
          << (index == culprit ? " class=\"on-culprit\"" : "") << ">" << escape_html(shown)
          << "</text>";
    }
    if (order.count(index) && w > 14) {
      out << "<circle cx=\"" << number(xa + 1) << "\" cy=\"" << number(y + 1)
          << "\" r=\"7\" fill=\"#2f7d43\" stroke=\"#fff\"/><text x=\"" << number(xa + 1)
          << "\" y=\"" << number(y + 4) << "\" font-size=\"9\" fill=\"#fff\" "
          << "text-anchor=\"middle\">" << order[index] << "</text>";
    }
    out << "</g>\n";
  }
  if (violation && static_cast<double>(cut) >= e0 && static_cast<double>(cut) <= e1) {
    const double xc = x_of(static_cast<double>(cut));
    out << "<line class=\"cut\" x1=\"" << number(xc) << "\" x2=\"" << number(xc) << "\" y1=\""
        << number(kHeader - 8) << "\" y2=\"" << number(height - kLegend - 8) << "\"/>\n";
  }

  const double ly = height - kLegend + 4;
  const char* legend[][2] = {
      {"op", "operation"},       {"op lin", "longest partial linearization (numbered)"},
      {"op culprit", "culprit"}, {"op fail", "failed"},
      {"op pending", "pending"}, {"op beyond", "after the prefix"}};
  double lx = 8;
  for (const auto& [cls, text] : legend) {
    out << "<rect class=\"" << cls << "\" x=\"" << number(lx) << "\" y=\"" << number(ly)
        << "\" width=\"20\" height=\"12\" rx=\"2\"/><text x=\"" << number(lx + 26) << "\" y=\""
        << number(ly + 10) << "\">" << text << "</text>\n";
    lx += 40 + kCharWidth * static_cast<double>(std::string(text).size());
  }
  if (violation) {
    out << "<line class=\"cut\" x1=\"" << number(lx) << "\" x2=\"" << number(lx) << "\" y1=\""
        << number(ly - 2) << "\" y2=\"" << number(ly + 14) << "\"/><text x=\"" << number(lx + 8)
        << "\" y=\"" << number(ly + 10)
        << "\">end of the shortest non-linearizable prefix</text>\n";
  }
  out << "</svg>\n";
  return out.str();
}

}  // namespace linfault::report
