#include "report/report.h"

#include <gtest/gtest.h>

#include <string>

#include "detect/checker.h"
#include "minimize/test_case.h"

namespace linfault::report {
namespace {

using history::Call;
using history::HistoryBuilder;
using history::Outcome;

// push(1); pop() -> 1 || pop() -> 1: the second pop's response cannot be explained.
history::History pop_pop(const std::string& pushed = "1") {
  HistoryBuilder b("pop-pop");
  b.call(0, Call{"push", {history::Value(pushed)}}, history::Value());
  b.invoke(0, Call{"pop", {}});
  b.invoke(1, Call{"pop", {}});
  b.respond(0, Outcome::kOk, history::Value(pushed));
  b.respond(1, Outcome::kOk, history::Value(pushed));
  b.invoke(2, Call{"push", {history::Value("2")}});  // pending, after the violation
  return std::move(b).build();
}

Report report_of(const history::History& h) {
  Report r;
  r.title = "pop-pop <test>";
  r.kind = "history";
  r.model = "stack";
  r.history = h;
  r.verdict = detect::check_history("stack", h, detect::CheckOptions{});
  return r;
}

TEST(EscapeHtml, ReplacesEveryMarkupCharacter) {
  EXPECT_EQ(escape_html("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  EXPECT_EQ(escape_html("plain"), "plain");
}

TEST(RenderHtml, IsSelfContainedAndMarksTheVerdict) {
  const Report r = report_of(pop_pop());
  ASSERT_EQ(r.verdict->result, detect::Result::kViolation);
  const std::string html = render_html(r);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("id=\"report-data\""), std::string::npos);
  EXPECT_NE(html.find("Longest partial linearization"), std::string::npos);
  EXPECT_NE(html.find("class=\"culprit-info\""), std::string::npos);
  EXPECT_NE(html.find("pop-pop &lt;test&gt;"), std::string::npos);
  // Nothing is fetched: no external scripts, styles, images or links.
  EXPECT_EQ(html.find(" src="), std::string::npos);
  EXPECT_EQ(html.find("href=\"http"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
}

TEST(RenderHtml, ValuesCannotBreakOutOfTheDataBlock) {
  const std::string evil = "</script><img onerror=alert(1)>";
  const std::string html = render_html(report_of(pop_pop(evil)));
  EXPECT_EQ(html.find(evil), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  // The value is still there, escaped for JSON inside the script block.
  EXPECT_NE(html.find("\\u003c/script>\\u003cimg onerror=alert(1)>"), std::string::npos);
}

TEST(RenderHtml, ShowsTheProgramsOfATestCase) {
  const history::History h = pop_pop();
  Report r = report_of(h);
  minimize::TestCase tc = minimize::test_case_from_history("stack", h, r.verdict->culprit);
  r.test_case = tc;
  const std::string html = render_html(r);
  EXPECT_NE(html.find("Ps (sequential set-up)"), std::string::npos);
  EXPECT_NE(html.find("thread 1"), std::string::npos);
  EXPECT_NE(html.find("culprit-step"), std::string::npos);
}

TEST(RenderSvg, DrawsEveryOperationAndTheCulprit) {
  const Report r = report_of(pop_pop());
  const std::string svg = render_svg(r);
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_NE(svg.find("id=\"culprit\""), std::string::npos);
  EXPECT_NE(svg.find("class=\"op culprit\""), std::string::npos);
  EXPECT_NE(svg.find("class=\"cut\""), std::string::npos);
  std::size_t bars = 0;
  for (std::size_t at = 0; (at = svg.find("<rect class=\"op", at)) != std::string::npos; ++at) {
    ++bars;
  }
  EXPECT_EQ(bars, r.history.size() + 6);  // the operations, and six legend swatches
}

TEST(RenderSvg, ShowsAWindowOfALargeHistory) {
  HistoryBuilder b("large");
  for (int i = 0; i < 1000; ++i) b.call(i % 3, Call{"push", {history::Value(i)}}, {});
  Report r;
  r.title = "large";
  r.model = "stack";
  r.history = std::move(b).build();
  r.verdict = detect::check_history("stack", r.history, detect::CheckOptions{});
  SvgOptions options;
  options.max_operations = 100;
  const std::string svg = render_svg(r, options);
  EXPECT_NE(svg.find("showing operations 900-999 of 1000"), std::string::npos);
}

TEST(ReplayInterleaving, SaysWhyAHistoryLevelTestCaseHasNone) {
  const history::History h = pop_pop();
  const minimize::TestCase tc = minimize::test_case_from_history("stack", h, 2);
  std::string why;
  EXPECT_FALSE(replay_interleaving(tc, why).has_value());
  EXPECT_NE(why.find("no target"), std::string::npos);
}

}  // namespace
}  // namespace linfault::report
