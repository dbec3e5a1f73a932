#include "detect/monitors/snapshot_monitor.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <vector>

#include "spec/snapshot.h"

namespace linfault::detect::internal {
namespace {

using history::Operation;
using history::Outcome;

constexpr std::int64_t kNone = -1;

struct SegmentWrites {
  std::int64_t first_one_call = std::numeric_limits<std::int64_t>::max();
  std::int64_t last_zero_return = -1;  // kNone-like: no 0-write
  bool pending_zero = false;
  bool has_one = false;
};

std::string op_text(const history::History& h, history::OpIndex i) {
  return "operation " + std::to_string(i) + " (" + h.op(i).to_string() + ")";
}

}  // namespace

SnapshotOutcome check_simple_snapshot(const history::History& history) {
  // Pass 1: shape.
  std::map<std::int64_t, SegmentWrites> writes;
  std::vector<std::uint8_t> is_update(history.size(), 0);
  for (std::size_t i = 0; i < history.size(); ++i) {
    const Operation& op = history.operations()[i];
    const auto index = static_cast<history::OpIndex>(i);
    const std::string& m = op.call.method;
    if (m == "update" || m == "write") {
      if (op.call.args.size() != 2 || !op.call.args[0].is_int() || !op.call.args[1].is_int() ||
          op.call.args[0].as_int() < 0) {
        return SnapshotUnsupported{op_text(history, index) + " is not update(segment, value)"};
      }
      // The model rejects such a segment as bad input; the search, which the caller falls back
      // to, reports it. A verdict here would accept what the model refuses.
      if (op.call.args[0].as_int() >= spec::SnapshotModel::kMaxSegments) {
        return SnapshotUnsupported{op_text(history, index) + " writes a segment out of range"};
      }
      is_update[i] = 1;
      const std::int64_t value = op.call.args[1].as_int();
      SegmentWrites& w = writes[op.call.args[0].as_int()];
      if (value == 1) {
        if (op.outcome == Outcome::kFail) {
          return SnapshotUnsupported{op_text(history, index) + " is a failed write of 1"};
        }
        w.has_one = true;
        w.first_one_call = std::min<std::int64_t>(w.first_one_call, op.call_event);
      } else if (value == 0) {
        if (op.outcome == Outcome::kPending) {
          w.pending_zero = true;
        } else {
          w.last_zero_return = std::max<std::int64_t>(w.last_zero_return, op.return_event);
        }
      } else {
        return SnapshotUnsupported{op_text(history, index) +
                                   " writes a value other than 0 and 1 (not a simple history)"};
      }
    } else if (m == "scan") {
      if (!op.call.args.empty())
        return SnapshotUnsupported{op_text(history, index) + " has arguments"};
    } else {
      return SnapshotUnsupported{"the snapshot monitor does not support '" + m + "'"};
    }
  }
  std::array<std::int64_t, 2> tracked{kNone, kNone};
  std::size_t n_tracked = 0;
  for (const auto& [segment, w] : writes) {
    if (!w.has_one) continue;
    if (n_tracked == 2) {
      return SnapshotUnsupported{"more than two segments are written 1 (not a simple history)"};
    }
    if (w.pending_zero || w.last_zero_return > w.first_one_call) {
      return SnapshotUnsupported{"segment " + std::to_string(segment) +
                                 " is written 0 after its first write of 1 may have taken effect"};
    }
    tracked[n_tracked++] = segment;
  }
  const std::int64_t needed_length = n_tracked == 0 ? 0 : tracked[n_tracked - 1] + 1;
  for (std::size_t i = 0; i < history.size(); ++i) {
    const Operation& op = history.operations()[i];
    if (is_update[i] || op.outcome != Outcome::kOk) continue;
    const auto index = static_cast<history::OpIndex>(i);
    if (!op.result.is_list()) {
      return SnapshotUnsupported{op_text(history, index) + " does not return a list"};
    }
    const history::Value::List& values = op.result.as_list();
    if (static_cast<std::int64_t>(values.size()) < needed_length) {
      return SnapshotUnsupported{op_text(history, index) + " does not report segment " +
                                 std::to_string(tracked[n_tracked - 1])};
    }
    for (const history::Value& v : values) {
      if (!v.is_int())
        return SnapshotUnsupported{op_text(history, index) + " returns a non-integer"};
    }
  }

  // Pass 2: the automaton over events. k = 0 is segment i, k = 1 is segment j.
  enum class First : std::uint8_t { kNone, kCalled, kDone };
  std::array<First, 2> first_one{First::kNone, First::kNone};
  std::array<bool, 2> seen_one{false, false};  // some completed scan returned 1 at k
  bool i_before_j = false, j_before_i = false, seen01 = false, seen10 = false;
  struct ScanStart {
    std::array<bool, 2> seen_one;
    std::array<bool, 2> first_done;
  };
  std::vector<ScanStart> at_call(history.size());
  auto tracked_index = [&](std::int64_t segment) -> int {
    for (std::size_t k = 0; k < n_tracked; ++k) {
      if (tracked[k] == segment) return static_cast<int>(k);
    }
    return -1;
  };
  const auto& events = history.events();
  for (std::size_t e = 0; e < events.size(); ++e) {
    const history::Event& ev = events[e];
    const Operation& op = history.op(ev.op);
    const bool call = ev.kind == history::Event::Kind::kCall;
    if (is_update[static_cast<std::size_t>(ev.op)]) {
      if (op.call.args[1].as_int() != 1) continue;
      const int k = tracked_index(op.call.args[0].as_int());
      if (call && first_one[k] == First::kNone) {
        first_one[k] = First::kCalled;
        if (first_one[1 - k] == First::kDone) (k == 1 ? i_before_j : j_before_i) = true;
      } else if (!call && op.outcome == Outcome::kOk) {
        first_one[k] = First::kDone;
      }
      continue;
    }
    if (call) {
      at_call[static_cast<std::size_t>(ev.op)] = {
          seen_one, {first_one[0] == First::kDone, first_one[1] == First::kDone}};
      continue;
    }
    if (op.outcome != Outcome::kOk) continue;
    const history::Value::List& values = op.result.as_list();
    auto fail = [&](const std::string& why) {
      return SnapshotViolation{e + 1, ev.op, op_text(history, ev.op) + ": " + why};
    };
    std::array<std::int64_t, 2> val{0, 0};
    for (std::size_t s = 0; s < values.size(); ++s) {
      const std::int64_t x = values[s].as_int();
      const int k = tracked_index(static_cast<std::int64_t>(s));
      if (k < 0) {
        if (x != 0)
          return fail("segment " + std::to_string(s) + " was never written " + std::to_string(x));
      } else {
        if (x != 0 && x != 1)
          return fail("segment " + std::to_string(s) + " was never written " + std::to_string(x));
        val[static_cast<std::size_t>(k)] = x;
      }
    }
    const ScanStart& start = at_call[static_cast<std::size_t>(ev.op)];
    const bool is01 = val[0] == 0 && val[1] == 1;
    const bool is10 = val[0] == 1 && val[1] == 0;
    if (n_tracked == 2) {
      if ((is01 && seen10) || (is10 && seen01)) {
        return fail("its view is inverted with respect to an earlier scan");
      }
      if (is01 && i_before_j)
        return fail("segment " + std::to_string(tracked[0]) + " was set before segment " +
                    std::to_string(tracked[1]));
      if (is10 && j_before_i)
        return fail("segment " + std::to_string(tracked[1]) + " was set before segment " +
                    std::to_string(tracked[0]));
    }
    for (std::size_t k = 0; k < n_tracked; ++k) {
      const std::string seg = "segment " + std::to_string(tracked[k]);
      if (val[k] == 0 && start.seen_one[k]) return fail(seg + " went back from 1 to 0");
      if (val[k] == 0 && start.first_done[k]) return fail(seg + " was already 1");
      if (val[k] == 1 && first_one[k] == First::kNone) return fail(seg + " was not written 1 yet");
    }
    seen01 = seen01 || is01;
    seen10 = seen10 || is10;
    for (std::size_t k = 0; k < n_tracked; ++k) seen_one[k] = seen_one[k] || val[k] == 1;
  }
  return SnapshotLinearizable{};
}

}  // namespace linfault::detect::internal
