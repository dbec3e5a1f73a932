// Exhaustive cross-check of the priority-queue monitor against the search (detect/checker.h).
//
// Every interval order of 1 to 4 operations, complete or with one pending operation, with every
// labelling by insert(v), poll() -> r and peek() -> r over the values 1..3 (r empty included):
// 356,398 histories. Wherever the monitor decides (it may decline: unsupported), its verdict,
// shortest violating prefix and culprit must be the search's. Then random histories of 5 to 10
// operations (plain random, and simulated runs of a priority queue with at most one result
// changed), and the regressions: a peek that took effect before its value's insert was called.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "detect/checker.h"
#include "detect/monitors/monitor.h"
#include "history/formats.h"
#include "history/history.h"

namespace linfault::detect {
namespace {

using history::Call;
using history::History;
using history::Value;

constexpr std::string_view kModel = "priorityqueue";

// An event sequence: (is_call, op), op i being the i-th op called; `pending` never responds.
struct Shape {
  std::vector<std::pair<bool, int>> events;
  int pending = -1;  // -1: none
};

// One shape per interval order of n ops (ops numbered by call order), and per interval order with
// one pending op (an op that precedes no other).
std::vector<Shape> shapes_of(int n) {
  const auto un = static_cast<std::size_t>(n);
  std::vector<Shape> out;
  std::set<std::pair<std::vector<bool>, int>> seen;  // (precedence matrix, pending op)
  std::vector<std::pair<bool, int>> events;
  std::vector<bool> open(un, false);
  auto record = [&] {
    std::vector<std::size_t> call_at(un), return_at(un);
    for (std::size_t e = 0; e < events.size(); ++e) {
      (events[e].first ? call_at : return_at)[static_cast<std::size_t>(events[e].second)] = e;
    }
    std::vector<bool> precedes(un * un);  // [i * n + j]: i responds before j is called
    for (std::size_t i = 0; i < un; ++i) {
      for (std::size_t j = 0; j < un; ++j) precedes[i * un + j] = return_at[i] < call_at[j];
    }
    for (int pending = -1; pending < n; ++pending) {
      if (pending >= 0) {
        const auto p = static_cast<std::size_t>(pending);
        if (std::any_of(precedes.begin() + static_cast<std::ptrdiff_t>(p * un),
                        precedes.begin() + static_cast<std::ptrdiff_t>((p + 1) * un),
                        [](bool b) { return b; })) {
          continue;
        }
      }
      if (!seen.emplace(precedes, pending).second) continue;
      Shape s;
      for (auto e : events) {
        if (e.first || e.second != pending) s.events.push_back(e);
      }
      s.pending = pending;
      out.push_back(std::move(s));
    }
  };
  auto walk = [&](auto& self, int next_call) -> void {
    if (events.size() == 2 * un) {
      record();
      return;
    }
    if (next_call < n) {
      events.emplace_back(true, next_call);
      open[static_cast<std::size_t>(next_call)] = true;
      self(self, next_call + 1);
      open[static_cast<std::size_t>(next_call)] = false;
      events.pop_back();
    }
    for (int op = 0; op < next_call; ++op) {
      if (!open[static_cast<std::size_t>(op)]) continue;
      events.emplace_back(false, op);
      open[static_cast<std::size_t>(op)] = false;
      self(self, next_call);
      open[static_cast<std::size_t>(op)] = true;
      events.pop_back();
    }
  };
  walk(walk, 0);
  return out;
}

// An operation: insert(value), or poll/peek returning value (0: empty; unused when pending).
struct Label {
  enum Kind { kInsert, kPoll, kPeek } kind;
  int value;
};

History build(const Shape& shape, const std::vector<Label>& labels) {
  history::HistoryBuilder b("exhaustive");
  for (auto [is_call, op] : shape.events) {
    const Label& l = labels[static_cast<std::size_t>(op)];
    if (is_call) {
      b.invoke(op, l.kind == Label::kInsert ? Call{"insert", {Value(l.value)}}
                                            : Call{l.kind == Label::kPoll ? "poll" : "peek", {}});
    } else {
      b.respond(op, history::Outcome::kOk,
                l.kind == Label::kInsert || l.value == 0 ? Value() : Value(l.value));
    }
  }
  return std::move(b).build();
}

std::string dump(const History& h) {
  std::string out;
  for (const history::Operation& op : h.operations()) {
    out += "  " + op.to_string() + " [" + std::to_string(op.call_event) + ", " +
           (op.return_event == history::kNoEvent ? std::string("pending")
                                                 : std::to_string(op.return_event)) +
           "]\n";
  }
  return out;
}

struct Tally {
  long histories = 0, decided = 0, unsupported = 0, violations = 0, disagreements = 0;
  std::string first_disagreements;  // the first few, printed
};

void compare(const History& h, Tally& tally) {
  ++tally.histories;
  CheckOptions options;
  options.want_witness = false;
  options.threads = 1;
  const MonitorResult monitor = run_monitor(kModel, h, options);
  if (!monitor.verdict) {
    ++tally.unsupported;
    return;
  }
  ++tally.decided;
  const Verdict search = check_history(kModel, h, options);
  const Verdict& m = *monitor.verdict;
  bool agree = m.result == search.result;
  if (agree && m.result == Result::kViolation) {
    ++tally.violations;
    agree =
        m.prefix_exact && m.prefix_events == search.prefix_events && m.culprit == search.culprit;
  }
  if (agree) return;
  if (++tally.disagreements <= 5) {
    tally.first_disagreements += "monitor " + std::string(result_name(m.result)) + " (prefix " +
                                 std::to_string(m.prefix_events) + "), search " +
                                 result_name(search.result) + " (prefix " +
                                 std::to_string(search.prefix_events) + "):\n" + dump(h);
  }
}

std::string summary(const Tally& t) {
  return std::to_string(t.histories) + " histories, " + std::to_string(t.decided) +
         " decided by the monitor (" + std::to_string(t.violations) + " violations), " +
         std::to_string(t.unsupported) + " unsupported, " + std::to_string(t.disagreements) +
         " disagreements";
}

// Every labelling of every shape of n ops over the values 1..values. The values a history
// mentions are 1..k for some k: renaming values in priority order changes nothing.
void enumerate(int n, int values, Tally& tally) {
  std::vector<Label> complete, pending;
  for (int v = 1; v <= values; ++v) {
    complete.push_back({Label::kInsert, v});
    pending.push_back({Label::kInsert, v});
  }
  for (Label::Kind kind : {Label::kPoll, Label::kPeek}) {
    for (int v = 0; v <= values; ++v) complete.push_back({kind, v});
    pending.push_back({kind, 0});
  }
  for (const Shape& shape : shapes_of(n)) {
    auto choices = [&](std::size_t op) -> const std::vector<Label>& {
      return static_cast<int>(op) == shape.pending ? pending : complete;
    };
    std::vector<std::size_t> digit(static_cast<std::size_t>(n), 0);
    std::vector<Label> labels(static_cast<std::size_t>(n));
    while (true) {
      unsigned mentioned = 0;
      for (std::size_t i = 0; i < digit.size(); ++i) {
        labels[i] = choices(i)[digit[i]];
        if (labels[i].value > 0) mentioned |= 1u << (labels[i].value - 1);
      }
      if ((mentioned & (mentioned + 1)) == 0) compare(build(shape, labels), tally);
      std::size_t i = 0;
      for (; i < digit.size(); ++i) {
        if (++digit[i] < choices(i).size()) break;
        digit[i] = 0;
      }
      if (i == digit.size()) break;
    }
  }
}

TEST(PriorityQueueMonitorExhaustive, AgreesWithTheSearchOnEverySmallHistory) {
  Tally all;
  for (int n = 1; n <= 4; ++n) {
    Tally t;
    enumerate(n, 3, t);
    std::cout << n << " ops, " << shapes_of(n).size() << " shapes: " << summary(t) << "\n";
    EXPECT_EQ(t.disagreements, 0) << t.first_disagreements;
    all.histories += t.histories;
    all.decided += t.decided;
    all.disagreements += t.disagreements;
  }
  std::cout << "in all: " << all.histories << " histories, " << all.decided
            << " decided by the monitor\n";
  EXPECT_EQ(all.histories, 356398);
  EXPECT_GT(all.decided, all.histories * 4 / 5);  // the monitor declines little
}

// A random interval order of the ops of `labels`, some of them pending when `with_pending`.
Shape random_shape(std::vector<Label>& labels, bool with_pending, std::mt19937_64& rng) {
  Shape shape;
  std::vector<int> open;
  int next_call = 0;
  const auto n = static_cast<int>(labels.size());
  while (next_call < n || !open.empty()) {
    if (next_call < n && (open.empty() || rng() % 2 == 0)) {
      shape.events.emplace_back(true, next_call);
      open.push_back(next_call++);
      continue;
    }
    const std::size_t at = rng() % open.size();
    const int op = open[at];
    open.erase(open.begin() + static_cast<std::ptrdiff_t>(at));
    if (!with_pending || rng() % 5 != 0) shape.events.emplace_back(false, op);
  }
  return shape;
}

TEST(PriorityQueueMonitorExhaustive, AgreesWithTheSearchOnRandomLargerHistories) {
  std::mt19937_64 rng(20240611);
  Tally tally;
  for (int round = 0; round < 20000; ++round) {
    const int n = 5 + static_cast<int>(rng() % 6);
    std::vector<Label> labels(static_cast<std::size_t>(n));
    int values = 0;
    for (Label& l : labels) {
      const auto kind = rng() % 3;
      l = kind == 0 ? Label{Label::kInsert, ++values}
                    : Label{kind == 1 ? Label::kPoll : Label::kPeek, 0};
    }
    std::vector<int> priority(static_cast<std::size_t>(values) + 1);
    for (std::size_t v = 0; v < priority.size(); ++v) priority[v] = static_cast<int>(v);
    std::shuffle(priority.begin() + 1, priority.end(), rng);
    for (Label& l : labels) {
      if (l.kind == Label::kInsert) {
        l.value = priority[static_cast<std::size_t>(l.value)];
      } else if (values > 0 && rng() % 4 != 0) {
        l.value = 1 + static_cast<int>(rng() % static_cast<unsigned>(values));
      }
    }
    compare(build(random_shape(labels, rng() % 3 == 0, rng), labels), tally);
  }
  std::cout << "random: " << summary(tally) << "\n";
  EXPECT_EQ(tally.disagreements, 0) << tally.first_disagreements;
}

// Runs of a sequential priority queue (op i takes effect at time 10 i, inside an interval of
// random width around it; a few ops never respond), half of them with one result changed.
TEST(PriorityQueueMonitorExhaustive, AgreesWithTheSearchOnSimulatedRuns) {
  std::mt19937_64 rng(7);
  Tally tally;
  for (int round = 0; round < 50000; ++round) {
    const int n = 5 + static_cast<int>(rng() % 6);
    std::vector<Label> labels(static_cast<std::size_t>(n));
    std::vector<int> priority(static_cast<std::size_t>(n));
    for (int v = 0; v < n; ++v) priority[static_cast<std::size_t>(v)] = v + 1;
    std::shuffle(priority.begin(), priority.end(), rng);
    std::vector<int> present;
    int values = 0;
    for (Label& l : labels) {
      const auto kind = rng() % 3;
      if (kind == 0) {
        l = {Label::kInsert, priority[static_cast<std::size_t>(values++)]};
        present.push_back(l.value);
        continue;
      }
      l = {kind == 1 ? Label::kPoll : Label::kPeek, 0};
      const auto top = std::max_element(present.begin(), present.end());
      if (top == present.end()) continue;
      l.value = *top;
      if (l.kind == Label::kPoll) present.erase(top);
    }
    if (rng() % 2 == 0) {
      Label& victim = labels[rng() % labels.size()];
      if (victim.kind != Label::kInsert) {
        victim.value = static_cast<int>(rng() % static_cast<unsigned>(n + 1));
      }
    }
    const int width = 5 + static_cast<int>(rng() % 40);
    std::vector<std::pair<long, std::pair<bool, int>>> timed;
    for (int i = 0; i < n; ++i) {
      const long at = 10L * i;
      timed.push_back(
          {2 * (at - static_cast<long>(rng() % static_cast<unsigned>(width))) - 1, {true, i}});
      if (rng() % 12 == 0) continue;  // pending
      timed.push_back(
          {2 * (at + static_cast<long>(rng() % static_cast<unsigned>(width))) + 1, {false, i}});
    }
    std::sort(timed.begin(), timed.end());
    Shape shape;
    for (const auto& t : timed) shape.events.push_back(t.second);
    compare(build(shape, labels), tally);
  }
  std::cout << "simulated: " << summary(tally) << "\n";
  EXPECT_EQ(tally.disagreements, 0) << tally.first_disagreements;
}

History fastlin(const std::string& text) {
  return history::load_history_text(text, "test", history::Format::kFastlin).history;
}

// The monitor decides h, a violation, exactly as the search does; so does --algo auto.
void expect_violation_found_by_the_monitor(const History& h) {
  const Verdict search = check_history(kModel, h, CheckOptions{});
  ASSERT_EQ(search.result, Result::kViolation);
  const MonitorResult monitor = run_monitor(kModel, h, CheckOptions{});
  ASSERT_TRUE(monitor.verdict) << monitor.unsupported;
  EXPECT_EQ(monitor.verdict->result, Result::kViolation);
  EXPECT_EQ(monitor.verdict->prefix_events, search.prefix_events);
  EXPECT_EQ(monitor.verdict->culprit, search.culprit);
  const Verdict automatic = check_auto(kModel, h, CheckOptions{}, Algo::kAuto);
  EXPECT_EQ(automatic.result, Result::kViolation);
  EXPECT_EQ(automatic.prefix_events, search.prefix_events);
}

TEST(PriorityQueueMonitorExhaustive, PeekCannotSeeAValueBeforeItsInsertIsCalled) {
  // insert(5) precedes insert(3); peek -> 3 must follow insert(3)'s call, when 5 is the largest.
  // The monitor used to place the peek at its call, before insert(3) was called.
  expect_violation_found_by_the_monitor(
      fastlin("# priorityqueue\ninsert 5 1 3\ninsert 3 3 5\npeek 3 2 4\n"));
}

TEST(PriorityQueueMonitorExhaustive, PeekAmongPollsAndEmptyPeeks) {
  // peek -> 1 responds after insert(1) is called, but insert(2) completed before and 2 is polled
  // only later: 1 is never the largest while the peek may take effect.
  expect_violation_found_by_the_monitor(
      fastlin("# priorityqueue\npeek -1 0 3\npoll -1 1 7\npeek -1 2 5\npeek 1 4 10\n"
              "insert 2 6 8\ninsert 1 9 13\npeek 3 11 17\ninsert 3 12 16\npoll 2 14 15\n"));
}

}  // namespace
}  // namespace linfault::detect
