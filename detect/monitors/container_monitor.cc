#include "detect/monitors/container_monitor.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <optional>
#include <queue>
#include <string_view>
#include <utility>

#include "detect/monitors/interval_structures.h"
#include "detect/monitors/scratch_memory.h"
#include "detect/monitors/value_ids.h"

namespace linfault::detect::internal {
namespace {

using history::Value;

struct MethodKinds {
  std::vector<std::string_view> add, remove, peek;
};

const MethodKinds& methods_of(ContainerKind kind) {
  static const MethodKinds kStack{{"push"}, {"pop"}, {"peek", "top"}};
  static const MethodKinds kQueue{
      {"enq", "offer", "enqueue"}, {"deq", "poll", "dequeue"}, {"peek"}};
  static const MethodKinds kPriorityQueue{
      {"insert", "add", "offer"}, {"poll", "pop", "remove_max"}, {"peek"}};
  switch (kind) {
    case ContainerKind::kStack:
      return kStack;
    case ContainerKind::kQueue:
      return kQueue;
    case ContainerKind::kPriorityQueue:
      return kPriorityQueue;
  }
  return kStack;
}

const char* kind_name(ContainerKind kind) {
  switch (kind) {
    case ContainerKind::kStack:
      return "stack";
    case ContainerKind::kQueue:
      return "queue";
    case ContainerKind::kPriorityQueue:
      return "priorityqueue";
  }
  return "?";
}

bool among(const std::vector<std::string_view>& names, const std::string& method) {
  return std::find(names.begin(), names.end(), method) != names.end();
}

// Times are scaled so that moved and synthetic events fit between recorded ones: recorded event
// e is at 8e + 4. Non-trivialisation moves calls just after the call that bounds them (a peek's
// to 8e + 5 after its add's, a removal's to 8e + 5 or, after a moved peek's, 8e + 6) and
// responses just before the response that bounds them (8e + 3 and 8e + 2), so that a moved call
// never meets a moved response: no real-time order appears that the history does not have.
std::int64_t scaled(history::EventIndex e) { return 8 * static_cast<std::int64_t>(e) + 4; }
// The recorded event a scaled time belongs to, within the first `cut` events.
std::int32_t event_at(std::int64_t time, std::int32_t cut) {
  return static_cast<std::int32_t>(std::clamp<std::int64_t>(time / 8, 0, cut - 1));
}

struct Interval {
  std::int64_t inv;
  std::int64_t res;
};

// A complete, well-matched history: per value its add and its removal, plus peeks and ops that
// returned empty.
struct Reduced {
  explicit Reduced(std::pmr::memory_resource* memory)
      : add(memory), remove(memory), peek_value(memory), peek(memory), empties(memory) {}
  ScratchArray<Interval> add, remove;
  ScratchArray<std::int32_t> peek_value;
  ScratchArray<Interval> peek;
  ScratchArray<Interval> empties;
  std::int64_t end = 0;      // synthetic removals happen at or after it
  std::int64_t horizon = 0;  // no time exceeds it
};

// kUnder drops pending removals; kUnderRecorded lets a pending removal take effect with the result
// it eventually recorded when that is consistent with the prefix (its value was added in the
// prefix and not removed by anything else), else drops it. kOver drops pending removals but lets
// every value without a completed removal be removed at any time after the earliest pending
// removal's call: whatever the pending removals took, and whenever, a linearization of the
// prefix is one of this history too (the values they did not take are removed at the end), so
// kOver not linearizable => the prefix is not.
enum class Approximation { kUnder, kUnderRecorded, kOver };

struct Reduction {
  std::optional<Reduced> reduced;  // nullopt: decided already (see decision)
  PrefixDecision decision;
  bool pending_removal = false;
};

// `forced` (kUnderRecorded only): pending removals given a result other than the recorded one.
Reduction reduce(const ContainerOps& ops, std::int32_t cut, Approximation approximation,
                 std::pmr::memory_resource* memory, const std::vector<ForcedRemoval>* forced) {
  Reduction out;
  const auto n_values = static_cast<std::size_t>(ops.values);
  ScratchArray<std::int32_t> add_op(n_values, -1, memory), remove_op(n_values, -1, memory);
  ScratchArray<std::uint8_t> remove_count(n_values, 0, memory), observed(n_values, 0, memory);
  // Per value, the latest response (scaled) among the removals and peeks that returned it.
  ScratchArray<std::int64_t> observed_by(n_values, 0, memory);
  auto observe = [&](std::size_t v, const ContainerOp& op) {
    observed[v] = 1;
    const std::int64_t time = op.ret != kNoReturn && op.ret < cut ? scaled(op.ret) : scaled(cut);
    observed_by[v] = std::max(observed_by[v], time);
  };
  ScratchArray<std::pair<std::int32_t, std::int32_t>> peeks(memory);  // (value, op)
  ScratchArray<std::int32_t> empty_ops(memory), pending_removals(memory);
  // `evidence`: the scaled time by which the violation shows (see PrefixDecision::evidence).
  auto violation = [&](std::string why, std::int64_t evidence) {
    out.decision = {Decision::kViolation, std::move(why), event_at(evidence, cut)};
    return out;
  };
  for (std::size_t i = 0; i < ops.ops.size(); ++i) {
    const ContainerOp& op = ops.ops[i];
    if (op.call >= cut) continue;
    const bool completed = op.ret != kNoReturn && op.ret < cut;
    if (completed && op.failed) continue;
    const auto index = static_cast<std::int32_t>(i);
    switch (op.kind) {
      case ContainerOp::Kind::kAdd: {
        const auto v = static_cast<std::size_t>(op.value);
        if (add_op[v] >= 0) {
          out.decision = {Decision::kUnsupported, "values are not distinct: operations " +
                                                      std::to_string(add_op[v]) + " and " +
                                                      std::to_string(i) + " add the same value"};
          return out;
        }
        add_op[v] = index;
        break;
      }
      case ContainerOp::Kind::kRemove:
        if (!completed) {
          out.pending_removal = true;
          pending_removals.push_back(index);
        } else if (op.value == kEmptyValue) {
          empty_ops.push_back(index);
        } else {
          const auto v = static_cast<std::size_t>(op.value);
          if (remove_count[v] < 2) ++remove_count[v];
          remove_op[v] = index;
          observe(v, op);
        }
        break;
      case ContainerOp::Kind::kPeek:
        if (!completed) break;  // a pending peek may never take effect
        if (op.value == kEmptyValue) {
          empty_ops.push_back(index);
        } else {
          peeks.emplace_back(op.value, index);
          observe(static_cast<std::size_t>(op.value), op);
        }
        break;
    }
  }

  ScratchArray<std::uint8_t> removal_pending(n_values, 0, memory);
  if (approximation == Approximation::kUnderRecorded) {
    auto take = [&](std::int32_t index, std::int32_t value) {
      if (value < 0 || value >= ops.values) return;
      const auto v = static_cast<std::size_t>(value);
      if (add_op[v] < 0 || remove_count[v] != 0) return;
      remove_count[v] = 1;
      remove_op[v] = index;
      observe(v, ops.ops[static_cast<std::size_t>(index)]);
      removal_pending[v] = 1;
    };
    auto is_forced = [&](std::int32_t index) {
      return forced != nullptr &&
             std::any_of(forced->begin(), forced->end(),
                         [&](const ForcedRemoval& f) { return f.op == index; });
    };
    // Forced results first, so that a recorded one cannot take their value.
    if (forced != nullptr) {
      for (const ForcedRemoval& f : *forced) {
        if (f.op < 0 || static_cast<std::size_t>(f.op) >= ops.ops.size()) continue;
        const ContainerOp& op = ops.ops[static_cast<std::size_t>(f.op)];
        const bool pending = op.call < cut && (op.ret == kNoReturn || op.ret >= cut);
        if (op.kind == ContainerOp::Kind::kRemove && pending) take(f.op, f.value);
      }
    }
    for (std::int32_t index : pending_removals) {
      if (!is_forced(index)) take(index, ops.ops[static_cast<std::size_t>(index)].value);
    }
  }
  const std::int64_t end = scaled(cut) + 4;
  const std::int64_t infinity = end + 16;
  auto completed_in_cut = [&](const ContainerOp& op) {
    return op.ret != kNoReturn && op.ret < cut;
  };
  std::int64_t earliest_pending_removal = infinity;
  for (std::int32_t index : pending_removals) {
    earliest_pending_removal =
        std::min(earliest_pending_removal, scaled(ops.ops[static_cast<std::size_t>(index)].call));
  }
  ScratchArray<std::int32_t> new_id(n_values, -1, memory);
  Reduced r(memory);
  r.add.reserve(n_values);
  r.remove.reserve(n_values);
  r.peek_value.reserve(peeks.size());
  r.peek.reserve(peeks.size());
  r.empties.reserve(empty_ops.size());
  for (std::size_t v = 0; v < n_values; ++v) {
    if (add_op[v] < 0) {
      if (observed[v]) {
        return violation("operation " + std::to_string(remove_op[v] >= 0 ? remove_op[v] : -1) +
                             " returns a value that was never added",
                         observed_by[v]);
      }
      continue;
    }
    if (remove_count[v] > 1) return violation("a value is removed twice", observed_by[v]);
    const ContainerOp& add = ops.ops[static_cast<std::size_t>(add_op[v])];
    const bool add_completed = completed_in_cut(add);
    if (!add_completed && !observed[v]) continue;  // a pending add nobody saw: it may not happen
    new_id[v] = static_cast<std::int32_t>(r.add.size());
    r.add.push_back({scaled(add.call), add_completed ? scaled(add.ret) : infinity});
    if (remove_count[v] == 1) {
      const ContainerOp& rem = ops.ops[static_cast<std::size_t>(remove_op[v])];
      r.remove.push_back({scaled(rem.call), removal_pending[v] ? infinity : scaled(rem.ret)});
    } else if (approximation == Approximation::kOver && !pending_removals.empty()) {
      r.remove.push_back({earliest_pending_removal, infinity});
    } else {
      r.remove.push_back({end, end + 2});  // synthetic removals overlap one another
    }
  }
  for (auto [value, op] : peeks) {
    const std::int32_t id = new_id[static_cast<std::size_t>(value)];
    if (id < 0) continue;
    const ContainerOp& p = ops.ops[static_cast<std::size_t>(op)];
    r.peek_value.push_back(id);
    r.peek.push_back({scaled(p.call), scaled(p.ret)});
  }
  for (std::int32_t op : empty_ops) {
    const ContainerOp& p = ops.ops[static_cast<std::size_t>(op)];
    r.empties.push_back({scaled(p.call), scaled(p.ret)});
  }
  r.end = end;
  r.horizon = infinity;

  // Non-trivialisation: every linearization orders a value's add before its peeks and its peeks
  // before its removal, so each interval shrinks to where the op can take effect. A peek is
  // called after its value's add is and responds before the removal does (without this the
  // priority-queue sweep let a peek take effect before its value existed: `insert(5) ->
  // insert(3)` in sequence and a peek -> 3 overlapping both, called before insert(3) was, passed);
  // the add responds before anything else on its value does, the removal is called after
  // everything else on its value is.
  const std::size_t m = r.add.size();
  for (std::size_t k = 0; k < r.peek.size(); ++k) {
    const auto v = static_cast<std::size_t>(r.peek_value[k]);
    Interval& p = r.peek[k];
    if (p.inv <= r.add[v].inv) p.inv = r.add[v].inv + 1;
    if (p.res >= r.remove[v].res) p.res = r.remove[v].res - 1;
  }
  ScratchArray<std::int64_t> min_res(m, memory), max_inv(m, memory);
  for (std::size_t v = 0; v < m; ++v) {
    min_res[v] = r.remove[v].res;
    max_inv[v] = r.add[v].inv;
  }
  for (std::size_t k = 0; k < r.peek.size(); ++k) {
    const auto v = static_cast<std::size_t>(r.peek_value[k]);
    min_res[v] = std::min(min_res[v], r.peek[k].res);
    max_inv[v] = std::max(max_inv[v], r.peek[k].inv);
  }
  for (std::size_t v = 0; v < m; ++v) {
    if (min_res[v] < r.add[v].res) r.add[v].res = min_res[v] - 1;
    if (max_inv[v] > r.remove[v].inv) r.remove[v].inv = max_inv[v] + 1;
    if (r.add[v].inv >= r.add[v].res) {
      return violation("a value is observed before it is added",
                       std::max(r.add[v].inv, min_res[v]));
    }
    if (r.remove[v].inv >= r.remove[v].res) {
      return violation("a value is observed after it is removed",
                       std::max(max_inv[v], r.remove[v].res));
    }
  }
  for (const Interval& p : r.peek) {
    // Implied by the checks above (a peek's interval empties only if its add's or removal's
    // does), kept so that no monitor ever meets an empty interval.
    if (p.inv >= p.res) return violation("a value is observed outside its lifetime", p.inv);
  }
  out.reduced = std::move(r);
  return out;
}

// Event keys for sweeps: (time, calls after responses) in the high bits, the payload below.
// Payloads are op or value ids (< 2^31) times at most 4; times (8 per event) keep 31 bits, room
// for 2^27 events.
constexpr int kPayloadBits = 33;
std::uint64_t event_key(std::int64_t time, bool is_call, std::uint64_t payload) {
  return ((static_cast<std::uint64_t>(time) * 2 + (is_call ? 1 : 0)) << kPayloadBits) | payload;
}
constexpr std::uint64_t kPayloadMask = (std::uint64_t{1} << kPayloadBits) - 1;

// EmptyCheck (monitors.md §1.2, Alg. 1): every op that returned empty must overlap an instant at
// which no value is certainly present.
bool empty_ops_ok(const Reduced& r, std::pmr::memory_resource* memory, std::int64_t& evidence) {
  if (r.empties.empty()) return true;
  enum : std::uint64_t { kAddRes = 0, kRemoveInv = 1, kEmptyInv = 2, kEmptyRes = 3 };
  ScratchArray<std::uint64_t> keys(memory), scratch(memory);
  keys.reserve(2 * r.add.size() + 2 * r.empties.size());
  for (std::size_t v = 0; v < r.add.size(); ++v) {
    keys.push_back(event_key(r.add[v].res, false, (v << 2) | kAddRes));
    keys.push_back(event_key(r.remove[v].inv, true, (v << 2) | kRemoveInv));
  }
  for (std::size_t e = 0; e < r.empties.size(); ++e) {
    keys.push_back(event_key(r.empties[e].inv, true, (e << 2) | kEmptyInv));
    keys.push_back(event_key(r.empties[e].res, false, (e << 2) | kEmptyRes));
  }
  radix_sort_keys(keys, scratch);
  ScratchArray<std::uint8_t> present(r.add.size(), 0, memory), closed(r.add.size(), 0, memory);
  ScratchArray<std::uint64_t> waiting_since(r.empties.size(), 0, memory);
  std::size_t present_count = 0;
  std::uint64_t epoch = 1;  // waiting ops whose epoch is current have not met an empty instant
  for (std::uint64_t key : keys) {
    const std::uint64_t payload = key & kPayloadMask;
    const std::size_t index = payload >> 2;
    switch (payload & 3) {
      case kAddRes:
        if (!closed[index]) {
          present[index] = 1;
          ++present_count;
        }
        break;
      case kRemoveInv:
        if (present[index]) {
          present[index] = 0;
          --present_count;
        }
        closed[index] = 1;
        break;
      case kEmptyInv:
        waiting_since[index] = epoch;
        break;
      case kEmptyRes:
        if (waiting_since[index] == epoch) {
          evidence = r.empties[index].res;
          return false;
        }
        break;
    }
    if (present_count == 0) ++epoch;
  }
  return true;
}

// Stack: peel bottom values (monitors.md §1.4, the O(n log n) version of App. A). A value's push
// and pop spans never meet its own critical window, so a gap at count 1 can only finish peeks of
// its sole critical value; only gaps at count 0 finish pushes and pops.
bool stack_linearizable(const Reduced& r, std::pmr::memory_resource* memory,
                        std::int64_t& evidence) {
  const std::size_t m = r.add.size();
  if (m == 0) return true;
  TimeRanks ranks(r.horizon, memory);
  for (std::size_t v = 0; v < m; ++v) {
    for (std::int64_t t : {r.add[v].inv, r.add[v].res, r.remove[v].inv, r.remove[v].res}) {
      ranks.insert(t);
    }
  }
  for (const Interval& p : r.peek) {
    ranks.insert(p.inv);
    ranks.insert(p.res);
  }
  ranks.freeze();
  const std::size_t gaps = ranks.gaps();
  const std::size_t peeks = r.peek.size();
  // Ops: 2v is v's push, 2v + 1 its pop, 2m + k peek k; live in gaps [lo, hi].
  const std::size_t n_ops = 2 * m + peeks;
  ScratchArray<std::int32_t> op_lo(n_ops, memory), op_hi(n_ops, memory);
  auto set_op = [&](std::size_t k, const Interval& i) {
    op_lo[k] = ranks.rank(i.inv);
    op_hi[k] = ranks.rank(i.res) - 1;
  };
  for (std::size_t v = 0; v < m; ++v) {
    set_op(2 * v, r.add[v]);
    set_op(2 * v + 1, r.remove[v]);
  }
  for (std::size_t k = 0; k < peeks; ++k) set_op(2 * m + k, r.peek[k]);
  ScratchArray<std::int32_t> remaining(m, 2, memory);
  ScratchArray<std::uint8_t> done(n_ops, 0, memory);  // op k placed
  for (std::int32_t v : r.peek_value) ++remaining[static_cast<std::size_t>(v)];

  // All ops by lo (a stable counting sort); then ops_within[g] counts the ops with lo <= g, which
  // are all_ops positions [0, ops_within[g]).
  ScratchArray<std::int32_t> ops_within(ranks.size() + 1, 0, memory);
  ScratchArray<std::int32_t> by_lo(n_ops, memory);
  for (std::int32_t lo : op_lo) ++ops_within[static_cast<std::size_t>(lo) + 1];
  for (std::size_t g = 1; g < ops_within.size(); ++g) ops_within[g] += ops_within[g - 1];
  for (std::size_t k = 0; k < n_ops; ++k) {
    const auto lo = static_cast<std::size_t>(op_lo[k]);
    by_lo[static_cast<std::size_t>(ops_within[lo]++)] = static_cast<std::int32_t>(k);
  }
  ScratchArray<std::int32_t> peek_all_position(peeks, memory);
  std::optional<StabIndex> all_ops_index;
  {
    ScratchArray<std::int32_t> lo_in_order(n_ops, memory), hi_in_order(n_ops, memory);
    for (std::size_t p = 0; p < n_ops; ++p) {
      const auto k = static_cast<std::size_t>(by_lo[p]);
      if (k >= 2 * m) peek_all_position[k - 2 * m] = static_cast<std::int32_t>(p);
      lo_in_order[p] = op_lo[k];
      hi_in_order[p] = op_hi[k];
    }
    all_ops_index.emplace(std::move(lo_in_order), hi_in_order);
  }
  StabIndex& all_ops = *all_ops_index;
  // The peeks grouped by value (blocks), each block by lo.
  ScratchArray<std::int32_t> peek_order(peeks, memory), block_begin(m + 1, 0, memory);
  for (std::size_t k = 0; k < peeks; ++k) peek_order[k] = static_cast<std::int32_t>(k);
  std::sort(peek_order.begin(), peek_order.end(), [&](std::int32_t a, std::int32_t b) {
    const auto ia = static_cast<std::size_t>(a), ib = static_cast<std::size_t>(b);
    return r.peek_value[ia] != r.peek_value[ib] ? r.peek_value[ia] < r.peek_value[ib]
                                                : op_lo[2 * m + ia] < op_lo[2 * m + ib];
  });
  for (std::int32_t v : r.peek_value) ++block_begin[static_cast<std::size_t>(v) + 1];
  for (std::size_t v = 0; v < m; ++v) block_begin[v + 1] += block_begin[v];
  ScratchArray<std::int32_t> peek_position(peeks, memory);
  std::optional<StabIndex> peek_index;
  {
    ScratchArray<std::int32_t> lo_in_order(peeks, memory), hi_in_order(peeks, memory);
    for (std::size_t p = 0; p < peeks; ++p) {
      const auto k = static_cast<std::size_t>(peek_order[p]);
      peek_position[k] = static_cast<std::int32_t>(p);
      lo_in_order[p] = op_lo[2 * m + k];
      hi_in_order[p] = op_hi[2 * m + k];
    }
    peek_index.emplace(std::move(lo_in_order), hi_in_order);
  }
  StabIndex& peek_ops = *peek_index;
  op_lo = ScratchArray<std::int32_t>(memory);
  op_hi = ScratchArray<std::int32_t>(memory);

  // Count of the critical windows CI_v = [res(push_v), inv(pop_v)] of alive values over each
  // gap; with peeks, also the sum of their value ids (the sole value's id at count 1). Counts only
  // fall, so a gap is worth visiting when it reaches 1 (finish the sole value's peeks there) and
  // when it reaches 0 (finish every live op there): the work list holds those visits.
  // A visit covers a run of adjacent gaps [first, last] of the same kind (one stab for the run).
  struct Visit {
    std::int32_t first, last;
    std::int32_t sole_value;  // -1: the gaps are at count 0
  };
  ScratchArray<Visit> work(memory);
  auto plan_visit = [&](std::size_t gap, std::int32_t sole_value) {
    const auto g = static_cast<std::int32_t>(gap);
    if (!work.empty() && work.back().last + 1 == g && work.back().sole_value == sole_value) {
      work.back().last = g;
    } else {
      work.push_back({g, g, sole_value});
    }
  };
  ScratchArray<std::int32_t> ci_lo(m, memory), ci_hi(m, memory);
  std::optional<LowCountTree> count_index;
  std::optional<RangeAddPoint> id_sum;
  {
    ScratchArray<std::int32_t> count_at(gaps + 1, 0, memory);
    ScratchArray<std::uint32_t> id_sum_at(peeks > 0 ? gaps + 1 : 0, 0, memory);
    for (std::size_t v = 0; v < m; ++v) {
      ci_lo[v] = ranks.rank(r.add[v].res);
      ci_hi[v] = ranks.rank(r.remove[v].inv) - 1;
      if (ci_lo[v] > ci_hi[v]) continue;
      ++count_at[static_cast<std::size_t>(ci_lo[v])];
      --count_at[static_cast<std::size_t>(ci_hi[v]) + 1];
      if (peeks > 0) {
        id_sum_at[static_cast<std::size_t>(ci_lo[v])] += static_cast<std::uint32_t>(v);
        id_sum_at[static_cast<std::size_t>(ci_hi[v]) + 1] -= static_cast<std::uint32_t>(v);
      }
    }
    for (std::size_t g = 0; g < gaps; ++g) {
      if (g > 0) {
        count_at[g] += count_at[g - 1];
        if (peeks > 0) id_sum_at[g] += id_sum_at[g - 1];
      }
      if (count_at[g] == 0) {
        plan_visit(g, -1);
      } else if (count_at[g] == 1 && peeks > 0) {
        plan_visit(g, static_cast<std::int32_t>(id_sum_at[g]));
      }
    }
    count_at.resize(gaps);
    count_index.emplace(count_at);
    if (peeks > 0) {
      id_sum_at.resize(gaps);
      id_sum.emplace(id_sum_at);
    }
  }
  LowCountTree& counts = *count_index;

  std::size_t alive = m;
  auto complete_op_of = [&](std::size_t v) {
    if (--remaining[v] != 0) return;
    --alive;
    if (ci_lo[v] > ci_hi[v]) return;
    const auto lo = static_cast<std::size_t>(ci_lo[v]), hi = static_cast<std::size_t>(ci_hi[v]);
    if (id_sum) id_sum->add(lo, hi, std::uint32_t{0} - static_cast<std::uint32_t>(v));
    counts.add(lo, hi, -1, peeks > 0 ? 1 : 0, [&](std::size_t g, std::int32_t count) {
      plan_visit(g, count == 0 ? -1 : static_cast<std::int32_t>(id_sum->at(g)));
    });
  };
  while (alive > 0 && !work.empty()) {
    const Visit visit = work.back();
    work.pop_back();
    if (visit.sole_value < 0) {
      const auto low = static_cast<std::size_t>(ops_within[static_cast<std::size_t>(visit.last)]);
      all_ops.stab_low(0, low, visit.first, [&](std::size_t p) {
        all_ops.deactivate(p);
        const auto k = static_cast<std::size_t>(by_lo[p]);
        done[k] = 1;
        if (k < 2 * m) {
          complete_op_of(k / 2);
        } else {
          peek_ops.deactivate(static_cast<std::size_t>(peek_position[k - 2 * m]));
          complete_op_of(static_cast<std::size_t>(r.peek_value[k - 2 * m]));
        }
      });
    } else {
      const auto u = static_cast<std::size_t>(visit.sole_value);
      peek_ops.stab(static_cast<std::size_t>(block_begin[u]),
                    static_cast<std::size_t>(block_begin[u + 1]), visit.first, visit.last,
                    [&](std::size_t p) {
                      peek_ops.deactivate(p);
                      const auto k = static_cast<std::size_t>(peek_order[p]);
                      done[2 * m + k] = 1;
                      all_ops.deactivate(static_cast<std::size_t>(peek_all_position[k]));
                      complete_op_of(u);
                    });
    }
  }
  if (alive == 0) return true;
  // Stuck: the earliest response of a pop or peek left unplaced usually shows the violation.
  for (std::size_t v = 0; v < m; ++v) {
    if (!done[2 * v + 1] && r.remove[v].res < r.end) {
      evidence = std::min(evidence, r.remove[v].res);
    }
  }
  for (std::size_t k = 0; k < peeks; ++k) {
    if (!done[2 * m + k]) evidence = std::min(evidence, r.peek[k].res);
  }
  return false;
}

// Walks an order of values (by some key, descending) and keeps the two largest alive ones.
class TopTwo {
 public:
  TopTwo(ScratchArray<std::int32_t> order, const ScratchArray<std::uint8_t>& alive)
      : order_(std::move(order)), alive_(alive) {}
  // (first, second): positions in order_, second may be order_.size().
  void refresh() {
    while (first_ < order_.size() && !alive_[static_cast<std::size_t>(order_[first_])]) ++first_;
    second_ = std::max(second_, first_ + 1);
    while (second_ < order_.size() && !alive_[static_cast<std::size_t>(order_[second_])]) ++second_;
  }
  std::int32_t first_value() const { return first_ < order_.size() ? order_[first_] : -1; }
  std::int32_t second_value() const { return second_ < order_.size() ? order_[second_] : -1; }

 private:
  ScratchArray<std::int32_t> order_;
  const ScratchArray<std::uint8_t>& alive_;
  std::size_t first_ = 0;
  std::size_t second_ = 0;
};

ScratchArray<std::int32_t> descending_by(const ScratchArray<std::int64_t>& key) {
  ScratchArray<std::int32_t> order(key.size(), key.get_allocator());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::int32_t>(i);
  std::sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
    return key[static_cast<std::size_t>(a)] > key[static_cast<std::size_t>(b)];
  });
  return order;
}

// Queue: peel the values that may have been enqueued last (monitors.md §1.5, incremental).
bool queue_linearizable(const Reduced& r, std::pmr::memory_resource* memory,
                        std::int64_t& evidence) {
  const std::size_t m = r.add.size();
  ScratchArray<std::int64_t> enq_inv(m, memory), enq_res(m, memory), min_observer_res(m, memory),
      max_inv(m, memory);
  for (std::size_t v = 0; v < m; ++v) {
    enq_inv[v] = r.add[v].inv;
    enq_res[v] = r.add[v].res;
    min_observer_res[v] = r.remove[v].res;
    max_inv[v] = r.remove[v].inv;  // after non-trivialisation, the latest call on v
  }
  for (std::size_t k = 0; k < r.peek.size(); ++k) {
    const auto v = static_cast<std::size_t>(r.peek_value[k]);
    min_observer_res[v] = std::min(min_observer_res[v], r.peek[k].res);
  }
  ScratchArray<std::uint8_t> alive(m, 1, memory), enq_ok(m, 0, memory), observers_ok(m, 0, memory);
  TopTwo latest_enq_call(descending_by(enq_inv), alive);
  TopTwo latest_call(descending_by(max_inv), alive);
  const ScratchArray<std::int32_t> by_enq_res = descending_by(enq_res);
  const ScratchArray<std::int32_t> by_observer_res = descending_by(min_observer_res);
  std::size_t scan_enq = 0, scan_observer = 0;
  ScratchArray<std::int32_t> ready(memory);
  std::size_t remaining = m;
  // Threshold "max over the other alive values" of `key`.
  auto others_max = [](const TopTwo& top, const ScratchArray<std::int64_t>& key, std::int32_t v) {
    const std::int32_t holder = top.first_value() == v ? top.second_value() : top.first_value();
    return holder < 0 ? std::numeric_limits<std::int64_t>::min()
                      : key[static_cast<std::size_t>(holder)];
  };
  auto qualify = [&](std::int32_t v, ScratchArray<std::uint8_t>& flag,
                     const ScratchArray<std::uint8_t>& other_flag) {
    flag[static_cast<std::size_t>(v)] = 1;
    if (other_flag[static_cast<std::size_t>(v)]) ready.push_back(v);
  };
  // Advances one criterion: values by `key` descending pass while key > max over the others.
  auto sweep = [&](const ScratchArray<std::int32_t>& order, std::size_t& scan,
                   const ScratchArray<std::int64_t>& key, const TopTwo& top,
                   const ScratchArray<std::int64_t>& threshold_key,
                   ScratchArray<std::uint8_t>& flag, const ScratchArray<std::uint8_t>& other_flag) {
    const std::int32_t holder = top.first_value();
    if (holder >= 0 && !flag[static_cast<std::size_t>(holder)] &&
        key[static_cast<std::size_t>(holder)] > others_max(top, threshold_key, holder)) {
      qualify(holder, flag, other_flag);
    }
    while (scan < order.size()) {
      const std::int32_t v = order[scan];
      const auto vi = static_cast<std::size_t>(v);
      if (!alive[vi] || flag[vi]) {
        ++scan;
        continue;
      }
      if (key[vi] <= others_max(top, threshold_key, v)) break;
      qualify(v, flag, other_flag);
      ++scan;
    }
  };
  while (remaining > 0) {
    latest_enq_call.refresh();
    latest_call.refresh();
    sweep(by_enq_res, scan_enq, enq_res, latest_enq_call, enq_inv, enq_ok, observers_ok);
    sweep(by_observer_res, scan_observer, min_observer_res, latest_call, max_inv, observers_ok,
          enq_ok);
    if (ready.empty()) {
      // Stuck: the earliest response of a dequeue or peek of a value left usually shows it.
      for (std::size_t v = 0; v < m; ++v) {
        if (alive[v] && min_observer_res[v] < r.end) {
          evidence = std::min(evidence, min_observer_res[v]);
        }
      }
      return false;
    }
    for (std::int32_t v : ready) {
      alive[static_cast<std::size_t>(v)] = 0;
      --remaining;
    }
    ready.clear();
  }
  return true;
}

// Priority queue: one sweep (monitors.md §1.6). Value ids are in priority order.
bool priority_queue_linearizable(const Reduced& r, std::pmr::memory_resource* memory,
                                 std::int64_t& evidence) {
  const std::size_t m = r.add.size();
  // Ops: 0..m-1 adds, m..2m-1 polls, then peeks.
  const std::size_t n_ops = 2 * m + r.peek.size();
  auto value_of = [&](std::size_t k) -> std::size_t {
    return k < 2 * m ? k % m : static_cast<std::size_t>(r.peek_value[k - 2 * m]);
  };
  auto interval_of = [&](std::size_t k) -> const Interval& {
    return k < m ? r.add[k] : k < 2 * m ? r.remove[k - m] : r.peek[k - 2 * m];
  };
  ScratchArray<std::uint64_t> keys(memory), scratch(memory);
  keys.reserve(2 * n_ops);
  for (std::size_t k = 0; k < n_ops; ++k) {
    keys.push_back(event_key(interval_of(k).inv, true, k));
    keys.push_back(event_key(interval_of(k).res, false, k));
  }
  radix_sort_keys(keys, scratch);
  ScratchArray<std::uint8_t> crit(m, 0, memory), ended(m, 0, memory), running(m, 0, memory);
  std::priority_queue<std::int32_t, ScratchArray<std::int32_t>> crit_heap{
      std::less<std::int32_t>(), ScratchArray<std::int32_t>(memory)};  // lazily deleted
  std::size_t crit_count = 0;
  ScratchArray<std::int32_t> running_heap(memory);  // max-heap of values with unplaced ops
  // Bumped when a value's unplaced ops get placed.
  ScratchArray<std::uint32_t> generation(m, 0, memory);
  ScratchArray<std::uint32_t> op_generation(n_ops, 0, memory);
  std::uint64_t clear_epoch = 0;
  ScratchArray<std::uint64_t> op_epoch(n_ops, 0, memory);
  for (std::uint64_t key : keys) {
    const bool is_call = (key >> kPayloadBits) & 1;
    const std::size_t k = key & kPayloadMask;
    const std::size_t v = value_of(k);
    const bool is_add = k < m;
    const bool is_poll = k >= m && k < 2 * m;
    if (is_call) {
      if (!is_add) {
        op_generation[k] = generation[v];
        op_epoch[k] = clear_epoch;
        if (!running[v]) {
          running[v] = 1;
          running_heap.push_back(static_cast<std::int32_t>(v));
          std::push_heap(running_heap.begin(), running_heap.end());
        }
      }
      if (is_poll) {
        if (crit[v]) {
          crit[v] = 0;
          --crit_count;
        }
        ended[v] = 1;
      }
    } else {
      if (!is_add && op_generation[k] == generation[v] && op_epoch[k] == clear_epoch) {
        evidence = static_cast<std::int64_t>(key >> (kPayloadBits + 1));
        return false;  // finished without a moment at which its value was the largest
      }
      if (is_add && !ended[v]) {
        crit[v] = 1;
        ++crit_count;
        crit_heap.push(static_cast<std::int32_t>(v));
      }
    }
    if (crit_count == 0) {
      for (std::int32_t u : running_heap) {
        running[static_cast<std::size_t>(u)] = 0;
        ++generation[static_cast<std::size_t>(u)];
      }
      running_heap.clear();
      ++clear_epoch;
    } else {
      while (!crit[static_cast<std::size_t>(crit_heap.top())]) crit_heap.pop();
      const std::int32_t max_crit = crit_heap.top();
      while (!running_heap.empty() && running_heap.front() >= max_crit) {
        const auto u = static_cast<std::size_t>(running_heap.front());
        std::pop_heap(running_heap.begin(), running_heap.end());
        running_heap.pop_back();
        running[u] = 0;
        ++generation[u];
      }
    }
  }
  return true;
}

// `evidence` (on a violation): the scaled time by which it shows, or r.horizon when unknown.
bool linearizable(ContainerKind kind, const Reduced& r, std::pmr::memory_resource* memory,
                  std::int64_t& evidence) {
  evidence = r.horizon;
  if (!empty_ops_ok(r, memory, evidence)) return false;
  switch (kind) {
    case ContainerKind::kStack:
      return stack_linearizable(r, memory, evidence);
    case ContainerKind::kQueue:
      return queue_linearizable(r, memory, evidence);
    case ContainerKind::kPriorityQueue:
      return priority_queue_linearizable(r, memory, evidence);
  }
  return false;
}

Decision decide(const ContainerOps& ops, std::int32_t cut, Approximation approximation,
                std::pmr::memory_resource* memory, Reduction& reduction,
                const std::vector<ForcedRemoval>* forced = nullptr) {
  reduction = reduce(ops, cut, approximation, memory, forced);
  if (!reduction.reduced) return reduction.decision.decision;
  std::int64_t evidence = 0;
  if (linearizable(ops.kind, *reduction.reduced, memory, evidence)) {
    reduction.decision = {Decision::kLinearizable, ""};
    return Decision::kLinearizable;
  }
  reduction.decision = {Decision::kViolation, "",
                        evidence < reduction.reduced->horizon ? event_at(evidence, cut) : -1};
  return Decision::kViolation;
}

}  // namespace

std::variant<ContainerOps, std::string> compile_container_ops(ContainerKind kind,
                                                              const history::History& history) {
  const MethodKinds& names = methods_of(kind);
  ContainerOps out;
  out.kind = kind;
  out.events = static_cast<std::int32_t>(history.events().size());
  out.ops.resize(history.size());
  ValueIds ids;
  std::vector<std::size_t> noted_ops;
  // Histories use a handful of method names: remember the last one's kind.
  const std::string* last_method = nullptr;
  std::optional<ContainerOp::Kind> last_kind;
  for (std::size_t i = 0; i < history.size(); ++i) {
    const history::Operation& op = history.operations()[i];
    ContainerOp& c = out.ops[i];
    c.call = op.call_event;
    c.ret = op.return_event == history::kNoEvent ? kNoReturn : op.return_event;
    c.failed = op.outcome == history::Outcome::kFail;
    const std::string& method = op.call.method;
    auto where = [&] {
      return "operation " + std::to_string(i) + " (" + op.call.to_string() + "): ";
    };
    if (last_method == nullptr || *last_method != method) {
      last_method = &method;
      last_kind = among(names.add, method)      ? ContainerOp::Kind::kAdd
                  : among(names.remove, method) ? ContainerOp::Kind::kRemove
                  : among(names.peek, method)   ? std::optional(ContainerOp::Kind::kPeek)
                                                : std::nullopt;
    }
    if (!last_kind) return std::string(kind_name(kind)) + " has no method '" + method + "'";
    c.kind = *last_kind;
    if (c.kind == ContainerOp::Kind::kAdd) {
      if (op.call.args.size() != 1 || op.call.args[0].is_nil()) {
        return where() + "expected one non-nil argument";
      }
      if (kind == ContainerKind::kPriorityQueue && !op.call.args[0].is_int()) {
        return where() + "priority-queue values must be integers";
      }
      ids.note(&op.call.args[0]);
      noted_ops.push_back(i);
      continue;
    }
    if (!op.call.args.empty()) return where() + "expected no arguments";
    if (op.outcome == history::Outcome::kOk && !op.result.is_nil()) {
      if (kind == ContainerKind::kPriorityQueue && !op.result.is_int()) {
        return where() + "priority-queue values must be integers";
      }
      ids.note(&op.result);
      noted_ops.push_back(i);
    }
  }
  const std::vector<std::int32_t> assigned = ids.assign(out.values);
  for (std::size_t k = 0; k < noted_ops.size(); ++k) out.ops[noted_ops[k]].value = assigned[k];
  return out;
}

PrefixDecision decide_container_prefix(const ContainerOps& ops, std::int32_t cut,
                                       ScratchMemory& scratch) {
  Reduction under;
  const Decision u = decide(ops, cut, Approximation::kUnder, &scratch, under);
  if (u == Decision::kUnsupported) return under.decision;
  if (u == Decision::kLinearizable || !under.pending_removal) return under.decision;
  Reduction recorded;
  if (decide(ops, cut, Approximation::kUnderRecorded, &scratch, recorded) ==
      Decision::kLinearizable) {
    return {Decision::kLinearizable, ""};
  }
  Reduction over;
  if (decide(ops, cut, Approximation::kOver, &scratch, over) == Decision::kViolation) {
    return over.decision;
  }
  return {Decision::kUncertain, "a pending removal may explain the history",
          under.decision.evidence};
}

PrefixDecision decide_completion(const ContainerOps& ops, std::int32_t cut,
                                 const std::vector<ForcedRemoval>& forced, ScratchMemory& scratch) {
  Reduction reduction;
  decide(ops, cut, Approximation::kUnderRecorded, &scratch, reduction, &forced);
  return reduction.decision;
}

PrefixDecision empties_outnumbered(const ContainerOps& ops, std::int32_t cut) {
  auto completed = [&](const ContainerOp& op) {
    return op.call < cut && op.ret != kNoReturn && op.ret < cut;
  };
  std::vector<std::uint8_t> removed(static_cast<std::size_t>(ops.values), 0);
  std::vector<std::int32_t> pending_calls;
  bool any_empty = false;
  for (const ContainerOp& op : ops.ops) {
    if (op.kind != ContainerOp::Kind::kRemove || op.call >= cut) continue;
    if (!completed(op)) {
      pending_calls.push_back(op.call);
    } else if (!op.failed && op.value != kEmptyValue) {
      removed[static_cast<std::size_t>(op.value)] = 1;
    } else if (!op.failed) {
      any_empty = true;
    }
  }
  std::vector<std::int32_t> present_from;  // response of each unremoved value's completed add
  for (const ContainerOp& op : ops.ops) {
    if (op.kind == ContainerOp::Kind::kPeek && completed(op) && !op.failed &&
        op.value == kEmptyValue) {
      any_empty = true;
    }
    if (op.kind == ContainerOp::Kind::kAdd && completed(op) && !op.failed &&
        !removed[static_cast<std::size_t>(op.value)]) {
      present_from.push_back(op.ret);
    }
  }
  if (!any_empty) return {Decision::kUncertain, ""};
  std::sort(pending_calls.begin(), pending_calls.end());
  std::sort(present_from.begin(), present_from.end());
  std::int32_t evidence = -1;
  for (const ContainerOp& op : ops.ops) {
    if (op.kind == ContainerOp::Kind::kAdd || !completed(op) || op.failed ||
        op.value != kEmptyValue) {
      continue;
    }
    const auto present =
        std::lower_bound(present_from.begin(), present_from.end(), op.call) - present_from.begin();
    const auto removers = std::lower_bound(pending_calls.begin(), pending_calls.end(), op.ret) -
                          pending_calls.begin();
    if (present > removers && (evidence < 0 || op.ret < evidence)) evidence = op.ret;
  }
  if (evidence < 0) return {Decision::kUncertain, ""};
  return {Decision::kViolation, "a value is certainly present while an operation returns empty",
          evidence};
}

ContainerValueIndex index_container_values(const ContainerOps& ops) {
  ContainerValueIndex index;
  index.begin.assign(static_cast<std::size_t>(ops.values) + 1, 0);
  for (const ContainerOp& op : ops.ops) {
    if (op.value != kEmptyValue) ++index.begin[static_cast<std::size_t>(op.value) + 1];
  }
  for (std::size_t v = 1; v < index.begin.size(); ++v) index.begin[v] += index.begin[v - 1];
  index.ops.resize(static_cast<std::size_t>(index.begin.back()));
  std::vector<std::int32_t> fill(index.begin.begin(), index.begin.end() - 1);
  for (std::size_t i = 0; i < ops.ops.size(); ++i) {
    const ContainerOp& op = ops.ops[i];
    if (op.kind == ContainerOp::Kind::kRemove)
      index.removals.push_back(static_cast<std::int32_t>(i));
    if (op.value == kEmptyValue) continue;
    index.ops[static_cast<std::size_t>(fill[static_cast<std::size_t>(op.value)]++)] =
        static_cast<std::int32_t>(i);
  }
  std::stable_sort(index.removals.begin(), index.removals.end(),
                   [&](std::int32_t a, std::int32_t b) {
                     return ops.ops[static_cast<std::size_t>(a)].call <
                            ops.ops[static_cast<std::size_t>(b)].call;
                   });
  index.latest_return.reserve(index.removals.size());
  std::int32_t latest = -1;
  for (std::int32_t i : index.removals) {
    const ContainerOp& op = ops.ops[static_cast<std::size_t>(i)];
    latest =
        std::max(latest, op.ret == kNoReturn ? std::numeric_limits<std::int32_t>::max() : op.ret);
    index.latest_return.push_back(latest);
  }
  return index;
}

std::vector<std::int32_t> values_near(const ContainerOps& ops, const ContainerValueIndex& index,
                                      std::int32_t op, std::size_t count) {
  const ContainerOp& center = ops.ops[static_cast<std::size_t>(op)];
  const std::int64_t center_ret = center.ret == kNoReturn ? ops.events : center.ret;
  // Events between two intervals (0 when they overlap); a pending op lasts to the end.
  auto distance = [&](const ContainerOp& other) {
    const std::int64_t ret = other.ret == kNoReturn ? ops.events : other.ret;
    return std::max<std::int64_t>({0, other.call - center_ret, center.call - ret});
  };
  // Ranked by (tier, key): op's own value, then the values certainly present during all of op
  // (added before its call, not removed before its response: what op should have seen), the
  // one nearest the front first (for a stack the latest pushed, for a queue the earliest
  // enqueued, for a priority queue the largest), then the others by distance.
  struct Rank {
    int tier;
    std::int64_t key;
    std::int32_t value;
    bool operator<(const Rank& o) const {
      return tier != o.tier ? tier < o.tier : key != o.key ? key < o.key : value < o.value;
    }
  };
  std::vector<Rank> ranked;
  ranked.reserve(static_cast<std::size_t>(ops.values));
  for (std::int32_t v = 0; v < ops.values; ++v) {
    const auto first = static_cast<std::size_t>(index.begin[static_cast<std::size_t>(v)]);
    const auto last = static_cast<std::size_t>(index.begin[static_cast<std::size_t>(v) + 1]);
    std::int64_t nearest = std::numeric_limits<std::int64_t>::max();
    const ContainerOp* add = nullptr;
    bool removed_before_end = false;  // by a removal called before op responds
    for (std::size_t k = first; k < last; ++k) {
      const ContainerOp& other = ops.ops[static_cast<std::size_t>(index.ops[k])];
      nearest = std::min(nearest, distance(other));
      if (other.kind == ContainerOp::Kind::kAdd) add = &other;
      if (other.kind == ContainerOp::Kind::kRemove && other.call < center_ret) {
        removed_before_end = true;
      }
    }
    Rank rank{2, nearest, v};
    if (v == center.value) {
      rank = {0, 0, v};
    } else if (add != nullptr && add->ret != kNoReturn && add->ret < center.call &&
               !removed_before_end) {
      rank.tier = 1;
      rank.key = ops.kind == ContainerKind::kStack   ? -std::int64_t{add->ret}
                 : ops.kind == ContainerKind::kQueue ? std::int64_t{add->call}
                                                     : -std::int64_t{v};
    }
    ranked.push_back(rank);
  }
  count = std::min(count, ranked.size());
  std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(count),
                    ranked.end());
  std::vector<std::int32_t> values;
  for (std::size_t k = 0; k < count; ++k) values.push_back(ranked[k].value);
  std::sort(values.begin(), values.end());
  return values;
}

RestrictedDecision decide_restricted_prefix(const ContainerOps& ops,
                                            const ContainerValueIndex& index,
                                            const std::vector<std::int32_t>& values,
                                            const std::vector<std::int32_t>& extra_ops,
                                            std::int32_t cut, ScratchMemory& scratch) {
  RestrictedDecision out;
  if (values.size() > kMaxRestrictedValues) return out;
  auto pending_at_cut = [&](const ContainerOp& op) {
    return op.call < cut && (op.ret == kNoReturn || op.ret >= cut);
  };
  // The restriction, with value ids renumbered in the same order (priorities stay ordered) and
  // origin[k] the op of `ops` behind its op k.
  ContainerOps restricted;
  restricted.kind = ops.kind;
  restricted.values = static_cast<std::int32_t>(values.size());
  restricted.events = ops.events;
  std::vector<std::int32_t> origin;
  auto keep = [&](std::int32_t i, std::int32_t value) {
    ContainerOp op = ops.ops[static_cast<std::size_t>(i)];
    op.value = value;
    restricted.ops.push_back(op);
    origin.push_back(i);
  };
  for (std::size_t id = 0; id < values.size(); ++id) {
    const auto v = static_cast<std::size_t>(values[id]);
    for (auto k = static_cast<std::size_t>(index.begin[v]);
         k < static_cast<std::size_t>(index.begin[v + 1]); ++k) {
      const std::int32_t i = index.ops[k];
      if (ops.ops[static_cast<std::size_t>(i)].call < cut) keep(i, static_cast<std::int32_t>(id));
    }
  }
  for (std::int32_t i : extra_ops) {
    const ContainerOp& op = ops.ops[static_cast<std::size_t>(i)];
    if (op.value == kEmptyValue && op.kind != ContainerOp::Kind::kAdd && op.ret != kNoReturn &&
        op.ret < cut) {
      keep(i, kEmptyValue);
    }
  }
  // The earliest-called pending removals, one per value: a pending removal of one of `values` is
  // in the restriction already; one of another value (or none yet) joins it.
  std::vector<std::int32_t> chosen;  // ops of `restricted`
  // Whether a chosen removal recorded a value outside `values`: in the whole prefix its natural
  // completion, so none is tried first for it.
  std::vector<std::uint8_t> took_other;
  std::vector<ForcedRemoval> forced;
  // Removals before the first one whose response is at or beyond the cut are all completed.
  const auto first_pending = static_cast<std::size_t>(
      std::lower_bound(index.latest_return.begin(), index.latest_return.end(), cut) -
      index.latest_return.begin());
  for (std::size_t r = first_pending; r < index.removals.size(); ++r) {
    const std::int32_t i = index.removals[r];
    const ContainerOp& op = ops.ops[static_cast<std::size_t>(i)];
    if (op.call >= cut || chosen.size() == values.size()) break;
    if (!pending_at_cut(op)) continue;
    const auto at = std::find(origin.begin(), origin.end(), i);
    if (at != origin.end()) {
      chosen.push_back(static_cast<std::int32_t>(at - origin.begin()));
      took_other.push_back(0);
    } else {
      keep(i, kEmptyValue);
      restricted.ops.back().ret = kNoReturn;
      chosen.push_back(static_cast<std::int32_t>(restricted.ops.size() - 1));
      took_other.push_back(op.value != kEmptyValue ? 1 : 0);
    }
  }
  // Every other pending removal of the restriction takes no effect.
  for (std::size_t k = 0; k < restricted.ops.size(); ++k) {
    const ContainerOp& op = restricted.ops[k];
    const auto index_k = static_cast<std::int32_t>(k);
    if (op.kind == ContainerOp::Kind::kRemove && pending_at_cut(op) &&
        std::find(chosen.begin(), chosen.end(), index_k) == chosen.end()) {
      forced.push_back({index_k, kEmptyValue});
    }
  }
  const std::size_t fixed = forced.size();
  for (std::int32_t k : chosen) forced.push_back({k, kEmptyValue});
  // Depth-first over the chosen removals: the value recorded first, then the others not yet
  // taken, then none (none first for one that recorded a value outside `values`). Any order is
  // exact; this one makes the first linearizable completion the likeliest to work on the whole
  // prefix too, where pending removals did take the values they recorded.
  std::vector<std::uint8_t> taken(values.size(), 0);
  bool found = false;
  const std::function<void(std::size_t)> assign = [&](std::size_t depth) {
    if (found) return;
    if (depth == chosen.size()) {
      Reduction reduction;
      if (decide(restricted, cut, Approximation::kUnderRecorded, &scratch, reduction, &forced) ==
          Decision::kLinearizable) {
        found = true;
      }
      return;
    }
    ForcedRemoval& f = forced[fixed + depth];
    const std::int32_t recorded = restricted.ops[static_cast<std::size_t>(f.op)].value;
    auto try_value = [&](std::int32_t v) {
      if (found || taken[static_cast<std::size_t>(v)]) return;
      taken[static_cast<std::size_t>(v)] = 1;
      f.value = v;
      assign(depth + 1);
      taken[static_cast<std::size_t>(v)] = 0;
    };
    auto try_none = [&] {
      if (found) return;
      f.value = kEmptyValue;
      assign(depth + 1);
    };
    if (took_other[depth]) try_none();
    if (recorded != kEmptyValue) try_value(recorded);
    for (std::size_t v = 0; v < values.size(); ++v) {
      if (static_cast<std::int32_t>(v) != recorded) try_value(static_cast<std::int32_t>(v));
    }
    if (!took_other[depth]) try_none();
  };
  assign(0);
  if (!found) {
    out.decision = Decision::kViolation;
    return out;
  }
  out.decision = Decision::kLinearizable;
  for (const ForcedRemoval& f : forced) {
    if (f.value == kEmptyValue) continue;
    out.forced.push_back(
        {origin[static_cast<std::size_t>(f.op)], values[static_cast<std::size_t>(f.value)]});
  }
  return out;
}

}  // namespace linfault::detect::internal
