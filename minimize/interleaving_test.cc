#include "minimize/interleaving.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "minimize/scenario_repro.h"
#include "targets/registry.h"

namespace linfault::minimize {
namespace {

using Kind = InterleavingRow::Kind;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool contains(const std::string& text, const std::string& fragment) {
  return text.find(fragment) != std::string::npos;
}

// Ps: push(1); Pc: pop() || pop(), both return 1: the Treiber stack whose pop does not retry.
class TreiberInterleavingTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const targets::Target& target = targets::find("treiber_stack_buggy");
    repro_ = new ScenarioRepro(*find_scenario_repro(target, target.known_scenarios.front()));
  }
  static void TearDownTestSuite() {
    delete repro_;
    repro_ = nullptr;
  }
  static const dpct::Workload& workload() {
    return targets::find("treiber_stack_buggy").known_scenarios.front().workload;
  }
  static std::optional<history::OpIndex> culprit() { return repro_->verdict.culprit; }

  static ScenarioRepro* repro_;
};
ScenarioRepro* TreiberInterleavingTest::repro_ = nullptr;

TEST_F(TreiberInterleavingTest, RowsFollowTheRunWithStartsAndReturnsAroundTheAccesses) {
  ASSERT_EQ(repro_->verdict.result, detect::Result::kViolation);
  const std::vector<InterleavingRow> rows = interleaving_rows(workload(), repro_->run, culprit());

  std::size_t accesses = 0;
  std::vector<std::string> pop_results;
  std::size_t culprits = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const InterleavingRow& row = rows[i];
    if (row.kind == Kind::kAccess) {
      EXPECT_EQ(row.step, ++accesses);  // every access, in trace order
      EXPECT_GE(row.op, 0);
      // The operation has started and not yet returned.
      const auto started = std::find_if(rows.begin(), rows.begin() + i, [&](const auto& r) {
        return r.kind == Kind::kStart && r.op == row.op;
      });
      EXPECT_NE(started, rows.begin() + i) << "access " << row.step << " before its start";
      const auto returned = std::find_if(rows.begin(), rows.begin() + i, [&](const auto& r) {
        return r.kind == Kind::kReturn && r.op == row.op;
      });
      EXPECT_EQ(returned, rows.begin() + i) << "access " << row.step << " after its return";
    }
    if (row.kind == Kind::kReturn && row.operation == "pop()") pop_results.push_back(row.text);
    culprits += row.culprit ? 1 : 0;
  }
  EXPECT_EQ(accesses, repro_->run.trace.size());
  EXPECT_EQ(culprits, 1u);
  // Both pops return the value pushed by Ps: the violation.
  EXPECT_EQ(pop_results, (std::vector<std::string>{"pop() -> 1", "pop() -> 1"}));
  // Ps runs first, Pc next.
  EXPECT_EQ(rows.front().kind, Kind::kStart);
  EXPECT_EQ(rows.front().phase, dpct::Phase::kSetup);
  EXPECT_EQ(rows.front().operation, "push(1)");
}

TEST_F(TreiberInterleavingTest, ColumnsShowEachThreadsAccessesAndTheFailedCas) {
  const std::string text = format_interleaving_columns(workload(), repro_->run, culprit());
  const std::vector<std::string> lines = lines_of(text);
  ASSERT_GE(lines.size(), 6u) << text;
  EXPECT_TRUE(contains(text, "Ps, sequential, before Pc:")) << text;
  EXPECT_TRUE(contains(text, "Pr, sequential, after every Pc thread returned: (none)")) << text;

  // The header has one column per thread, and the thread-1 cells sit after a separator.
  const auto header = std::find_if(lines.begin(), lines.end(), [](const std::string& line) {
    return contains(line, "thread 0") && contains(line, "thread 1");
  });
  ASSERT_NE(header, lines.end()) << text;
  const std::size_t column1 = header->find("thread 1");

  // In Pc one CAS succeeds and the other fails, each in its own thread's column, with its source
  // line.
  std::size_t cas_ok = 0, cas_failed = 0;
  std::vector<std::size_t> cas_columns;
  for (auto it = header; it != lines.end(); ++it) {  // Pc only: Ps has a CAS of its own
    const std::string& line = *it;
    if (!contains(line, "cas ")) continue;
    EXPECT_TRUE(contains(line, "(stacks.cc:")) << line;
    (contains(line, "cas failed (found ") ? cas_failed : cas_ok) += 1;
    cas_columns.push_back(line.find("cas ") >= column1 ? 1 : 0);
  }
  EXPECT_EQ(cas_ok, 1u) << text;
  EXPECT_EQ(cas_failed, 1u) << text;
  std::sort(cas_columns.begin(), cas_columns.end());
  EXPECT_EQ(cas_columns, (std::vector<std::size_t>{0, 1})) << text;

  // Two pops return 1; the culprit's return is marked.
  std::size_t pops = 0;
  for (const std::string& line : lines) pops += contains(line, "pop() -> 1") ? 1 : 0;
  EXPECT_EQ(pops, 2u) << text;
  EXPECT_TRUE(contains(text, "pop() -> 1  <== not linearizable")) << text;
}

TEST_F(TreiberInterleavingTest, CompactHasOneLinePerAccessStartAndReturn) {
  const std::string text = format_interleaving_compact(workload(), repro_->run, culprit());
  const std::vector<std::string> lines = lines_of(text);
  const std::vector<InterleavingRow> rows = interleaving_rows(workload(), repro_->run, culprit());
  ASSERT_EQ(lines.size(), rows.size() + 2) << text;  // title and column header
  EXPECT_TRUE(contains(lines[1], "step")) << text;
  std::size_t failed = 0, returns = 0;
  for (const std::string& line : lines) {
    if (contains(line, " cas ") && contains(line, "(failed)")) ++failed;
    if (contains(line, " return ") && contains(line, "#0 pop()") && contains(line, "-> 1")) {
      ++returns;
    }
  }
  EXPECT_EQ(failed, 1u) << text;
  EXPECT_GE(returns, 2u) << text;  // both pops are #0 of their thread
  EXPECT_TRUE(contains(text, "Ps   #0 push(1)")) << text;
  EXPECT_TRUE(contains(text, "<== not linearizable")) << text;
}

TEST_F(TreiberInterleavingTest, NarrowWidthFallsBackToCompact) {
  InterleavingOptions options;
  options.culprit = culprit();
  const std::string wide = format_interleaving(workload(), repro_->run, options);
  EXPECT_EQ(wide, format_interleaving_columns(workload(), repro_->run, culprit()));
  options.max_width = 40;
  EXPECT_EQ(format_interleaving(workload(), repro_->run, options),
            format_interleaving_compact(workload(), repro_->run, culprit()));
  options.max_width = 0;
  options.compact = true;
  EXPECT_EQ(format_interleaving(workload(), repro_->run, options),
            format_interleaving_compact(workload(), repro_->run, culprit()));
}

TEST(DescribeAccessTest, SaysWhatEachKindReadAndWrote) {
  dpct::TraceStep step;
  step.kind = dpct::AccessKind::kLoad;
  step.read = "3";
  step.written = "3";
  EXPECT_EQ(describe_access(step), "load 3");
  step.kind = dpct::AccessKind::kStore;
  step.written = "4";
  EXPECT_EQ(describe_access(step), "store 4");
  step.kind = dpct::AccessKind::kFetchAdd;
  EXPECT_EQ(describe_access(step), "fetch_add 3 -> 4");
  step.kind = dpct::AccessKind::kCompareExchange;
  EXPECT_EQ(describe_access(step), "cas 3 -> 4");
  step.success = false;
  EXPECT_EQ(describe_access(step), "cas failed (found 3)");
  step.kind = dpct::AccessKind::kTryLock;
  EXPECT_EQ(describe_access(step), "try_lock failed");
  step.kind = dpct::AccessKind::kUnlock;
  EXPECT_EQ(describe_access(step), "unlock");
}

TEST(DescribeAccessTest, ShowsAMemoryOrderOtherThanSeqCst) {
  dpct::TraceStep step;
  step.kind = dpct::AccessKind::kLoad;
  step.read = "3";
  step.order = std::memory_order_acquire;
  EXPECT_EQ(describe_access(step), "load 3 [acquire]");
  step.kind = dpct::AccessKind::kCompareExchange;
  step.written = "4";
  step.order = std::memory_order_acq_rel;
  step.failure_order = std::memory_order_relaxed;
  EXPECT_EQ(describe_access(step), "cas 3 -> 4 [acq_rel/relaxed]");
  step.kind = dpct::AccessKind::kFetchXor;
  step.order = std::memory_order_seq_cst;
  EXPECT_EQ(describe_access(step), "fetch_xor 3 -> 4");
}

// An operation without shared accesses still gets its start and return rows, and a run without
// a trace gives only those.
TEST(InterleavingRowsTest, OperationsWithoutAccessesAppearFromTheHistory) {
  history::HistoryBuilder b;
  b.call(0, history::Call{"push", {history::Value(1)}}, history::Value());
  b.invoke(0, history::Call{"pop", {}});
  b.invoke(1, history::Call{"pop", {}});
  b.respond(1, history::Outcome::kOk, history::Value(1));
  dpct::Run run;
  run.history = std::move(b).build();
  dpct::Workload workload;
  workload.setup = {history::Call{"push", {history::Value(1)}}};
  workload.threads = {{history::Call{"pop", {}}}, {history::Call{"pop", {}}}};
  const std::vector<InterleavingRow> rows = interleaving_rows(workload, run);
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows[0].phase, dpct::Phase::kSetup);
  EXPECT_EQ(rows[2].thread, 0u);
  EXPECT_EQ(rows[3].thread, 1u);
  EXPECT_EQ(rows[4].text, "pop() -> 1");
  EXPECT_EQ(rows[5].kind, Kind::kReturn);  // the pending pop of thread 0, listed last
  EXPECT_EQ(rows[5].text, "pop() never returned (pending)");
}

}  // namespace
}  // namespace linfault::minimize
