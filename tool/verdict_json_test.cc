#include "tool/verdict_json.h"

#include <gtest/gtest.h>

namespace linfault::tool {
namespace {

using history::Call;
using history::HistoryBuilder;
using history::Outcome;
using history::Value;

history::History two_pops() {
  HistoryBuilder builder("pops.edn");
  builder.invoke(0, Call{"push", {Value(1)}}, 1);
  builder.respond(0, Outcome::kOk, Value(), 2);
  builder.invoke(0, Call{"pop", {}}, 3);
  builder.invoke(1, Call{"pop", {}}, 4);
  builder.respond(1, Outcome::kOk, Value(1), 5);
  builder.respond(0, Outcome::kOk, Value(1), 6);
  return std::move(builder).build();
}

detect::Verdict violation() {
  detect::Verdict verdict;
  verdict.result = detect::Result::kViolation;
  verdict.model = "stack";
  verdict.algorithm = "search";
  verdict.operations = 3;
  verdict.elapsed_ms = 0.31;
  verdict.prefix_events = 6;
  verdict.culprit = 1;
  verdict.longest_partial = {0, 2};
  return verdict;
}

TEST(VerdictJsonTest, ViolationHasPrefixCulpritAndPartial) {
  const history::History h = two_pops();
  const nlohmann::json json = verdict_to_json(violation(), h, false);
  EXPECT_EQ(json["verdict"], "violation");
  EXPECT_EQ(json["model"], "stack");
  EXPECT_EQ(json["operations"], 3);
  EXPECT_EQ(json["elapsed_ms"], 0.31);
  EXPECT_EQ(json["algorithm"], "search");
  EXPECT_EQ(json["prefix_events"], 6);
  EXPECT_EQ(json["prefix_exact"], true);
  const nlohmann::json& culprit = json["culprit"];
  EXPECT_EQ(culprit["index"], 1);
  EXPECT_EQ(culprit["process"], 0);
  EXPECT_EQ(culprit["method"], "pop");
  EXPECT_EQ(culprit["args"], nlohmann::json::array());
  EXPECT_EQ(culprit["result"], 1);
  EXPECT_EQ(culprit["line"], 3);
  EXPECT_EQ(culprit["return_line"], 6);
  ASSERT_EQ(json["longest_partial"].size(), 2u);
  EXPECT_EQ(json["longest_partial"][0]["method"], "push");
  EXPECT_EQ(json["longest_partial"][0]["args"], nlohmann::json::array({1}));
  EXPECT_FALSE(json.contains("reason"));
  EXPECT_FALSE(json.contains("witness"));
  EXPECT_FALSE(json.contains("monitor_declined"));
}

TEST(VerdictJsonTest, AMonitorsDeclineIsShown) {
  const history::History h = two_pops();
  detect::Verdict v = violation();
  v.monitor_declined = "values are not distinct";
  EXPECT_EQ(verdict_to_json(v, h, false)["monitor_declined"], "values are not distinct");
  EXPECT_NE(verdict_to_text(v, h, "pops.edn", false)
                .find("(the stack monitor declined: values are not distinct)"),
            std::string::npos);
}

TEST(VerdictJsonTest, UnknownHasReasonAndLinearizableHasOptionalWitness) {
  const history::History h = two_pops();
  detect::Verdict unknown;
  unknown.result = detect::Result::kUnknown;
  unknown.reason = "timeout after 1 s";
  EXPECT_EQ(verdict_to_json(unknown, h, false)["reason"], "timeout after 1 s");
  EXPECT_EQ(verdict_to_json(unknown, h, false)["verdict"], "unknown");

  detect::Verdict fine;
  fine.result = detect::Result::kLinearizable;
  fine.witness = {0, 2, 1};
  EXPECT_FALSE(verdict_to_json(fine, h, false).contains("witness"));
  const nlohmann::json with_witness = verdict_to_json(fine, h, true);
  ASSERT_EQ(with_witness["witness"].size(), 3u);
  EXPECT_EQ(with_witness["witness"][2]["index"], 1);
}

TEST(VerdictJsonTest, TextNamesTheCulpritAndItsLine) {
  const std::string text = verdict_to_text(violation(), two_pops(), "pops.edn", false);
  EXPECT_EQ(text.rfind("pops.edn: violation\n", 0), 0u) << text;
  EXPECT_NE(text.find("model stack, 3 operations, 0.3 ms, search"), std::string::npos) << text;
  EXPECT_NE(text.find("6 of 6 events"), std::string::npos) << text;
  EXPECT_NE(text.find("op 1: p0 pop() -> 1 (pops.edn:3, response on line 6)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("longest partial linearization (2 operations)"), std::string::npos) << text;
  EXPECT_NE(text.find("2. op 2: p1 pop() -> 1 (pops.edn:4)"), std::string::npos) << text;
}

TEST(VerdictJsonTest, TextSaysWhyNoVerdict) {
  detect::Verdict unknown;
  unknown.result = detect::Result::kUnknown;
  unknown.model = "kv";
  unknown.reason = "memory limit of 1 MiB reached";
  const std::string text = verdict_to_text(unknown, two_pops(), "x", false);
  EXPECT_NE(text.find("no verdict: memory limit of 1 MiB reached"), std::string::npos) << text;
}

}  // namespace
}  // namespace linfault::tool
