// Hand-made cases for the stack, queue and priority-queue monitors (monitors.md §1), written in
// fastlin's `method value start end` form (-1: empty), plus preconditions and pending ops.

#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "detect/checker.h"
#include "detect/monitors/container_monitor.h"
#include "detect/monitors/monitor.h"
#include "history/formats.h"
#include "history/history.h"

namespace linfault::detect {
namespace {

using history::Call;
using history::Value;

history::History fastlin(const std::string& text) {
  return history::load_history_text(text, "test", history::Format::kFastlin).history;
}

Verdict monitored(const std::string& model, const history::History& h) {
  MonitorResult r = run_monitor(model, h, CheckOptions{});
  EXPECT_TRUE(r.verdict) << r.unsupported;
  return r.verdict ? *r.verdict : Verdict{};
}

TEST(StackMonitor, LifoOrder) {
  EXPECT_EQ(
      monitored("stack", fastlin("# stack\npush 1 1 2\npush 2 3 4\npop 2 5 6\npop 1 7 8\n")).result,
      Result::kLinearizable);
  const history::History bad = fastlin("# stack\npush 1 1 2\npush 2 3 4\npop 1 5 6\npop 2 7 8\n");
  const Verdict v = monitored("stack", bad);
  EXPECT_EQ(v.result, Result::kViolation);
  EXPECT_EQ(v.algorithm, "monitor:stack");
  EXPECT_EQ(v.prefix_events, 6u);  // ends with the response of `pop 1`
  EXPECT_EQ(bad.op(v.culprit).call.method, "pop");
  EXPECT_EQ(bad.op(v.culprit).result, Value(1));
}

TEST(StackMonitor, OverlappingPushesMayPopEitherWay) {
  EXPECT_EQ(
      monitored("stack", fastlin("# stack\npush 1 1 4\npush 2 2 3\npop 1 5 6\npop 2 7 8\n")).result,
      Result::kLinearizable);
}

TEST(StackMonitor, EmptyPopsNeedAnEmptyInstant) {
  EXPECT_EQ(monitored("stack", fastlin("# stack\npush 1 1 2\npop -1 3 4\npop 1 5 6\n")).result,
            Result::kViolation);
  EXPECT_EQ(monitored("stack", fastlin("# stack\npush 1 1 5\npop -1 2 3\npop 1 6 7\n")).result,
            Result::kLinearizable);
}

TEST(StackMonitor, PeeksSeeTheTop) {
  EXPECT_EQ(monitored("stack", fastlin("# stack\npush 1 1 2\npush 2 3 4\npeek 2 5 6\npop 2 7 8\n"
                                       "peek 1 9 10\npop 1 11 12\n"))
                .result,
            Result::kLinearizable);
  EXPECT_EQ(monitored("stack", fastlin("# stack\npush 1 1 2\npush 2 3 4\npeek 1 5 6\npop 2 7 8\n"))
                .result,
            Result::kViolation);
}

TEST(StackMonitor, NestedPushesAndPopsOfSeedExample) {
  // The peeling must find the bottom value 1 and then 2 (fastlin's lin_simple_1).
  EXPECT_EQ(monitored("stack", fastlin("# stack\npush 1 1 3\npop 1 6 8\npush 2 2 5\npop 2 9 11\n"
                                       "push 3 4 7\npop 3 10 12\n"))
                .result,
            Result::kLinearizable);
}

TEST(QueueMonitor, FifoOrder) {
  EXPECT_EQ(
      monitored("queue", fastlin("# queue\nenq 2 0 1\nenq 1 1 2\ndeq 2 2 3\ndeq 1 3 4\n")).result,
      Result::kLinearizable);
  const Verdict v =
      monitored("queue", fastlin("# queue\nenq 2 0 1\nenq 1 1 2\ndeq 1 2 3\ndeq 2 3 4\n"));
  EXPECT_EQ(v.result, Result::kViolation);
  EXPECT_EQ(v.algorithm, "monitor:queue");
}

TEST(QueueMonitor, ConcurrentEnqueuesMayDequeueEitherWay) {
  EXPECT_EQ(
      monitored("queue", fastlin("# queue\nenq 1 0 3\nenq 2 1 2\ndeq 2 4 5\ndeq 1 6 7\n")).result,
      Result::kLinearizable);
  EXPECT_EQ(monitored("queue", fastlin("# queue\nenq 1 0 1\npeek -1 2 3\ndeq 1 4 5\n")).result,
            Result::kViolation);
}

TEST(PriorityQueueMonitor, LargestFirst) {
  EXPECT_EQ(
      monitored("priorityqueue",
                fastlin("# priorityqueue\ninsert 5 1 3\npeek 5 2 4\ninsert 6 2 5\npoll 5 6 7\n"))
          .result,
      Result::kViolation);
  EXPECT_EQ(monitored("priorityqueue", fastlin("# priorityqueue\ninsert 5 1 2\ninsert 6 1 5\n"
                                               "poll 5 3 4\npoll 6 6 7\n"))
                .result,
            Result::kLinearizable);
}

TEST(ContainerMonitors, DuplicateValuesAreUnsupportedAndFallBackToTheSearch) {
  const history::History h = fastlin("# stack\npush 1 1 2\npush 1 3 4\npop 1 5 6\npop 1 7 8\n");
  const MonitorResult r = run_monitor("stack", h, CheckOptions{});
  EXPECT_FALSE(r.verdict);
  EXPECT_NE(r.unsupported.find("not distinct"), std::string::npos) << r.unsupported;
  const Verdict v = check_auto("stack", h, CheckOptions{}, Algo::kAuto);
  EXPECT_EQ(v.algorithm, "search");
  EXPECT_EQ(v.result, Result::kLinearizable);
  EXPECT_THROW(check_auto("stack", h, CheckOptions{}, Algo::kMonitor), history::InputError);
}

TEST(ContainerMonitors, UnknownMethodsAreUnsupported) {
  history::HistoryBuilder b("test");
  b.call(0, Call{"push", {Value(1)}}, Value());
  b.call(0, Call{"size", {}}, Value(1));
  const MonitorResult r = run_monitor("stack", std::move(b).build(), CheckOptions{});
  EXPECT_FALSE(r.verdict);
  EXPECT_NE(r.unsupported.find("size"), std::string::npos);
}

TEST(ContainerMonitors, PendingAddsThatWereObservedTakeEffect) {
  history::HistoryBuilder b("test");
  b.invoke(0, Call{"push", {Value(7)}});  // never responds
  b.call(1, Call{"pop", {}}, Value(7));
  const MonitorResult r = run_monitor("stack", std::move(b).build(), CheckOptions{});
  ASSERT_TRUE(r.verdict) << r.unsupported;
  EXPECT_EQ(r.verdict->result, Result::kLinearizable);
}

TEST(ContainerMonitors, PendingRemovalsThatMayExplainTheHistoryGoToTheSearch) {
  history::HistoryBuilder b("test");
  b.call(0, Call{"push", {Value(1)}}, Value());
  b.call(0, Call{"push", {Value(2)}}, Value());
  b.invoke(1, Call{"pop", {}});  // pending: it may have popped 2
  b.call(0, Call{"pop", {}}, Value(1));
  const history::History h = std::move(b).build();
  EXPECT_FALSE(run_monitor("stack", h, CheckOptions{}).verdict);
  const Verdict v = check_auto("stack", h, CheckOptions{}, Algo::kAuto);
  EXPECT_EQ(v.result, Result::kLinearizable);
  EXPECT_EQ(v.algorithm, "search");
}

TEST(ContainerMonitors, ShortestPrefixWithPendingOpsMatchesTheSearch) {
  // The violation (pop 3 while 4 is certainly on top) ends at event 9; a later pending pop cannot
  // undo it, and the binary search must cut inside open intervals soundly.
  history::HistoryBuilder b("test");
  b.call(0, Call{"push", {Value(3)}}, Value());
  b.invoke(1, Call{"push", {Value(5)}});
  b.call(0, Call{"push", {Value(4)}}, Value());
  b.call(0, Call{"pop", {}}, Value(3));
  b.respond(1, history::Outcome::kOk, Value());
  b.invoke(1, Call{"pop", {}});
  b.call(0, Call{"pop", {}}, Value(5));
  const history::History h = std::move(b).build();
  const Verdict monitor = check_auto("stack", h, CheckOptions{}, Algo::kAuto);
  const Verdict search = check_history("stack", h, CheckOptions{});
  EXPECT_EQ(monitor.result, Result::kViolation);
  EXPECT_EQ(monitor.prefix_events, search.prefix_events);
  EXPECT_EQ(monitor.culprit, search.culprit);
}

TEST(ContainerMonitors, PendingRemovalCalledTooLateCannotExplainAnInversion) {
  // push(1), push(2), pop() -> 1, then a pop that is still pending: it was called after the
  // inversion, so whatever it takes cannot repair it. The over-approximation (2 may be removed
  // any time after the pending pop's call) decides this without the search.
  history::HistoryBuilder b("test");
  b.call(0, Call{"push", {Value(1)}}, Value());
  b.call(0, Call{"push", {Value(2)}}, Value());
  b.call(1, Call{"pop", {}}, Value(1));
  b.invoke(2, Call{"pop", {}});
  const history::History h = std::move(b).build();
  auto compiled = internal::compile_container_ops(internal::ContainerKind::kStack, h);
  ASSERT_TRUE(std::holds_alternative<internal::ContainerOps>(compiled));
  internal::ScratchMemory scratch;
  const internal::PrefixDecision d =
      internal::decide_container_prefix(std::get<internal::ContainerOps>(compiled),
                                        static_cast<std::int32_t>(h.events().size()), scratch);
  EXPECT_EQ(d.decision, internal::Decision::kViolation);
  EXPECT_EQ(d.evidence, 5);  // the response of pop() -> 1
  // Called before the inversion, the same pop may have taken 2 first: undecided by the monitor,
  // linearizable for the search.
  history::HistoryBuilder early("test");
  early.call(0, Call{"push", {Value(1)}}, Value());
  early.call(0, Call{"push", {Value(2)}}, Value());
  early.invoke(2, Call{"pop", {}});
  early.call(1, Call{"pop", {}}, Value(1));
  const history::History e = std::move(early).build();
  auto early_ops = internal::compile_container_ops(internal::ContainerKind::kStack, e);
  EXPECT_EQ(internal::decide_container_prefix(std::get<internal::ContainerOps>(early_ops),
                                              static_cast<std::int32_t>(e.events().size()), scratch)
                .decision,
            internal::Decision::kUncertain);
  EXPECT_FALSE(run_monitor("stack", e, CheckOptions{}).verdict);
  EXPECT_EQ(check_auto("stack", e, CheckOptions{}).result, Result::kLinearizable);
}

// queue(fifo=per-producer) is FIFO per producer only: the queue monitor, which is FIFO across
// producers, must never decide it (nor the bag, which has no order at all).
TEST(ContainerMonitors, PerProducerQueuesAndBagsGoToTheSearch) {
  const std::string per_producer = "queue(fifo=\"per-producer\")";
  history::HistoryBuilder b("test");
  b.call(1, Call{"enq", {Value(1)}}, Value());
  b.call(1, Call{"enq", {Value(2)}}, Value());
  b.call(2, Call{"enq", {Value(3)}}, Value());  // after 1 and 2, but another producer's
  b.call(3, Call{"deq", {}}, Value(3));
  b.call(3, Call{"deq", {}}, Value(1));
  b.call(3, Call{"deq", {}}, Value(2));
  b.call(3, Call{"deq", {}}, Value());
  const history::History across = std::move(b).build();
  const Verdict fifo = check_auto("queue", across, CheckOptions{}, Algo::kAuto);
  EXPECT_EQ(fifo.result, Result::kViolation);
  EXPECT_EQ(fifo.algorithm, "monitor:queue");
  EXPECT_FALSE(has_monitor(per_producer));
  EXPECT_FALSE(has_monitor("queue(fifo=per-producer)"));
  EXPECT_FALSE(has_monitor("bag"));
  for (const std::string& spec : {per_producer, std::string("queue(fifo=per-producer)")}) {
    const Verdict v = check_auto(spec, across, CheckOptions{}, Algo::kAuto);
    EXPECT_EQ(v.result, Result::kLinearizable) << spec;
    EXPECT_EQ(v.algorithm.rfind("search", 0), 0u) << v.algorithm;
    EXPECT_EQ(v.monitor_declined, "");
    EXPECT_FALSE(run_monitor(spec, across, CheckOptions{}).verdict);
    EXPECT_THROW(check_auto(spec, across, CheckOptions{}, Algo::kMonitor), history::InputError);
  }

  // Two elements of one producer out of order: a violation for it too.
  history::HistoryBuilder c("test");
  c.call(1, Call{"enq", {Value(1)}}, Value());
  c.call(1, Call{"enq", {Value(2)}}, Value());
  c.call(2, Call{"enq", {Value(3)}}, Value());
  c.call(3, Call{"try_dequeue", {}}, Value(2));
  c.call(3, Call{"try_dequeue", {}}, Value(1));
  const history::History within = std::move(c).build();
  const Verdict v = check_auto(per_producer, within, CheckOptions{}, Algo::kAuto);
  EXPECT_EQ(v.result, Result::kViolation);
  EXPECT_EQ(v.algorithm.rfind("search", 0), 0u) << v.algorithm;
  EXPECT_EQ(within.op(v.culprit).result, Value(2));

  // A bag: any element, but nil only when empty.
  history::HistoryBuilder d("test");
  d.call(1, Call{"add", {Value(1)}}, Value());
  d.call(2, Call{"add", {Value(2)}}, Value());
  d.call(3, Call{"take", {}}, Value(2));
  d.call(3, Call{"take", {}}, Value(1));
  EXPECT_EQ(check_auto("bag", std::move(d).build(), CheckOptions{}).result, Result::kLinearizable);
  history::HistoryBuilder e("test");
  e.call(1, Call{"add", {Value(1)}}, Value());
  e.call(3, Call{"take", {}}, Value());
  EXPECT_EQ(check_auto("bag", std::move(e).build(), CheckOptions{}).result, Result::kViolation);
}

TEST(ContainerMonitors, AlgoNames) {
  EXPECT_EQ(parse_algo_name("auto"), Algo::kAuto);
  EXPECT_EQ(parse_algo_name("search"), Algo::kSearch);
  EXPECT_EQ(parse_algo_name("monitor"), Algo::kMonitor);
  EXPECT_FALSE(parse_algo_name("fast"));
  EXPECT_STREQ(algo_name(Algo::kMonitor), "monitor");
  EXPECT_TRUE(has_monitor("priorityqueue"));
  EXPECT_FALSE(has_monitor("kv"));
  EXPECT_FALSE(run_monitor("kv", history::History{}, CheckOptions{}).verdict);
}

}  // namespace
}  // namespace linfault::detect
