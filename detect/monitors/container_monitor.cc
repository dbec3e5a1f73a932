#include "detect/monitors/container_monitor.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <queue>
#include <string_view>

#include "detect/monitors/interval_structures.h"

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

// Maps the Values that ops add or return to dense ids in Value order (integers take a fast path).
class ValueIds {
 public:
  void note(const Value* v) { pending_.push_back(v); }

  // Returns the id of every noted value, in noting order.
  std::vector<std::int32_t> assign(std::int32_t& count) {
    std::vector<std::int32_t> ids(pending_.size());
    const bool all_ints =
        std::all_of(pending_.begin(), pending_.end(), [](const Value* v) { return v->is_int(); });
    if (all_ints) {
      std::vector<std::int64_t> sorted;
      sorted.reserve(pending_.size());
      for (const Value* v : pending_) sorted.push_back(v->as_int());
      std::sort(sorted.begin(), sorted.end());
      sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
      for (std::size_t i = 0; i < pending_.size(); ++i) {
        ids[i] = static_cast<std::int32_t>(
            std::lower_bound(sorted.begin(), sorted.end(), pending_[i]->as_int()) - sorted.begin());
      }
      count = static_cast<std::int32_t>(sorted.size());
    } else {
      std::map<Value, std::int32_t> index;
      for (const Value* v : pending_) index.emplace(*v, 0);
      std::int32_t next = 0;
      for (auto& [value, id] : index) id = next++;
      for (std::size_t i = 0; i < pending_.size(); ++i) ids[i] = index.at(*pending_[i]);
      count = next;
    }
    return ids;
  }

 private:
  std::vector<const Value*> pending_;
};

// Times are scaled so that moved and synthetic events fit between recorded ones: recorded event
// e is at 4e + 2; non-trivialisation moves an add's response just before (4e + 1) and a removal's
// call just after (4e + 3) the event that bounds it.
std::int64_t scaled(history::EventIndex e) { return 4 * static_cast<std::int64_t>(e) + 2; }

struct Interval {
  std::int64_t inv;
  std::int64_t res;
};

// A complete, well-matched history: per value its add and its removal, plus peeks and ops that
// returned empty.
struct Reduced {
  std::vector<Interval> add, remove;
  std::vector<std::int32_t> peek_value;
  std::vector<Interval> peek;
  std::vector<Interval> empties;
};

// kUnder drops pending removals; kUnderRecorded lets a pending removal take effect with the result
// it eventually recorded when that is consistent with the prefix (its value was added in the
// prefix and not removed by anything else), else drops it; kOver also drops every value without
// a completed removal.
enum class Approximation { kUnder, kUnderRecorded, kOver };

struct Reduction {
  std::optional<Reduced> reduced;  // nullopt: decided already (see decision)
  PrefixDecision decision;
  bool pending_removal = false;
};

Reduction reduce(const ContainerOps& ops, std::int32_t cut, Approximation approximation) {
  Reduction out;
  const auto n_values = static_cast<std::size_t>(ops.values);
  std::vector<std::int32_t> add_op(n_values, -1), remove_op(n_values, -1);
  std::vector<std::uint8_t> remove_count(n_values, 0), observed(n_values, 0);
  std::vector<std::pair<std::int32_t, std::int32_t>> peeks;  // (value, op)
  std::vector<std::int32_t> empty_ops, pending_removals;
  auto violation = [&](std::string why) {
    out.decision = {Decision::kViolation, std::move(why)};
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
          observed[v] = 1;
        }
        break;
      case ContainerOp::Kind::kPeek:
        if (!completed) break;  // a pending peek may never take effect
        if (op.value == kEmptyValue) {
          empty_ops.push_back(index);
        } else {
          peeks.emplace_back(op.value, index);
          observed[static_cast<std::size_t>(op.value)] = 1;
        }
        break;
    }
  }

  std::vector<std::uint8_t> removal_pending(n_values, 0);
  if (approximation == Approximation::kUnderRecorded) {
    for (std::int32_t index : pending_removals) {
      const ContainerOp& op = ops.ops[static_cast<std::size_t>(index)];
      if (op.value == kEmptyValue) continue;
      const auto v = static_cast<std::size_t>(op.value);
      if (add_op[v] < 0 || remove_count[v] != 0) continue;
      remove_count[v] = 1;
      remove_op[v] = index;
      observed[v] = 1;
      removal_pending[v] = 1;
    }
  }
  const std::int64_t end = 4 * static_cast<std::int64_t>(cut) + 4;
  const std::int64_t infinity = end + 8;
  auto completed_in_cut = [&](const ContainerOp& op) {
    return op.ret != kNoReturn && op.ret < cut;
  };
  std::vector<std::int32_t> new_id(n_values, -1);
  Reduced r;
  for (std::size_t v = 0; v < n_values; ++v) {
    if (add_op[v] < 0) {
      if (observed[v]) {
        return violation("operation " + std::to_string(remove_op[v] >= 0 ? remove_op[v] : -1) +
                         " returns a value that was never added");
      }
      continue;
    }
    if (remove_count[v] > 1) return violation("a value is removed twice");
    const ContainerOp& add = ops.ops[static_cast<std::size_t>(add_op[v])];
    const bool add_completed = completed_in_cut(add);
    if (!add_completed && !observed[v]) continue;  // a pending add nobody saw: it may not happen
    if (approximation == Approximation::kOver && remove_count[v] == 0) continue;
    new_id[v] = static_cast<std::int32_t>(r.add.size());
    r.add.push_back({scaled(add.call), add_completed ? scaled(add.ret) : infinity});
    if (remove_count[v] == 1) {
      const ContainerOp& rem = ops.ops[static_cast<std::size_t>(remove_op[v])];
      r.remove.push_back({scaled(rem.call), removal_pending[v] ? infinity : scaled(rem.ret)});
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

  // Non-trivialisation: the add responds before anything else on its value does, the removal is
  // called after everything else on its value is.
  const std::size_t m = r.add.size();
  std::vector<std::int64_t> min_res(m), max_inv(m);
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
      return violation("a value is observed before it is added");
    }
    if (r.remove[v].inv >= r.remove[v].res) {
      return violation("a value is observed after it is removed");
    }
  }
  out.reduced = std::move(r);
  return out;
}

// Event keys for sweeps: (time, calls after responses) in the high bits, the payload below.
constexpr int kPayloadBits = 34;
std::uint64_t event_key(std::int64_t time, bool is_call, std::uint64_t payload) {
  return ((static_cast<std::uint64_t>(time) * 2 + (is_call ? 1 : 0)) << kPayloadBits) | payload;
}
constexpr std::uint64_t kPayloadMask = (std::uint64_t{1} << kPayloadBits) - 1;

// EmptyCheck (monitors.md §1.2, Alg. 1): every op that returned empty must overlap an instant at
// which no value is certainly present.
bool empty_ops_ok(const Reduced& r) {
  if (r.empties.empty()) return true;
  enum : std::uint64_t { kAddRes = 0, kRemoveInv = 1, kEmptyInv = 2, kEmptyRes = 3 };
  std::vector<std::uint64_t> keys, scratch;
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
  std::vector<std::uint8_t> present(r.add.size(), 0), closed(r.add.size(), 0);
  std::vector<std::uint64_t> waiting_since(r.empties.size(), 0);
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
        if (waiting_since[index] == epoch) return false;
        break;
    }
    if (present_count == 0) ++epoch;
  }
  return true;
}

// Ranks of the distinct times used by intervals; gap g lies between rank g and rank g + 1.
class TimeRanks {
 public:
  explicit TimeRanks(const Reduced& r) {
    std::vector<std::uint64_t> scratch;
    times_.reserve(4 * r.add.size() + 2 * r.peek.size());
    for (std::size_t v = 0; v < r.add.size(); ++v) {
      for (std::int64_t t : {r.add[v].inv, r.add[v].res, r.remove[v].inv, r.remove[v].res}) {
        times_.push_back(static_cast<std::uint64_t>(t));
      }
    }
    for (const Interval& p : r.peek) {
      times_.push_back(static_cast<std::uint64_t>(p.inv));
      times_.push_back(static_cast<std::uint64_t>(p.res));
    }
    radix_sort_keys(times_, scratch);
    times_.erase(std::unique(times_.begin(), times_.end()), times_.end());
  }
  std::int32_t rank(std::int64_t t) const {
    return static_cast<std::int32_t>(
        std::lower_bound(times_.begin(), times_.end(), static_cast<std::uint64_t>(t)) -
        times_.begin());
  }
  std::size_t gaps() const { return times_.empty() ? 0 : times_.size() - 1; }

 private:
  std::vector<std::uint64_t> times_;
};

// Stack: peel bottom values (monitors.md §1.4, the O(n log n) version of App. A).
bool stack_linearizable(const Reduced& r) {
  const std::size_t m = r.add.size();
  if (m == 0) return true;
  const TimeRanks ranks(r);
  const std::size_t gaps = ranks.gaps();
  // Ops: per value its push, its pop, then its peeks; live in gaps [lo, hi].
  const std::size_t n_ops = 2 * m + r.peek.size();
  std::vector<std::int32_t> op_value(n_ops), op_lo(n_ops), op_hi(n_ops);
  auto set_op = [&](std::size_t k, std::int32_t v, const Interval& i) {
    op_value[k] = v;
    op_lo[k] = ranks.rank(i.inv);
    op_hi[k] = ranks.rank(i.res) - 1;
  };
  for (std::size_t v = 0; v < m; ++v) {
    set_op(2 * v, static_cast<std::int32_t>(v), r.add[v]);
    set_op(2 * v + 1, static_cast<std::int32_t>(v), r.remove[v]);
  }
  for (std::size_t k = 0; k < r.peek.size(); ++k) set_op(2 * m + k, r.peek_value[k], r.peek[k]);
  std::vector<std::int32_t> remaining(m, 2);
  for (std::int32_t v : r.peek_value) ++remaining[static_cast<std::size_t>(v)];

  // Two stabbing indexes over the same ops: all ops by lo, and per value (blocks) by lo.
  std::vector<std::int32_t> by_lo(n_ops), by_value(n_ops);
  for (std::size_t k = 0; k < n_ops; ++k) by_lo[k] = by_value[k] = static_cast<std::int32_t>(k);
  std::sort(by_lo.begin(), by_lo.end(),
            [&](std::int32_t a, std::int32_t b) { return op_lo[a] < op_lo[b]; });
  std::sort(by_value.begin(), by_value.end(), [&](std::int32_t a, std::int32_t b) {
    return op_value[a] != op_value[b] ? op_value[a] < op_value[b] : op_lo[a] < op_lo[b];
  });
  std::vector<std::int32_t> position_lo(n_ops), position_value(n_ops);
  std::vector<std::size_t> block_begin(m + 1, 0);
  auto ordered = [&](const std::vector<std::int32_t>& order, std::vector<std::int32_t>& position) {
    std::vector<std::int32_t> lo(n_ops), hi(n_ops);
    for (std::size_t p = 0; p < n_ops; ++p) {
      const auto k = static_cast<std::size_t>(order[p]);
      position[k] = static_cast<std::int32_t>(p);
      lo[p] = op_lo[k];
      hi[p] = op_hi[k];
    }
    return StabIndex(std::move(lo), hi);
  };
  StabIndex all_ops = ordered(by_lo, position_lo);
  StabIndex value_ops = ordered(by_value, position_value);
  for (std::size_t p = 0; p < n_ops; ++p)
    ++block_begin[static_cast<std::size_t>(op_value[by_value[p]]) + 1];
  for (std::size_t v = 0; v < m; ++v) block_begin[v + 1] += block_begin[v];

  // Count of critical windows CI_v = [res(push_v), inv(pop_v)] over each gap, plus 1 for a gap
  // already used at count 1 and a large mark for a gap used at count 0.
  constexpr std::int64_t kUsedUp = std::int64_t{1} << 40;
  MinCountTree key(gaps);
  RangeAddPoint id_sum(gaps);
  std::vector<std::int32_t> ci_lo(m), ci_hi(m);
  for (std::size_t v = 0; v < m; ++v) {
    ci_lo[v] = ranks.rank(r.add[v].res);
    ci_hi[v] = ranks.rank(r.remove[v].inv) - 1;
    if (ci_lo[v] <= ci_hi[v]) {
      key.add(static_cast<std::size_t>(ci_lo[v]), static_cast<std::size_t>(ci_hi[v]), 1);
      id_sum.add(static_cast<std::size_t>(ci_lo[v]), static_cast<std::size_t>(ci_hi[v]),
                 static_cast<std::int64_t>(v));
    }
  }
  std::vector<std::uint8_t> used_at_one(gaps, 0);
  std::size_t alive = m;
  std::vector<std::int32_t> finished;
  auto finish = [&](std::size_t k) {
    all_ops.deactivate(static_cast<std::size_t>(position_lo[k]));
    value_ops.deactivate(static_cast<std::size_t>(position_value[k]));
    const auto v = static_cast<std::size_t>(op_value[k]);
    if (--remaining[v] == 0) {
      --alive;
      if (ci_lo[v] <= ci_hi[v]) {
        key.add(static_cast<std::size_t>(ci_lo[v]), static_cast<std::size_t>(ci_hi[v]), -1);
        id_sum.add(static_cast<std::size_t>(ci_lo[v]), static_cast<std::size_t>(ci_hi[v]),
                   -static_cast<std::int64_t>(v));
      }
    }
  };
  while (alive > 0) {
    if (gaps == 0 || key.min() > 1) return false;
    const std::size_t g = key.argmin();
    const std::int64_t count = key.min() - used_at_one[g];
    const auto point = static_cast<std::int32_t>(g);
    finished.clear();
    if (count == 0) {
      all_ops.stab(0, n_ops, point, [&](std::size_t p) {
        finished.push_back(by_lo[p]);
        all_ops.deactivate(p);
      });
      key.add(g, g, kUsedUp);
    } else {
      const auto u = static_cast<std::size_t>(id_sum.at(g));
      value_ops.stab(block_begin[u], block_begin[u + 1], point, [&](std::size_t p) {
        finished.push_back(by_value[p]);
        value_ops.deactivate(p);
      });
      used_at_one[g] = 1;
      key.add(g, g, 1);
    }
    for (std::int32_t k : finished) finish(static_cast<std::size_t>(k));
  }
  return true;
}

// Walks an order of values (by some key, descending) and keeps the two largest alive ones.
class TopTwo {
 public:
  TopTwo(std::vector<std::int32_t> order, const std::vector<std::uint8_t>& alive)
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
  std::vector<std::int32_t> order_;
  const std::vector<std::uint8_t>& alive_;
  std::size_t first_ = 0;
  std::size_t second_ = 0;
};

std::vector<std::int32_t> descending_by(const std::vector<std::int64_t>& key) {
  std::vector<std::int32_t> order(key.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::int32_t>(i);
  std::sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
    return key[static_cast<std::size_t>(a)] > key[static_cast<std::size_t>(b)];
  });
  return order;
}

// Queue: peel the values that may have been enqueued last (monitors.md §1.5, incremental).
bool queue_linearizable(const Reduced& r) {
  const std::size_t m = r.add.size();
  std::vector<std::int64_t> enq_inv(m), enq_res(m), min_observer_res(m), max_inv(m);
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
  std::vector<std::uint8_t> alive(m, 1), enq_ok(m, 0), observers_ok(m, 0);
  TopTwo latest_enq_call(descending_by(enq_inv), alive);
  TopTwo latest_call(descending_by(max_inv), alive);
  const std::vector<std::int32_t> by_enq_res = descending_by(enq_res);
  const std::vector<std::int32_t> by_observer_res = descending_by(min_observer_res);
  std::size_t scan_enq = 0, scan_observer = 0;
  std::vector<std::int32_t> ready;
  std::size_t remaining = m;
  // Threshold "max over the other alive values" of `key`.
  auto others_max = [](const TopTwo& top, const std::vector<std::int64_t>& key, std::int32_t v) {
    const std::int32_t holder = top.first_value() == v ? top.second_value() : top.first_value();
    return holder < 0 ? std::numeric_limits<std::int64_t>::min()
                      : key[static_cast<std::size_t>(holder)];
  };
  auto qualify = [&](std::int32_t v, std::vector<std::uint8_t>& flag,
                     const std::vector<std::uint8_t>& other_flag) {
    flag[static_cast<std::size_t>(v)] = 1;
    if (other_flag[static_cast<std::size_t>(v)]) ready.push_back(v);
  };
  // Advances one criterion: values by `key` descending pass while key > max over the others.
  auto sweep = [&](const std::vector<std::int32_t>& order, std::size_t& scan,
                   const std::vector<std::int64_t>& key, const TopTwo& top,
                   const std::vector<std::int64_t>& threshold_key, std::vector<std::uint8_t>& flag,
                   const std::vector<std::uint8_t>& other_flag) {
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
    if (ready.empty()) return false;
    for (std::int32_t v : ready) {
      alive[static_cast<std::size_t>(v)] = 0;
      --remaining;
    }
    ready.clear();
  }
  return true;
}

// Priority queue: one sweep (monitors.md §1.6). Value ids are in priority order.
bool priority_queue_linearizable(const Reduced& r) {
  const std::size_t m = r.add.size();
  // Ops: 0..m-1 adds, m..2m-1 polls, then peeks.
  const std::size_t n_ops = 2 * m + r.peek.size();
  auto value_of = [&](std::size_t k) -> std::size_t {
    return k < 2 * m ? k % m : static_cast<std::size_t>(r.peek_value[k - 2 * m]);
  };
  auto interval_of = [&](std::size_t k) -> const Interval& {
    return k < m ? r.add[k] : k < 2 * m ? r.remove[k - m] : r.peek[k - 2 * m];
  };
  std::vector<std::uint64_t> keys, scratch;
  keys.reserve(2 * n_ops);
  for (std::size_t k = 0; k < n_ops; ++k) {
    keys.push_back(event_key(interval_of(k).inv, true, k));
    keys.push_back(event_key(interval_of(k).res, false, k));
  }
  radix_sort_keys(keys, scratch);
  std::vector<std::uint8_t> crit(m, 0), ended(m, 0), running(m, 0);
  std::priority_queue<std::int32_t> crit_heap;  // lazily deleted
  std::size_t crit_count = 0;
  std::vector<std::int32_t> running_heap;       // max-heap of values with unplaced ops
  std::vector<std::uint32_t> generation(m, 0);  // bumped when a value's unplaced ops get placed
  std::vector<std::uint32_t> op_generation(n_ops, 0);
  std::uint64_t clear_epoch = 0;
  std::vector<std::uint64_t> op_epoch(n_ops, 0);
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

bool linearizable(ContainerKind kind, const Reduced& r) {
  if (!empty_ops_ok(r)) return false;
  switch (kind) {
    case ContainerKind::kStack:
      return stack_linearizable(r);
    case ContainerKind::kQueue:
      return queue_linearizable(r);
    case ContainerKind::kPriorityQueue:
      return priority_queue_linearizable(r);
  }
  return false;
}

Decision decide(const ContainerOps& ops, std::int32_t cut, Approximation approximation,
                Reduction& reduction) {
  reduction = reduce(ops, cut, approximation);
  if (!reduction.reduced) return reduction.decision.decision;
  return linearizable(ops.kind, *reduction.reduced) ? Decision::kLinearizable
                                                    : Decision::kViolation;
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
  for (std::size_t i = 0; i < history.size(); ++i) {
    const history::Operation& op = history.operations()[i];
    ContainerOp& c = out.ops[i];
    c.call = op.call_event;
    c.ret = op.return_event == history::kNoEvent ? kNoReturn : op.return_event;
    c.failed = op.outcome == history::Outcome::kFail;
    const std::string& method = op.call.method;
    const auto where = "operation " + std::to_string(i) + " (" + op.call.to_string() + "): ";
    if (among(names.add, method)) {
      c.kind = ContainerOp::Kind::kAdd;
      if (op.call.args.size() != 1 || op.call.args[0].is_nil()) {
        return where + "expected one non-nil argument";
      }
      if (kind == ContainerKind::kPriorityQueue && !op.call.args[0].is_int()) {
        return where + "priority-queue values must be integers";
      }
      ids.note(&op.call.args[0]);
      noted_ops.push_back(i);
      continue;
    }
    if (among(names.remove, method)) {
      c.kind = ContainerOp::Kind::kRemove;
    } else if (among(names.peek, method)) {
      c.kind = ContainerOp::Kind::kPeek;
    } else {
      return std::string(kind_name(kind)) + " has no method '" + method + "'";
    }
    if (!op.call.args.empty()) return where + "expected no arguments";
    if (op.outcome == history::Outcome::kOk && !op.result.is_nil()) {
      if (kind == ContainerKind::kPriorityQueue && !op.result.is_int()) {
        return where + "priority-queue values must be integers";
      }
      ids.note(&op.result);
      noted_ops.push_back(i);
    }
  }
  const std::vector<std::int32_t> assigned = ids.assign(out.values);
  for (std::size_t k = 0; k < noted_ops.size(); ++k) out.ops[noted_ops[k]].value = assigned[k];
  return out;
}

PrefixDecision decide_container_prefix(const ContainerOps& ops, std::int32_t cut) {
  Reduction under;
  const Decision u = decide(ops, cut, Approximation::kUnder, under);
  if (u == Decision::kUnsupported) return under.decision;
  if (u == Decision::kLinearizable || !under.pending_removal) return {u, under.decision.reason};
  Reduction recorded;
  if (decide(ops, cut, Approximation::kUnderRecorded, recorded) == Decision::kLinearizable) {
    return {Decision::kLinearizable, ""};
  }
  Reduction over;
  if (decide(ops, cut, Approximation::kOver, over) == Decision::kViolation) {
    return {Decision::kViolation, over.decision.reason};
  }
  return {Decision::kUncertain, "a pending removal may explain the history"};
}

}  // namespace linfault::detect::internal
