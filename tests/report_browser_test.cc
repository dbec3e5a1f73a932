// `linfault report` opened in a real browser: headless Chromium loads the HTML report, runs its
// script and dumps the resulting DOM; the test checks that no script error happened, that the
// timeline was drawn with the culprit marked, and saves a screenshot in the build directory.
// Also the report's other inputs (a test case with its interleaving, a check result, 10^4
// operations) and its errors.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/cli_fixture.h"

namespace linfault::tests {
namespace {

namespace fs = std::filesystem;

bool has_chromium() { return std::system("command -v chromium >/dev/null 2>&1") == 0; }

class ReportBrowser : public CliFixture {
 protected:
  // Chromium's DOM of `html` after its scripts ran.
  std::string dump_dom(const fs::path& html) {
    const fs::path out = dir_ / "dom.html";
    const std::string command =
        "chromium --headless --no-sandbox --disable-gpu "
        "--user-data-dir='" +
        (dir_ / "profile").string() + "' --dump-dom 'file://" + html.string() + "' >'" +
        out.string() + "' 2>/dev/null";
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
    return read_file(out);
  }

  void screenshot(const fs::path& html, const std::string& png) {
    const fs::path path = fs::path(LINFAULT_BINARY_DIR) / png;
    fs::remove(path);
    const std::string command =
        "chromium --headless --no-sandbox --disable-gpu --hide-scrollbars "
        "--user-data-dir='" +
        (dir_ / "profile").string() + "' --window-size=1400,1000 --screenshot='" + path.string() +
        "' 'file://" + html.string() + "' >/dev/null 2>&1";
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
    const std::string image = read_file(path);
    ASSERT_GT(image.size(), 10'000u) << path;
    EXPECT_EQ(image.substr(1, 3), "PNG");
  }

  // The checks every rendered report must pass in the browser.
  void expect_rendered_with_culprit(const std::string& dom) {
    EXPECT_NE(dom.find("data-rendered=\"yes\""), std::string::npos) << "script did not finish";
    EXPECT_NE(dom.find("<pre id=\"script-errors\" class=\"errors\" hidden=\"\"></pre>"),
              std::string::npos)
        << "script errors: " << dom.substr(dom.find("script-errors"), 400);
    const std::size_t culprit = dom.find("id=\"culprit\"");
    ASSERT_NE(culprit, std::string::npos);
    const std::size_t tag = dom.rfind('<', culprit);
    EXPECT_NE(dom.substr(tag, culprit - tag).find("culprit"), std::string::npos)
        << dom.substr(tag, 200);
  }
};

TEST_F(ReportBrowser, EtcdViolationLoadsWithoutErrorsAndMarksTheCulprit) {
  if (!has_chromium()) GTEST_SKIP() << "chromium is not installed (scripts/bootstrap.sh does it)";
  const fs::path html = dir_ / "etcd.html";
  const RunResult r = run("report " + shared("porcupine/jepsen/etcd_000.log") + " --html '" +
                          html.string() + "' --svg '" + (dir_ / "etcd.svg").string() + "'");
  ASSERT_EQ(r.exit_code, 1) << r.err;  // a violation, as `check` says
  const std::string dom = dump_dom(html);
  expect_rendered_with_culprit(dom);
  EXPECT_NE(dom.find("class=\"op lin\""), std::string::npos);  // the partial linearization
  EXPECT_NE(dom.find("class=\"cut\""), std::string::npos);
  EXPECT_NE(read_file(dir_ / "etcd.svg").find("id=\"culprit\""), std::string::npos);
  screenshot(html, "report_screenshot_etcd.png");
}

TEST_F(ReportBrowser, TestCaseShowsItsProgramsAndInterleaving) {
  if (!has_chromium()) GTEST_SKIP() << "chromium is not installed (scripts/bootstrap.sh does it)";
  const fs::path runs = dir_ / "runs";
  ASSERT_EQ(run("detect --target treiber_stack_buggy -s 50 --seed 1 --out '" + runs.string() + "'")
                .exit_code,
            1);
  fs::path saved;
  for (const auto& entry : fs::directory_iterator(runs)) {
    if (entry.path().filename() != "summary.json") saved = entry.path();
  }
  const fs::path test_case = dir_ / "tc.json";
  const RunResult minimized =
      run("minimize '" + saved.string() + "' --save '" + test_case.string() + "'");
  ASSERT_EQ(minimized.exit_code, 1) << minimized.err;
  const fs::path html = dir_ / "tc.html";
  const RunResult r =
      run("report '" + test_case.string() + "' --html '" + html.string() + "' --json");
  ASSERT_EQ(r.exit_code, 1) << r.err;
  const nlohmann::json out = nlohmann::json::parse(r.out);
  EXPECT_EQ(out["kind"], "test case");
  EXPECT_EQ(out["interleaving"], true);
  const std::string dom = dump_dom(html);
  expect_rendered_with_culprit(dom);
  EXPECT_NE(dom.find("Pc (concurrent)"), std::string::npos);
  EXPECT_NE(dom.find("id=\"interleaving\""), std::string::npos);
  EXPECT_NE(dom.find("(stacks.cc:"), std::string::npos);  // accesses name their source line
  screenshot(html, "report_screenshot_test_case.png");
}

TEST_F(ReportBrowser, TenThousandOperationsDrawOnlyWhatIsInView) {
  if (!has_chromium()) GTEST_SKIP() << "chromium is not installed (scripts/bootstrap.sh does it)";
  const fs::path history = dir_ / "big.json";
  ASSERT_EQ(
      run("gen --model queue --ops 10000 --threads 8 --violation -o '" + history.string() + "'")
          .exit_code,
      0);
  const fs::path html = dir_ / "big.html";
  ASSERT_EQ(run("report '" + history.string() + "' --html '" + html.string() + "'").exit_code, 1);
  const std::string dom = dump_dom(html);
  expect_rendered_with_culprit(dom);
  std::size_t bars = 0;
  for (std::size_t at = 0; (at = dom.find("<g class=\"op", at)) != std::string::npos; ++at) ++bars;
  EXPECT_GT(bars, 20u);
  EXPECT_LT(bars, 2000u);  // a window around the culprit, not 10^4 elements
}

TEST_F(ReportBrowser, ReadsACheckResult) {
  const std::string log = shared("porcupine/jepsen/etcd_000.log");
  const RunResult check = run("check " + log + " --json");
  ASSERT_EQ(check.exit_code, 1);
  const std::string verdict = write("verdict.json", check.out);
  const fs::path svg = dir_ / "v.svg";
  const RunResult r = run("report '" + verdict + "' --svg '" + svg.string() + "' --json");
  ASSERT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["kind"], "check result");
  EXPECT_NE(read_file(svg).find("id=\"culprit\""), std::string::npos);
}

TEST_F(ReportBrowser, ErrorsAreOneLine) {
  const RunResult no_output = run("report " + shared("porcupine/jepsen/etcd_000.log"));
  EXPECT_EQ(no_output.exit_code, 64);
  expect_one_line_error(no_output, "nothing to write", "--html");
  const std::string bad = write("bad.edn", "{:process 0, :type :oops, :f :read}\n");
  const RunResult malformed = run("report '" + bad + "' --html x.html");
  EXPECT_EQ(malformed.exit_code, 65);
  expect_one_line_error(malformed, bad + ":1:", "oops");
  const RunResult missing = run("report nowhere.log --html x.html");
  EXPECT_EQ(missing.exit_code, 66);
  const RunResult help = run("report --help");
  EXPECT_NE(help.out.find("Examples:"), std::string::npos);
}

}  // namespace
}  // namespace linfault::tests
