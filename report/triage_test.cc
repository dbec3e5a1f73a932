#include "report/triage.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "history/json_format.h"

namespace linfault::report {
namespace {

using history::Call;
using history::Value;
using minimize::Step;
using minimize::TestCase;

Step step(history::ProcessId p, std::string method, std::vector<Value> args, Value result,
          bool culprit = false) {
  return Step{p, Call{std::move(method), std::move(args)}, std::move(result), history::Outcome::kOk,
              culprit};
}

// Ps: push(a) push(b); Pc: pop() -> b || pop() -> b (the second one is the culprit).
TestCase pop_pop(int a, int b, bool swap_threads = false) {
  TestCase tc;
  tc.model = "stack";
  tc.ps = {step(0, "push", {a}, {}), step(0, "push", {b}, {})};
  std::vector<Step> first = {step(0, "pop", {}, b)};
  std::vector<Step> second = {step(1, "pop", {}, b, true)};
  tc.pc = swap_threads ? std::vector<std::vector<Step>>{second, first}
                       : std::vector<std::vector<Step>>{first, second};
  return tc;
}

TEST(Signature, IgnoresValuesThreadOrderAndSetUpOrder) {
  const std::string base = signature(pop_pop(1, 2));
  EXPECT_EQ(signature(pop_pop(7, 40)), base);
  EXPECT_EQ(signature(pop_pop(7, 40, /*swap_threads=*/true)), base);
  TestCase reordered = pop_pop(1, 2);
  std::swap(reordered.ps[0], reordered.ps[1]);
  EXPECT_EQ(signature(reordered), base);
  // The set-up value nobody else uses is anonymous; the one Pc pops is named.
  EXPECT_NE(base.find("push(_)"), std::string::npos) << base;
  EXPECT_NE(base.find("pop()->v1"), std::string::npos) << base;
}

TEST(Signature, TellsDifferentShapesApart) {
  const std::string base = signature(pop_pop(1, 2));
  TestCase other_result = pop_pop(1, 2);
  other_result.pc[0][0].result = 1;  // pops 1 and 2: a different observation
  EXPECT_NE(signature(other_result), base);
  TestCase more_setup = pop_pop(1, 2);
  more_setup.ps.push_back(step(0, "push", {3}, {}));
  EXPECT_NE(signature(more_setup), base);
  TestCase other_model = pop_pop(1, 2);
  other_model.model = "queue";
  EXPECT_NE(signature(other_model), base);
  EXPECT_NE(signature(pop_pop(1, 2), dpct::RunOutcome::kLivelock), base);
}

TEST(Signature, AbstractsTheValueOfACount) {
  TestCase a;
  a.model = "set";
  a.pc = {{step(0, "add", {1}, true)}, {step(1, "size", {}, 1, true)}};
  TestCase b = a;
  b.pc[0][0].call.args = {Value(3)};
  b.pc[1][0].result = Value(3);
  EXPECT_EQ(signature(a), signature(b));
  EXPECT_NE(signature(a).find("size()->#!"), std::string::npos) << signature(a);
  TestCase c = a;
  c.pc[0][0].call.method = "remove";
  EXPECT_NE(signature(a), signature(c));
}

TEST(Signature, IgnoresHowTheOtherCallsAreSplitOverThreads) {
  TestCase sequenced;
  sequenced.model = "set";
  sequenced.ps = {step(0, "add", {2}, true), step(0, "add", {0}, true)};
  sequenced.pc = {{step(0, "remove", {0}, true), step(0, "add", {3}, true)},
                  {step(1, "size", {}, 3, true)}};
  TestCase split;
  split.model = "set";
  split.ps = {step(0, "add", {7}, true), step(0, "add", {9}, true)};
  split.pc = {
      {step(0, "size", {}, 3, true)}, {step(1, "remove", {9}, true)}, {step(2, "add", {4}, true)}};
  EXPECT_EQ(signature(sequenced), signature(split));
  // The culprit's own thread keeps its calls and their order.
  TestCase culprit_thread = split;
  culprit_thread.pc = {{step(0, "add", {4}, true), step(0, "size", {}, 3, true)},
                       {step(1, "remove", {9}, true)}};
  EXPECT_NE(signature(culprit_thread), signature(split));
}

class TriageFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("linfault_triage_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_ / "nested" / ".hidden");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }

  // Ps: push(x) ... (pad pushes); Pc: pop() -> x || pop() -> x.
  std::string pop_pop_history(const std::string& name, int x, int pad) {
    history::HistoryBuilder b;
    for (int i = 0; i < pad; ++i) b.call(0, Call{"push", {Value(1000 + i)}}, {});
    for (int i = 0; i < pad; ++i) b.call(0, Call{"pop", {}}, Value(1000 + pad - 1 - i));
    b.call(0, Call{"push", {Value(x)}}, {});
    b.invoke(0, Call{"pop", {}});
    b.invoke(1, Call{"pop", {}});
    b.respond(0, history::Outcome::kOk, Value(x));
    b.respond(1, history::Outcome::kOk, Value(x));
    return write(name, history::history_to_json_text(std::move(b).build(), "stack"));
  }

  std::filesystem::path dir_;
};

TEST_F(TriageFiles, CollectsDirectoriesRecursivelyAndKeepsMissingPaths) {
  write("b.json", "{}");
  write("nested/a.json", "{}");
  write("nested/.hidden/skip.json", "{}");
  write(".skip.json", "{}");
  const std::vector<std::string> files =
      collect_inputs({dir_.string(), (dir_ / "missing.json").string()});
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files[0], (dir_ / "b.json").string());
  EXPECT_EQ(files[1], (dir_ / "nested" / "a.json").string());
  EXPECT_EQ(files[2], (dir_ / "missing.json").string());
}

TEST_F(TriageFiles, GroupsTheSameBugAndListsWhatItCannotRead) {
  const std::vector<std::string> files = {
      pop_pop_history("short.json", 5, 0),
      pop_pop_history("renamed.json", 77, 0),
      pop_pop_history("longer.json", 3, 4),
      write("ok.json", history::history_to_json_text(history::History(), "stack")),
      write("broken.json", "{\"linfault\": \"history\", \"operations\": [{\"process\": 0}]}"),
      write("nomodel.json", "{\"operations\": []}"),
      (dir_ / "missing.json").string()};
  TriageOptions options;
  options.jobs = 2;
  std::size_t calls = 0;
  const TriageResult r = triage(files, options, [&calls](const TriageProgress& p) {
    ++calls;
    EXPECT_LE(p.done, p.total);
  });
  EXPECT_EQ(calls, files.size());
  EXPECT_EQ(r.failing, 3u);
  EXPECT_EQ(r.passing, 1u);
  EXPECT_EQ(r.unreadable, 3u);
  EXPECT_EQ(r.exit_code(), 1);
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(r.groups[0].members.size(), 3u);
  EXPECT_EQ(r.entries[r.groups[0].members[0]].operations, 3u);  // the shortest represents
  for (const TriageEntry& e : r.entries) {
    if (e.status != TriageStatus::kUnreadable) continue;
    EXPECT_EQ(e.message.find('\n'), std::string::npos);
    EXPECT_EQ(e.message.rfind(e.file, 0), 0u) << e.message;
  }
  EXPECT_NE(r.entries[5].message.find("pass --model or --target"), std::string::npos);
  EXPECT_NE(r.entries[6].message.find("cannot open"), std::string::npos);
}

TEST_F(TriageFiles, ExitCodes) {
  TriageOptions options;
  const std::string ok =
      write("ok.json", history::history_to_json_text(history::History(), "stack"));
  const std::string bad = write("bad.json", "{\"operations\": [");
  EXPECT_EQ(triage({ok}, options).exit_code(), 0);
  EXPECT_EQ(triage({bad}, options).exit_code(), 65);
  EXPECT_EQ(triage({ok, bad}, options).exit_code(), 65);
  EXPECT_EQ(triage({ok, bad, pop_pop_history("f.json", 1, 0)}, options).exit_code(), 1);
}

}  // namespace
}  // namespace linfault::report
