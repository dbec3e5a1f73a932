#include "dpct/schedule.h"

#include <gtest/gtest.h>

namespace linfault::dpct {
namespace {

Schedule sample() {
  Schedule s;
  s.scheduler = "pct";
  s.parameters = {{"seed", "42"}, {"n", "2"},      {"k", "37"},
                  {"d", "3"},     {"prio", "4,5"}, {"cp", "12,30"}};
  s.decisions = {0, 0, 0, 1, 1, 0};
  const std::uint32_t stack = s.intern_file("treiber.h");
  const std::uint32_t other = s.intern_file("lock.cc");
  s.points = {{PointKind::kStart, kNoThread, PointTag::kNoFile, 0},
              {PointKind::kAccess, 0, stack, 31},
              {PointKind::kAccess, 0, stack, 33},
              {PointKind::kBlocked, 0, other, 9},
              {PointKind::kAccess, 1, stack, 33},
              {PointKind::kFinished, 1, PointTag::kNoFile, 0}};
  return s;
}

TEST(ScheduleTest, TextFormIsCompactAndRoundTrips) {
  const Schedule s = sample();
  const std::string text = s.to_text();
  EXPECT_EQ(text,
            "pct seed=42 n=2 k=37 d=3 prio=4,5 cp=12,30 | 0x3 1x2 0 | ^ 0@treiber.h:31 0@:33 "
            "0!lock.cc:9 1@treiber.h:33 1-");
  const Schedule back = Schedule::from_text(text);
  EXPECT_EQ(back, s);
  EXPECT_EQ(back.to_text(), text);
  EXPECT_EQ(*back.parameter("cp"), "12,30");
  EXPECT_EQ(back.parameter("missing"), nullptr);
  EXPECT_EQ(back.describe_point(2), "0@treiber.h:33");
}

TEST(ScheduleTest, JsonFormRoundTrips) {
  const Schedule s = sample();
  const nlohmann::json j = s.to_json();
  EXPECT_EQ(j["scheduler"], "pct");
  EXPECT_EQ(j["parameters"]["seed"], "42");
  EXPECT_EQ(j["decisions"], nlohmann::json({0, 0, 0, 1, 1, 0}));
  EXPECT_EQ(j["points"][2], "0@treiber.h:33");
  EXPECT_EQ(Schedule::from_json(nlohmann::json::parse(j.dump())), s);
}

TEST(ScheduleTest, EmptyAndPointlessSchedules) {
  Schedule s;
  s.scheduler = "random";
  s.parameters = {{"seed", "1"}};
  EXPECT_EQ(s.to_text(), "random seed=1 |");
  EXPECT_EQ(Schedule::from_text("random seed=1 |"), s);
  s.decisions = {2, 2};
  EXPECT_EQ(s.to_text(), "random seed=1 | 2x2");
  EXPECT_EQ(Schedule::from_text("random seed=1 | 2 2"), s);
  EXPECT_EQ(Schedule::from_json(s.to_json()), s);
}

TEST(ScheduleTest, BadTextIsRejectedWithItsColumn) {
  auto error = [](std::string_view text) {
    try {
      Schedule::from_text(text);
    } catch (const ScheduleFormatError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error("pct seed=1"),
            "schedule text: missing '|' between the parameters and the decisions");
  EXPECT_EQ(error(" | 0"), "schedule text, column 1: missing scheduler name");
  EXPECT_EQ(error("pct seed | 0"), "schedule text, column 5: expected key=value, got 'seed'");
  EXPECT_EQ(error("pct | 0 1xz"),
            "schedule text, column 9: bad decision '1xz' (expected T or TxN)");
  EXPECT_EQ(error("pct | 0 1x0"),
            "schedule text, column 9: bad decision '1x0' (expected T or TxN)");
  EXPECT_EQ(error("pct | 0 1 | ^"), "schedule text, column 11: 1 points for 2 decisions");
  EXPECT_EQ(
      error("pct | 0 | 0@:12"),
      "schedule text, column 11: point '0@:12' omits its file but no earlier point names one");
  EXPECT_EQ(
      error("pct | 0 | x@a.h:1"),
      "schedule text, column 11: bad point 'x@a.h:1' (expected ^, T-, T@file:line or T!file:line)");
  // Regressions found by fuzz/schedule_fuzzer.cc: a repeated parameter did not survive the JSON
  // form, and run lengths had no total bound.
  EXPECT_EQ(error("pct seed=7x seed=7 | 0"),
            "schedule text, column 13: parameter 'seed' given twice");
  EXPECT_EQ(error("pct | 0x9999999 0x9999999"),
            "schedule text, column 17: more than 10000000 decisions");
  EXPECT_EQ(error("pct | 0 | 0@a.h"),
            "schedule text, column 11: bad location in point '0@a.h' (expected file:line)");
}

TEST(ScheduleTest, BadJsonIsRejected) {
  EXPECT_THROW(Schedule::from_json(nlohmann::json::array()), ScheduleFormatError);
  EXPECT_THROW(Schedule::from_json({{"scheduler", "pct"}, {"decisions", {0}}, {"seed", "1"}}),
               ScheduleFormatError);  // issue #19: unknown fields are errors
  EXPECT_THROW(Schedule::from_json({{"scheduler", "pct"}}), ScheduleFormatError);
  EXPECT_THROW(Schedule::from_json({{"scheduler", "pct"}, {"decisions", {-1}}}),
               ScheduleFormatError);
  EXPECT_THROW(
      Schedule::from_json({{"scheduler", "pct"}, {"decisions", {0}}, {"points", {"^", "^"}}}),
      ScheduleFormatError);
  EXPECT_THROW(Schedule::from_json(
                   {{"scheduler", "pct"}, {"parameters", {{"seed", 1}}}, {"decisions", {0}}}),
               ScheduleFormatError);
}

TEST(ScheduleTest, BaseNameDropsDirectories) {
  EXPECT_EQ(base_name("/work/main/targets/treiber.h"), "treiber.h");
  EXPECT_EQ(base_name("treiber.h"), "treiber.h");
  EXPECT_EQ(base_name("C:\\src\\x.cc"), "x.cc");
}

}  // namespace
}  // namespace linfault::dpct
